#include "src/base/unix_task_runner.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/scoped_file.h"
#include "src/base/test/full_socket_pair.h"
#include "src/base/test/wait.h"

namespace zt {
namespace base {
namespace {

using Clock = std::chrono::steady_clock;

// Runs |runner| on the calling thread until a task quits it, or until
// |timeout_ms| pass: then another thread quits it and this returns false.
// (Quit() is checked before every task and callback: a flood cannot hide it.)
// If even Quit() cannot stop it, the binary aborts: a failure, not a hang.
bool RunUntilQuit(UnixTaskRunner* runner,
                  uint32_t timeout_ms = kTestTimeoutMs) {
  TestEvent returned;
  std::atomic<bool> fired{false};
  std::thread watchdog([&] {
    if (returned.Wait(timeout_ms))
      return;
    fired = true;
    runner->Quit();
    if (!returned.Wait())
      ZT_FATAL("UnixTaskRunner::Run() did not return after Quit()");
  });
  runner->Run();
  returned.Notify();
  watchdog.join();
  return !fired;
}

// Runs |runner| on a thread of its own until Stop() or destruction, which
// quit it and join, bounded like RunUntilQuit().
class RunnerThread {
 public:
  explicit RunnerThread(UnixTaskRunner* runner)
      : runner_(runner), thread_([this] {
          runner_->Run();
          returned_.Notify();
        }) {}
  ~RunnerThread() { Stop(); }

  void Stop() {
    if (!thread_.joinable())
      return;
    runner_->Quit();
    if (!returned_.Wait())
      ZT_FATAL("UnixTaskRunner::Run() did not return after Quit()");
    thread_.join();
  }

 private:
  UnixTaskRunner* const runner_;
  TestEvent returned_;
  std::thread thread_;
};

struct Pipe {
  Pipe() {
    int fds[2];
    ZT_CHECK(pipe(fds) == 0);
    rd.reset(fds[0]);
    wr.reset(fds[1]);
  }
  void Write(char c = 'x') { ZT_CHECK(write(wr.get(), &c, 1) == 1); }
  char Read() {
    char c = 0;
    ZT_CHECK(read(rd.get(), &c, 1) == 1);
    return c;
  }
  ScopedFile rd;
  ScopedFile wr;
};

// An fd that is readable until read, and here never read.
ScopedFile AlwaysReadableFd() {
  ScopedFile fd(eventfd(1, EFD_CLOEXEC));
  ZT_CHECK(fd);
  return fd;
}

TEST(UnixTaskRunnerTest, RunsTasksInPostingOrderUntilQuit) {
  UnixTaskRunner runner;
  std::vector<int> order;
  bool on_thread = true;
  for (int i = 0; i < 100; i++) {
    runner.PostTask([&, i] {
      order.push_back(i);
      on_thread = on_thread && runner.RunsTasksOnCurrentThread();
    });
  }
  runner.PostTask([&] { runner.Quit(); });
  runner.PostTask([&] { order.push_back(-1); });  // After Quit: stays queued.
  ASSERT_TRUE(RunUntilQuit(&runner)) << "the quitting task never ran";
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; i++)
    EXPECT_EQ(order[static_cast<size_t>(i)], i);
  EXPECT_TRUE(on_thread);
  // A later Run() picks up where the last one stopped.
  runner.PostTask([&] { runner.Quit(); });
  ASSERT_TRUE(RunUntilQuit(&runner)) << "the second Run() did not run tasks";
  EXPECT_EQ(order.back(), -1);
}

TEST(UnixTaskRunnerTest, QuitBeforeRunMakesRunReturnAtOnce) {
  UnixTaskRunner runner;
  bool ran = false;
  runner.PostTask([&] { ran = true; });
  runner.Quit();
  ASSERT_TRUE(RunUntilQuit(&runner)) << "Run() ignored the earlier Quit()";
  EXPECT_FALSE(ran);
}

TEST(UnixTaskRunnerTest, RunsTasksOnCurrentThreadFollowsRun) {
  UnixTaskRunner runner;  // Constructed here: this thread, until Run().
  EXPECT_TRUE(runner.RunsTasksOnCurrentThread());
  std::atomic<bool> runner_thread_says{false};
  RunnerThread thread(&runner);
  runner.PostTask(
      [&] { runner_thread_says = runner.RunsTasksOnCurrentThread(); });
  ASSERT_TRUE(WaitFor([&] { return runner_thread_says.load(); }))
      << "the runner thread's task never ran, or did not see its thread";
  EXPECT_FALSE(runner.RunsTasksOnCurrentThread());
  thread.Stop();
  // Outside Run(), the thread that last ran it.
  EXPECT_FALSE(runner.RunsTasksOnCurrentThread());
}

TEST(UnixTaskRunnerTest, DelayedTasksRunByDeadlineThenPostingOrderNotEarly) {
  UnixTaskRunner runner;
  std::vector<int> order;
  std::vector<Clock::duration> when;
  const auto start = Clock::now();
  auto record = [&](int v) {
    return [&, v] {
      order.push_back(v);
      when.push_back(Clock::now() - start);
      if (order.size() == 4)
        runner.Quit();
    };
  };
  runner.PostDelayedTask(record(3), 30);
  runner.PostDelayedTask(record(1), 10);
  runner.PostDelayedTask(record(2), 10);  // Same deadline: after 1.
  runner.PostTask(record(0));
  ASSERT_TRUE(RunUntilQuit(&runner)) << "only " << order.size() << " ran";
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_GE(when[1], std::chrono::milliseconds(10));
  EXPECT_GE(when[3], std::chrono::milliseconds(30));
}

// A due delayed task runs after the tasks posted before it became due.
TEST(UnixTaskRunnerTest, DueDelayedTasksDoNotOvertakeQueuedTasks) {
  UnixTaskRunner runner;
  std::vector<int> order;
  runner.PostDelayedTask([&] { order.push_back(2); }, 0);
  runner.PostTask([&] { order.push_back(1); });
  // Both wait for the first iteration, where 2 is due already: its
  // deadline (millisecond resolution) is past once the clock moved 2 ms.
  const auto posted = std::chrono::steady_clock::now();
  ASSERT_TRUE(WaitFor(
      [&] { return std::chrono::steady_clock::now() - posted >= std::chrono::milliseconds(2); }));
  runner.PostDelayedTask([&] { runner.Quit(); }, 5);
  ASSERT_TRUE(RunUntilQuit(&runner)) << "the quitting task never ran";
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
}

// The loop sleeps (nothing due for an hour); a post from another thread
// must wake it, not wait for the deadline.
TEST(UnixTaskRunnerTest, TaskPostedFromAnotherThreadWakesTheLoop) {
  UnixTaskRunner runner;
  runner.PostDelayedTask([] {}, 60 * 60 * 1000);
  RunnerThread thread(&runner);
  std::atomic<int> tid{0};
  ASSERT_TRUE(PostAndWaitFor(&runner, [&] { tid = CurrentThreadId(); }));
  for (int i = 0; i < 3; i++) {
    // The loop blocked in its wait, then a post.
    ASSERT_TRUE(WaitUntilBlockedInPoll(tid.load())) << "the loop never went to sleep";
    auto event = std::make_shared<TestEvent>();
    runner.PostTask([event] { event->Notify(); });
    EXPECT_TRUE(event->Wait()) << "post " << i << " did not wake the loop";
  }
}

TEST(UnixTaskRunnerTest, ManyThreadsPostingLoseNoTask) {
  constexpr int kThreads = 4;
  constexpr int kTasksPerThread = 5000;
  UnixTaskRunner runner;
  int count = 0;  // Runner's thread only.
  std::vector<int> last_seen(kThreads, -1);
  bool in_order = true;
  std::vector<std::thread> posters;
  for (int t = 0; t < kThreads; t++) {
    posters.emplace_back([&, t] {
      for (int i = 0; i < kTasksPerThread; i++) {
        auto task = [&, t, i] {
          // Each thread's tasks run in its posting order.
          in_order = in_order && last_seen[static_cast<size_t>(t)] == i - 1;
          last_seen[static_cast<size_t>(t)] = i;
          if (++count == kThreads * kTasksPerThread)
            runner.Quit();
        };
        runner.PostTask(task);
      }
    });
  }
  const bool quit = RunUntilQuit(&runner);
  for (auto& p : posters)
    p.join();
  ASSERT_TRUE(quit) << count << " of " << kThreads * kTasksPerThread
                    << " tasks ran";
  EXPECT_TRUE(in_order);
}

TEST(UnixTaskRunnerTest, FdWatchIsLevelTriggeredAndRemovable) {
  Pipe pipe;  // Before the runner: closed after it.
  UnixTaskRunner runner;
  std::string read_bytes;
  bool on_thread = true;
  runner.AddFileDescriptorWatch(pipe.rd.get(), [&] {
    on_thread = on_thread && runner.RunsTasksOnCurrentThread();
    read_bytes += pipe.Read();  // One byte per call: needs 3 calls for 3.
    if (read_bytes.size() == 3) {
      runner.RemoveFileDescriptorWatch(pipe.rd.get());
      pipe.Write('d');  // Readable again, but no longer watched.
      runner.PostDelayedTask([&] { runner.Quit(); }, 20);
    }
  });
  std::thread writer([&] {
    pipe.Write('a');
    pipe.Write('b');
    pipe.Write('c');
  });
  const bool quit = RunUntilQuit(&runner);
  writer.join();
  ASSERT_TRUE(quit) << "the callback read only '" << read_bytes << "'";
  EXPECT_EQ(read_bytes, "abc");
  EXPECT_TRUE(on_thread);
}

TEST(UnixTaskRunnerTest, HangUpRunsTheCallback) {
  Pipe pipe;  // Before the runner: closed after it.
  UnixTaskRunner runner;
  runner.AddFileDescriptorWatch(pipe.rd.get(), [&] {
    char c;
    if (read(pipe.rd.get(), &c, 1) == 0) {  // EOF: the writer hung up.
      runner.RemoveFileDescriptorWatch(pipe.rd.get());
      runner.Quit();
    }
  });
  pipe.wr.reset();
  ASSERT_TRUE(RunUntilQuit(&runner)) << "the hang-up was not reported";
}

// Two fds ready in the same poll: whichever callback runs first removes the
// other watch, whose callback must then not run, even though the poll
// already reported its fd.
TEST(UnixTaskRunnerTest, WatchRemovedByAnotherCallbackDoesNotRun) {
  ScopedFile a = AlwaysReadableFd();
  ScopedFile b = AlwaysReadableFd();
  UnixTaskRunner runner;
  int a_runs = 0;
  int b_runs = 0;
  bool removed = false;
  auto once = [&](int* runs, int other) {
    return [&, runs, other] {
      ++*runs;
      if (!removed)
        runner.RemoveFileDescriptorWatch(other);
      removed = true;
    };
  };
  runner.AddFileDescriptorWatch(a.get(), once(&a_runs, b.get()));
  runner.AddFileDescriptorWatch(b.get(), once(&b_runs, a.get()));
  runner.PostDelayedTask([&] { runner.Quit(); }, 20);
  ASSERT_TRUE(RunUntilQuit(&runner)) << "the quitting task never ran";
  // The survivor keeps running (level-triggered); the other ran never.
  EXPECT_TRUE((a_runs == 0) != (b_runs == 0)) << a_runs << " " << b_runs;
  EXPECT_GT(a_runs + b_runs, 1);
}

// Both fds are ready in one poll. The first callback to run closes the
// other fd and opens a new, not readable, eventfd, which gets the same
// number, and watches it. The poll's report for the old fd must not run the
// new callback: it would find nothing to read (a blocking read would hang).
TEST(UnixTaskRunnerTest, ReadinessOfAClosedFdDoesNotReachItsSuccessor) {
  ScopedFile a = AlwaysReadableFd();
  ScopedFile b = AlwaysReadableFd();
  UnixTaskRunner runner;
  bool replaced = false;
  int reused_number = -1;
  int spurious = 0;
  auto replace = [&](ScopedFile* other) {
    if (replaced)
      return;
    replaced = true;
    const int old_number = other->get();
    runner.RemoveFileDescriptorWatch(old_number);
    other->reset();
    other->reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));  // Not readable.
    reused_number = other->get() == old_number ? old_number : -1;
    const int fd = other->get();
    runner.AddFileDescriptorWatch(fd, [&, fd] {
      uint64_t value;
      if (read(fd, &value, sizeof(value)) != sizeof(value)) {
        spurious++;
        return;
      }
      runner.RemoveFileDescriptorWatch(fd);
      runner.Quit();
    });
    runner.PostDelayedTask(
        [fd] {
          const uint64_t one = 1;
          ZT_CHECK(write(fd, &one, sizeof(one)) == sizeof(one));
        },
        10);
  };
  runner.AddFileDescriptorWatch(a.get(), [&] { replace(&b); });
  runner.AddFileDescriptorWatch(b.get(), [&] { replace(&a); });
  ASSERT_TRUE(RunUntilQuit(&runner)) << "the new watch never ran";
  ASSERT_NE(reused_number, -1) << "the new fd got another number: no test";
  EXPECT_EQ(spurious, 0) << "a callback ran for its fd's predecessor";
  runner.RemoveFileDescriptorWatch(a.get() == reused_number ? b.get()
                                                            : a.get());
}

TEST(UnixTaskRunnerTest, WatchAddedFromAnotherThreadWhileTheLoopSleeps) {
  Pipe pipe;  // Before the runner: closed after it.
  TestEvent called;
  UnixTaskRunner runner;
  RunnerThread thread(&runner);
  std::atomic<int> tid{0};
  ASSERT_TRUE(PostAndWaitFor(&runner, [&] { tid = CurrentThreadId(); }));
  ASSERT_TRUE(WaitUntilBlockedInPoll(tid.load())) << "the loop never went to sleep";
  runner.AddFileDescriptorWatch(pipe.rd.get(), [&] {
    pipe.Read();
    called.Notify();
  });
  pipe.Write();
  EXPECT_TRUE(called.Wait()) << "a watch added while the loop slept never ran";
  // Removed from the loop's thread: afterwards nothing touches |pipe|.
  EXPECT_TRUE(PostAndWaitFor(
      &runner, [&] { runner.RemoveFileDescriptorWatch(pipe.rd.get()); }));
}

// From another thread, after Remove() returns and a task posted after it has
// run, the callback never runs again.
TEST(UnixTaskRunnerTest, RemoveFromAnotherThread) {
  ScopedFile fd = AlwaysReadableFd();
  std::atomic<int> runs{0};
  UnixTaskRunner runner;
  runner.AddFileDescriptorWatch(fd.get(), [&] { runs++; });
  RunnerThread thread(&runner);
  ASSERT_TRUE(WaitFor([&] { return runs.load() > 10; }))
      << "the always-readable fd's callback did not run";
  runner.RemoveFileDescriptorWatch(fd.get());
  ASSERT_TRUE(PostAndWaitFor(&runner, [] {})) << "the runner is stuck";
  const int after_remove = runs.load();
  // Twenty more turns of the loop: a watch still there (the fd is always
  // readable) would run in each.
  for (int i = 0; i < 20; i++)
    ASSERT_TRUE(PostAndWaitFor(&runner, [] {})) << "the runner is stuck";
  thread.Stop();
  EXPECT_EQ(runs.load(), after_remove);
}

TEST(UnixTaskRunnerDeathTest, WatchingAnFdTwiceIsFatal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Pipe pipe;
  EXPECT_DEATH(
      {
        UnixTaskRunner runner;
        runner.AddFileDescriptorWatch(pipe.rd.get(), [] {});
        runner.AddFileDescriptorWatch(pipe.rd.get(), [] {});
      },
      "already watched");
}

// --- Write-readiness: one-shot watches beside the read watches. ---

// The sender's buffer is full: its writable callback must wait for the peer
// to read (a runner that fired at once, or polled, would call it with
// |drained| false), and run once only although the fd stays writable.
TEST(UnixTaskRunnerTest, WritableWatchRunsOnceAfterThePeerReads) {
  test::FullSocketPair pair;
  ASSERT_GT(pair.Fill(), 0u);
  UnixTaskRunner runner;
  bool drained = false;
  int calls = 0;
  bool drained_at_first_call = false;
  runner.AddFileDescriptorWritableWatch(pair.sender.get(), [&] {
    if (calls++ == 0)
      drained_at_first_call = drained;
    // Writable from now on: a second call would come within this window.
    runner.PostDelayedTask([&] { runner.Quit(); }, 20);
  });
  // The loop polls the full socket for a while before the peer reads.
  runner.PostDelayedTask(
      [&] {
        pair.Drain();
        drained = true;
      },
      10);
  ASSERT_TRUE(RunUntilQuit(&runner)) << "the writable callback never ran";
  EXPECT_TRUE(drained_at_first_call) << "called while the buffer was full";
  EXPECT_EQ(calls, 1) << "a one-shot watch ran again";
}

// A read watch and a write watch on one fd: each runs for its own
// readiness only, and the read watch outlives the one-shot write watch.
TEST(UnixTaskRunnerTest, WritableWatchCoexistsWithAReadWatch) {
  test::FullSocketPair pair;
  ASSERT_GT(pair.Fill(), 0u);
  const int fd = pair.sender.get();
  UnixTaskRunner runner;
  std::string read_bytes;
  int writable_calls = 0;
  std::string read_before_writable;
  runner.AddFileDescriptorWatch(fd, [&] {
    char c;
    ASSERT_EQ(read(fd, &c, 1), 1) << "read callback without data";
    read_bytes += c;
    if (read_bytes == "a") {
      // Still full: only now may the peer drain it.
      EXPECT_EQ(writable_calls, 0) << "writable while the buffer was full";
      pair.Drain();
    } else if (read_bytes == "ab") {
      runner.Quit();
    }
  });
  runner.AddFileDescriptorWritableWatch(fd, [&] {
    writable_calls++;
    read_before_writable = read_bytes;
    // The read watch is still there: the peer's next byte reaches it.
    ASSERT_EQ(write(pair.receiver.get(), "b", 1), 1);
  });
  ASSERT_EQ(write(pair.receiver.get(), "a", 1), 1);
  ASSERT_TRUE(RunUntilQuit(&runner))
      << "read '" << read_bytes << "', writable " << writable_calls;
  EXPECT_EQ(read_before_writable, "a");
  EXPECT_EQ(writable_calls, 1);
  runner.RemoveFileDescriptorWatch(fd);
}

// RemoveFileDescriptorWatch drops the pending write watch with the read
// watch; a write watch added afterwards is a new one, and fires.
TEST(UnixTaskRunnerTest, RemovingTheWatchCancelsTheWritableWatch) {
  test::FullSocketPair pair;
  ASSERT_GT(pair.Fill(), 0u);
  const int fd = pair.sender.get();
  UnixTaskRunner runner;
  int stale_calls = 0;
  runner.AddFileDescriptorWatch(fd, [&] { stale_calls++; });
  runner.AddFileDescriptorWritableWatch(fd, [&] { stale_calls++; });
  runner.RemoveFileDescriptorWatch(fd);
  // Writable and readable from now on, but no longer watched.
  pair.Drain();
  ASSERT_EQ(write(pair.receiver.get(), "x", 1), 1);
  bool new_watch_ran = false;
  runner.PostDelayedTask(
      [&] {
        runner.AddFileDescriptorWritableWatch(fd, [&] {
          new_watch_ran = true;
          runner.Quit();
        });
      },
      20);
  ASSERT_TRUE(RunUntilQuit(&runner)) << "the new writable watch never ran";
  EXPECT_EQ(stale_calls, 0) << "a removed watch ran";
  EXPECT_TRUE(new_watch_ran);
}

// A write callback may add itself again (to wait once more) and remove the
// fd's read watch; a read callback may remove the whole watch, and then the
// write callback reported in the same poll does not run.
TEST(UnixTaskRunnerTest, WritableCallbacksMayReAddOrRemoveFromInside) {
  test::FullSocketPair pair;  // Writable: nothing sent yet.
  const int fd = pair.sender.get();
  UnixTaskRunner runner;
  int writable_calls = 0;
  std::function<void()> on_writable = [&] {
    if (++writable_calls < 3) {
      runner.AddFileDescriptorWritableWatch(fd, on_writable);
      return;
    }
    runner.RemoveFileDescriptorWatch(fd);  // The read watch with it.
    ASSERT_EQ(write(pair.receiver.get(), "x", 1), 1);  // Unwatched now.
    runner.PostDelayedTask([&] { runner.Quit(); }, 20);
  };
  int read_calls = 0;
  runner.AddFileDescriptorWatch(fd, [&] { read_calls++; });
  runner.AddFileDescriptorWritableWatch(fd, on_writable);
  ASSERT_TRUE(RunUntilQuit(&runner)) << writable_calls << " writable calls";
  EXPECT_EQ(writable_calls, 3);
  EXPECT_EQ(read_calls, 0);

  // Readable and writable in the same poll; the read callback (first)
  // removes the watch: the write callback must not run.
  ScopedFile& peer = pair.receiver;
  ASSERT_EQ(write(peer.get(), "y", 1), 1);
  bool write_ran = false;
  runner.AddFileDescriptorWatch(fd, [&] {
    runner.RemoveFileDescriptorWatch(fd);
    runner.PostDelayedTask([&] { runner.Quit(); }, 20);
  });
  runner.AddFileDescriptorWritableWatch(fd, [&] { write_ran = true; });
  ASSERT_TRUE(RunUntilQuit(&runner)) << "the read callback never ran";
  EXPECT_FALSE(write_ran) << "ran after its watch was removed";
}

TEST(UnixTaskRunnerDeathTest, TwoPendingWritableWatchesAreFatal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  test::FullSocketPair pair;
  EXPECT_DEATH(
      {
        UnixTaskRunner runner;
        runner.AddFileDescriptorWritableWatch(pair.sender.get(), [] {});
        runner.AddFileDescriptorWritableWatch(pair.sender.get(), [] {});
      },
      "pending already");
}

// --- Fairness: nothing starves anything else. ---

// |chains| tasks that repost themselves forever: the queue never empties.
// The tasks left queued at the end are dropped with the runner.
void StartFlood(UnixTaskRunner* runner, std::function<void()>* flood,
                int chains) {
  *flood = [runner, flood] { runner->PostTask(*flood); };
  for (int i = 0; i < chains; i++)
    runner->PostTask(*flood);
}

TEST(UnixTaskRunnerTest, FloodOfTasksDoesNotStarveFdWatches) {
  Pipe pipe;  // Before the runner: closed after it.
  UnixTaskRunner runner;
  runner.AddFileDescriptorWatch(pipe.rd.get(), [&] {
    pipe.Read();
    runner.RemoveFileDescriptorWatch(pipe.rd.get());
    runner.Quit();
  });
  std::function<void()> flood;
  StartFlood(&runner, &flood, 100);
  // Readable only once the flood runs (a first poll cannot catch it).
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    pipe.Write();
  });
  const bool quit = RunUntilQuit(&runner);
  writer.join();
  EXPECT_TRUE(quit) << "the fd callback never ran behind a flood of tasks";
}

TEST(UnixTaskRunnerTest, FloodOfTasksDoesNotStarveDueDelayedTasks) {
  UnixTaskRunner runner;
  runner.PostDelayedTask([&] { runner.Quit(); }, 10);
  std::function<void()> flood;
  StartFlood(&runner, &flood, 100);
  EXPECT_TRUE(RunUntilQuit(&runner))
      << "the delayed task never ran behind a flood of tasks";
}

TEST(UnixTaskRunnerTest, AlwaysReadableFdDoesNotStarveTasks) {
  ScopedFile fd = AlwaysReadableFd();
  UnixTaskRunner runner;
  int callbacks = 0;
  runner.AddFileDescriptorWatch(fd.get(), [&] { callbacks++; });
  int steps = 0;
  std::function<void()> step = [&] {
    if (++steps < 1000)
      runner.PostTask(step);
    else
      runner.PostDelayedTask([&] { runner.Quit(); }, 5);
  };
  runner.PostTask(step);
  ASSERT_TRUE(RunUntilQuit(&runner))
      << "tasks starved by an always-readable fd: " << steps << " of 1000";
  EXPECT_GT(callbacks, 1);  // And the fd was served meanwhile.
  runner.RemoveFileDescriptorWatch(fd.get());
}

}  // namespace
}  // namespace base
}  // namespace zt
