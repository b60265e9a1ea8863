#include "src/cmd/ztrace/command_runner.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>

#include <utility>

namespace zt {
namespace ztrace {

int WriteAll(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        pollfd p{fd, POLLOUT, 0};
        poll(&p, 1, -1);
        continue;
      }
      return errno;
    }
    if (n == 0)
      return EIO;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

CommandEnd::CommandEnd(std::string prefix, std::function<void(int)> finish)
    : prefix_(std::move(prefix)), finish_(std::move(finish)) {}

void CommandEnd::Fail(const std::string& message) {
  if (done_)
    return;
  fprintf(stderr, "%s: %s\n", prefix_.c_str(), message.c_str());
  Finish(kExitFailure);
}

void CommandEnd::Finish(int exit_code) {
  if (done_)
    return;
  done_ = true;
  finish_(exit_code);
}

}  // namespace ztrace
}  // namespace zt
