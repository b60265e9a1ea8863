#include "src/base/test/test_task_runner.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "zt/base/logging.h"

namespace zt {
namespace base {

TestTaskRunner::TestTaskRunner() : driver_(std::this_thread::get_id()) {}

TestTaskRunner::~TestTaskRunner() {
  ZT_CHECK(!running_.load());
}

void TestTaskRunner::BeginRun(const char* what) {
  if (running_.exchange(true))
    ZT_FATAL("TestTaskRunner::%s called while it runs (from a task?)", what);
  driver_.store(std::this_thread::get_id());
}

void TestTaskRunner::EndRun() {
  running_.store(false);
}

size_t TestTaskRunner::RunRound() {
  size_t ran = 0;
  // No syscall when nothing is watched: rounds are cheap. (Wakes need not
  // be drained here; RunUntil()'s wait does.)
  if (poller_.has_watches() && poller_.Poll(0) > 0)
    ran += poller_.RunReady(nullptr);
  size_t runnable;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    delayed_.MoveDueTo(now_ms_, &immediate_);
    runnable = immediate_.size();
  }
  for (size_t i = 0; i < runnable; i++) {
    std::function<void()> task;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task = std::move(immediate_.front());
      immediate_.pop_front();
    }
    task();
    ran++;
  }
  return ran;
}

void TestTaskRunner::RunUntilIdle() {
  BeginRun("RunUntilIdle()");
  size_t total = 0;
  while (size_t ran = RunRound()) {
    total += ran;
    if (total > kMaxRunsUntilIdle) {
      ZT_FATAL(
          "TestTaskRunner::RunUntilIdle(): still busy after %zu tasks and "
          "fd callbacks: a task reposting itself forever, or an fd callback "
          "that never drains its fd?",
          total);
    }
  }
  EndRun();
}

void TestTaskRunner::AdvanceTimeAndRunUntilIdle(uint32_t ms) {
  const uint64_t target = NowMs() + ms;
  RunUntilIdle();
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (delayed_.empty() || delayed_.next_deadline() > target)
        break;
      // Deadlines in the past are due already and were run above.
      now_ms_ = std::max(now_ms_, delayed_.next_deadline());
    }
    RunUntilIdle();
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    now_ms_ = target;
  }
  RunUntilIdle();
}

uint64_t TestTaskRunner::NowMs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return now_ms_;
}

bool TestTaskRunner::RunUntil(const std::function<bool()>& condition,
                              uint32_t max_wall_ms) {
  using Clock = std::chrono::steady_clock;
  BeginRun("RunUntil()");
  const Clock::time_point deadline =
      Clock::now() + std::chrono::milliseconds(max_wall_ms);
  for (;;) {
    if (condition()) {
      EndRun();
      return true;
    }
    const Clock::time_point now = Clock::now();
    if (now >= deadline)
      break;
    if (RunRound() == 0) {
      // Idle. Block until an fd is ready or another thread posts; at most
      // 1 ms, as the condition may read state other threads change
      // without posting. The ready fds are polled again by the next round.
      poller_.Poll(1);
    }
  }
  EndRun();
  ZT_ELOG(
      "TestTaskRunner::RunUntil(): condition still false after %u ms of "
      "wall time (virtual time %llu ms, which RunUntil() does not move)",
      max_wall_ms, static_cast<unsigned long long>(NowMs()));
  return false;
}

void TestTaskRunner::PostTask(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    immediate_.push_back(std::move(task));
  }
  poller_.Wake();  // RunUntil() may be waiting for it.
}

void TestTaskRunner::PostDelayedTask(std::function<void()> task,
                                     uint32_t delay_ms) {
  std::lock_guard<std::mutex> lock(mutex_);
  delayed_.Push(now_ms_ + delay_ms, std::move(task));
  // No wake: only AdvanceTimeAndRunUntilIdle() can make it due.
}

void TestTaskRunner::AddFileDescriptorWatch(int fd,
                                            std::function<void()> callback) {
  poller_.Add(fd, std::move(callback));
}

bool TestTaskRunner::AddEdgeTriggeredFileDescriptorWatch(int fd,
                                                         std::function<void()> callback) {
  poller_.Add(fd, std::move(callback), /*edge_triggered=*/true);
  return true;
}

void TestTaskRunner::AddFileDescriptorWritableWatch(
    int fd, std::function<void()> callback) {
  poller_.AddWritable(fd, std::move(callback));
}

void TestTaskRunner::RemoveFileDescriptorWatch(int fd) {
  poller_.Remove(fd);
}

bool TestTaskRunner::RunsTasksOnCurrentThread() const {
  return driver_.load() == std::this_thread::get_id();
}

}  // namespace base
}  // namespace zt
