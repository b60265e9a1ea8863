#include "src/base/test/wait.h"

#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

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

int CurrentThreadId() { return static_cast<int>(syscall(SYS_gettid)); }

namespace {

// The system call thread |tid| is blocked in, or -1 (running, or unknown).
long BlockedSyscall(int tid) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
  FILE* file = fopen(path, "re");
  if (!file)
    return -1;
  long number = -1;
  if (fscanf(file, "%ld", &number) != 1)  // "running" does not parse.
    number = -1;
  fclose(file);
  return number;
}

bool IsPollSyscall(long number) {
  switch (number) {
#ifdef SYS_poll
    case SYS_poll:
#endif
#ifdef SYS_select
    case SYS_select:
#endif
#ifdef SYS_epoll_wait
    case SYS_epoll_wait:
#endif
#ifdef SYS_epoll_pwait2
    case SYS_epoll_pwait2:
#endif
    case SYS_ppoll:
    case SYS_pselect6:
    case SYS_epoll_pwait:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool WaitUntilBlockedInPoll(int tid, uint32_t timeout_ms) {
  return WaitFor([tid] { return IsPollSyscall(BlockedSyscall(tid)); }, timeout_ms);
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
