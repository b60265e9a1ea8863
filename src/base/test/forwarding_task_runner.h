// Test support: a TaskRunner that forwards everything to another, but for
// AddFileDescriptorWritableWatch, which it leaves to TaskRunner's default
// (polling by timer): it stands for a runner written by a user that does
// not watch writability. Header-only; thread-safety is the target's.

#ifndef ZT_SRC_BASE_TEST_FORWARDING_TASK_RUNNER_H_
#define ZT_SRC_BASE_TEST_FORWARDING_TASK_RUNNER_H_

#include <cstdint>
#include <functional>
#include <utility>

#include "zt/base/task_runner.h"

namespace zt {
namespace base {
namespace test {

class ForwardingTaskRunner : public TaskRunner {
 public:
  explicit ForwardingTaskRunner(TaskRunner* target) : target_(target) {}

  void PostTask(std::function<void()> task) override {
    target_->PostTask(std::move(task));
  }
  void PostDelayedTask(std::function<void()> task, uint32_t delay_ms) override {
    target_->PostDelayedTask(std::move(task), delay_ms);
  }
  void AddFileDescriptorWatch(int fd, std::function<void()> callback) override {
    target_->AddFileDescriptorWatch(fd, std::move(callback));
  }
  void RemoveFileDescriptorWatch(int fd) override {
    target_->RemoveFileDescriptorWatch(fd);
  }
  bool RunsTasksOnCurrentThread() const override {
    return target_->RunsTasksOnCurrentThread();
  }

 private:
  TaskRunner* const target_;
};

}  // namespace test
}  // namespace base
}  // namespace zt

#endif  // ZT_SRC_BASE_TEST_FORWARDING_TASK_RUNNER_H_
