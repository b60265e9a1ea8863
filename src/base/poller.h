// Poller: the file-descriptor half of the task runners (UnixTaskRunner,
// TestTaskRunner). An epoll set of watched fds, each with its callback, and
// an eventfd through which any thread wakes the runner blocked in Poll().
//
// Threading: Add(), Remove() and Wake() are thread-safe; Poll() and
// RunReady() are called by the runner's thread only (one at a time).
// Costs: Add/Remove one epoll_ctl plus O(log n) under a lock; Wake at most
// one write(2) per Poll() however many threads call it; Poll one
// epoll_wait(2); RunReady a lock per ready fd.

#ifndef ZT_SRC_BASE_POLLER_H_
#define ZT_SRC_BASE_POLLER_H_

#include <sys/epoll.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "src/base/scoped_file.h"

namespace zt {
namespace base {

class Poller {
 public:
  // Aborts with the error if the epoll set or the eventfd cannot be created
  // (out of fds: nothing a runner can do without them).
  Poller();
  ~Poller();

  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;

  // Watches |fd| for readable / hung up / error (level-triggered). Aborts if
  // |fd| is already watched or cannot be (epoll refuses regular files):
  // a watch that never fires would hang its user silently.
  void Add(int fd, std::function<void()> callback);

  // Stops watching |fd|; a no-op but for a warning if it is not watched.
  // The callback is released here, or after it returns if it is running.
  void Remove(int fd);

  // Makes the current or next Poll() return at once.
  void Wake();

  // Whether any fd is watched (a snapshot). Thread-safe, lock-free.
  bool has_watches() const { return num_watches_.load() != 0; }

  // Waits up to |timeout_ms| (-1: no bound; 0: do not block) until a watched
  // fd is ready or Wake() is called, and remembers the ready fds for
  // RunReady(). Returns how many watched fds are ready (not counting wakes).
  size_t Poll(int timeout_ms);

  // Runs, once each, the callbacks of the fds the last Poll() found ready
  // and still watched by the same watch (one removed, or removed and added
  // again, since then is skipped: its readiness belonged to the old watch).
  // Checks |stop| (if any) before each and returns early when it is true.
  // Returns how many callbacks ran.
  size_t RunReady(const std::function<bool()>& stop);

 private:
  struct Watch {
    uint32_t id;  // Tells a re-added fd's watch from its previous one.
    std::shared_ptr<std::function<void()>> callback;
  };
  static constexpr size_t kMaxEventsPerPoll = 64;

  ScopedFile epoll_fd_;
  ScopedFile wake_fd_;
  // True from a Wake() that wrote the eventfd until Poll() has seen it
  // reported: later wakes need no syscall. Cleared only then (see Poll()).
  std::atomic<bool> wake_pending_{false};

  std::mutex mutex_;  // Guards watches_ and next_id_.
  std::map<int, Watch> watches_;
  uint32_t next_id_ = 1;                // 0 tags the eventfd.
  std::atomic<size_t> num_watches_{0};  // watches_.size(), readable unlocked.

  // The runner's thread only.
  std::array<epoll_event, kMaxEventsPerPoll> events_{};
  std::vector<uint64_t> ready_;  // epoll data: id << 32 | fd.
};

}  // namespace base
}  // namespace zt

#endif  // ZT_SRC_BASE_POLLER_H_
