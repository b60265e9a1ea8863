// TaskRunner: where a single-threaded component (the tracing service, a
// producer's IPC side) runs its work. Posting is the only way in from other
// threads, so the component's state needs no locks: every task runs on the
// runner's one thread, in posting order (delayed tasks in deadline order).
// The runner also watches file descriptors (sockets, eventfds) for
// readability, and for writability once at a time, and runs their callbacks
// on that thread, so an endpoint can talk to clients asynchronously.
//
// Implementations: UnixTaskRunner (epoll, run on the caller's thread),
// ThreadTaskRunner (a UnixTaskRunner on a thread of its own), and
// TestTaskRunner (virtual time, driven by a test). See docs/design/base.md.

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
  // Delayed tasks run in deadline order, equal deadlines in posting order;
  // a task that has become due runs after the tasks already posted at that
  // moment (a timeout never overtakes the answer queued before it).
  // Thread-safe; O(log n) in pending delayed tasks.
  virtual void PostDelayedTask(std::function<void()> task,
                               uint32_t delay_ms) = 0;

  // Runs |callback| on the runner's thread whenever |fd| is readable or hung
  // up (or in error), level-triggered: again and again while that lasts,
  // until the watch is removed. |fd| must be pollable (socket, pipe,
  // eventfd, ...: not a regular file), not already watched, and stay open
  // until the watch is removed. Callbacks of fds and tasks interleave: a
  // busy fd does not starve tasks, nor a flood of tasks the fd.
  // Thread-safe; O(log n) in watches plus one syscall.
  virtual void AddFileDescriptorWatch(int fd,
                                      std::function<void()> callback) = 0;

  // As AddFileDescriptorWatch, but edge-triggered if the runner can: then
  // |callback| runs once each time |fd| becomes readable (for an eventfd,
  // once per write(), which nobody then needs to read() back: a system
  // call saved per wake-up), and true is returned. An edge is never lost,
  // even if the runner stops between noticing it and running |callback|.
  // |fd| cannot have a writable watch as well. Not pure virtual, so that
  // runners written by users keep compiling: this default adds a
  // level-triggered watch and returns false, and the caller must then
  // consume |fd|'s readiness in |callback| as with AddFileDescriptorWatch.
  // UnixTaskRunner, ThreadTaskRunner and TestTaskRunner are edge-triggered.
  // Thread-safe; as AddFileDescriptorWatch.
  virtual bool AddEdgeTriggeredFileDescriptorWatch(int fd, std::function<void()> callback);

  // Runs |callback| ONCE on the runner's thread when |fd| is writable (or
  // hung up, or in error), then forgets it: to wait again, add it again
  // (from the callback itself if need be). For a non-blocking socket whose
  // send buffer was full (EAGAIN). It coexists with a read watch on the same
  // fd; |fd| must not have a writable watch pending already, and must stay
  // open until the callback has run or the watch is removed.
  // RemoveFileDescriptorWatch(fd) cancels it (with the read watch).
  // Not pure virtual, so that runners written by users keep compiling: this
  // default is the fallback for runners that do not watch writability: it
  // polls, posting a task delayed by 1 ms that runs |callback| whether or
  // not |fd| is writable by then (the caller retries its send and, on
  // EAGAIN, adds the watch again). RemoveFileDescriptorWatch cannot cancel
  // that task: a callback that must not outlive its target holds a WeakPtr.
  // UnixTaskRunner, ThreadTaskRunner and TestTaskRunner watch properly.
  // Thread-safe; as AddFileDescriptorWatch.
  virtual void AddFileDescriptorWritableWatch(int fd,
                                              std::function<void()> callback);

  // Stops watching |fd|, for readability and writability both (if it is
  // not watched: a no-op, and a warning in the log). Called on the runner's
  // thread (a task, or any watch's callback, its own included): once it
  // returns, the callback never runs again (it is destroyed then, or when
  // it returns if it removed itself).
  // Called from another thread: thread-safe, and no callback starts after
  // it returns, except at most one that the runner had already begun to
  // dispatch, which may still be running or about to run. What that
  // callback uses must then stay alive until the runner has run a task
  // posted after this call; simplest is to remove watches on the runner's
  // thread (post the removal).
  virtual void RemoveFileDescriptorWatch(int fd) = 0;

  // True when called from the runner's thread (for DCHECKs). Thread-safe.
  virtual bool RunsTasksOnCurrentThread() const = 0;
};

}  // namespace base
}  // namespace zt

#endif  // ZT_BASE_TASK_RUNNER_H_
