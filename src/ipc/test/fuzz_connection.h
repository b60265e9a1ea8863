// What the IPC fuzzers (src/ipc/host_fuzzer.cc,
// src/tracing/ipc/service_ports_fuzzer.cc) share: a hostile connection is
// one end of a socketpair a Host adopts, the fuzzer writing into the other.
// Fuzzer support only: a broken invariant aborts (libFuzzer reports it).
#ifndef ZT_SRC_IPC_TEST_FUZZ_CONNECTION_H_
#define ZT_SRC_IPC_TEST_FUZZ_CONNECTION_H_

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>

#include "src/base/scoped_file.h"
#include "src/base/test/test_task_runner.h"
#include "src/base/unix_socket.h"
#include "src/ipc/host.h"

namespace zt {
namespace ipc {
namespace fuzz {

inline void Check(bool cond) {
  if (!cond)
    abort();
}

// One end for |host| (served on |runner|), the other, non-blocking, for
// the fuzzer.
inline base::ScopedFile Connect(Host* host, base::TestTaskRunner* runner) {
  int fds[2];
  Check(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
  Check(fcntl(fds[0], F_SETFL, O_NONBLOCK) == 0);
  host->AdoptClient(base::UnixSocket::AdoptConnected(base::ScopedFile(fds[1]), nullptr, runner));
  return base::ScopedFile(fds[0]);
}

// Reads (and drops) what the host sent; true if it closed the connection.
inline bool DrainAndSeeClosed(int fd) {
  char buf[16384];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n == 0)
      return true;
    if (n < 0)
      return false;
  }
}

}  // namespace fuzz
}  // namespace ipc
}  // namespace zt

#endif  // ZT_SRC_IPC_TEST_FUZZ_CONNECTION_H_
