// TestRunner: how a test drives the task runner its fakes (FakeProducer,
// FakeConsumer) and the service under test run on. ThreadTestRunner: a real
// thread, for tests with concurrent writers (and TSan). VirtualTimeTestRunner:
// the test's own thread on virtual time, so timers (periods, timeouts) run
// exactly when the test says, in no wall time. Every wait is bounded and
// reports failure instead of hanging: a regression fails in seconds, not at
// ctest's timeout.

#ifndef ZT_SRC_TRACING_TEST_TEST_RUNNER_H_
#define ZT_SRC_TRACING_TEST_TEST_RUNNER_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

#include "src/base/test/test_task_runner.h"
#include "src/base/thread_task_runner.h"
#include "zt/base/task_runner.h"

namespace zt {
namespace test {

// How long a test waits for something that should happen at once.
constexpr uint32_t kDefaultWaitMs = 10000;

class TestRunner {
 public:
  virtual ~TestRunner();
  virtual base::TaskRunner* task_runner() = 0;
  // Runs |task| on the runner and returns once it ran.
  virtual void RunAndWait(std::function<void()> task) = 0;
  // Lets the runner work until |done| holds, evaluated with |mutex| held;
  // whoever changes what |done| reads notifies |cv|. False after
  // |timeout_ms| (the caller's ASSERT then says what never happened).
  virtual bool WaitFor(std::mutex& mutex, std::condition_variable& cv,
                       const std::function<bool()>& done,
                       uint32_t timeout_ms = kDefaultWaitMs) = 0;
  // Lets |ms| of the runner's time pass, running what falls due. On a real
  // thread nothing to do: time passes by itself while the test waits.
  virtual void AdvanceTime(uint32_t ms) = 0;
  virtual bool virtual_time() const = 0;
};

class ThreadTestRunner : public TestRunner {
 public:
  ThreadTestRunner() : runner_("zt.test") {}
  base::TaskRunner* task_runner() override { return &runner_; }
  base::ThreadTaskRunner* thread_runner() { return &runner_; }
  void RunAndWait(std::function<void()> task) override {
    runner_.PostTaskAndWait(std::move(task));
  }
  bool WaitFor(std::mutex& mutex, std::condition_variable& cv,
               const std::function<bool()>& done, uint32_t timeout_ms) override {
    std::unique_lock<std::mutex> lock(mutex);
    return cv.wait_for(lock, std::chrono::milliseconds(timeout_ms), done);
  }
  void AdvanceTime(uint32_t) override {}
  bool virtual_time() const override { return false; }

 private:
  base::ThreadTaskRunner runner_;
};

class VirtualTimeTestRunner : public TestRunner {
 public:
  base::TaskRunner* task_runner() override { return &runner_; }
  void RunAndWait(std::function<void()> task) override {
    runner_.PostTask(std::move(task));
    runner_.RunUntilIdle();
  }
  bool WaitFor(std::mutex& mutex, std::condition_variable&,
               const std::function<bool()>& done, uint32_t timeout_ms) override {
    return runner_.RunUntil(
        [&] {
          std::lock_guard<std::mutex> lock(mutex);
          return done();
        },
        timeout_ms);
  }
  void AdvanceTime(uint32_t ms) override { runner_.AdvanceTimeAndRunUntilIdle(ms); }
  bool virtual_time() const override { return true; }

 private:
  base::TestTaskRunner runner_;
};

}  // namespace test
}  // namespace zt

#endif  // ZT_SRC_TRACING_TEST_TEST_RUNNER_H_
