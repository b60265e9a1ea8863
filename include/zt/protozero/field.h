// Field is one decoded protobuf field: its id, wire type and value, where a
// length-delimited value is a view into the decoder's input (no copy). The
// input must outlive the Field.
//
// Accessors never read outside the input: asking a scalar field for its
// bytes, or a length-delimited one for a number, yields an empty/zero value.
// Trivially copyable, 16 bytes; thread-compatible (a value type).

#ifndef ZT_PROTOZERO_FIELD_H_
#define ZT_PROTOZERO_FIELD_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "zt/protozero/proto_utils.h"

namespace zt {
namespace protozero {

// A view of bytes in a decoder's input (bytes fields, nested messages).
struct ConstBytes {
  const uint8_t* data = nullptr;
  size_t size = 0;

  std::string ToStdString() const {
    return std::string(reinterpret_cast<const char*>(data), size);
  }
  std::string_view ToStringView() const {
    return std::string_view(reinterpret_cast<const char*>(data), size);
  }
};

class Field {
 public:
  using ProtoWireType = proto_utils::ProtoWireType;

  // An invalid (absent) field.
  constexpr Field() = default;

  // True for a field that was present in the input.
  bool valid() const { return tag_ != 0; }
  explicit operator bool() const { return valid(); }

  uint32_t id() const { return tag_ >> 3; }
  ProtoWireType type() const { return static_cast<ProtoWireType>(tag_ & 7); }

  // Numeric views. Zero for absent and length-delimited fields.
  bool as_bool() const { return scalar() != 0; }
  uint32_t as_uint32() const { return static_cast<uint32_t>(scalar()); }
  int32_t as_int32() const { return static_cast<int32_t>(scalar()); }
  int32_t as_sint32() const {
    return proto_utils::ZigZagDecode(static_cast<uint32_t>(scalar()));
  }
  uint64_t as_uint64() const { return scalar(); }
  int64_t as_int64() const { return static_cast<int64_t>(scalar()); }
  int64_t as_sint64() const { return proto_utils::ZigZagDecode(scalar()); }
  float as_float() const {
    const uint32_t bits = as_uint32();
    float value;
    memcpy(&value, &bits, sizeof(value));
    return value;
  }
  double as_double() const {
    const uint64_t bits = scalar();
    double value;
    memcpy(&value, &bits, sizeof(value));
    return value;
  }

  // Byte views. Empty for absent and non-length-delimited fields.
  std::string_view as_string() const {
    return std::string_view(reinterpret_cast<const char*>(data()), size());
  }
  std::string as_std_string() const { return std::string(as_string()); }
  ConstBytes as_bytes() const { return ConstBytes{data(), size()}; }
  const uint8_t* data() const {
    return is_length_delimited() ? reinterpret_cast<const uint8_t*>(
                                       static_cast<uintptr_t>(int_value_))
                                 : nullptr;
  }
  size_t size() const { return is_length_delimited() ? size_ : 0; }

  // The value as stored: the number for scalar types, the data address for
  // length-delimited ones.
  uint64_t raw_int_value() const { return int_value_; }

  // Typed reads used by the repeated-field iterators.
  void get(bool* v) const { *v = as_bool(); }
  void get(int32_t* v) const { *v = as_int32(); }
  void get(uint32_t* v) const { *v = as_uint32(); }
  void get(int64_t* v) const { *v = as_int64(); }
  void get(uint64_t* v) const { *v = as_uint64(); }
  void get(float* v) const { *v = as_float(); }
  void get(double* v) const { *v = as_double(); }
  void get(std::string_view* v) const { *v = as_string(); }
  void get(ConstBytes* v) const { *v = as_bytes(); }

  // Appends the field, re-encoded as tag + value, to |dst|.
  void SerializeAndAppendTo(std::string* dst) const;

  // Used by the decoders. |value| is the number, or the data address for a
  // length-delimited field of |size| bytes. |id| must be in [1, 2^29).
  void initialize(uint32_t id, ProtoWireType type, uint64_t value,
                  uint32_t size) {
    initialize_from_tag(proto_utils::MakeTag(id, type), value, size);
  }
  void initialize_from_tag(uint32_t tag, uint64_t value, uint32_t size) {
    int_value_ = value;
    size_ = size;
    tag_ = tag;
  }

 private:
  bool is_length_delimited() const {
    return (tag_ & 7) == static_cast<uint32_t>(ProtoWireType::kLengthDelimited);
  }
  uint64_t scalar() const { return is_length_delimited() ? 0 : int_value_; }

  uint64_t int_value_ = 0;
  uint32_t size_ = 0;
  uint32_t tag_ = 0;  // As on the wire: id << 3 | wire type; 0 = absent.
};

static_assert(sizeof(Field) == 16, "Field is meant to stay 16 bytes");

}  // namespace protozero
}  // namespace zt

#endif  // ZT_PROTOZERO_FIELD_H_
