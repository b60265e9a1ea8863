// Builders for packed repeated scalar fields. A packed field is one
// length-delimited field holding every value back to back, so the values are
// collected here first and then written with a single set_<field>(packed)
// call on a generated message.
//
// The first kInlineSize bytes live inside the object; longer fields grow on
// the heap. Thread-compatible.

#ifndef ZT_PROTOZERO_PACKED_REPEATED_FIELDS_H_
#define ZT_PROTOZERO_PACKED_REPEATED_FIELDS_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "zt/protozero/proto_utils.h"

namespace zt {
namespace protozero {

class PackedBufferBase {
 public:
  static constexpr size_t kInlineSize = 256;

  PackedBufferBase() = default;
  PackedBufferBase(const PackedBufferBase&) = delete;
  PackedBufferBase& operator=(const PackedBufferBase&) = delete;

  // The encoded payload (without tag or length).
  const uint8_t* data() const { return begin_; }
  size_t size() const { return static_cast<size_t>(write_ptr_ - begin_); }

  // Empties the buffer; keeps any heap storage. O(1).
  void Reset() { write_ptr_ = begin_; }

 protected:
  void EnsureRoom(size_t bytes) {
    if (ZT_UNLIKELY(static_cast<size_t>(end_ - write_ptr_) < bytes))
      Grow(bytes);
  }
  void Grow(size_t bytes);

  uint8_t inline_buf_[kInlineSize];
  std::unique_ptr<uint8_t[]> heap_buf_;
  uint8_t* begin_ = inline_buf_;
  uint8_t* end_ = inline_buf_ + kInlineSize;
  uint8_t* write_ptr_ = inline_buf_;
};

// Values of an int32/int64/uint32/uint64/bool/enum field, or, through
// AppendZigZag(), of a sint32/sint64 field.
class PackedVarInt : public PackedBufferBase {
 public:
  template <typename T>
  void Append(T value) {
    EnsureRoom(proto_utils::kMaxVarIntEncodedSize);
    write_ptr_ = proto_utils::WriteVarInt(value, write_ptr_);
  }
  template <typename T>
  void AppendZigZag(T value) {
    Append(proto_utils::ZigZagEncode(value));
  }
};

// Values of a fixed32/sfixed32/float (4-byte T) or fixed64/sfixed64/double
// (8-byte T) field.
template <typename T>
class PackedFixedSizeInt : public PackedBufferBase {
 public:
  void Append(T value) {
    EnsureRoom(sizeof(T));
    proto_utils::WriteFixed(value, write_ptr_);
    write_ptr_ += sizeof(T);
  }
};

}  // namespace protozero
}  // namespace zt

#endif  // ZT_PROTOZERO_PACKED_REPEATED_FIELDS_H_
