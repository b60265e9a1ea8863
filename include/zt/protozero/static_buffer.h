// StaticBuffered<T> writes a message into a caller-provided fixed buffer
// (a stack array, a slot in a larger arena) with no allocation at all.
//
// If the message does not fit, writing continues into scratch space that is
// thrown away: overflowed() turns true and size() still reports how many
// bytes the whole message needs, so the caller can retry with a bigger
// buffer. Nothing is silently truncated. Thread-compatible.

#ifndef ZT_PROTOZERO_STATIC_BUFFER_H_
#define ZT_PROTOZERO_STATIC_BUFFER_H_

#include <cstddef>
#include <cstdint>

#include "zt/protozero/contiguous_memory_range.h"
#include "zt/protozero/message.h"
#include "zt/protozero/scattered_stream_writer.h"

namespace zt {
namespace protozero {

class StaticBufferDelegate : public ScatteredStreamWriter::Delegate {
 public:
  StaticBufferDelegate() = default;
  ~StaticBufferDelegate() override;

  // Called only once the caller's buffer is full: hands out scratch space.
  ContiguousMemoryRange GetNewBuffer() override;

  bool overflowed() const { return overflowed_; }
  void ClearOverflow() { overflowed_ = false; }

 private:
  bool overflowed_ = false;
  uint8_t scratch_[256];
};

template <typename T>
class StaticBuffered {
 public:
  // Writes into [buffer, buffer + size). O(1).
  StaticBuffered(void* buffer, size_t size)
      : begin_(static_cast<uint8_t*>(buffer)), writer_(&delegate_) {
    writer_.Reset({begin_, begin_ + size});
    msg_.Reset(&writer_);
  }
  StaticBuffered(const StaticBuffered&) = delete;
  StaticBuffered& operator=(const StaticBuffered&) = delete;

  T* get() { return &msg_; }
  T* operator->() { return &msg_; }
  T& operator*() { return msg_; }

  // Finalizes the message; returns the bytes it takes, which are at the
  // start of the buffer unless overflowed(). O(1).
  size_t Finalize() {
    msg_.Finalize();
    return size();
  }

  // Bytes written (or, after an overflow, needed) so far.
  size_t size() const { return static_cast<size_t>(writer_.written()); }
  bool overflowed() const { return delegate_.overflowed(); }
  const uint8_t* data() const { return begin_; }

 private:
  uint8_t* const begin_;
  StaticBufferDelegate delegate_;
  ScatteredStreamWriter writer_;
  RootMessage<T> msg_;
};

}  // namespace protozero
}  // namespace zt

#endif  // ZT_PROTOZERO_STATIC_BUFFER_H_
