#include "src/base/unix_socket.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <utility>

#include "zt/base/logging.h"

namespace zt {
namespace base {

namespace {

// Every socket we make: non-blocking (the runner's thread must never wait
// in the kernel) and close-on-exec (a child must not hold our connections).
constexpr int kSocketFlags = SOCK_NONBLOCK | SOCK_CLOEXEC;
// How long a listener whose accept4 ran out of fds or memory stops
// accepting: long enough not to spin, short enough not to be noticed.
constexpr uint32_t kAcceptRetryDelayMs = 100;
// Queued sends gathered into one sendmsg (well under IOV_MAX).
constexpr size_t kMaxIovecsPerSend = 64;
// Room for the most fds one message carries.
constexpr size_t kControlBytes =
    CMSG_SPACE(UnixSocket::kMaxFdsPerMessage * sizeof(int));

struct SocketAddress {
  sockaddr_un addr{};
  socklen_t size = 0;
  bool abstract = false;
  const sockaddr* get() const {
    return reinterpret_cast<const sockaddr*>(&addr);
  }
};

// "@name": abstract, sun_path[0] = 0 and the name after it, its length in
// the address size (no trailing NUL: the kernel would make it part of the
// name, and clients that omit it would not find us). Else a path, with its
// NUL. False, with a log line, if it does not fit.
bool MakeAddress(const std::string& address, SocketAddress* out) {
  out->addr.sun_family = AF_UNIX;
  const size_t room = sizeof(out->addr.sun_path);
  if (address.empty() || address.find('\0') != std::string::npos ||
      address == "@") {
    ZT_ELOG("UnixSocket: invalid address '%s'", address.c_str());
    return false;
  }
  out->abstract = address[0] == '@';
  // Either way the path uses one byte more than its characters: the NUL,
  // or the abstract name's leading 0 (for which the '@' is dropped).
  const size_t path_bytes = address.size() + (out->abstract ? 0 : 1);
  if (path_bytes > room) {
    ZT_ELOG("UnixSocket: address '%s' is too long: %zu bytes of sun_path's %zu",
            address.c_str(), path_bytes, room);
    return false;
  }
  if (out->abstract) {
    out->addr.sun_path[0] = '\0';
    memcpy(out->addr.sun_path + 1, address.data() + 1, address.size() - 1);
  } else {
    memcpy(out->addr.sun_path, address.c_str(), address.size() + 1);
  }
  out->size =
      static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path_bytes);
  return true;
}

// One sendmsg of |iov|, with |fds| (if any) attached to its first byte.
// Returns the bytes sent, 0 if the kernel takes nothing now (EAGAIN), or -1
// (errno set) if the connection is broken.
ssize_t SendMessage(int fd, iovec* iov, size_t iov_count, const int* fds,
                    size_t num_fds) {
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = iov_count;
  alignas(cmsghdr) char control[kControlBytes];
  if (num_fds > 0) {
    memset(control, 0, sizeof(control));
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(num_fds * sizeof(int));
    cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(num_fds * sizeof(int));
    memcpy(CMSG_DATA(cmsg), fds, num_fds * sizeof(int));
  }
  for (;;) {
    // MSG_NOSIGNAL: a peer gone makes EPIPE, never a SIGPIPE that kills us.
    const ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n >= 0)
      return n;
    if (errno == EINTR)
      continue;
    return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
  }
}

void SetNonBlocking(int fd) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0)
    ZT_PLOG("UnixSocket: fcntl(%d, O_NONBLOCK)", fd);
}

// bind(), and if a socket file is in the way: connect to it to learn whether
// anyone serves it. Refused: a dead server's file, removed and bound again.
// Accepted (or a full backlog): alive, and we fail. Not a socket: not ours
// to remove.
bool BindReplacingStaleFile(int fd, const std::string& address,
                            const SocketAddress& addr) {
  if (bind(fd, addr.get(), addr.size) == 0)
    return true;
  if (errno != EADDRINUSE) {
    ZT_PLOG("UnixSocket: bind(%s)", address.c_str());
    return false;
  }
  if (addr.abstract) {  // Abstract names vanish with their socket.
    ZT_ELOG("UnixSocket: another process serves %s", address.c_str());
    return false;
  }
  struct stat st {};
  const bool has_file = lstat(address.c_str(), &st) == 0;
  if (has_file && !S_ISSOCK(st.st_mode)) {
    ZT_ELOG("UnixSocket: %s exists and is not a socket: not replacing it",
            address.c_str());
    return false;
  }
  ScopedFile probe(socket(AF_UNIX, SOCK_STREAM | kSocketFlags, 0));
  if (!probe) {
    ZT_PLOG("UnixSocket: socket()");
    return false;
  }
  if (connect(probe.get(), addr.get(), addr.size) == 0 || errno == EAGAIN ||
      errno == EINPROGRESS) {
    if (has_file && st.st_uid != geteuid()) {
      // Someone else's: in a directory anyone may write (/tmp), another
      // user can take a well-known path before the daemon does.
      ZT_ELOG("UnixSocket: another process serves %s, and the socket file belongs to "
              "uid %u, not us (uid %u)", address.c_str(), static_cast<unsigned>(st.st_uid),
              static_cast<unsigned>(geteuid()));
    } else {
      ZT_ELOG("UnixSocket: another process serves %s", address.c_str());
    }
    return false;
  }
  // ENOENT: the file went between bind and connect; bind again all the same.
  if (errno != ECONNREFUSED && errno != ENOENT) {
    ZT_PLOG("UnixSocket: connect(%s), to see whether it is stale",
            address.c_str());
    return false;
  }
  ZT_ILOG("UnixSocket: replacing the stale socket file %s", address.c_str());
  if (unlink(address.c_str()) != 0 && errno != ENOENT) {
    if (errno == EPERM || errno == EACCES) {
      ZT_ELOG("UnixSocket: cannot remove the stale socket file %s (uid %u's; we are uid "
              "%u): %s", address.c_str(), static_cast<unsigned>(st.st_uid),
              static_cast<unsigned>(geteuid()), strerror(errno));
    } else {
      ZT_PLOG("UnixSocket: unlink(%s)", address.c_str());
    }
    return false;
  }
  if (bind(fd, addr.get(), addr.size) != 0) {
    ZT_PLOG("UnixSocket: bind(%s)", address.c_str());
    return false;
  }
  return true;
}

}  // namespace

UnixSocket::EventListener::~EventListener() = default;
void UnixSocket::EventListener::OnNewIncomingConnection(
    UnixSocket*, std::unique_ptr<UnixSocket>) {}
void UnixSocket::EventListener::OnConnect(UnixSocket*, bool) {}
void UnixSocket::EventListener::OnDisconnect(UnixSocket*) {}
void UnixSocket::EventListener::OnDataAvailable(UnixSocket*) {}

UnixSocket::UnixSocket(ScopedFile fd, State state, EventListener* listener,
                       TaskRunner* runner)
    : fd_(std::move(fd)), state_(state), listener_(listener), runner_(runner) {}

UnixSocket::~UnixSocket() {
  // On the runner's thread: once removed, the callbacks never run again.
  Close();
}

// static
std::unique_ptr<UnixSocket> UnixSocket::Listen(const std::string& address,
                                               EventListener* listener,
                                               TaskRunner* runner) {
  SocketAddress addr;
  if (!MakeAddress(address, &addr))
    return nullptr;
  ScopedFile fd(socket(AF_UNIX, SOCK_STREAM | kSocketFlags, 0));
  if (!fd) {
    ZT_PLOG("UnixSocket: socket()");
    return nullptr;
  }
  if (!BindReplacingStaleFile(fd.get(), address, addr))
    return nullptr;
  if (listen(fd.get(), SOMAXCONN) != 0) {
    ZT_PLOG("UnixSocket: listen(%s)", address.c_str());
    if (!addr.abstract)
      unlink(address.c_str());  // Ours, bound just now, and useless.
    return nullptr;
  }
  return Listen(std::move(fd), listener, runner);
}

// static
std::unique_ptr<UnixSocket> UnixSocket::Listen(ScopedFile fd,
                                               EventListener* listener,
                                               TaskRunner* runner) {
  if (!fd)
    ZT_FATAL("UnixSocket::Listen: no fd");
  SetNonBlocking(fd.get());  // Inherited fds may block: accept4 would hang.
  std::unique_ptr<UnixSocket> socket(
      new UnixSocket(std::move(fd), State::kListening, listener, runner));
  socket->WatchReadable();
  return socket;
}

// static
std::unique_ptr<UnixSocket> UnixSocket::Connect(const std::string& address,
                                                EventListener* listener,
                                                TaskRunner* runner) {
  std::unique_ptr<UnixSocket> socket(new UnixSocket(
      ScopedFile(::socket(AF_UNIX, SOCK_STREAM | kSocketFlags, 0)),
      State::kConnecting, listener, runner));
  int error;
  SocketAddress addr;
  if (!socket->fd_) {
    error = errno;
    ZT_PLOG("UnixSocket: socket()");
  } else if (!MakeAddress(address, &addr)) {
    error = EINVAL;
  } else if (connect(socket->fd_.get(), addr.get(), addr.size) == 0) {
    error = 0;
  } else if (errno == EINPROGRESS || errno == EINTR) {
    // (Linux completes or refuses UNIX connections at once; kept for the
    // contract of non-blocking connect.) SO_ERROR tells once writable.
    socket->WatchWritable();
    return socket;
  } else {
    error = errno;  // ECONNREFUSED, ENOENT, EAGAIN (backlog full), ...
    ZT_DLOG("UnixSocket: connect(%s): %s", address.c_str(), strerror(error));
  }
  // Reported from a task even now: the caller must not be called back
  // from inside its own call (it may not even hold the socket yet).
  socket->runner_->PostTask([weak = socket->weak_factory_.GetWeakPtr(), error] {
    if (weak && !weak->muted_)
      weak->FinishConnect(error);
  });
  return socket;
}

// static
std::unique_ptr<UnixSocket> UnixSocket::AdoptConnected(ScopedFile fd,
                                                       EventListener* listener,
                                                       TaskRunner* runner) {
  if (!fd)
    ZT_FATAL("UnixSocket::AdoptConnected: no fd");
  SetNonBlocking(fd.get());
  std::unique_ptr<UnixSocket> socket(
      new UnixSocket(std::move(fd), State::kConnected, listener, runner));
  socket->ReadPeerCredentials();
  socket->WatchReadable();
  return socket;
}

void UnixSocket::WatchReadable() {
  read_watched_ = true;
  runner_->AddFileDescriptorWatch(fd_.get(),
                                  [weak = weak_factory_.GetWeakPtr()] {
                                    if (weak)
                                      weak->OnFdReadable();
                                  });
}

void UnixSocket::WatchWritable() {
  if (write_watched_)
    return;
  write_watched_ = true;
  // Guarded: a runner that polls for writability (TaskRunner's default)
  // cannot cancel its callback, which may come after we are gone.
  runner_->AddFileDescriptorWritableWatch(fd_.get(),
                                          [weak = weak_factory_.GetWeakPtr()] {
                                            if (weak)
                                              weak->OnFdWritable();
                                          });
}

void UnixSocket::OnFdReadable() {
  // Events from here are delivered directly: this is a runner callback, and
  // nothing below touches |this| after the listener was called unless a
  // WeakPtr says it still exists.
  if (state_ == State::kListening)
    AcceptPendingConnections();
  else if (state_ == State::kConnected)
    listener_->OnDataAvailable(this);  // May destroy |this|.
}

void UnixSocket::AcceptPendingConnections() {
  const WeakPtr<UnixSocket> weak = weak_factory_.GetWeakPtr();
  // All of them: one readiness may stand for many connections.
  for (;;) {
    const int fd = accept4(fd_.get(), nullptr, nullptr, kSocketFlags);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED)
        continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        return;
      ZT_PLOG("UnixSocket: accept4");
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
          errno == ENOMEM) {
        PauseAccepting();
      }
      return;
    }
    std::unique_ptr<UnixSocket> connection(
        new UnixSocket(ScopedFile(fd), State::kConnected, listener_, runner_));
    connection->ReadPeerCredentials();
    connection->WatchReadable();
    listener_->OnNewIncomingConnection(this, std::move(connection));
    if (!weak || state_ != State::kListening)
      return;  // The listener destroyed or shut us down.
  }
}

void UnixSocket::PauseAccepting() {
  ZT_ELOG("UnixSocket: not accepting for %u ms", kAcceptRetryDelayMs);
  runner_->RemoveFileDescriptorWatch(fd_.get());
  read_watched_ = false;
  runner_->PostDelayedTask(
      [weak = weak_factory_.GetWeakPtr()] {
        if (weak && weak->state_ == State::kListening && !weak->read_watched_)
          weak->WatchReadable();
      },
      kAcceptRetryDelayMs);
}

void UnixSocket::OnFdWritable() {
  write_watched_ = false;
  if (state_ == State::kConnecting) {
    // A runner that polls by timer (TaskRunner's default) calls back
    // whatever the state, and SO_ERROR is 0 while the connect is pending:
    // ask the kernel whether it is writable, i.e. finished, first.
    pollfd writable{fd_.get(), POLLOUT, 0};
    if (poll(&writable, 1, 0) == 0) {
      WatchWritable();
      return;
    }
    int error = 0;
    socklen_t size = sizeof(error);
    if (getsockopt(fd_.get(), SOL_SOCKET, SO_ERROR, &error, &size) != 0)
      error = errno;
    FinishConnect(error);  // May destroy |this|.
    return;
  }
  if (state_ == State::kConnected)
    SendQueued();
}

void UnixSocket::FinishConnect(int error) {
  if (state_ != State::kConnecting)
    return;  // Shut down meanwhile.
  if (error != 0) {
    Close();
    listener_->OnConnect(this, false);
    return;
  }
  state_ = State::kConnected;
  ReadPeerCredentials();
  WatchReadable();
  listener_->OnConnect(this, true);
}

void UnixSocket::ReadPeerCredentials() {
  ucred cred{};
  socklen_t size = sizeof(cred);
  if (getsockopt(fd_.get(), SOL_SOCKET, SO_PEERCRED, &cred, &size) != 0) {
    ZT_PLOG("UnixSocket: getsockopt(SO_PEERCRED)");
    return;
  }
  peer_uid_ = cred.uid;
  peer_pid_ = cred.pid;
}

bool UnixSocket::Send(const void* data, size_t size, const int* fds,
                      size_t num_fds) {
  if (num_fds > kMaxFdsPerMessage || (num_fds > 0 && (size == 0 || !fds))) {
    ZT_FATAL(
        "UnixSocket::Send: %zu fds with %zu bytes (at most %zu fds, "
        "and at least one byte to carry them)",
        num_fds, size, kMaxFdsPerMessage);
  }
  if (state_ != State::kConnected)
    return false;
  if (size == 0)
    return true;
  const char* bytes = static_cast<const char*>(data);
  size_t sent = 0;
  // Behind queued bytes, these wait their turn: the stream keeps its order.
  if (send_queue_.empty()) {
    iovec iov{const_cast<char*>(bytes), size};
    const ssize_t n = SendMessage(fd_.get(), &iov, 1, fds, num_fds);
    if (n < 0) {
      ZT_DLOG("UnixSocket: send: %s", strerror(errno));  // EPIPE, ECONNRESET
      Disconnect();
      return false;
    }
    sent = static_cast<size_t>(n);
    if (sent == size)
      return true;
  }
  // The fds went with the first byte if any byte went.
  return sent > 0 ? Enqueue(bytes + sent, size - sent, nullptr, 0)
                  : Enqueue(bytes, size, fds, num_fds);
}

bool UnixSocket::Enqueue(const char* data, size_t size, const int* fds,
                         size_t num_fds) {
  if (size > kMaxQueuedSendBytes - queued_send_bytes_) {
    ZT_ELOG(
        "UnixSocket: the peer (pid %d) is not reading: %zu bytes queued, %zu "
        "more would exceed %zu; disconnecting it",
        static_cast<int>(peer_pid_), queued_send_bytes_, size,
        kMaxQueuedSendBytes);
    Disconnect();
    return false;
  }
  QueuedSend entry;
  entry.bytes.assign(data, size);
  for (size_t i = 0; i < num_fds; i++) {
    // Ours until sent: the caller may close its fds as soon as we return.
    ScopedFile copy(fcntl(fds[i], F_DUPFD_CLOEXEC, 0));
    if (!copy) {
      ZT_PLOG("UnixSocket: dup of fd %d to send", fds[i]);
      Disconnect();  // Sending the bytes without their fds would lie.
      return false;
    }
    entry.fds.push_back(std::move(copy));
  }
  send_queue_.push_back(std::move(entry));
  queued_send_bytes_ += size;
  WatchWritable();
  return true;
}

void UnixSocket::SendQueued() {
  while (!send_queue_.empty()) {
    // One sendmsg: the first entry's rest, then the entries after it up to
    // the next that carries fds (which must start a message of its own:
    // fds go with its first byte). An entry whose fds have not gone yet
    // goes alone: the receiver's read ends with the message that carries
    // fds, and the peer gives them to the frame that read completes, which
    // must be this entry's, not one queued behind it.
    iovec iov[kMaxIovecsPerSend];
    size_t iov_count = 0;
    size_t requested = 0;
    const bool first_carries_fds = !send_queue_.front().fds.empty();
    for (auto it = send_queue_.begin();
         it != send_queue_.end() && iov_count < kMaxIovecsPerSend; ++it) {
      if (it != send_queue_.begin() && (first_carries_fds || !it->fds.empty()))
        break;
      const size_t skip = it == send_queue_.begin() ? send_queue_offset_ : 0;
      iov[iov_count++] = {&it->bytes[skip], it->bytes.size() - skip};
      requested += it->bytes.size() - skip;
    }
    QueuedSend& first = send_queue_.front();
    int fds[kMaxFdsPerMessage];
    const size_t num_fds = first.fds.size();
    for (size_t i = 0; i < num_fds; i++)
      fds[i] = first.fds[i].get();
    const ssize_t n = SendMessage(fd_.get(), iov, iov_count, fds, num_fds);
    if (n < 0) {
      ZT_DLOG("UnixSocket: send: %s", strerror(errno));  // EPIPE, ECONNRESET
      Disconnect();
      return;
    }
    if (n == 0)
      break;            // Full again.
    first.fds.clear();  // Gone with the first byte: close our copies.
    size_t left = static_cast<size_t>(n);
    queued_send_bytes_ -= left;
    while (left > 0) {
      const size_t rest = send_queue_.front().bytes.size() - send_queue_offset_;
      if (left < rest) {
        send_queue_offset_ += left;
        break;
      }
      left -= rest;
      send_queue_.pop_front();
      send_queue_offset_ = 0;
    }
    if (static_cast<size_t>(n) < requested)
      break;  // The kernel took what it could: the next try would EAGAIN.
  }
  if (!send_queue_.empty())
    WatchWritable();
}

size_t UnixSocket::Receive(void* data, size_t size, ScopedFile* fds,
                           size_t max_fds, size_t* num_fds) {
  if (num_fds)
    *num_fds = 0;
  if (state_ != State::kConnected || size == 0)
    return 0;
  iovec iov{data, size};
  alignas(cmsghdr) char control[kControlBytes];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  ssize_t n;
  do {
    // MSG_CMSG_CLOEXEC: received fds must not leak into our children.
    n = recvmsg(fd_.get(), &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK)
      return 0;
    ZT_DLOG("UnixSocket: recv: %s", strerror(errno));  // ECONNRESET
    Disconnect();
    return 0;
  }
  // The fds are ours now, whatever the caller wants: keep what it has room
  // for, close the rest.
  size_t kept = 0;
  size_t closed = 0;
  for (cmsghdr* cmsg = CMSG_FIRSTHDR(&msg); cmsg;
       cmsg = CMSG_NXTHDR(&msg, cmsg)) {
    if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS)
      continue;
    const size_t count = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; i++) {
      int fd;
      memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(int), sizeof(fd));
      if (fds && kept < max_fds) {
        fds[kept++].reset(fd);
      } else {
        ScopedFile unwanted(fd);
        closed++;
      }
    }
  }
  if (num_fds)
    *num_fds = kept;
  if (closed > 0)
    ZT_WLOG("UnixSocket: closed %zu received fds beyond the %zu expected",
            closed, max_fds);
  if (msg.msg_flags & MSG_CTRUNC) {
    ZT_WLOG(
        "UnixSocket: the peer sent more than %zu fds at once; the kernel "
        "closed the rest",
        kMaxFdsPerMessage);
  }
  if (n == 0) {  // The peer closed: end of stream.
    Disconnect();
    return 0;
  }
  return static_cast<size_t>(n);
}

void UnixSocket::Shutdown(bool notify) {
  if (!notify)
    muted_ = true;
  Close();
  if (notify)
    NotifyDisconnect();
}

size_t UnixSocket::queued_send_bytes() const {
  return queued_send_bytes_;
}

void UnixSocket::Close() {
  if (read_watched_ || write_watched_)
    runner_->RemoveFileDescriptorWatch(fd_.get());
  read_watched_ = false;
  write_watched_ = false;
  fd_.reset();  // After the watch: a closed fd cannot be unwatched.
  state_ = State::kDisconnected;
  send_queue_.clear();
  send_queue_offset_ = 0;
  queued_send_bytes_ = 0;
}

void UnixSocket::Disconnect() {
  Close();
  NotifyDisconnect();
}

void UnixSocket::NotifyDisconnect() {
  if (disconnect_posted_ || muted_)
    return;
  disconnect_posted_ = true;
  // Posted: this may run inside a call the listener made (Send, Receive).
  runner_->PostTask([weak = weak_factory_.GetWeakPtr()] {
    if (weak && !weak->muted_)
      weak->listener_->OnDisconnect(weak.get());
  });
}

}  // namespace base
}  // namespace zt
