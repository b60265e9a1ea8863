// The bytes of a trace as a client sends them, a piece at a time (/parse,
// TPM_APPEND_TRACE_DATA), kept in an anonymous file (memfd) rather than
// the heap, so that the import that follows maps them like a file on disk:
// every importer (both passes, gzip, JSON) applies, and the process holds
// the trace once, in the page cache, not twice.
//
// Linux only (memfd_create). Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_RPC_STREAMED_TRACE_H_
#define ZT_SRC_PROCESSOR_RPC_STREAMED_TRACE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace zt {
namespace processor {
namespace rpc {

class StreamedTrace {
 public:
  // Null with *error if no anonymous file can be made.
  static std::unique_ptr<StreamedTrace> Create(std::string* error);
  ~StreamedTrace();
  StreamedTrace(const StreamedTrace&) = delete;
  StreamedTrace& operator=(const StreamedTrace&) = delete;

  // Appends `size` bytes. False with *error when they cannot be kept (no
  // memory or space left): what was appended before stays.
  bool Append(const void* data, size_t size, std::string* error);

  // Frees the bytes appended (the file is emptied; size() stays what was
  // appended). Once only, when no mapping of the file is read any more and
  // nothing more is appended.
  void FreeBytes();

  uint64_t size() const { return size_; }
  // The memory the file holds now (tests).
  uint64_t held_bytes() const;
  // A path that opens the bytes appended so far, for as long as this object
  // lives (/proc/self/fd/N).
  std::string path() const;
  // The anonymous file, for a mapping of it (owned by this object).
  int fd() const { return fd_; }

 private:
  explicit StreamedTrace(int fd) : fd_(fd) {}
  int fd_;
  uint64_t size_ = 0;
};

}  // namespace rpc
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_RPC_STREAMED_TRACE_H_
