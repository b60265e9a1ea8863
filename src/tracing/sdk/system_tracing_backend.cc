// The system backend: producers and consumers of this process reach a
// tracing daemon over its UNIX sockets (docs/design/ipc.md). Connecting is
// asynchronous; a daemon that is not running, or goes away, is the
// producer's business (it reconnects, see TracingMuxerImpl::ProducerImpl).

#include <utility>

#include "src/base/memfd_shared_memory.h"
#include "src/tracing/ipc/consumer_ipc_client.h"
#include "src/tracing/ipc/default_socket.h"
#include "src/tracing/ipc/producer_ipc_client.h"
#include "src/tracing/sdk/tracing_backend.h"

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
  std::string Describe() const override { return "producer socket " + producer_socket_; }

 private:
  std::string producer_socket_;
};

}  // namespace internal
}  // namespace zt

zt::internal::TracingBackend* zt_create_system_tracing_backend() {
  return new zt::internal::SystemTracingBackend();
}
