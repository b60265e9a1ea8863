#include "src/tracing/service/file_output.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

namespace zt {

namespace {

// Makes |fd|'s description non-blocking if it is not; true if this call
// set the flag.
bool EnsureNonBlocking(int fd) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || (flags & O_NONBLOCK))
    return false;
  return fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

// write(2) that turns a broken pipe into EPIPE, never a SIGPIPE that would
// kill the process: the signal is blocked on this thread for the write,
// and the one the write raised is taken before unblocking (the cost: a
// sigtimedwait after a short write).
ssize_t WriteNoSigpipe(int fd, const uint8_t* data, size_t size) {
  sigset_t pipe_set, old_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  ssize_t n;
  do {
    n = write(fd, data, size);
  } while (n < 0 && errno == EINTR);
  const int error = n < 0 ? errno : 0;
  // A reader gone mid-write raises SIGPIPE even when the write returns the
  // part it wrote: whenever less than everything went, take any.
  if (n < 0 ? error == EPIPE : static_cast<size_t>(n) < size) {
    const struct timespec no_wait = {0, 0};
    while (sigtimedwait(&pipe_set, nullptr, &no_wait) == SIGPIPE) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
  errno = error;
  return n;
}

}  // namespace

void FileOutput::Attach(int fd) {
  struct stat st;
  const bool known = fstat(fd, &st) == 0;
  if (known && (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))) {
    kind = Kind::kRegular;
  } else if (known && S_ISSOCK(st.st_mode)) {
    kind = Kind::kSocket;
  } else {
    kind = Kind::kStream;
    set_nonblocking |= EnsureNonBlocking(fd);
  }
}

ssize_t FileOutput::WriteSome(int fd, const uint8_t* data, size_t size) {
  switch (kind) {
    case Kind::kRegular: {
      size_t done = 0;
      while (done < size) {
        const ssize_t n = WriteNoSigpipe(fd, data + done, size - done);
        if (n > 0) {
          done += static_cast<size_t>(n);
          continue;
        }
        return n < 0 ? -errno : -EIO;
      }
      return static_cast<ssize_t>(done);
    }
    case Kind::kSocket: {
      ssize_t n;
      do {
        n = send(fd, data, size, MSG_DONTWAIT | MSG_NOSIGNAL);
      } while (n < 0 && errno == EINTR);
      if (n >= 0)
        return n;
      return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
    }
    case Kind::kStream: {
      // The client shares the description and may have cleared the flag:
      // a blocking write here could stall the service for as long as the
      // reader likes.
      set_nonblocking |= EnsureNonBlocking(fd);
      const ssize_t n = WriteNoSigpipe(fd, data, size);
      if (n >= 0)
        return n;
      return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
    }
  }
  return -EINVAL;
}

void FileOutput::Detach(int fd) {
  if (!set_nonblocking)
    return;
  set_nonblocking = false;
  const int flags = fcntl(fd, F_GETFL);
  if (flags >= 0 && (flags & O_NONBLOCK))
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
}

}  // namespace zt
