#include "src/base/unix_task_runner.h"

#include <algorithm>
#include <climits>
#include <utility>

#include "zt/base/logging.h"

namespace zt {
namespace base {

UnixTaskRunner::UnixTaskRunner() : run_thread_(std::this_thread::get_id()) {}

UnixTaskRunner::~UnixTaskRunner() {
  ZT_CHECK(!running_.load());
}

void UnixTaskRunner::Run() {
  if (running_.exchange(true))
    ZT_FATAL("UnixTaskRunner::Run() called while it runs (from a task?)");
  run_thread_.store(std::this_thread::get_id());
  auto quit_requested = [this] { return quit_.load(); };
  while (!quit_requested()) {
    poller_.Poll(PollTimeoutMs());
    poller_.RunReady(quit_requested);
    RunDueAndImmediateTasks();
  }
  quit_.store(false);  // Consumed: a later Run() runs until the next Quit().
  running_.store(false);
}

void UnixTaskRunner::Quit() {
  quit_.store(true);
  poller_.Wake();
}

int UnixTaskRunner::PollTimeoutMs() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!immediate_.empty())
    return 0;
  if (delayed_.empty())
    return -1;
  const Clock::duration left = delayed_.next_deadline() - Clock::now();
  if (left <= Clock::duration::zero())
    return 0;
  // Rounded up: waking a little before the deadline would spin.
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
  return static_cast<int>(std::min<decltype(ms)>(ms, INT_MAX));
}

void UnixTaskRunner::RunDueAndImmediateTasks() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    delayed_.MoveDueTo(Clock::now(), &immediate_);
  }
  for (size_t i = 0; i < kMaxTasksPerIteration; i++) {
    std::function<void()> task;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (immediate_.empty() || quit_.load())
        return;
      task = std::move(immediate_.front());
      immediate_.pop_front();
    }
    task();
    // |task| and its captures are destroyed here, unlocked, on this thread.
  }
}

void UnixTaskRunner::PostTask(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    immediate_.push_back(std::move(task));
  }
  poller_.Wake();
}

void UnixTaskRunner::PostDelayedTask(std::function<void()> task,
                                     uint32_t delay_ms) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    delayed_.Push(Clock::now() + std::chrono::milliseconds(delay_ms),
                  std::move(task));
  }
  // The loop may be sleeping until a later deadline.
  poller_.Wake();
}

void UnixTaskRunner::AddFileDescriptorWatch(int fd,
                                            std::function<void()> callback) {
  // epoll_wait sees the new fd even while it blocks: no wake needed.
  poller_.Add(fd, std::move(callback));
}

bool UnixTaskRunner::AddEdgeTriggeredFileDescriptorWatch(int fd,
                                                         std::function<void()> callback) {
  poller_.Add(fd, std::move(callback), /*edge_triggered=*/true);
  return true;
}

void UnixTaskRunner::AddFileDescriptorWritableWatch(
    int fd, std::function<void()> callback) {
  // As for a new fd, epoll_wait sees a changed interest while it blocks.
  poller_.AddWritable(fd, std::move(callback));
}

void UnixTaskRunner::RemoveFileDescriptorWatch(int fd) {
  poller_.Remove(fd);
}

bool UnixTaskRunner::RunsTasksOnCurrentThread() const {
  return run_thread_.load() == std::this_thread::get_id();
}

}  // namespace base
}  // namespace zt
