#include "src/tracing/ipc/service_ipc_host.h"

#include <utility>

#include "src/base/memfd_shared_memory.h"
#include "src/tracing/ipc/consumer_port.h"
#include "src/tracing/ipc/producer_port.h"
#include "src/tracing/service/tracing_service_impl.h"
#include "zt/base/logging.h"

namespace zt {

std::unique_ptr<ServiceIpcHost> ServiceIpcHost::Listen(const std::string& producer_address,
                                                       const std::string& consumer_address,
                                                       base::TaskRunner* runner,
                                                       const ServiceLimits& limits) {
  std::unique_ptr<ipc::Host> producer_host = ipc::Host::Listen(producer_address, runner);
  if (!producer_host)
    return nullptr;  // UnixSocket logged why.
  std::unique_ptr<ipc::Host> consumer_host = ipc::Host::Listen(consumer_address, runner);
  if (!consumer_host)
    return nullptr;
  std::unique_ptr<ServiceIpcHost> host(new ServiceIpcHost());
  if (!host->Init(runner, std::move(producer_host), std::move(consumer_host), limits))
    return nullptr;
  return host;
}

std::unique_ptr<ServiceIpcHost> ServiceIpcHost::CreateUnbound(base::TaskRunner* runner,
                                                              const ServiceLimits& limits) {
  std::unique_ptr<ServiceIpcHost> host(new ServiceIpcHost());
  if (!host->Init(runner, ipc::Host::CreateUnbound(), ipc::Host::CreateUnbound(), limits))
    return nullptr;
  return host;
}

ServiceIpcHost::~ServiceIpcHost() {
  // The ports hold endpoints of the service: they go first.
  producer_host_.reset();
  consumer_host_.reset();
}

bool ServiceIpcHost::Init(base::TaskRunner* runner, std::unique_ptr<ipc::Host> producer_host,
                          std::unique_ptr<ipc::Host> consumer_host, const ServiceLimits& limits) {
  // Producers in other processes map their SMB from the memfd we send.
  service_ = TracingService::Create(runner, std::make_unique<base::MemfdSharedMemory::Factory>());
  // TracingService has one implementation (TracingService::Create makes it).
  static_cast<TracingServiceImpl*>(service_.get())->set_limits(limits);
  producer_host_ = std::move(producer_host);
  consumer_host_ = std::move(consumer_host);
  ipc::Host::Limits host_limits;
  host_limits.max_clients_per_uid = limits.max_connections_per_uid;
  host_limits.max_large_frame_bytes_per_uid = limits.max_large_frame_bytes_per_uid;
  producer_host_->set_limits(host_limits);
  consumer_host_->set_limits(host_limits);
  return producer_host_->ExposeService(CreateProducerPort(service_.get(), runner, producer_port_stats_, limits)) &&
         consumer_host_->ExposeService(CreateConsumerPort(service_.get(), runner));
}

ServiceLimitStats ServiceIpcHost::limit_stats() const {
  ServiceLimitStats stats = static_cast<const TracingServiceImpl*>(service_.get())->limit_stats();
  stats.data_sources_refused = producer_port_stats_->data_sources_refused;
  stats.producers_refused = producer_port_stats_->producers_refused;
  stats.connections_refused = producer_host_->stats().clients_refused_over_limits +
                              consumer_host_->stats().clients_refused_over_limits;
  return stats;
}

}  // namespace zt
