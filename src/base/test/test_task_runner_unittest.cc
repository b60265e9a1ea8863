#include "src/base/test/test_task_runner.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/scoped_file.h"
#include "src/base/test/forwarding_task_runner.h"
#include "src/base/test/full_socket_pair.h"
#include "src/base/test/wait.h"

namespace zt {
namespace base {
namespace {

using Clock = std::chrono::steady_clock;

TEST(TestTaskRunnerTest, RunUntilIdleRunsTasksAndWhatTheyPostInOrder) {
  TestTaskRunner runner;
  std::vector<int> order;
  bool on_thread = true;
  runner.PostTask([&] {
    order.push_back(0);
    runner.PostTask([&] { order.push_back(2); });
  });
  runner.PostTask([&] {
    order.push_back(1);
    on_thread = runner.RunsTasksOnCurrentThread();
  });
  runner.PostDelayedTask([&] { order.push_back(-1); }, 1);  // Not due.
  EXPECT_TRUE(order.empty());  // Nothing runs by itself.
  runner.RunUntilIdle();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(on_thread);
  EXPECT_EQ(runner.NowMs(), 0u);
}

TEST(TestTaskRunnerTest, DelayedTaskRunsAtItsDeadlineNotBefore) {
  TestTaskRunner runner;
  std::vector<uint64_t> ran_at;
  runner.PostDelayedTask([&] { ran_at.push_back(runner.NowMs()); }, 100);
  runner.AdvanceTimeAndRunUntilIdle(99);
  EXPECT_TRUE(ran_at.empty());
  EXPECT_EQ(runner.NowMs(), 99u);
  runner.AdvanceTimeAndRunUntilIdle(1);
  EXPECT_EQ(ran_at, (std::vector<uint64_t>{100}));
}

// The motivating case: a 100 ms period over a 1000 ms advance runs ten
// times, each at its own virtual time, in no wall time.
TEST(TestTaskRunnerTest, PeriodicTaskRunsOncePerPeriod) {
  TestTaskRunner runner;
  std::vector<uint64_t> ran_at;
  std::function<void()> tick = [&] {
    ran_at.push_back(runner.NowMs());
    runner.PostDelayedTask(tick, 100);
  };
  runner.PostDelayedTask(tick, 100);
  const auto start = Clock::now();
  runner.AdvanceTimeAndRunUntilIdle(1000);
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(500));
  EXPECT_EQ(ran_at, (std::vector<uint64_t>{100, 200, 300, 400, 500, 600, 700,
                                           800, 900, 1000}));
  EXPECT_EQ(runner.NowMs(), 1000u);
  runner.AdvanceTimeAndRunUntilIdle(250);  // Two more: 1100, 1200.
  EXPECT_EQ(ran_at.size(), 12u);
  EXPECT_EQ(ran_at.back(), 1200u);
}

TEST(TestTaskRunnerTest, DelayedTasksRunByDeadlineThenPostingOrder) {
  TestTaskRunner runner;
  std::vector<int> order;
  runner.PostDelayedTask([&] { order.push_back(3); }, 30);
  runner.PostDelayedTask([&] { order.push_back(1); }, 10);
  runner.PostDelayedTask([&] { order.push_back(2); }, 10);  // Tie: after 1.
  runner.PostTask([&] { order.push_back(0); });
  runner.AdvanceTimeAndRunUntilIdle(30);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
}

// What a task posts at its virtual time runs in the same advance, at the
// right time; immediate tasks run before time moves.
TEST(TestTaskRunnerTest, TasksPostedDuringAnAdvanceRunAtTheirOwnTime) {
  TestTaskRunner runner;
  std::vector<std::pair<int, uint64_t>> ran;
  auto record = [&](int v) {
    return [&, v] { ran.emplace_back(v, runner.NowMs()); };
  };
  runner.PostTask(record(0));
  runner.PostDelayedTask(
      [&] {
        ran.emplace_back(1, runner.NowMs());
        runner.PostTask(record(2));              // Now (100).
        runner.PostDelayedTask(record(3), 50);   // 150.
        runner.PostDelayedTask(record(4), 500);  // 600: after this advance.
      },
      100);
  runner.AdvanceTimeAndRunUntilIdle(200);
  EXPECT_EQ(ran, (std::vector<std::pair<int, uint64_t>>{
                     {0, 0}, {1, 100}, {2, 100}, {3, 150}}));
  runner.AdvanceTimeAndRunUntilIdle(400);
  EXPECT_EQ(ran.back(), (std::pair<int, uint64_t>{4, 600}));
}

// A due delayed task runs after the tasks already queued.
TEST(TestTaskRunnerTest, DueDelayedTasksDoNotOvertakeQueuedTasks) {
  TestTaskRunner runner;
  std::vector<int> order;
  runner.PostDelayedTask([&] { order.push_back(2); }, 0);
  runner.PostTask([&] { order.push_back(1); });
  runner.RunUntilIdle();
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
}

TEST(TestTaskRunnerDeathTest, EndlessChainFailsInsteadOfHanging) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        TestTaskRunner runner;
        std::function<void()> forever = [&] { runner.PostTask(forever); };
        runner.PostTask(forever);
        runner.RunUntilIdle();
      },
      "still busy after");
}

TEST(TestTaskRunnerDeathTest, FdNeverDrainedFailsInsteadOfHanging) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ScopedFile rd(fds[0]);
  ScopedFile wr(fds[1]);
  ASSERT_EQ(write(wr.get(), "x", 1), 1);
  EXPECT_DEATH(
      {
        TestTaskRunner runner;
        runner.AddFileDescriptorWatch(rd.get(), [] {});  // Never reads.
        runner.RunUntilIdle();
      },
      "never drains its fd");
}

TEST(TestTaskRunnerDeathTest, RunningFromATaskIsFatal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        TestTaskRunner runner;
        runner.PostTask([&] { runner.RunUntilIdle(); });
        runner.RunUntilIdle();
      },
      "called while it runs");
}

TEST(TestTaskRunnerTest, RunUntilRunsTasksPostedByOtherThreads) {
  constexpr int kThreads = 4;
  constexpr int kTasksPerThread = 1000;
  TestTaskRunner runner;
  int count = 0;  // The driving thread's only.
  bool on_thread = true;
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; t++) {
    writers.emplace_back([&] {
      for (int i = 0; i < kTasksPerThread; i++) {
        runner.PostTask([&] {
          count++;
          on_thread = on_thread && runner.RunsTasksOnCurrentThread();
        });
      }
    });
  }
  const bool done =
      runner.RunUntil([&] { return count == kThreads * kTasksPerThread; });
  for (auto& w : writers)
    w.join();
  ASSERT_TRUE(done) << count << " of " << kThreads * kTasksPerThread
                    << " tasks posted by other threads ran";
  EXPECT_TRUE(on_thread);
}

// A condition that never holds fails the call after the wall-clock bound
// (not much later), and virtual time stays put: the delayed task never runs.
TEST(TestTaskRunnerTest, RunUntilFailsFastAndDoesNotMoveVirtualTime) {
  TestTaskRunner runner;
  bool ran = false;
  runner.PostDelayedTask([&] { ran = true; }, 1);
  const auto start = Clock::now();
  EXPECT_FALSE(runner.RunUntil([] { return false; }, 50));
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(50));
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(5000));
  EXPECT_FALSE(ran);
  EXPECT_EQ(runner.NowMs(), 0u);
}

// RunUntil() keeps running while a flood of tasks never lets it idle, and
// still stops at the bound.
TEST(TestTaskRunnerTest, RunUntilIsBoundedUnderAFlood) {
  TestTaskRunner runner;
  std::function<void()> forever = [&] { runner.PostTask(forever); };
  runner.PostTask(forever);
  const auto start = Clock::now();
  EXPECT_FALSE(runner.RunUntil([] { return false; }, 50));
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(5000));
}

TEST(TestTaskRunnerTest, WatchesFileDescriptors) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_NONBLOCK), 0);
  ScopedFile rd(fds[0]);
  ScopedFile wr(fds[1]);
  TestTaskRunner runner;
  std::string got;
  bool on_thread = true;
  runner.AddFileDescriptorWatch(rd.get(), [&] {
    char c;
    ASSERT_EQ(read(rd.get(), &c, 1), 1) << "called without data";
    got += c;
    on_thread = on_thread && runner.RunsTasksOnCurrentThread();
  });
  runner.RunUntilIdle();
  EXPECT_EQ(got, "");
  // Level-triggered: two bytes, one read per call, both within one call.
  ASSERT_EQ(write(wr.get(), "ab", 2), 2);
  runner.RunUntilIdle();
  EXPECT_EQ(got, "ab");
  // Written by another thread while RunUntil() waits.
  const int test_thread = CurrentThreadId();
  std::thread writer([&] {
    WaitUntilBlockedInPoll(test_thread, 2000);  // RunUntil() is waiting.
    ASSERT_EQ(write(wr.get(), "c", 1), 1);
  });
  const bool done = runner.RunUntil([&] { return got.size() == 3; });
  writer.join();
  ASSERT_TRUE(done) << "the watch never saw the other thread's byte";
  EXPECT_EQ(got, "abc");
  EXPECT_TRUE(on_thread);
  runner.RemoveFileDescriptorWatch(rd.get());
  ASSERT_EQ(write(wr.get(), "d", 1), 1);
  runner.RunUntilIdle();
  EXPECT_EQ(got, "abc");
}

// Write-readiness on virtual time, deterministically: not while the send
// buffer is full, once after the peer read, not again; beside a read watch;
// cancelled by RemoveFileDescriptorWatch.
TEST(TestTaskRunnerTest, WatchesWritabilityOnce) {
  test::FullSocketPair pair;
  ASSERT_GT(pair.Fill(), 0u);
  const int fd = pair.sender.get();
  TestTaskRunner runner;
  std::string read_bytes;
  int writable_calls = 0;
  runner.AddFileDescriptorWatch(fd, [&] {
    char c;
    ASSERT_EQ(read(fd, &c, 1), 1) << "read callback without data";
    read_bytes += c;
  });
  runner.AddFileDescriptorWritableWatch(fd, [&] { writable_calls++; });
  ASSERT_EQ(write(pair.receiver.get(), "a", 1), 1);
  runner.RunUntilIdle();
  EXPECT_EQ(read_bytes, "a");
  EXPECT_EQ(writable_calls, 0) << "writable while the send buffer was full";
  pair.Drain();
  runner.RunUntilIdle();
  EXPECT_EQ(writable_calls, 1);
  runner.RunUntilIdle();
  EXPECT_EQ(writable_calls, 1) << "a one-shot watch ran again";
  // The read watch is still there.
  ASSERT_EQ(write(pair.receiver.get(), "b", 1), 1);
  runner.RunUntilIdle();
  EXPECT_EQ(read_bytes, "ab");

  // Removal cancels a pending writable watch, with the read watch.
  ASSERT_GT(pair.Fill(), 0u);
  runner.AddFileDescriptorWritableWatch(fd, [&] { writable_calls++; });
  runner.RemoveFileDescriptorWatch(fd);
  pair.Drain();
  ASSERT_EQ(write(pair.receiver.get(), "c", 1), 1);
  runner.RunUntilIdle();
  EXPECT_EQ(writable_calls, 1);
  EXPECT_EQ(read_bytes, "ab");

  // Alone, with no read watch: it fires, and the fd is watched no more.
  runner.AddFileDescriptorWritableWatch(fd, [&] { writable_calls++; });
  runner.RunUntilIdle();
  EXPECT_EQ(writable_calls, 2);
  runner.RunUntilIdle();
  EXPECT_EQ(writable_calls, 2);
}

// A runner that watches no writability: TaskRunner's default polls, every
// millisecond of the runner's time, whatever the fd.
TEST(TestTaskRunnerTest, DefaultWritableWatchPollsAfterAMillisecond) {
  TestTaskRunner runner;
  test::ForwardingTaskRunner read_only(&runner);
  int calls = 0;
  read_only.AddFileDescriptorWritableWatch(-1, [&] { calls++; });
  runner.RunUntilIdle();
  EXPECT_EQ(calls, 0);
  runner.AdvanceTimeAndRunUntilIdle(1);
  EXPECT_EQ(calls, 1);
  runner.AdvanceTimeAndRunUntilIdle(10);
  EXPECT_EQ(calls, 1);
}

TEST(TestTaskRunnerTest, RunsTasksOnCurrentThreadFollowsTheDriver) {
  TestTaskRunner runner;
  EXPECT_TRUE(runner.RunsTasksOnCurrentThread());
  std::atomic<bool> seen_on_driver{false};
  std::thread driver([&] {
    runner.PostTask(
        [&] { seen_on_driver = runner.RunsTasksOnCurrentThread(); });
    runner.RunUntilIdle();
  });
  driver.join();
  EXPECT_TRUE(seen_on_driver);
  EXPECT_FALSE(runner.RunsTasksOnCurrentThread());
  runner.RunUntilIdle();  // Driven from here again.
  EXPECT_TRUE(runner.RunsTasksOnCurrentThread());
}

}  // namespace
}  // namespace base
}  // namespace zt
