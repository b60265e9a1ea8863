// Poller: the file-descriptor half of the task runners (UnixTaskRunner,
// TestTaskRunner). An epoll set of watched fds, each with a read callback
// (level-triggered, until removed) and/or a one-shot write callback, and an
// eventfd through which any thread wakes the runner blocked in Poll().
//
// One epoll registration per fd, whatever it is watched for: its interest
// (EPOLLIN, EPOLLOUT or both) is changed with EPOLL_CTL_MOD as watches come
// and go, and its id (in the epoll data with the fd) is new each time the
// fd is registered afresh, so a readiness reported for a registration since
// removed never reaches its successor. Within one registration the fd stays
// the same file (watched fds stay open until removed), so its readiness
// is true of whichever watch is there when it is dispatched.
//
// Threading: Add(), AddWritable(), Remove() and Wake() are thread-safe; Poll()
// and RunReady() are called by the runner's thread only (one at a time). Costs:
// Add/AddWritable/Remove one epoll_ctl plus O(log n) under a lock; Wake at most
// one write(2) per Poll() however many threads call it; Poll one epoll_wait(2);
// RunReady a lock per ready fd, and per write callback one epoll_ctl more
// (dropping the write interest).

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
  // |fd| is already watched for reading or cannot be watched (epoll refuses
  // regular files): a watch that never fires would hang its user silently.
  // |edge_triggered|: the callback runs once per time |fd| becomes readable
  // (for an eventfd, once per write), so its owner need not read it; an
  // edge found by Poll() whose callback RunReady() did not reach (stopped
  // early, or not called before the next Poll()) is kept for the next
  // round, never lost. Such an fd cannot also
  // have a writable watch.
  void Add(int fd, std::function<void()> callback, bool edge_triggered = false);

  // Runs |callback| once when |fd| is writable / hung up / in error, then
  // drops the write interest (before running it, so it may add itself
  // again). Beside a read watch or alone. Aborts if a write callback is
  // already pending for |fd|, or |fd| cannot be watched.
  void AddWritable(int fd, std::function<void()> callback);

  // Stops watching |fd|, for reading and writing; a no-op but for a warning
  // if it is not watched. The callbacks are released here, or after the
  // one running returns.
  void Remove(int fd);

  // Makes the current or next Poll() return at once.
  void Wake();

  // Whether any fd is watched (a snapshot). Thread-safe, lock-free.
  bool has_watches() const { return num_watches_.load() != 0; }

  // Waits up to |timeout_ms| (-1: no bound; 0: do not block) until a watched
  // fd is ready or Wake() is called, and remembers the ready fds for
  // RunReady(). Returns how many watched fds are ready (not counting wakes).
  size_t Poll(int timeout_ms);

  // For each fd the last Poll() found ready and still registered by the same
  // registration (one removed, or removed and added again, since then is
  // skipped: its readiness belonged to the old file): runs its read
  // callback if it was readable, then, if it was writable, its pending
  // write callback (unless the read callback removed the watch). Checks
  // |stop| (if any) before each and returns early when it is true (an
  // unrun write callback stays pending). Returns how many callbacks ran.
  size_t RunReady(const std::function<bool()>& stop);

 private:
  struct Watch {
    uint32_t id;  // Of the registration: tells it from the fd's previous.
    // Copied before it runs, so that it may remove itself. Null: none.
    std::shared_ptr<std::function<void()>> on_readable;
    // One-shot: moved out before it runs. Empty: none pending.
    std::function<void()> on_writable;
    bool edge_triggered = false;  // Of the read watch (EPOLLET).
  };
  struct Ready {
    uint64_t tag;     // epoll data: id << 32 | fd.
    uint32_t events;  // EPOLLIN, EPOLLOUT, EPOLLHUP, ...
  };
  static constexpr size_t kMaxEventsPerPoll = 64;

  uint32_t NewIdLocked();
  // Registers |fd| (a new registration with a new id) or changes the
  // interest of its registration to what |watch| now holds. Aborts if the
  // kernel refuses (|what| names the caller in the message).
  void RegisterLocked(int fd, Watch* watch, bool is_new, const char* what);
  // After a write callback was taken out: the registration keeps only the
  // read interest, or goes if there is no read watch.
  void DropWriteInterestLocked(std::map<int, Watch>::iterator it);
  // Keeps the edges of ready_ from |from| on (still registered as they
  // were) for the next Poll(): the kernel will not report them again.
  void CarryEdges(size_t from);

  ScopedFile epoll_fd_;
  ScopedFile wake_fd_;
  // True from a Wake() that wrote the eventfd until Poll() has seen it
  // reported: later wakes need no syscall. Cleared only then (see Poll()).
  std::atomic<bool> wake_pending_{false};

  std::mutex mutex_;                    // Guards watches_ and next_id_.
  std::map<int, Watch> watches_;        // By fd: one registration each.
  uint32_t next_id_ = 1;                // 0 tags the eventfd.
  std::atomic<size_t> num_watches_{0};  // watches_.size(), readable unlocked.

  // The runner's thread only.
  std::array<epoll_event, kMaxEventsPerPoll> events_{};
  std::vector<Ready> ready_;
  // Edges of edge-triggered watches that RunReady() stopped before, or that
  // a Poll() found and no RunReady() ran: the kernel will not report them
  // again, so the next Poll() starts with them (and does not block).
  std::vector<Ready> carried_;
};

}  // namespace base
}  // namespace zt

#endif  // ZT_SRC_BASE_POLLER_H_
