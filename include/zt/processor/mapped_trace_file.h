// A trace file mapped read-only into memory, for the tokenizer: a file of
// several GB is read without being copied into the heap. The kernel pages it
// in as the views are read and may drop clean pages again under memory
// pressure, so resident memory is bounded by what the consumer touches
// recently, not by the file's size.
//
//   std::string error;
//   std::unique_ptr<MappedTraceFile> file = MappedTraceFile::Open(path,
//   &error); if (!file) return Fail(error);  // e.g. "trace.pftrace: No such
//   file ..." TraceTokenizer tokenizer(file->data(), file->size());
//
// The file must not be truncated by another process while it is mapped
// (reading a page past the new end raises SIGBUS): traces are read after
// they are written. Cost: one open, fstat and mmap; no read of the contents.
//
// Thread-safe after Open(): the object is immutable, and any number of
// threads may read its bytes.

#ifndef ZT_PROCESSOR_MAPPED_TRACE_FILE_H_
#define ZT_PROCESSOR_MAPPED_TRACE_FILE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace zt {
namespace processor {

class MappedTraceFile {
 public:
  // Maps the regular file at `path`. On failure returns null and sets
  // *error to a sentence naming the path and the cause (missing, not a
  // regular file, unreadable, cannot be mapped). An empty file opens, with
  // size() 0 and data() null.
  static std::unique_ptr<MappedTraceFile> Open(const std::string& path,
                                               std::string* error);

  ~MappedTraceFile();
  MappedTraceFile(const MappedTraceFile&) = delete;
  MappedTraceFile& operator=(const MappedTraceFile&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

  // Drops the mapping's resident pages that lie wholly inside [offset,
  // offset + length) from this process (the bytes stay readable: touching
  // them again reads them back from the page cache or the file). Lets a
  // reader of a file larger than memory keep its resident size bounded.
  void ReleasePages(uint64_t offset, uint64_t length) const;

 private:
  MappedTraceFile(const uint8_t* data, size_t size)
      : data_(data), size_(size) {}

  const uint8_t* const data_;
  const size_t size_;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_PROCESSOR_MAPPED_TRACE_FILE_H_
