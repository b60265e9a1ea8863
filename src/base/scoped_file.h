// ScopedFile: owns a file descriptor and closes it when destroyed (or
// reset). Move-only; -1 means none. Not thread-safe (like an int).

#ifndef ZT_SRC_BASE_SCOPED_FILE_H_
#define ZT_SRC_BASE_SCOPED_FILE_H_

#include <errno.h>
#include <unistd.h>

#include "zt/base/logging.h"

namespace zt {
namespace base {

class ScopedFile {
 public:
  ScopedFile() = default;
  explicit ScopedFile(int fd) : fd_(fd) {}
  ~ScopedFile() { reset(); }

  ScopedFile(ScopedFile&& other) noexcept : fd_(other.release()) {}
  ScopedFile& operator=(ScopedFile&& other) noexcept {
    if (this != &other)
      reset(other.release());
    return *this;
  }
  ScopedFile(const ScopedFile&) = delete;
  ScopedFile& operator=(const ScopedFile&) = delete;

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }

  // Gives the fd up without closing it.
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

  // Closes the current fd (if any) and owns |fd|. A close that fails with
  // EBADF means the fd was closed twice: by then another file may have had
  // that number, and closing it again would break its owner, so abort.
  // (EINTR: the fd is closed on Linux; never retry.)
  void reset(int fd = -1) {
    if (fd_ >= 0) {
      const int res = close(fd_);
      if (res != 0 && errno != EINTR)
        ZT_FATAL("close(%d) failed (errno %d): fd closed twice?", fd_, errno);
    }
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

}  // namespace base
}  // namespace zt

#endif  // ZT_SRC_BASE_SCOPED_FILE_H_
