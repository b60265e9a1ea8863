// ScatteredStreamWriter writes a byte stream into a sequence of
// non-contiguous memory ranges (heap slices, shared-memory chunks) that a
// Delegate supplies on demand.
//
// Every write is bounds-checked inline; only a write that crosses the end of
// the current range takes the out-of-line slow path, which asks the delegate
// for the next range. This keeps the common case to a compare and a memcpy.
//
// Thread-compatible: one writer is used by one thread at a time.

#ifndef ZT_PROTOZERO_SCATTERED_STREAM_WRITER_H_
#define ZT_PROTOZERO_SCATTERED_STREAM_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "zt/protozero/contiguous_memory_range.h"
#include "zt/protozero/proto_utils.h"

namespace zt {
namespace protozero {

class ScatteredStreamWriter {
 public:
  class Delegate {
   public:
    virtual ~Delegate();

    // Returns the next range to write into (any non-zero size). Called with
    // the writer's write_ptr() still inside the range being abandoned, so the
    // delegate can tell how much of it was used. This is also the moment to
    // redirect size fields of open messages that lie in the abandoned range
    // (see Message::set_size_field()). A range too small for a pending
    // ReserveBytes() is abandoned unused and the delegate is asked again.
    // Returning an empty range, or only too-small ranges 1,024 times in a
    // row, aborts the process: a delegate out of memory must hand out
    // scratch space instead (see StaticBufferDelegate).
    virtual ContiguousMemoryRange GetNewBuffer() = 0;

    // For writers of the C ABI (PerfettoStreamWriterAnnotatePatch), whose
    // messages the delegate cannot see: the 4-byte size field at
    // |patch_addr|, in the current range, belongs to a message still open
    // when the writer leaves that range. Returns where the size is to be
    // written instead once known, or null (then nothing is written). This
    // default suits delegates whose ranges stay valid (heap slices): the
    // field itself. C++ messages never call it (see GetNewBuffer()).
    virtual uint8_t* AnnotatePatch(uint8_t* patch_addr);
  };

  // Largest contiguous reservation: a delegate must eventually hand out a
  // range at least this big.
  static constexpr size_t kMaxReserveSize = 8;

  // Starts with an empty range: the first write asks |delegate| for memory.
  explicit ScatteredStreamWriter(Delegate* delegate) : delegate_(delegate) {}

  ScatteredStreamWriter(const ScatteredStreamWriter&) = delete;
  ScatteredStreamWriter& operator=(const ScatteredStreamWriter&) = delete;

  // Continues writing into |range|. Bytes left unwritten in the current range
  // are abandoned (not counted by written()). O(1).
  void Reset(ContiguousMemoryRange range) {
    written_previously_ += static_cast<uint64_t>(write_ptr_ - cur_range_.begin);
    cur_range_ = range;
    write_ptr_ = range.begin;
  }

  // Appends one byte. O(1), may call the delegate.
  void WriteByte(uint8_t value) {
    if (ZT_UNLIKELY(write_ptr_ >= cur_range_.end))
      Extend(1);
    *write_ptr_++ = value;
  }

  // Appends |size| bytes, splitting them across ranges when needed. O(size).
  void WriteBytes(const uint8_t* src, size_t size) {
    if (ZT_LIKELY(static_cast<size_t>(cur_range_.end - write_ptr_) >= size)) {
      WriteBytesUnsafe(src, size);
      return;
    }
    WriteBytesSlowPath(src, size);
  }

  // Appends |size| bytes that the caller knows fit in the current range.
  void WriteBytesUnsafe(const uint8_t* src, size_t size) {
    // memcpy(dst, nullptr, 0) is undefined behaviour (glibc declares both
    // pointers nonnull, UBSan flags it): an empty std::string_view has a
    // null data(), and a fresh writer has a null write_ptr_.
    if (ZT_LIKELY(size != 0))
      memcpy(write_ptr_, src, size);
    write_ptr_ += size;
  }

  // Returns |size| (<= kMaxReserveSize) contiguous bytes and moves past
  // them. If the current range has less room, its tail is abandoned.
  uint8_t* ReserveBytes(size_t size) {
    if (ZT_UNLIKELY(static_cast<size_t>(cur_range_.end - write_ptr_) < size))
      Extend(size);
    uint8_t* begin = write_ptr_;
    write_ptr_ += size;
    return begin;
  }

  // Total bytes written since construction (excluding abandoned tails).
  uint64_t written() const {
    return written_previously_ +
           static_cast<uint64_t>(write_ptr_ - cur_range_.begin);
  }

  size_t bytes_available() const {
    return static_cast<size_t>(cur_range_.end - write_ptr_);
  }
  uint8_t* write_ptr() const { return write_ptr_; }
  uint8_t* end() const { return cur_range_.end; }
  ContiguousMemoryRange cur_range() const { return cur_range_; }
  Delegate* delegate() const { return delegate_; }

  // Moves the write pointer within the current range, after the caller wrote
  // directly into [write_ptr(), end()).
  void set_write_ptr(uint8_t* ptr) { write_ptr_ = ptr; }

  // Leaves the current range, written up to write_ptr(), for the
  // delegate's next one (even if this one has room). For writers of the C
  // ABI (PerfettoStreamWriterNewChunk).
  void MoveToNextRange() { Extend(1); }

 private:
  // Moves to a new range of at least |min_size| bytes.
  ZT_NOINLINE void Extend(size_t min_size);
  ZT_NOINLINE void WriteBytesSlowPath(const uint8_t* src, size_t size);

  Delegate* const delegate_;
  ContiguousMemoryRange cur_range_{};
  uint8_t* write_ptr_ = nullptr;
  uint64_t written_previously_ = 0;
};

}  // namespace protozero
}  // namespace zt

#endif  // ZT_PROTOZERO_SCATTERED_STREAM_WRITER_H_
