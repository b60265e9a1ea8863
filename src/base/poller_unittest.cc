// The poller's edge-triggered watches (the level-triggered ones are covered
// through the task runners' tests): once per edge, never read back, and an
// edge the runner stopped before is kept for the next round.

#include "src/base/poller.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include <gtest/gtest.h>

#include "src/base/scoped_file.h"
#include "src/base/test/forwarding_task_runner.h"
#include "src/base/test/test_task_runner.h"
#include "src/base/test/wait.h"

namespace zt {
namespace base {
namespace {

ScopedFile NewEventFd() {
  return ScopedFile(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
}

void Ring(const ScopedFile& fd) {
  const uint64_t one = 1;
  ASSERT_EQ(write(fd.get(), &one, sizeof(one)), static_cast<ssize_t>(sizeof(one)));
}

// One round as a runner does it: poll without blocking, run what is ready.
size_t Round(Poller* poller, const std::function<bool()>& stop = nullptr) {
  poller->Poll(0);
  return poller->RunReady(stop);
}

TEST(PollerTest, AnEdgeTriggeredWatchRunsOncePerWriteAndIsNeverReadBack) {
  ScopedFile doorbell = NewEventFd();
  Poller poller;
  int runs = 0;
  poller.Add(doorbell.get(), [&] { runs++; }, /*edge_triggered=*/true);
  EXPECT_EQ(Round(&poller), 0u);
  Ring(doorbell);
  EXPECT_EQ(Round(&poller), 1u);
  // Still readable (nobody read the counter), but no new edge: nothing.
  EXPECT_EQ(Round(&poller), 0u);
  Ring(doorbell);
  Ring(doorbell);  // Two writes before a poll: at least one run, one edge.
  EXPECT_EQ(Round(&poller), 1u);
  EXPECT_EQ(runs, 2);
  poller.Remove(doorbell.get());
}

TEST(PollerTest, AnEdgeTheRunnerStoppedBeforeIsKeptForTheNextRound) {
  ScopedFile a = NewEventFd(), b = NewEventFd();
  Poller poller;
  int a_runs = 0, b_runs = 0;
  poller.Add(a.get(), [&] { a_runs++; }, /*edge_triggered=*/true);
  poller.Add(b.get(), [&] { b_runs++; }, /*edge_triggered=*/true);
  Ring(a);
  Ring(b);
  // Stopped after the first callback, whichever fd it was.
  EXPECT_EQ(Round(&poller, [&] { return a_runs + b_runs == 1; }), 1u);
  EXPECT_EQ(a_runs + b_runs, 1);
  // The other edge comes with the next round, though the kernel will not
  // report it again.
  EXPECT_EQ(Round(&poller), 1u);
  EXPECT_EQ(a_runs, 1);
  EXPECT_EQ(b_runs, 1);
  EXPECT_EQ(Round(&poller), 0u);
  poller.Remove(a.get());
  poller.Remove(b.get());
}

TEST(PollerTest, AKeptEdgeOfARemovedWatchIsDropped) {
  ScopedFile a = NewEventFd(), b = NewEventFd();
  Poller poller;
  int runs = 0;
  poller.Add(a.get(), [&] { runs++; }, /*edge_triggered=*/true);
  poller.Add(b.get(), [&] { runs++; }, /*edge_triggered=*/true);
  Ring(a);
  Ring(b);
  EXPECT_EQ(Round(&poller, [&] { return runs == 1; }), 1u);
  poller.Remove(a.get());
  poller.Remove(b.get());
  EXPECT_EQ(Round(&poller), 0u);
  EXPECT_EQ(runs, 1);
}

TEST(PollerTest, AnEdgeFoundByAPollThatRanNothingIsKept) {
  ScopedFile doorbell = NewEventFd();
  Poller poller;
  int runs = 0;
  poller.Add(doorbell.get(), [&] { runs++; }, /*edge_triggered=*/true);
  Ring(doorbell);
  EXPECT_EQ(poller.Poll(0), 1u);  // Found; RunReady() not called.
  EXPECT_EQ(Round(&poller), 1u);  // The next round still has it.
  EXPECT_EQ(runs, 1);
  poller.Remove(doorbell.get());
}

// What the commit queue's doorbell meets in tests: written by another
// thread while RunUntil() waits (its wait polls without running).
TEST(TaskRunnerTest, AnEdgeWrittenWhileRunUntilWaitsIsRun) {
  TestTaskRunner runner;
  ScopedFile doorbell = NewEventFd();
  std::atomic<bool> ran{false};
  ASSERT_TRUE(runner.AddEdgeTriggeredFileDescriptorWatch(doorbell.get(), [&] { ran = true; }));
  std::atomic<bool> waiting{false};
  const int test_thread = CurrentThreadId();
  std::thread writer([&] {
    while (!waiting.load())
      std::this_thread::yield();
    // Rung once RunUntil() sleeps in its wait (or after the bound: the
    // edge must be seen either way).
    WaitUntilBlockedInPoll(test_thread, 2000);
    Ring(doorbell);
  });
  runner.PostTask([&] { waiting = true; });
  EXPECT_TRUE(runner.RunUntil([&] { return ran.load(); }, 5000)) << "the edge was lost";
  writer.join();
  runner.RemoveFileDescriptorWatch(doorbell.get());
}

TEST(PollerDeathTest, AWritableWatchBesideAnEdgeTriggeredOneIsFatal) {
  ScopedFile fd = NewEventFd();
  EXPECT_DEATH(
      {
        Poller poller;
        poller.Add(fd.get(), [] {}, /*edge_triggered=*/true);
        poller.AddWritable(fd.get(), [] {});
      },
      "edge-triggered");
}

TEST(TaskRunnerTest, ARunnerWithoutEdgesFallsBackToALevelTriggeredWatch) {
  TestTaskRunner target;
  test::ForwardingTaskRunner runner(&target);  // Does not override it.
  ScopedFile doorbell = NewEventFd();
  int runs = 0;
  const bool edge = runner.AddEdgeTriggeredFileDescriptorWatch(doorbell.get(), [&] {
    runs++;
    uint64_t value;
    // Level-triggered: consumed here, or it would run forever.
    ASSERT_EQ(read(doorbell.get(), &value, sizeof(value)), static_cast<ssize_t>(sizeof(value)));
  });
  EXPECT_FALSE(edge);
  Ring(doorbell);
  target.RunUntilIdle();
  EXPECT_EQ(runs, 1);
  runner.RemoveFileDescriptorWatch(doorbell.get());
}

TEST(TaskRunnerTest, TheTestRunnerIsEdgeTriggered) {
  TestTaskRunner runner;
  ScopedFile doorbell = NewEventFd();
  int runs = 0;
  EXPECT_TRUE(runner.AddEdgeTriggeredFileDescriptorWatch(doorbell.get(), [&] { runs++; }));
  Ring(doorbell);
  runner.RunUntilIdle();  // Would abort if the watch fired until read.
  EXPECT_EQ(runs, 1);
  runner.RemoveFileDescriptorWatch(doorbell.get());
}

}  // namespace
}  // namespace base
}  // namespace zt
