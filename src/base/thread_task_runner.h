// ThreadTaskRunner: a TaskRunner that owns one thread, which runs a
// UnixTaskRunner (so it watches fds too). Tasks still pending when it is
// destroyed are dropped (not run), after the task running at that moment
// (if any) has finished; the thread is joined. Thread-safe as TaskRunner
// says; costs are UnixTaskRunner's.

#ifndef ZT_SRC_BASE_THREAD_TASK_RUNNER_H_
#define ZT_SRC_BASE_THREAD_TASK_RUNNER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <thread>

#include "src/base/unix_task_runner.h"
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
  void AddFileDescriptorWatch(int fd, std::function<void()> callback) override;
  bool AddEdgeTriggeredFileDescriptorWatch(int fd, std::function<void()> callback) override;
  void AddFileDescriptorWritableWatch(int fd,
                                      std::function<void()> callback) override;
  void RemoveFileDescriptorWatch(int fd) override;
  bool RunsTasksOnCurrentThread() const override;

  // Posts |task| and waits until it has run. Called from the runner's own
  // thread (it would wait for itself) it aborts with a message.
  void PostTaskAndWait(std::function<void()> task);

 private:
  UnixTaskRunner runner_;
  std::thread thread_;  // Last: started once the runner exists.
};

}  // namespace base
}  // namespace zt

#endif  // ZT_SRC_BASE_THREAD_TASK_RUNNER_H_
