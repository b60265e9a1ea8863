#include "src/base/thread_task_runner.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "src/base/scoped_file.h"
#include "src/base/test/full_socket_pair.h"
#include "src/base/test/wait.h"

namespace zt {
namespace base {
namespace {

TEST(ThreadTaskRunnerTest, RunsTasksInPostingOrderOnItsThread) {
  // State first, runner last: on a failed ASSERT the runner is joined before
  // what its tasks touch is destroyed (the same order in every test here).
  std::vector<int> order;
  bool on_thread = true;
  ThreadTaskRunner runner("zt.test");
  for (int i = 0; i < 100; i++) {
    runner.PostTask([&, i] {
      order.push_back(i);
      on_thread = on_thread && runner.RunsTasksOnCurrentThread();
    });
  }
  ASSERT_TRUE(PostAndWaitFor(&runner, [] {})) << "the runner is stuck";
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; i++)
    EXPECT_EQ(order[static_cast<size_t>(i)], i);
  EXPECT_TRUE(on_thread);
  EXPECT_FALSE(runner.RunsTasksOnCurrentThread());
}

TEST(ThreadTaskRunnerTest, PostTaskAndWaitReturnsAfterTheTaskRan) {
  std::atomic<bool> ran{false};
  bool ran_before_return = false;
  TestEvent returned;
  ThreadTaskRunner runner("zt.test");
  // PostTaskAndWait itself cannot time out: call it from another thread and
  // bound the wait for it. (If the ASSERT fails, |caller| is still joinable
  // and its destructor aborts the binary: a fast failure, not a hang.)
  std::thread caller([&] {
    runner.PostTaskAndWait([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ran = true;
    });
    ran_before_return = ran.load();
    returned.Notify();
  });
  ASSERT_TRUE(returned.Wait()) << "PostTaskAndWait never returned";
  caller.join();
  EXPECT_TRUE(ran_before_return);
}

TEST(ThreadTaskRunnerTest, DelayedTasksRunByDeadlineThenPostingOrder) {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<int> order;
  auto record = [&](int v) {
    return [&, v] {
      std::lock_guard<std::mutex> lock(mutex);
      order.push_back(v);
      cv.notify_all();
    };
  };
  ThreadTaskRunner runner("zt.test");
  const auto start = std::chrono::steady_clock::now();
  runner.PostDelayedTask(record(3), 30);
  runner.PostDelayedTask(record(1), 10);
  runner.PostDelayedTask(record(2), 10);  // Same deadline: after 1.
  runner.PostTask(record(0));
  ASSERT_TRUE(WaitFor(mutex, cv, [&] { return order.size() == 4; }))
      << "only " << order.size() << " of 4 tasks ran";
  std::lock_guard<std::mutex> lock(mutex);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_GE(std::chrono::steady_clock::now() - start,
            std::chrono::milliseconds(30));
}

// A due delayed task runs after the tasks already queued ahead of it.
TEST(ThreadTaskRunnerTest, DueDelayedTasksDoNotOvertakeQueuedTasks) {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<int> order;
  auto record = [&](int v) {
    return [&, v] {
      std::lock_guard<std::mutex> lock(mutex);
      order.push_back(v);
      cv.notify_all();
    };
  };
  TestEvent blocked;
  TestEvent release;
  ThreadTaskRunner runner("zt.test");
  runner.PostTask([&] {
    blocked.Notify();
    release.Wait();
  });
  // The runner is inside the blocking task before the others are posted.
  ASSERT_TRUE(blocked.Wait()) << "the runner never started the first task";
  runner.PostDelayedTask(record(2), 0);
  runner.PostTask(record(1));
  // Both are queued behind the blocked task, and the delayed one is due
  // already (0 ms; past its millisecond deadline once the clock moved 2 ms):
  // still, it runs second.
  const auto posted = std::chrono::steady_clock::now();
  ASSERT_TRUE(WaitFor(
      [&] { return std::chrono::steady_clock::now() - posted >= std::chrono::milliseconds(2); }));
  release.Notify();
  ASSERT_TRUE(WaitFor(mutex, cv, [&] { return order.size() == 2; }))
      << "only " << order.size() << " of 2 tasks ran";
  std::lock_guard<std::mutex> lock(mutex);
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
}

TEST(ThreadTaskRunnerDeathTest, WaitingOnItselfAbortsWithAMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        ThreadTaskRunner runner("zt.test");
        runner.PostTaskAndWait([&] { runner.PostTaskAndWait([] {}); });
      },
      "own thread");
}

// While the runner sleeps until the earliest deadline, other threads keep
// adding delayed tasks (the queue reallocates under it). Found by the
// service fuzzer under ASan: the wait held a reference into the queue.
TEST(ThreadTaskRunnerTest, PostingDelayedTasksWhileTheRunnerWaits) {
  TestEvent done;
  ThreadTaskRunner runner("zt.test");
  runner.PostDelayedTask([] {}, 60 * 60 * 1000);
  // Now waiting on that deadline.
  ASSERT_TRUE(PostAndWaitFor(&runner, [] {})) << "the runner is stuck";
  for (int i = 0; i < 1000; i++)
    runner.PostDelayedTask([] {}, 60 * 60 * 1000 + static_cast<uint32_t>(i));
  runner.PostDelayedTask([&] { done.Notify(); }, 1);
  EXPECT_TRUE(done.Wait())
      << "the 1 ms task never ran after 1000 later ones were posted";
}

// A chain of tasks, each posting the next: all 50 run, and no more.
TEST(ThreadTaskRunnerTest, TasksCanPostTasks) {
  int count = 0;  // Touched on the runner's thread only.
  TestEvent chain_ended;
  std::function<void()> step;
  ThreadTaskRunner runner("zt.test");
  step = [&] {
    if (++count < 50)
      runner.PostTask(step);
    else
      chain_ended.Notify();
  };
  runner.PostTask(step);
  ASSERT_TRUE(chain_ended.Wait()) << "the chain of posted tasks stalled";
  // Anything the chain wrongly posted twice is queued by now: drain it.
  ASSERT_TRUE(PostAndWaitFor(&runner, [] {})) << "the runner is stuck";
  EXPECT_EQ(count, 50);
}

TEST(ThreadTaskRunnerTest, DestructionDropsDelayedTasksAndJoins) {
  auto ran = std::make_shared<std::atomic<int>>(0);
  {
    ThreadTaskRunner runner("zt.test");
    runner.PostDelayedTask([ran] { (*ran)++; }, 60 * 1000);
    // The runner is waiting on the deadline.
    ASSERT_TRUE(PostAndWaitFor(&runner, [] {})) << "the runner is stuck";
  }
  // Joined: the task can no longer run, and it did not run early.
  EXPECT_EQ(ran->load(), 0);
}

// The destructor lets the running task finish, then drops the queued ones.
TEST(ThreadTaskRunnerTest, DestructionFinishesTheRunningTaskDropsTheRest) {
  TestEvent started;
  TestEvent release;
  std::atomic<bool> finished{false};
  std::atomic<bool> queued_ran{false};
  auto runner = std::make_unique<ThreadTaskRunner>("zt.test");
  runner->PostTask([&] {
    started.Notify();
    release.Wait();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    finished = true;
  });
  runner->PostTask([&] { queued_ran = true; });
  ASSERT_TRUE(started.Wait()) << "the runner never started the first task";
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    release.Notify();
  });
  runner.reset();  // Returns once the running task is done.
  releaser.join();
  EXPECT_TRUE(finished);
  EXPECT_FALSE(queued_ran);
}

// The runner's thread watches fds: the callback runs there, once per byte
// here (level-triggered, one byte read per call), and not after removal.
TEST(ThreadTaskRunnerTest, WatchesFileDescriptorsOnItsThread) {
  int fds[2];
  // Non-blocking: a callback without data fails instead of hanging.
  ASSERT_EQ(pipe2(fds, O_NONBLOCK), 0);
  ScopedFile rd(fds[0]);
  ScopedFile wr(fds[1]);
  std::atomic<int> calls{0};
  std::atomic<bool> on_thread{true};
  ThreadTaskRunner runner("zt.test");
  runner.AddFileDescriptorWatch(rd.get(), [&] {
    char c;
    ASSERT_EQ(read(rd.get(), &c, 1), 1);
    on_thread = on_thread && runner.RunsTasksOnCurrentThread();
    calls++;
  });
  ASSERT_EQ(write(wr.get(), "ab", 2), 2);
  ASSERT_TRUE(WaitFor([&] { return calls.load() == 2; }))
      << "the watch ran " << calls.load() << " times for 2 bytes";
  ASSERT_TRUE(PostAndWaitFor(&runner, [&] {
    runner.RemoveFileDescriptorWatch(rd.get());
  })) << "the runner is stuck";
  ASSERT_EQ(write(wr.get(), "c", 1), 1);
  ASSERT_TRUE(PostAndWaitFor(&runner, [] {})) << "the runner is stuck";
  EXPECT_EQ(calls.load(), 2);
  EXPECT_TRUE(on_thread);
}

// The writable watch reaches the UnixTaskRunner inside: it runs on the
// runner's thread, after the peer (this thread) has read.
TEST(ThreadTaskRunnerTest, WatchesWritabilityOnItsThread) {
  test::FullSocketPair pair;
  ASSERT_GT(pair.Fill(), 0u);
  std::atomic<bool> drained{false};
  std::atomic<int> calls{0};
  std::atomic<bool> on_thread_after_drain{false};
  TestEvent waited;
  ThreadTaskRunner runner("zt.test");
  runner.AddFileDescriptorWritableWatch(pair.sender.get(), [&] {
    on_thread_after_drain = runner.RunsTasksOnCurrentThread() && drained;
    calls++;
  });
  // Let the runner poll the full socket for a while before the peer reads
  // (a runner polling by timer instead would have called it by then).
  runner.PostDelayedTask([&] { waited.Notify(); }, 10);
  ASSERT_TRUE(waited.Wait()) << "the runner is stuck";
  EXPECT_EQ(calls.load(), 0) << "writable while the send buffer was full";
  drained = true;  // Before the read that makes the fd writable.
  pair.Drain();
  ASSERT_TRUE(WaitFor([&] { return calls.load() == 1; }))
      << "the writable callback never ran";
  EXPECT_TRUE(on_thread_after_drain);
  ASSERT_TRUE(PostAndWaitFor(&runner, [] {})) << "the runner is stuck";
  EXPECT_EQ(calls.load(), 1);
}

}  // namespace
}  // namespace base
}  // namespace zt
