// The system backend: producers and consumers of this process reach a
// tracing daemon over its UNIX sockets (docs/design/ipc.md). Connecting is
// asynchronous; a daemon that is not running, or goes away, is the
// producer's business (it reconnects, see TracingMuxerImpl::ProducerImpl).

#include <algorithm>
#include <utility>

#include "src/base/memfd_shared_memory.h"
#include "src/tracing/ipc/consumer_ipc_client.h"
#include "src/tracing/ipc/default_socket.h"
#include "src/tracing/ipc/producer_ipc_client.h"
#include "src/tracing/sdk/tracing_backend.h"
#include "zt/base/logging.h"
#include "zt/tracing/tracing.h"

namespace zt {
namespace internal {

class SystemTracingBackend : public TracingBackend {
 public:
  std::unique_ptr<ProducerEndpoint> ConnectProducer(const ConnectProducerArgs& args) override {
    producer_socket_ = GetProducerSocket();
    return ProducerIpcClient::Connect(producer_socket_, args.producer, args.task_runner,
                                      args.options);
  }
  std::unique_ptr<ConsumerEndpoint> ConnectConsumer(const ConnectConsumerArgs& args) override {
    return ConsumerIpcClient::Connect(GetConsumerSocket(), args.consumer, args.task_runner);
  }
  std::shared_ptr<base::SharedMemory> CreateSharedMemory(size_t size) override {
    return base::MemfdSharedMemory::Create(size);
  }
  // Says once that no daemon runs, or that it went, and retries with
  // backoff: 100 ms doubling to 5 s, back to 100 ms once connected.
  bool OnProducerDisconnected(bool was_connected, base::TaskRunner* runner,
                              std::function<void()> reconnect) override {
    if (was_connected) {
      ZT_WLOG("zerotrace: the tracing service went away; reconnecting");
      told_no_service_ = false;
      delay_ms_ = kFirstDelayMs;
    } else if (!told_no_service_) {
      ZT_ILOG("zerotrace: no tracing service is running (producer socket %s); "
              "system tracing starts when one does", producer_socket_.c_str());
      told_no_service_ = true;
    }
    runner->PostDelayedTask(std::move(reconnect), delay_ms_);
    delay_ms_ = std::min(delay_ms_ * 2, kMaxDelayMs);
    return true;
  }

 private:
  static constexpr uint32_t kFirstDelayMs = 100;
  static constexpr uint32_t kMaxDelayMs = 5000;
  std::string producer_socket_;
  bool told_no_service_ = false;
  uint32_t delay_ms_ = kFirstDelayMs;
};

// What kSystemBackend converts to (zt/tracing/tracing.h). Only this
// library defines it: a program naming kSystemBackend links with it or not
// at all, and reading it pulls this object, with the factory below, in.
extern "C" const uint32_t zt_kSystemBackend_needs_zerotrace_tracing_system = kSystemBackendBit;

}  // namespace internal
}  // namespace zt

zt::internal::TracingBackend* zt_create_system_tracing_backend() {
  return new zt::internal::SystemTracingBackend();
}
