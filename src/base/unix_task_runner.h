// UnixTaskRunner: a TaskRunner run by the thread that calls Run(), until
// Quit(). An epoll set watches the fds and an eventfd; other threads post
// under a lock and wake the loop through the eventfd at once. Delayed tasks
// follow the steady clock.
//
// One loop iteration: wait in epoll (not at all if a task is runnable, else
// until the next deadline, else unbounded); run the callbacks of each ready
// fd once (its read callback, then its one-shot write callback); move the
// delayed tasks now due to the back of the immediate queue; run up to
// kMaxTasksPerIteration immediate tasks. So a flood of posted tasks delays fd
// callbacks by at most one batch and due delayed tasks by at most the tasks
// queued before them, and an always-readable fd runs once per batch of tasks
// instead of starving them.
//
// Threading: PostTask, PostDelayedTask, the fd watches' Add/Remove,
// Quit and RunsTasksOnCurrentThread are thread-safe; Run() is called by one
// thread at a time. Costs: a post takes a lock and, if the loop has not been
// woken since it last looked, one write(2); an iteration costs an
// epoll_wait(2) and a lock per task.

#ifndef ZT_SRC_BASE_UNIX_TASK_RUNNER_H_
#define ZT_SRC_BASE_UNIX_TASK_RUNNER_H_

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "src/base/delayed_task_queue.h"
#include "src/base/poller.h"
#include "zt/base/task_runner.h"

namespace zt {
namespace base {

class UnixTaskRunner : public TaskRunner {
 public:
  // Tasks per iteration between two looks at the fds and the clock.
  static constexpr size_t kMaxTasksPerIteration = 32;

  UnixTaskRunner();
  // Not while Run() runs. Pending tasks and watches are dropped: their
  // captures are destroyed here, on the destroying thread, and must not
  // post to this runner.
  ~UnixTaskRunner() override;

  UnixTaskRunner(const UnixTaskRunner&) = delete;
  UnixTaskRunner& operator=(const UnixTaskRunner&) = delete;

  // Runs tasks and fd callbacks on the calling thread until Quit(). Not
  // reentrant (aborts if called from a task).
  void Run();

  // Makes Run() return after the task or callback running now (if any);
  // the tasks still queued stay queued for a later Run(). Called before
  // Run(), that Run() returns at once. Thread-safe, callable from a task.
  void Quit();

  // TaskRunner.
  void PostTask(std::function<void()> task) override;
  void PostDelayedTask(std::function<void()> task, uint32_t delay_ms) override;
  void AddFileDescriptorWatch(int fd, std::function<void()> callback) override;
  bool AddEdgeTriggeredFileDescriptorWatch(int fd, std::function<void()> callback) override;
  void AddFileDescriptorWritableWatch(int fd,
                                      std::function<void()> callback) override;
  void RemoveFileDescriptorWatch(int fd) override;
  // True on the thread inside Run(); outside Run(), on the thread that last
  // ran it, or before that the thread that constructed the runner (so a
  // program can set its components up before it calls Run()).
  bool RunsTasksOnCurrentThread() const override;

 private:
  using Clock = std::chrono::steady_clock;

  // How long the loop may block in epoll: 0 if a task is runnable, until
  // the next deadline (rounded up: never wakes early to find nothing due),
  // or -1 (unbounded).
  int PollTimeoutMs();
  void RunDueAndImmediateTasks();

  Poller poller_;
  std::atomic<std::thread::id> run_thread_;
  std::atomic<bool> running_{false};
  std::atomic<bool> quit_{false};

  std::mutex mutex_;  // Guards the queues.
  std::deque<std::function<void()>> immediate_;
  DelayedTaskQueue<Clock::time_point> delayed_;
};

}  // namespace base
}  // namespace zt

#endif  // ZT_SRC_BASE_UNIX_TASK_RUNNER_H_
