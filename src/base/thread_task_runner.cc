#include "src/base/thread_task_runner.h"

#include <pthread.h>

#include <condition_variable>
#include <mutex>
#include <utility>

#include "zt/base/logging.h"

namespace zt {
namespace base {

ThreadTaskRunner::ThreadTaskRunner(const std::string& name)
    : thread_([this, name] {
#if defined(__linux__)
        pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
#else
        (void)name;
#endif
        runner_.Run();
      }) {
}

ThreadTaskRunner::~ThreadTaskRunner() {
  // Run() returns after the task running now; whatever is still queued is
  // dropped with |runner_|, after the join. (A Quit() that lands before
  // the thread has entered Run() still counts: Run() returns at once.)
  runner_.Quit();
  if (thread_.joinable())
    thread_.join();
}

void ThreadTaskRunner::PostTask(std::function<void()> task) {
  runner_.PostTask(std::move(task));
}

void ThreadTaskRunner::PostDelayedTask(std::function<void()> task,
                                       uint32_t delay_ms) {
  runner_.PostDelayedTask(std::move(task), delay_ms);
}

void ThreadTaskRunner::AddFileDescriptorWatch(int fd,
                                              std::function<void()> callback) {
  runner_.AddFileDescriptorWatch(fd, std::move(callback));
}

bool ThreadTaskRunner::AddEdgeTriggeredFileDescriptorWatch(int fd,
                                                           std::function<void()> callback) {
  return runner_.AddEdgeTriggeredFileDescriptorWatch(fd, std::move(callback));
}

void ThreadTaskRunner::AddFileDescriptorWritableWatch(
    int fd, std::function<void()> callback) {
  runner_.AddFileDescriptorWritableWatch(fd, std::move(callback));
}

void ThreadTaskRunner::RemoveFileDescriptorWatch(int fd) {
  runner_.RemoveFileDescriptorWatch(fd);
}

bool ThreadTaskRunner::RunsTasksOnCurrentThread() const {
  // Not runner_'s answer: until the thread enters Run(), that names the
  // thread that constructed us.
  return std::this_thread::get_id() == thread_.get_id();
}

void ThreadTaskRunner::PostTaskAndWait(std::function<void()> task) {
  if (RunsTasksOnCurrentThread()) {
    // It would wait for itself forever: say so instead of hanging.
    ZT_FATAL(
        "PostTaskAndWait() called on the task runner's own thread "
        "(e.g. a blocking tracing call from a tracing callback)");
  }
  std::mutex done_mutex;
  std::condition_variable done_cv;
  bool done = false;
  PostTask([&] {
    task();
    std::lock_guard<std::mutex> lock(done_mutex);
    done = true;
    done_cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(done_mutex);
  done_cv.wait(lock, [&] { return done; });
}

}  // namespace base
}  // namespace zt
