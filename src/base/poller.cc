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

uint32_t Poller::NewIdLocked() {
  uint32_t id = next_id_++;
  if (id == kWakeTag)  // Wrapped: 0 is the eventfd's tag.
    id = next_id_++;
  return id;
}

void Poller::RegisterLocked(int fd, Watch* watch, bool is_new,
                            const char* what) {
  epoll_event ev{};
  // EPOLLHUP and EPOLLERR are always reported; EPOLLRDHUP for a socket
  // whose peer shut down its writing side only.
  ev.events = (watch->on_readable ? EPOLLIN | EPOLLRDHUP : 0u) |
              (watch->on_writable ? EPOLLOUT : 0u) |
              (watch->edge_triggered ? EPOLLET : 0u);
  ev.data.u64 = Tag(watch->id, fd);
  if (epoll_ctl(epoll_fd_.get(), is_new ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd,
                &ev) != 0) {
    ZT_PLOG("epoll_ctl(%s %d)", is_new ? "ADD" : "MOD", fd);
    ZT_FATAL("%s: cannot watch fd %d (regular files cannot be watched)", what,
             fd);
  }
}

void Poller::Add(int fd, std::function<void()> callback, bool edge_triggered) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = fd < 0 ? watches_.end() : watches_.find(fd);
  if (fd < 0 || (it != watches_.end() && it->second.on_readable))
    ZT_FATAL("AddFileDescriptorWatch(%d): invalid or already watched", fd);
  if (edge_triggered && it != watches_.end())
    ZT_FATAL("AddFileDescriptorWatch(%d): edge-triggered beside a writable watch", fd);
  const bool is_new = it == watches_.end();
  if (is_new)
    it = watches_.emplace(fd, Watch{NewIdLocked(), nullptr, nullptr}).first;
  it->second.edge_triggered = edge_triggered;
  it->second.on_readable =
      std::make_shared<std::function<void()>>(std::move(callback));
  RegisterLocked(fd, &it->second, is_new, "AddFileDescriptorWatch");
  num_watches_.store(watches_.size());
}

void Poller::AddWritable(int fd, std::function<void()> callback) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = fd < 0 ? watches_.end() : watches_.find(fd);
  if (fd < 0 || (it != watches_.end() && it->second.on_writable)) {
    ZT_FATAL(
        "AddFileDescriptorWritableWatch(%d): invalid, or a writable watch "
        "is pending already",
        fd);
  }
  if (it != watches_.end() && it->second.edge_triggered)
    ZT_FATAL("AddFileDescriptorWritableWatch(%d): the fd's read watch is edge-triggered", fd);
  const bool is_new = it == watches_.end();
  if (is_new)
    it = watches_.emplace(fd, Watch{NewIdLocked(), nullptr, nullptr}).first;
  it->second.on_writable = std::move(callback);
  RegisterLocked(fd, &it->second, is_new, "AddFileDescriptorWritableWatch");
  num_watches_.store(watches_.size());
}

void Poller::DropWriteInterestLocked(std::map<int, Watch>::iterator it) {
  const int fd = it->first;
  if (it->second.on_readable) {
    RegisterLocked(fd, &it->second, /*is_new=*/false, "a writable watch");
    return;
  }
  // Nothing else watches the fd: the registration goes (a later watch gets
  // a new one, with a new id).
  if (epoll_ctl(epoll_fd_.get(), EPOLL_CTL_DEL, fd, nullptr) != 0)
    ZT_WLOG("fd %d was closed while watched (errno %d)", fd, errno);
  watches_.erase(it);
  num_watches_.store(watches_.size());
}

void Poller::Remove(int fd) {
  // Released unlocked: their captures may do anything when destroyed.
  std::shared_ptr<std::function<void()>> on_readable;
  std::function<void()> on_writable;
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
    on_readable = std::move(it->second.on_readable);
    on_writable = std::move(it->second.on_writable);
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
  // What the last Poll() found and no RunReady() ran (RunReady() empties
  // ready_): level-triggered readiness is reported again, edges are not,
  // so they are kept.
  if (!ready_.empty())
    CarryEdges(0);
  ready_.clear();
  // Edges left over first, and no sleeping on them.
  ready_.swap(carried_);
  const size_t carried = ready_.size();
  if (carried != 0)
    timeout_ms = 0;
  const int n = epoll_wait(epoll_fd_.get(), events_.data(),
                           static_cast<int>(events_.size()), timeout_ms);
  if (n < 0) {
    if (errno != EINTR)
      ZT_PLOG("epoll_wait");
    return ready_.size();  // The kept edges, if any.
  }
  for (int i = 0; i < n; i++) {
    const epoll_event& event = events_[static_cast<size_t>(i)];
    if (event.data.u64 != kWakeTag) {
      // A kept edge reported again is one callback, not two.
      bool merged = false;
      for (size_t k = 0; k < carried && !merged; k++) {
        if (ready_[k].tag == event.data.u64) {
          ready_[k].events |= event.events;
          merged = true;
        }
      }
      if (!merged)
        ready_.push_back(Ready{event.data.u64, event.events});
      continue;
    }
    // A Wake() between epoll_wait() and this store writes nothing, but the
    // runner checks its queues after Poll() returns, and before it blocks
    // again, so the task that Wake() announced is seen.
    wake_pending_.store(false);
  }
  return ready_.size();
}

void Poller::CarryEdges(size_t from) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = from; i < ready_.size(); i++) {
    const int fd = static_cast<int>(ready_[i].tag & 0xffffffffu);
    auto it = watches_.find(fd);
    if (it != watches_.end() && it->second.edge_triggered &&
        Tag(it->second.id, fd) == ready_[i].tag)
      carried_.push_back(ready_[i]);
  }
}

size_t Poller::RunReady(const std::function<bool()>& stop) {
  constexpr uint32_t kReadable = EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR;
  constexpr uint32_t kWritable = EPOLLOUT | EPOLLHUP | EPOLLERR;
  size_t ran = 0;
  for (size_t index = 0; index < ready_.size(); index++) {
    const Ready& ready = ready_[index];
    const int fd = static_cast<int>(ready.tag & 0xffffffffu);
    // The fd's registration now, if it is the one Poll() saw: one removed
    // (or replaced) since then had its readiness with it.
    auto find_same = [&] {
      auto it = watches_.find(fd);
      return it != watches_.end() && Tag(it->second.id, fd) == ready.tag
                 ? it
                 : watches_.end();
    };
    if (ready.events & kReadable) {
      if (stop && stop()) {
        CarryEdges(index);
        break;
      }
      std::shared_ptr<std::function<void()>> on_readable;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = find_same();
        if (it != watches_.end())
          on_readable = it->second.on_readable;
      }
      if (on_readable) {
        (*on_readable)();
        ran++;
      }
    }
    if (ready.events & kWritable) {
      if (stop && stop()) {
        CarryEdges(index + 1);
        break;  // Still pending: the next Poll() reports it again.
      }
      std::function<void()> on_writable;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = find_same();
        if (it != watches_.end() && it->second.on_writable) {
          // Out before it runs: one-shot, and free to add itself again.
          on_writable = std::move(it->second.on_writable);
          it->second.on_writable = nullptr;
          DropWriteInterestLocked(it);
        }
      }
      if (on_writable) {
        on_writable();
        ran++;
      }
    }
  }
  ready_.clear();
  return ran;
}

}  // namespace base
}  // namespace zt
