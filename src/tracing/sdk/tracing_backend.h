// TracingBackend: how the SDK reaches a tracing service. The muxer connects
// one producer per backend (the process's data sources) and one consumer per
// TracingSession; everything else about where the service runs is the
// backend's business. InProcessTracingBackend (below) runs a TracingService
// on the SDK's own task runner; the system backend (a daemon over a UNIX
// socket, system_tracing_backend.cc) is a second implementation whose
// endpoints are IPC proxies.

#ifndef ZT_SRC_TRACING_SDK_TRACING_BACKEND_H_
#define ZT_SRC_TRACING_SDK_TRACING_BACKEND_H_

#include <functional>
#include <memory>

#include "zt/base/task_runner.h"
#include "zt/ext/tracing/core/tracing_service.h"

namespace zt {
namespace internal {

class TracingBackend {
 public:
  virtual ~TracingBackend();

  struct ConnectProducerArgs {
    Producer* producer = nullptr;  // Called back on |task_runner|.
    base::TaskRunner* task_runner = nullptr;
    // Name, credentials, SMB hints and (in process) the SMB itself.
    TracingService::ProducerOptions options;
  };
  // The endpoint is used, and destroyed, on |args.task_runner| only.
  virtual std::unique_ptr<ProducerEndpoint> ConnectProducer(
      const ConnectProducerArgs& args) = 0;

  struct ConnectConsumerArgs {
    Consumer* consumer = nullptr;  // Called back on |task_runner|.
    base::TaskRunner* task_runner = nullptr;
    int32_t uid = -1;
  };
  virtual std::unique_ptr<ConsumerEndpoint> ConnectConsumer(
      const ConnectConsumerArgs& args) = 0;

  // A zeroed, page-aligned region the producer provides as its SMB: memory
  // the service can see (heap in process, a memfd for a daemon). Null (and
  // a log line) if it cannot be made.
  virtual std::shared_ptr<base::SharedMemory> CreateSharedMemory(size_t size) = 0;

  // A producer's connection ended, or never came (|was_connected| false).
  // A backend whose service can come back (a daemon) says so once and
  // runs |reconnect| later, on the producer's runner; true then. The
  // in-process service goes only with its backend: false.
  virtual bool OnProducerDisconnected(bool was_connected, base::TaskRunner* runner,
                                      std::function<void()> reconnect);
};



// The tracing service inside this process, on the task runner the muxer
// gives it (where every endpoint is used too). Destroying the backend
// destroys the service: every endpoint must be gone first.
class InProcessTracingBackend : public TracingBackend {
 public:
  // Must be constructed, used and destroyed on |task_runner|'s thread.
  explicit InProcessTracingBackend(base::TaskRunner* task_runner);
  ~InProcessTracingBackend() override;

  std::unique_ptr<ProducerEndpoint> ConnectProducer(
      const ConnectProducerArgs& args) override;
  std::unique_ptr<ConsumerEndpoint> ConnectConsumer(
      const ConnectConsumerArgs& args) override;
  std::shared_ptr<base::SharedMemory> CreateSharedMemory(size_t size) override;
  TracingService* service() const { return service_.get(); }

 private:
  base::TaskRunner* const task_runner_;
  std::unique_ptr<TracingService> service_;
};

}  // namespace internal
}  // namespace zt

// The system backend: a daemon (ztraced, or upstream's traced) on the
// producer and consumer sockets (src/tracing/ipc/default_socket.h), in its
// own library (zt_tracing_system, system_tracing_backend.cc). Weak: null
// unless that library is linked. The caller owns the result.
extern "C" zt::internal::TracingBackend* zt_create_system_tracing_backend()
    __attribute__((weak));

#endif  // ZT_SRC_TRACING_SDK_TRACING_BACKEND_H_
