#include "zt/base/task_runner.h"

#include <utility>

namespace zt {
namespace base {

TaskRunner::~TaskRunner() = default;

bool TaskRunner::AddEdgeTriggeredFileDescriptorWatch(int fd, std::function<void()> callback) {
  AddFileDescriptorWatch(fd, std::move(callback));
  return false;  // Level-triggered: the caller consumes the readiness.
}

void TaskRunner::AddFileDescriptorWritableWatch(
    int /*fd*/, std::function<void()> callback) {
  // The fallback: poll. 1 ms keeps a stalled sender's latency low without
  // spinning; the callback tries to send and comes back here on EAGAIN.
  PostDelayedTask(std::move(callback), 1);
}

}  // namespace base
}  // namespace zt
