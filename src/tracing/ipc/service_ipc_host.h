// ServiceIpcHost: a TracingService reachable over UNIX sockets, what
// ztraced runs: a "ProducerPort" host on one socket and a "ConsumerPort"
// host on the other (docs/design/ipc.md), producers' SMBs made as memfds.
//
// Threading: create, use and destroy on |runner|'s thread.
#ifndef ZT_SRC_TRACING_IPC_SERVICE_IPC_HOST_H_
#define ZT_SRC_TRACING_IPC_SERVICE_IPC_HOST_H_

#include <memory>
#include <string>

#include "src/ipc/host.h"
#include "src/tracing/ipc/producer_port.h"
#include "src/tracing/service/service_limits.h"
#include "zt/base/task_runner.h"
#include "zt/ext/tracing/core/tracing_service.h"

namespace zt {

class ServiceIpcHost {
 public:
  // Listens on both addresses (paths or '@' abstract names). Null, with a
  // log line saying why, if either cannot be listened on.
  // |limits|: what one uid or producer may make the service hold.
  static std::unique_ptr<ServiceIpcHost> Listen(const std::string& producer_address,
                                                const std::string& consumer_address,
                                                base::TaskRunner* runner,
                                                const ServiceLimits& limits = ServiceLimits());
  // Without sockets: clients are adopted (socketpairs, tests, fuzzers).
  static std::unique_ptr<ServiceIpcHost> CreateUnbound(
      base::TaskRunner* runner, const ServiceLimits& limits = ServiceLimits());
  ~ServiceIpcHost();

  ipc::Host* producer_host() { return producer_host_.get(); }
  ipc::Host* consumer_host() { return consumer_host_.get(); }
  TracingService* service() { return service_.get(); }
  const ProducerPortStats& producer_port_stats() const { return *producer_port_stats_; }
  // What the limits refused, over both ports.
  ServiceLimitStats limit_stats() const;

 private:
  ServiceIpcHost() = default;
  bool Init(base::TaskRunner* runner, std::unique_ptr<ipc::Host> producer_host,
            std::unique_ptr<ipc::Host> consumer_host, const ServiceLimits& limits);

  // Destroyed in reverse: the hosts (and with them the ports' endpoints)
  // before the service.
  std::unique_ptr<TracingService> service_;
  std::shared_ptr<ProducerPortStats> producer_port_stats_ = std::make_shared<ProducerPortStats>();
  std::unique_ptr<ipc::Host> producer_host_;
  std::unique_ptr<ipc::Host> consumer_host_;
};

}  // namespace zt

#endif  // ZT_SRC_TRACING_IPC_SERVICE_IPC_HOST_H_
