#include "src/tracing/sdk/tracing_backend.h"

#include "src/base/heap_shared_memory.h"
#include "zt/base/logging.h"

namespace zt {
namespace internal {

TracingBackend::~TracingBackend() = default;

bool TracingBackend::OnProducerDisconnected(bool, base::TaskRunner*,
                                            std::function<void()>) {
  return false;
}

InProcessTracingBackend::InProcessTracingBackend(base::TaskRunner* task_runner)
    : task_runner_(task_runner), service_(TracingService::Create(task_runner)) {}

InProcessTracingBackend::~InProcessTracingBackend() = default;

std::unique_ptr<ProducerEndpoint> InProcessTracingBackend::ConnectProducer(
    const ConnectProducerArgs& args) {
  ZT_CHECK(args.task_runner == task_runner_);  // One thread for all.
  return service_->ConnectProducer(args.producer, args.options);
}

std::unique_ptr<ConsumerEndpoint> InProcessTracingBackend::ConnectConsumer(
    const ConnectConsumerArgs& args) {
  ZT_CHECK(args.task_runner == task_runner_);
  return service_->ConnectConsumer(args.consumer, args.uid);
}

std::shared_ptr<base::SharedMemory> InProcessTracingBackend::CreateSharedMemory(size_t size) {
  return base::HeapSharedMemory::Create(size);
}

}  // namespace internal
}  // namespace zt
