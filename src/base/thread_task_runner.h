// ThreadTaskRunner: a TaskRunner that owns one thread. Tasks still pending
// when it is destroyed are dropped (not run), after the task running at that
// moment (if any) has finished; the thread is joined.

#ifndef ZT_SRC_BASE_THREAD_TASK_RUNNER_H_
#define ZT_SRC_BASE_THREAD_TASK_RUNNER_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <vector>

#include "zt/base/task_runner.h"

namespace zt {
namespace base {

class ThreadTaskRunner : public TaskRunner {
 public:
  // Starts the thread, named |name| where the platform allows (<= 15 chars).
  explicit ThreadTaskRunner(const std::string& name);
  ~ThreadTaskRunner() override;

  ThreadTaskRunner(const ThreadTaskRunner&) = delete;
  ThreadTaskRunner& operator=(const ThreadTaskRunner&) = delete;

  void PostTask(std::function<void()> task) override;
  void PostDelayedTask(std::function<void()> task, uint32_t delay_ms) override;
  bool RunsTasksOnCurrentThread() const override;

  // Posts |task| and waits until it has run. Called from the runner's own
  // thread (it would wait for itself) it aborts with a message.
  void PostTaskAndWait(std::function<void()> task);

 private:
  using Clock = std::chrono::steady_clock;
  struct Delayed {
    Clock::time_point deadline;
    uint64_t seq;  // Keeps equal deadlines in posting order.
    std::function<void()> task;
    bool operator>(const Delayed& o) const {
      return deadline != o.deadline ? deadline > o.deadline : seq > o.seq;
    }
  };

  void Run();

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> immediate_;
  std::priority_queue<Delayed, std::vector<Delayed>, std::greater<Delayed>>
      delayed_;
  uint64_t next_seq_ = 0;
  bool quit_ = false;
  std::thread thread_;  // Last: started once the rest is constructed.
};

}  // namespace base
}  // namespace zt

#endif  // ZT_SRC_BASE_THREAD_TASK_RUNNER_H_
