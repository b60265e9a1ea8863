#include "src/base/test/wait.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "src/base/thread_task_runner.h"

namespace zt {
namespace base {
namespace {

using Clock = std::chrono::steady_clock;

int64_t ElapsedMs(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() -
                                                               start)
      .count();
}

TEST(WaitTest, ConditionAlreadyTrueReturnsAtOnce) {
  const auto start = Clock::now();
  EXPECT_TRUE(WaitFor([] { return true; }, 60 * 1000));
  EXPECT_LT(ElapsedMs(start), 1000);
}

// The point of the helper: a condition that never holds fails the wait,
// after the bound and not much later.
TEST(WaitTest, ConditionNeverTrueFailsAfterTheTimeout) {
  const auto start = Clock::now();
  int evaluations = 0;
  EXPECT_FALSE(WaitFor([&] { return ++evaluations < 0; }, 50));
  EXPECT_GE(ElapsedMs(start), 50);
  EXPECT_LT(ElapsedMs(start), 5000);
  EXPECT_GT(evaluations, 1);  // Polled, not evaluated once.
}

TEST(WaitTest, SeesAConditionAnotherThreadMakesTrue) {
  std::atomic<bool> flag{false};
  std::thread setter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    flag = true;
  });
  EXPECT_TRUE(WaitFor([&] { return flag.load(); }));
  setter.join();
}

TEST(WaitTest, ConditionVariableWaitIsBounded) {
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  const auto start = Clock::now();
  EXPECT_FALSE(WaitFor(
      mutex, cv, [&] { return done; }, 50));
  EXPECT_GE(ElapsedMs(start), 50);

  std::thread setter([&] {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
    cv.notify_all();
  });
  EXPECT_TRUE(WaitFor(mutex, cv, [&] { return done; }));
  setter.join();
}

TEST(WaitTest, EventStaysNotified) {
  TestEvent event;
  EXPECT_FALSE(event.notified());
  EXPECT_FALSE(event.Wait(20));
  std::thread notifier([&] { event.Notify(); });
  EXPECT_TRUE(event.Wait());
  notifier.join();
  EXPECT_TRUE(event.notified());
  EXPECT_TRUE(event.Wait(0));
}

TEST(WaitTest, PostAndWaitForFailsWhileTheRunnerIsStuck) {
  TestEvent release;
  TestEvent blocked;
  bool ran = false;
  ThreadTaskRunner runner("zt.test");  // Last: joined before the state dies.
  runner.PostTask([&] {
    blocked.Notify();
    // Bounded too: if the test below fails, the runner still ends.
    release.Wait();
  });
  ASSERT_TRUE(blocked.Wait()) << "the runner never started the first task";
  EXPECT_FALSE(PostAndWaitFor(
      &runner, [&] { ran = true; }, 50));
  release.Notify();
  EXPECT_TRUE(PostAndWaitFor(&runner, [] {}))
      << "the runner never came back after the blocking task";
  EXPECT_TRUE(ran);  // Read after the second wait: ordered by its event.
}

}  // namespace
}  // namespace base
}  // namespace zt
