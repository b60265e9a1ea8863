#include "src/base/poller.h"

#include <errno.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <utility>

#include "zt/base/logging.h"

namespace zt {
namespace base {

namespace {
constexpr uint64_t kWakeTag = 0;  // epoll data of the eventfd (watch id 0).

uint64_t Tag(uint32_t id, int fd) {
  return uint64_t{id} << 32 | static_cast<uint32_t>(fd);
}
}  // namespace

Poller::Poller()
    : epoll_fd_(epoll_create1(EPOLL_CLOEXEC)),
      wake_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (!epoll_fd_ || !wake_fd_) {
    ZT_PLOG("epoll_create1/eventfd");
    ZT_FATAL("cannot create the task runner's epoll set or eventfd");
  }
  // Edge-triggered: every write() to the eventfd reports it once, so Poll()
  // never has to read() it back (a system call per wake-up saved; the
  // counter only grows by one per wake-up and cannot reach its limit).
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLET;
  ev.data.u64 = kWakeTag;
  if (epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, wake_fd_.get(), &ev) != 0) {
    ZT_PLOG("epoll_ctl(ADD eventfd)");
    ZT_FATAL("cannot watch the task runner's eventfd");
  }
  ready_.reserve(kMaxEventsPerPoll);
}

Poller::~Poller() = default;

void Poller::Add(int fd, std::function<void()> callback) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd < 0 || watches_.count(fd))
    ZT_FATAL("AddFileDescriptorWatch(%d): invalid or already watched", fd);
  uint32_t id = next_id_++;
  if (id == 0)  // Wrapped: 0 is the eventfd's tag.
    id = next_id_++;
  epoll_event ev{};
  // EPOLLHUP and EPOLLERR are always reported; EPOLLRDHUP for a socket
  // whose peer shut down its writing side only.
  ev.events = EPOLLIN | EPOLLRDHUP;
  ev.data.u64 = Tag(id, fd);
  if (epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, fd, &ev) != 0) {
    ZT_PLOG("epoll_ctl(ADD %d)", fd);
    ZT_FATAL("cannot watch fd %d (regular files cannot be watched)", fd);
  }
  watches_[fd] =
      Watch{id, std::make_shared<std::function<void()>>(std::move(callback))};
  num_watches_.store(watches_.size());
}

void Poller::Remove(int fd) {
  std::shared_ptr<std::function<void()>> callback;  // Released unlocked.
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = watches_.find(fd);
    if (it == watches_.end()) {
      ZT_WLOG("RemoveFileDescriptorWatch(%d): fd not watched", fd);
      return;
    }
    if (epoll_ctl(epoll_fd_.get(), EPOLL_CTL_DEL, fd, nullptr) != 0) {
      // The fd was closed first: the kernel dropped it from the set if no
      // duplicate is open. If one is, its events keep waking Poll() (and
      // are ignored: no watch matches): a leak of wake-ups, hence a warning.
      ZT_WLOG("fd %d was closed before its watch was removed (errno %d)", fd,
              errno);
    }
    callback = std::move(it->second.callback);
    watches_.erase(it);
    num_watches_.store(watches_.size());
  }
}

void Poller::Wake() {
  if (wake_pending_.exchange(true))
    return;  // Not read yet: Poll() will see that write.
  const uint64_t one = 1;
  ssize_t res;
  do {
    res = write(wake_fd_.get(), &one, sizeof(one));
  } while (res < 0 && errno == EINTR);
  // EAGAIN would need 2^64-2 wakes; anything else is a broken fd.
  if (res < 0 && errno != EAGAIN)
    ZT_PLOG("write(eventfd)");
}

size_t Poller::Poll(int timeout_ms) {
  ready_.clear();
  const int n = epoll_wait(epoll_fd_.get(), events_.data(),
                           static_cast<int>(events_.size()), timeout_ms);
  if (n < 0) {
    if (errno != EINTR)
      ZT_PLOG("epoll_wait");
    return 0;
  }
  for (int i = 0; i < n; i++) {
    const uint64_t tag = events_[static_cast<size_t>(i)].data.u64;
    if (tag != kWakeTag) {
      ready_.push_back(tag);
      continue;
    }
    // A Wake() between epoll_wait() and this store writes nothing, but the
    // runner checks its queues after Poll() returns, and before it blocks
    // again, so the task that Wake() announced is seen.
    wake_pending_.store(false);
  }
  return ready_.size();
}

size_t Poller::RunReady(const std::function<bool()>& stop) {
  size_t ran = 0;
  for (const uint64_t tag : ready_) {
    if (stop && stop())
      break;
    const int fd = static_cast<int>(tag & 0xffffffffu);
    std::shared_ptr<std::function<void()>> callback;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = watches_.find(fd);
      if (it == watches_.end() || Tag(it->second.id, fd) != tag)
        continue;  // Removed (or replaced) since Poll() saw it ready.
      callback = it->second.callback;
    }
    (*callback)();
    ran++;
  }
  ready_.clear();
  return ran;
}

}  // namespace base
}  // namespace zt
