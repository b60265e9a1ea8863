#include "src/base/test/wait.h"

#include <chrono>
#include <memory>
#include <thread>
#include <utility>

#include "zt/base/task_runner.h"

namespace zt {
namespace base {

bool WaitFor(const std::function<bool()>& condition, uint32_t timeout_ms) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline =
      Clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    if (condition())
      return true;
    if (Clock::now() >= deadline)
      return condition();  // The last chance, after the deadline.
    // Polling, not a condition variable: the condition may read anything
    // (an atomic, a file). 1 ms keeps a test's latency low and the CPU
    // mostly free for the threads it waits on.
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

bool WaitFor(std::mutex& mutex, std::condition_variable& cv,
             const std::function<bool()>& condition, uint32_t timeout_ms) {
  std::unique_lock<std::mutex> lock(mutex);
  return cv.wait_for(lock, std::chrono::milliseconds(timeout_ms), condition);
}

bool PostAndWaitFor(TaskRunner* runner, std::function<void()> task,
                    uint32_t timeout_ms) {
  // Shared: after a timeout the task may still run, after this frame is gone.
  auto done = std::make_shared<TestEvent>();
  runner->PostTask([done, task = std::move(task)] {
    task();
    done->Notify();
  });
  return done->Wait(timeout_ms);
}

void TestEvent::Notify() {
  std::lock_guard<std::mutex> lock(mutex_);
  notified_ = true;
  cv_.notify_all();
}

bool TestEvent::notified() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return notified_;
}

bool TestEvent::Wait(uint32_t timeout_ms) {
  std::unique_lock<std::mutex> lock(mutex_);
  return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                      [this] { return notified_; });
}

}  // namespace base
}  // namespace zt
