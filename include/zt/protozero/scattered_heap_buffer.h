// HeapBuffered<T> writes a message into a growing chain of heap slices, for
// code that wants a serialized message as a std::string or byte vector (IPC
// arguments, configs, tests). ScatteredHeapBuffer is the delegate behind it,
// usable on its own with any ScatteredStreamWriter.
//
// Slices start small and double up to a maximum, so small messages cost one
// small allocation and large ones a logarithmic number of them.
// Thread-compatible.

#ifndef ZT_PROTOZERO_SCATTERED_HEAP_BUFFER_H_
#define ZT_PROTOZERO_SCATTERED_HEAP_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "zt/protozero/contiguous_memory_range.h"
#include "zt/protozero/message.h"
#include "zt/protozero/scattered_stream_writer.h"

namespace zt {
namespace protozero {

class ScatteredHeapBuffer : public ScatteredStreamWriter::Delegate {
 public:
  class Slice {
   public:
    explicit Slice(size_t size);
    ContiguousMemoryRange GetTotalRange() const;
    // The written part of the slice.
    ContiguousMemoryRange GetUsedRange() const;
    size_t size() const { return size_; }
    size_t unused_bytes() const { return unused_bytes_; }
    void set_unused_bytes(size_t n) { unused_bytes_ = n; }

   private:
    std::unique_ptr<uint8_t[]> buffer_;
    size_t size_;
    size_t unused_bytes_;
  };

  explicit ScatteredHeapBuffer(size_t initial_slice_size_bytes = 128,
                               size_t maximum_slice_size_bytes = 128 * 1024);
  ~ScatteredHeapBuffer() override;

  // Must be called once, before writing, with the writer using this delegate
  // (it reads the writer's position to know how much of a slice was used).
  void set_writer(ScatteredStreamWriter* writer) { writer_ = writer; }

  // Allocates the next slice. O(slice size).
  ContiguousMemoryRange GetNewBuffer() override;

  // The slices written so far, with the last one's used size up to date.
  const std::vector<Slice>& GetSlices();
  // The used part of each slice, in order.
  std::vector<ContiguousMemoryRange> GetRanges();
  // All written bytes concatenated. O(total size).
  std::vector<uint8_t> StitchSlices();
  std::string StitchSlicesAsString();
  // Bytes written into all slices.
  size_t GetTotalSize();

  // Frees every slice; the next write starts a new chain.
  void Reset();

 private:
  void AdjustUsedSizeOfCurrentSlice();

  size_t next_slice_size_;
  const size_t initial_slice_size_;
  const size_t maximum_slice_size_;
  ScatteredStreamWriter* writer_ = nullptr;
  std::vector<Slice> slices_;
};

// A root message of type T written into heap slices it owns.
template <typename T>
class HeapBuffered {
 public:
  HeapBuffered() : HeapBuffered(128, 128 * 1024) {}
  HeapBuffered(size_t initial_slice_size_bytes, size_t maximum_slice_size_bytes)
      : shb_(initial_slice_size_bytes, maximum_slice_size_bytes),
        writer_(&shb_),
        msg_(&writer_) {
    shb_.set_writer(&writer_);
  }
  HeapBuffered(const HeapBuffered&) = delete;
  HeapBuffered& operator=(const HeapBuffered&) = delete;

  T* get() { return &msg_; }
  T* operator->() { return &msg_; }
  T& operator*() { return msg_; }

  // Finalizes the message and returns its bytes. O(size). The message must
  // not be written afterwards, except after Reset().
  std::string SerializeAsString() {
    msg_.Finalize();
    return shb_.StitchSlicesAsString();
  }
  std::vector<uint8_t> SerializeAsArray() {
    msg_.Finalize();
    return shb_.StitchSlices();
  }
  // Finalizes and returns the written ranges without copying them.
  std::vector<ContiguousMemoryRange> GetRanges() {
    msg_.Finalize();
    return shb_.GetRanges();
  }

  // Discards everything and starts an empty message.
  void Reset() {
    writer_.Reset(ContiguousMemoryRange{});
    shb_.Reset();
    msg_.Reset(&writer_);
  }

 private:
  ScatteredHeapBuffer shb_;
  ScatteredStreamWriter writer_;
  RootMessage<T> msg_;
};

}  // namespace protozero
}  // namespace zt

#endif  // ZT_PROTOZERO_SCATTERED_HEAP_BUFFER_H_
