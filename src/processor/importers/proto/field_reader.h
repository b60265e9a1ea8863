// The importer's hot-path protobuf field walker: the same wire rules as
// protozero's ProtoDecoder (which stays the reference, and the decoder of
// everything off the hot path), inline, with a fast path for the one-byte
// keys and one-byte varints that make up most of a track event packet.
//
//   FieldReader reader(data, size);
//   RawField field;
//   while (reader.Next(&field)) { switch (field.id) { ... } }
//   if (reader.error()) { /* malformed: skip the message */ }
//
// Never reads outside [data, data + size). Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_PROTO_FIELD_READER_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_PROTO_FIELD_READER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "zt/base/compiler.h"

namespace zt {
namespace processor {

struct RawField {
  // Wire types.
  enum : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

  uint32_t id;
  uint32_t wire_type;
  uint64_t value;        // Varint or fixed value; the length for bytes.
  const uint8_t* data;   // Length-delimited payload.

  // The payload of a length-delimited field; empty for any other wire type
  // (a hostile packet may put a varint where a message belongs).
  bool is_bytes() const { return wire_type == kLengthDelimited; }
  const uint8_t* bytes() const { return is_bytes() ? data : nullptr; }
  size_t size() const { return is_bytes() ? static_cast<size_t>(value) : 0; }
  std::string_view as_string() const {
    return is_bytes() ? std::string_view(reinterpret_cast<const char*>(data), size())
                      : std::string_view();
  }
  int64_t as_int64() const { return static_cast<int64_t>(value); }
  bool as_bool() const { return value != 0; }
  double as_double() const {
    double d;
    memcpy(&d, &value, sizeof(d));
    return d;
  }
};

// A varint of at most 9 bytes at *p (the one-, two- and three-byte ones
// without a loop): the value and true, *p moved past it; false, and *p
// unchanged, for anything else (longer, or cut by `end`), which a caller's
// slow path reads with the full rules.
ZT_ALWAYS_INLINE inline bool ReadShortVarint(const uint8_t** p, const uint8_t* end,
                                             uint64_t* value) {
  const uint8_t* q = *p;
  const size_t left = static_cast<size_t>(end - q);
  if (ZT_LIKELY(left >= 1 && q[0] < 0x80)) {
    *value = q[0];
    *p = q + 1;
    return true;
  }
  if (ZT_LIKELY(left >= 2 && q[1] < 0x80)) {
    *value = (q[0] & 0x7fu) | static_cast<uint64_t>(q[1]) << 7;
    *p = q + 2;
    return true;
  }
  if (left >= 3 && q[2] < 0x80) {
    *value = (q[0] & 0x7fu) | static_cast<uint64_t>(q[1] & 0x7fu) << 7 |
             static_cast<uint64_t>(q[2]) << 14;
    *p = q + 3;
    return true;
  }
  uint64_t result = 0;
  for (unsigned shift = 0; shift < 63 && q < end; shift += 7) {
    const uint8_t byte = *q++;
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *value = result;
      *p = q;
      return true;
    }
  }
  return false;
}

class FieldReader {
 public:
  FieldReader(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}

  // The next field, or false at the end or on malformed input (then
  // error() is true and every later call returns false).
  ZT_ALWAYS_INLINE bool Next(RawField* field) {
    if (ZT_UNLIKELY(p_ >= end_))
      return false;
    uint64_t key;
    if (ZT_LIKELY(*p_ < 0x80)) {
      key = *p_++;
    } else if (!ReadVarint(&key)) {
      return Fail();
    }
    field->id = static_cast<uint32_t>(key >> 3);
    field->wire_type = static_cast<uint32_t>(key & 7);
    if (ZT_UNLIKELY(field->id == 0 || key >> 32))
      return Fail();
    switch (field->wire_type) {
      case RawField::kVarint:
        if (ZT_LIKELY(p_ < end_ && *p_ < 0x80)) {
          field->value = *p_++;
          return true;
        }
        return ReadVarint(&field->value) || Fail();
      case RawField::kLengthDelimited: {
        uint64_t length;
        if (ZT_LIKELY(p_ < end_ && *p_ < 0x80)) {
          length = *p_++;
        } else if (!ReadVarint(&length)) {
          return Fail();
        }
        if (ZT_UNLIKELY(length > static_cast<uint64_t>(end_ - p_)))
          return Fail();
        field->value = length;
        field->data = p_;
        p_ += length;
        return true;
      }
      case RawField::kFixed64:
        if (ZT_UNLIKELY(end_ - p_ < 8))
          return Fail();
        memcpy(&field->value, p_, 8);
        p_ += 8;
        return true;
      case RawField::kFixed32: {
        if (ZT_UNLIKELY(end_ - p_ < 4))
          return Fail();
        uint32_t v;
        memcpy(&v, p_, 4);
        field->value = v;
        p_ += 4;
        return true;
      }
      default:
        return Fail();
    }
  }

  bool error() const { return error_; }

 private:
  // One- and two-byte varints inline (keys of fields 16..2047, small
  // deltas); longer ones out of the way.
  ZT_ALWAYS_INLINE bool ReadVarint(uint64_t* value) {
    if (ZT_LIKELY(end_ - p_ >= 2 && p_[1] < 0x80)) {
      *value = (p_[0] & 0x7fu) | static_cast<uint64_t>(p_[1]) << 7;
      p_ += 2;
      return true;
    }
    return ReadVarintSlow(value);
  }
  bool ReadVarintSlow(uint64_t* value) {
    uint64_t result = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
      if (p_ >= end_)
        return false;
      const uint8_t byte = *p_++;
      result |= static_cast<uint64_t>(byte & 0x7f) << (shift < 64 ? shift : 63);
      if (!(byte & 0x80)) {
        *value = result;
        return true;
      }
    }
    return false;
  }
  bool Fail() {
    error_ = true;
    p_ = end_;
    return false;
  }

  const uint8_t* p_;
  const uint8_t* const end_;
  bool error_ = false;
};

// Calls fn(uint64_t) for each value of a repeated varint field, whether
// written packed (one length-delimited record) or not. A packed payload
// that ends inside a varint stops there.
template <typename Fn>
void ForEachVarint(const RawField& field, Fn fn) {
  if (!field.is_bytes()) {
    fn(field.value);
    return;
  }
  const uint8_t* p = field.data;
  const uint8_t* const end = p + field.size();
  while (p < end) {
    uint64_t value = 0;
    unsigned shift = 0;
    for (;;) {
      if (p == end || shift > 63)
        return;
      const uint8_t byte = *p++;
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        break;
      shift += 7;
    }
    fn(value);
  }
}

// The same for a repeated fixed64 (or double) field: calls fn(uint64_t)
// with each value's bits.
template <typename Fn>
void ForEachFixed64(const RawField& field, Fn fn) {
  if (!field.is_bytes()) {
    fn(field.value);
    return;
  }
  for (const uint8_t* p = field.data; field.data + field.size() - p >= 8; p += 8) {
    uint64_t value;
    memcpy(&value, p, sizeof(value));
    fn(value);
  }
}

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_PROTO_FIELD_READER_H_
