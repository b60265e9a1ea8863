#include "zt/processor/mapped_trace_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <limits>

namespace zt {
namespace processor {
namespace {

std::string Cause(const std::string& path, const char* what, int err) {
  std::string message = path + ": " + what;
  if (err != 0)
    message += std::string(": ") + strerror(err);
  return message;
}

}  // namespace

std::unique_ptr<MappedTraceFile> MappedTraceFile::Open(const std::string& path,
                                                       std::string* error) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = Cause(path, "cannot open", errno);
    return nullptr;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    *error = Cause(path, "cannot stat", errno);
    close(fd);
    return nullptr;
  }
  // A pipe or a device has no size to map; a directory opens read-only
  // but is not a trace.
  if (!S_ISREG(st.st_mode)) {
    *error = Cause(path, "not a regular file", 0);
    close(fd);
    return nullptr;
  }
  if (st.st_size == 0) {
    close(fd);
    return std::unique_ptr<MappedTraceFile>(new MappedTraceFile(nullptr, 0));
  }
  if (static_cast<uint64_t>(st.st_size) > std::numeric_limits<size_t>::max()) {
    *error = Cause(path, "too large to map in this address space", 0);
    close(fd);
    return nullptr;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int map_errno = errno;
  // The mapping keeps the file; the descriptor is no longer needed.
  close(fd);
  if (map == MAP_FAILED) {
    *error = Cause(path, "cannot map", map_errno);
    return nullptr;
  }
  // The tokenizer and the parsers read front to back: ask for aggressive
  // read-ahead and early reclaim of pages behind. Advice only; failure is
  // harmless.
  madvise(map, size, MADV_SEQUENTIAL);
  return std::unique_ptr<MappedTraceFile>(
      new MappedTraceFile(static_cast<const uint8_t*>(map), size));
}

MappedTraceFile::~MappedTraceFile() {
  if (data_ != nullptr)
    munmap(const_cast<uint8_t*>(data_), size_);
}

void MappedTraceFile::ReleasePages(uint64_t offset, uint64_t length) const {
  if (!data_ || offset >= size_)
    return;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t end = std::min<uint64_t>(offset + length, size_);
  const uint64_t first = (offset + page - 1) / page * page;
  const uint64_t last = end == size_ ? end : end / page * page;
  if (last <= first)
    return;
  // Advice only: a failure leaves the pages resident, which is harmless.
  madvise(const_cast<uint8_t*>(data_) + first, last - first, MADV_DONTNEED);
}

}  // namespace processor
}  // namespace zt
