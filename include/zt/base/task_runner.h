// TaskRunner: where a single-threaded component (the tracing service, a
// producer's IPC side) runs its work. Posting is the only way in from other
// threads, so the component's state needs no locks: every task runs on the
// runner's one thread, in posting order (delayed tasks in deadline order).

#ifndef ZT_BASE_TASK_RUNNER_H_
#define ZT_BASE_TASK_RUNNER_H_

#include <cstdint>
#include <functional>

namespace zt {
namespace base {

class TaskRunner {
 public:
  virtual ~TaskRunner();

  // Runs |task| on the runner's thread after the tasks posted before it.
  // Thread-safe; O(1) amortized, may allocate.
  virtual void PostTask(std::function<void()> task) = 0;

  // Runs |task| on the runner's thread no earlier than |delay_ms| from now.
  // Thread-safe; O(log n) in pending delayed tasks.
  virtual void PostDelayedTask(std::function<void()> task,
                               uint32_t delay_ms) = 0;

  // True when called from the runner's thread (for DCHECKs). Thread-safe.
  virtual bool RunsTasksOnCurrentThread() const = 0;
};

}  // namespace base
}  // namespace zt

#endif  // ZT_BASE_TASK_RUNNER_H_
