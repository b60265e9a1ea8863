// TestTaskRunner: a TaskRunner on VIRTUAL time, driven by the test's own
// thread, so that periodic work (flush every N ms, write into the file
// every N ms) is tested deterministically and in no wall time:
//
//   TestTaskRunner runner;
//   auto service = TracingService::Create(&runner);
//   ...
//   runner.AdvanceTimeAndRunUntilIdle(1000);   // ten 100 ms periods, at once
//   ASSERT_TRUE(runner.RunUntil([&] { return done; }))
//       << "the writer threads' commits never arrived";
//
// Nothing runs by itself: tasks and fd callbacks run only inside
// RunUntilIdle(), AdvanceTimeAndRunUntilIdle() and RunUntil(), on the
// calling thread. Virtual time starts at 0 and moves only in
// AdvanceTimeAndRunUntilIdle(); a delayed task posted with delay d at
// virtual time t is due at t + d. Ordering is TaskRunner's (FIFO; delayed by
// deadline, then posting order; a due task after the tasks already queued).
//
// Threading: PostTask/PostDelayedTask and the fd watches' Add/Remove are
// thread-safe (real writer threads post to it); the Run* methods are called
// by one thread at a time, never from a task. RunsTasksOnCurrentThread() is
// true on the thread that last drove it (initially the constructing one).
// Test support only (zt_base_testing, never installed).

#ifndef ZT_SRC_BASE_TEST_TEST_TASK_RUNNER_H_
#define ZT_SRC_BASE_TEST_TEST_TASK_RUNNER_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "src/base/delayed_task_queue.h"
#include "src/base/poller.h"
#include "src/base/test/wait.h"
#include "zt/base/task_runner.h"

namespace zt {
namespace base {

class TestTaskRunner : public TaskRunner {
 public:
  // RunUntilIdle() aborts after running this many tasks and callbacks
  // without becoming idle: a task reposting itself forever, or an fd
  // callback that never drains its fd, would otherwise hang the test.
  // (A quarter million: far more than a test runs at once, and reached in
  // well under a second in the sanitizer builds.)
  static constexpr size_t kMaxRunsUntilIdle = 1u << 18;

  TestTaskRunner();
  // Pending tasks and watches are dropped, here, on the destroying thread.
  ~TestTaskRunner() override;

  TestTaskRunner(const TestTaskRunner&) = delete;
  TestTaskRunner& operator=(const TestTaskRunner&) = delete;

  // Runs the callbacks of ready fds (polled without blocking), every
  // immediate task, every delayed task due now, and whatever those post
  // that is runnable now, until nothing is. Virtual time does not move.
  void RunUntilIdle();

  // Moves virtual time |ms| forward, stopping at each deadline on the way,
  // in order, to run what is due then (RunUntilIdle() at that time): a task
  // repeating every 100 ms runs 10 times in an advance of 1000 ms, each time
  // seeing NowMs() at its own deadline. Ends with RunUntilIdle() at the new
  // time. Runs what is already runnable first, at the old time.
  void AdvanceTimeAndRunUntilIdle(uint32_t ms);

  // Virtual milliseconds since construction. Thread-safe.
  uint64_t NowMs() const;

  // Runs tasks and fd callbacks (as RunUntilIdle(), without moving virtual
  // time) until |condition| holds, evaluated on this thread between rounds;
  // while idle, waits for an fd, a post from another thread, or 1 ms of
  // wall time. Returns false (and logs) if |condition| still fails after
  // |max_wall_ms| of WALL time: the caller's ASSERT then fails with its
  // message, fast, instead of hanging.
  bool RunUntil(const std::function<bool()>& condition,
                uint32_t max_wall_ms = kTestTimeoutMs);

  // TaskRunner.
  void PostTask(std::function<void()> task) override;
  void PostDelayedTask(std::function<void()> task, uint32_t delay_ms) override;
  void AddFileDescriptorWatch(int fd, std::function<void()> callback) override;
  bool AddEdgeTriggeredFileDescriptorWatch(int fd, std::function<void()> callback) override;
  void AddFileDescriptorWritableWatch(int fd,
                                      std::function<void()> callback) override;
  void RemoveFileDescriptorWatch(int fd) override;
  bool RunsTasksOnCurrentThread() const override;

 private:
  // Marks the calling thread as the driver; aborts if already driving
  // (a Run* method called from a task).
  void BeginRun(const char* what);
  void EndRun();
  // One round: callbacks of the fds ready now, then the tasks runnable at
  // its start (what they post waits for the next round). Returns how many
  // tasks and callbacks ran.
  size_t RunRound();

  Poller poller_;
  std::atomic<std::thread::id> driver_;
  std::atomic<bool> running_{false};

  mutable std::mutex mutex_;  // Guards what follows.
  uint64_t now_ms_ = 0;
  std::deque<std::function<void()>> immediate_;
  DelayedTaskQueue<uint64_t> delayed_;
};

}  // namespace base
}  // namespace zt

#endif  // ZT_SRC_BASE_TEST_TEST_TASK_RUNNER_H_
