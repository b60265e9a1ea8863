// Test support: a connected pair of non-blocking UNIX stream sockets whose
// |sender| end can be made unwritable (Fill: its send buffer full, send(2)
// says EAGAIN) and writable again (Drain: |receiver| reads everything), to
// test write-readiness. Header-only; not thread-safe (the test's thread, or
// the runner's).

#ifndef ZT_SRC_BASE_TEST_FULL_SOCKET_PAIR_H_
#define ZT_SRC_BASE_TEST_FULL_SOCKET_PAIR_H_

#include <errno.h>
#include <sys/socket.h>

#include <cstddef>

#include "src/base/scoped_file.h"
#include "zt/base/logging.h"

namespace zt {
namespace base {
namespace test {

struct FullSocketPair {
  FullSocketPair() {
    int fds[2];
    ZT_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
                        fds) == 0);
    sender.reset(fds[0]);
    receiver.reset(fds[1]);
  }

  // Sends until the kernel takes no more. Returns the bytes it took.
  size_t Fill() {
    static const char kChunk[4096] = {};
    size_t total = 0;
    for (;;) {
      const ssize_t n = send(sender.get(), kChunk, sizeof(kChunk),
                             MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0) {
        total += static_cast<size_t>(n);
        continue;
      }
      ZT_CHECK(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
      return total;
    }
  }

  // Reads everything |sender| sent; the sender is writable again after.
  size_t Drain() {
    char buf[4096];
    size_t total = 0;
    for (;;) {
      const ssize_t n = recv(receiver.get(), buf, sizeof(buf), MSG_DONTWAIT);
      if (n > 0) {
        total += static_cast<size_t>(n);
        continue;
      }
      ZT_CHECK(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
      return total;
    }
  }

  ScopedFile sender;
  ScopedFile receiver;
};

}  // namespace test
}  // namespace base
}  // namespace zt

#endif  // ZT_SRC_BASE_TEST_FULL_SOCKET_PAIR_H_
