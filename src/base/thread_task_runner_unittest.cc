#include "src/base/thread_task_runner.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace zt {
namespace base {
namespace {

TEST(ThreadTaskRunnerTest, RunsTasksInPostingOrderOnItsThread) {
  ThreadTaskRunner runner("zt.test");
  std::vector<int> order;
  bool on_thread = true;
  for (int i = 0; i < 100; i++) {
    runner.PostTask([&, i] {
      order.push_back(i);
      on_thread = on_thread && runner.RunsTasksOnCurrentThread();
    });
  }
  runner.PostTaskAndWait([] {});
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; i++)
    EXPECT_EQ(order[static_cast<size_t>(i)], i);
  EXPECT_TRUE(on_thread);
  EXPECT_FALSE(runner.RunsTasksOnCurrentThread());
}

TEST(ThreadTaskRunnerTest, DelayedTasksRunByDeadlineThenPostingOrder) {
  ThreadTaskRunner runner("zt.test");
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
  const auto start = std::chrono::steady_clock::now();
  runner.PostDelayedTask(record(3), 30);
  runner.PostDelayedTask(record(1), 10);
  runner.PostDelayedTask(record(2), 10);  // Same deadline: after 1.
  runner.PostTask(record(0));
  std::unique_lock<std::mutex> lock(mutex);
  cv.wait(lock, [&] { return order.size() == 4; });
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_GE(std::chrono::steady_clock::now() - start,
            std::chrono::milliseconds(30));
}

// A due delayed task runs after the tasks already queued ahead of it.
TEST(ThreadTaskRunnerTest, DueDelayedTasksDoNotOvertakeQueuedTasks) {
  ThreadTaskRunner runner("zt.test");
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
  std::mutex gate;
  std::unique_lock<std::mutex> hold(gate);
  bool blocked = false;
  runner.PostTask([&] {
    {
      std::lock_guard<std::mutex> lock(mutex);
      blocked = true;
      cv.notify_all();
    }
    std::lock_guard<std::mutex> wait(gate);
  });
  {
    // The runner is inside the blocking task before the others are posted.
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [&] { return blocked; });
  }
  runner.PostDelayedTask(record(2), 0);
  runner.PostTask(record(1));
  // Both are queued behind the blocked task, and the delayed one is due
  // already (0 ms): still, it runs second.
  hold.unlock();
  std::unique_lock<std::mutex> lock(mutex);
  cv.wait(lock, [&] { return order.size() == 2; });
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
  ThreadTaskRunner runner("zt.test");
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  runner.PostDelayedTask([] {}, 60 * 60 * 1000);
  runner.PostTaskAndWait([] {});  // Now waiting on that deadline.
  for (int i = 0; i < 1000; i++)
    runner.PostDelayedTask([] {}, 60 * 60 * 1000 + static_cast<uint32_t>(i));
  runner.PostDelayedTask(
      [&] {
        std::lock_guard<std::mutex> lock(mutex);
        done = true;
        cv.notify_all();
      },
      1);
  std::unique_lock<std::mutex> lock(mutex);
  cv.wait(lock, [&] { return done; });
  EXPECT_TRUE(done);
}

TEST(ThreadTaskRunnerTest, TasksCanPostTasks) {
  ThreadTaskRunner runner("zt.test");
  std::atomic<int> count{0};
  std::function<void()> step = [&] {
    if (++count < 50)
      runner.PostTask(step);
  };
  runner.PostTask(step);
  // Each step posts the next before returning; wait until the chain ends by
  // posting behind it repeatedly.
  while (count.load() < 50)
    runner.PostTaskAndWait([] {});
  EXPECT_EQ(count.load(), 50);
}

TEST(ThreadTaskRunnerTest, DestructionDropsDelayedTasksAndJoins) {
  auto ran = std::make_shared<std::atomic<int>>(0);
  {
    ThreadTaskRunner runner("zt.test");
    runner.PostDelayedTask([ran] { (*ran)++; }, 60 * 1000);
    runner.PostTaskAndWait([] {});  // The runner is waiting on the deadline.
  }
  // Joined: the task can no longer run, and it did not run early.
  EXPECT_EQ(ran->load(), 0);
}

}  // namespace
}  // namespace base
}  // namespace zt
