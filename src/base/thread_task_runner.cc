#include "src/base/thread_task_runner.h"

#include <pthread.h>

#include <cstdio>
#include <cstdlib>

#include <utility>

namespace zt {
namespace base {

TaskRunner::~TaskRunner() = default;

ThreadTaskRunner::ThreadTaskRunner(const std::string& name) {
  thread_ = std::thread([this, name] {
#if defined(__linux__)
    pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
#else
    (void)name;
#endif
    Run();
  });
}

ThreadTaskRunner::~ThreadTaskRunner() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

void ThreadTaskRunner::PostTask(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    immediate_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void ThreadTaskRunner::PostDelayedTask(std::function<void()> task,
                                       uint32_t delay_ms) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    delayed_.push(Delayed{Clock::now() + std::chrono::milliseconds(delay_ms),
                          next_seq_++, std::move(task)});
  }
  cv_.notify_one();
}

bool ThreadTaskRunner::RunsTasksOnCurrentThread() const {
  return std::this_thread::get_id() == thread_.get_id();
}

void ThreadTaskRunner::PostTaskAndWait(std::function<void()> task) {
  if (RunsTasksOnCurrentThread()) {
    // It would wait for itself forever: say so instead of hanging.
    fprintf(stderr,
            "zt: PostTaskAndWait() called on the task runner's own thread "
            "(e.g. a blocking tracing call from a tracing callback)\n");
    abort();
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

void ThreadTaskRunner::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (quit_)
      return;
    // Due delayed tasks join the back of the queue: they never overtake
    // tasks posted before their deadline (a timeout must not fire ahead of
    // the answer already queued).
    const Clock::time_point now = Clock::now();
    while (!delayed_.empty() && delayed_.top().deadline <= now) {
      // priority_queue::top() is const: move out through a copy of the node.
      immediate_.push_back(std::move(const_cast<Delayed&>(delayed_.top()).task));
      delayed_.pop();
    }
    std::function<void()> task;
    if (!immediate_.empty()) {
      task = std::move(immediate_.front());
      immediate_.pop_front();
    } else if (!delayed_.empty()) {
      // A copy: the queue may reallocate while we wait unlocked.
      const Clock::time_point deadline = delayed_.top().deadline;
      cv_.wait_until(lock, deadline);
      continue;
    } else {
      cv_.wait(lock);
      continue;
    }
    lock.unlock();
    task();
    task = nullptr;  // Destroy captures outside the lock, on this thread.
    lock.lock();
  }
}

}  // namespace base
}  // namespace zt
