#include "src/processor/rpc/streamed_trace.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace zt {
namespace processor {
namespace rpc {

std::unique_ptr<StreamedTrace> StreamedTrace::Create(std::string* error) {
  const int fd = memfd_create("ztrace-serve-trace", MFD_CLOEXEC);
  if (fd < 0) {
    *error = std::string("cannot make an anonymous file for the trace: ") + strerror(errno);
    return nullptr;
  }
  return std::unique_ptr<StreamedTrace>(new StreamedTrace(fd));
}

StreamedTrace::~StreamedTrace() { close(fd_); }

bool StreamedTrace::Append(const void* data, size_t size, std::string* error) {
  const auto* p = static_cast<const char*>(data);
  size_t left = size;
  while (left > 0) {
    const ssize_t written = write(fd_, p, left);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0) {
      const int saved = written < 0 ? errno : ENOSPC;
      // Keep the file as it was: a partial piece would be read as a cut trace.
      if (ftruncate(fd_, static_cast<off_t>(size_)) != 0 ||
          lseek(fd_, static_cast<off_t>(size_), SEEK_SET) < 0) {
        *error = std::string("cannot keep the trace's bytes: ") + strerror(saved) +
                 ", and cannot undo the partial write: " + strerror(errno);
        return false;
      }
      *error = "cannot keep " + std::to_string(size) + " more bytes of the trace (" +
               std::to_string(size_) + " kept): " + strerror(saved);
      return false;
    }
    p += written;
    left -= static_cast<size_t>(written);
  }
  size_ += size;
  return true;
}

void StreamedTrace::FreeBytes() {
  // Failure only leaves the bytes until the file is closed.
  if (ftruncate(fd_, 0) != 0) {
  }
}

uint64_t StreamedTrace::held_bytes() const {
  struct stat st;
  return fstat(fd_, &st) == 0 ? static_cast<uint64_t>(st.st_blocks) * 512 : 0;
}

std::string StreamedTrace::path() const { return "/proc/self/fd/" + std::to_string(fd_); }

}  // namespace rpc
}  // namespace processor
}  // namespace zt
