// Protobuf wire-format primitives: wire types, field tags, varint and zigzag
// encoding/decoding, and the fixed-width "redundant" varint that lets a writer
// reserve a length field before it knows the length.
//
// Everything here is header-only, constexpr where possible, allocation-free
// and thread-compatible (pure functions over caller memory).

#ifndef ZT_PROTOZERO_PROTO_UTILS_H_
#define ZT_PROTOZERO_PROTO_UTILS_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "zt/base/logging.h"

namespace zt {
namespace protozero {
namespace proto_utils {

// The four wire types protobuf still uses. 3 and 4 (groups) are obsolete and
// 6, 7 are undefined: decoders treat them as malformed input.
enum class ProtoWireType : uint32_t {
  kVarInt = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kFixed32 = 5,
};

// Bytes reserved for the length of a nested message whose size is not known
// when it starts. Four 7-bit groups: the longest message is 2^28 - 1 bytes.
constexpr size_t kMessageLengthFieldSize = 4;
constexpr size_t kMaxMessageLength = (1u << (kMessageLengthFieldSize * 7)) - 1;

// Field ids are 29 bits on the wire; 0 is invalid.
constexpr uint32_t kMaxFieldId = (1u << 29) - 1;

constexpr size_t kMaxTagEncodedSize = 5;
constexpr size_t kMaxVarIntEncodedSize = 10;
// Worst case for one tag + one varint or fixed value.
constexpr size_t kMaxSimpleFieldEncodedSize =
    kMaxTagEncodedSize + kMaxVarIntEncodedSize;

// Returns the tag (field id and wire type) as it is varint-encoded on the wire.
constexpr uint32_t MakeTag(uint32_t field_id, ProtoWireType type) {
  return (field_id << 3) | static_cast<uint32_t>(type);
}
constexpr uint32_t MakeTagVarInt(uint32_t field_id) {
  return MakeTag(field_id, ProtoWireType::kVarInt);
}
constexpr uint32_t MakeTagLengthDelimited(uint32_t field_id) {
  return MakeTag(field_id, ProtoWireType::kLengthDelimited);
}
template <typename T>
constexpr uint32_t MakeTagFixed(uint32_t field_id) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "fixed fields are 4 or 8 bytes");
  return MakeTag(field_id, sizeof(T) == 8 ? ProtoWireType::kFixed64
                                          : ProtoWireType::kFixed32);
}

// ZigZag maps signed integers to unsigned ones so that small magnitudes of
// either sign get short varints (sint32/sint64).
template <typename T>
constexpr std::make_unsigned_t<T> ZigZagEncode(T value) {
  static_assert(std::is_signed<T>::value, "ZigZagEncode takes a signed type");
  using U = std::make_unsigned_t<T>;
  return static_cast<U>((static_cast<U>(value) << 1) ^
                        static_cast<U>(value >> (sizeof(T) * 8 - 1)));
}

template <typename T>
constexpr std::make_signed_t<T> ZigZagDecode(T value) {
  static_assert(std::is_unsigned<T>::value, "ZigZagDecode takes an unsigned type");
  using S = std::make_signed_t<T>;
  return static_cast<S>((value >> 1) ^ (~(value & 1) + 1));
}

// The unsigned value a varint carries for a C++ value. Protobuf sign-extends
// negative int32 (and enums) to 64 bits, so they always take 10 bytes.
template <typename T>
constexpr auto VarIntPayload(T value) {
  if constexpr (std::is_enum<T>::value) {
    return static_cast<uint64_t>(
        static_cast<int64_t>(static_cast<std::underlying_type_t<T>>(value)));
  } else if constexpr (std::is_same<T, bool>::value) {
    return static_cast<uint32_t>(value);
  } else if constexpr (std::is_signed<T>::value) {
    return static_cast<uint64_t>(static_cast<int64_t>(value));
  } else {
    return value;
  }
}

// Writes |value| as a varint at |target| (which must have room for
// kMaxVarIntEncodedSize bytes) and returns the position after it.
template <typename T>
inline uint8_t* WriteVarInt(T value, uint8_t* target) {
  auto v = VarIntPayload(value);
  while (v >= 0x80) {
    *target++ = static_cast<uint8_t>(v) | 0x80;
    v >>= 7;
  }
  *target++ = static_cast<uint8_t>(v);
  return target;
}

// Number of bytes WriteVarInt() emits for |value|.
template <typename T>
constexpr size_t VarIntSize(T value) {
  auto v = VarIntPayload(value);
  size_t size = 1;
  while (v >= 0x80) {
    ++size;
    v >>= 7;
  }
  return size;
}

// Writes |value| as a varint of exactly |size| bytes, padding with
// continuation bytes (e.g. 7 -> 87 80 80 00). Decoders accept the padding,
// which is what makes after-the-fact length patching possible.
// Precondition: value < 2^(7*size).
inline void WriteRedundantVarInt(uint32_t value, uint8_t* buf,
                                 size_t size = kMessageLengthFieldSize) {
  for (size_t i = 0; i < size; ++i) {
    const uint8_t msb = (i < size - 1) ? 0x80 : 0;
    buf[i] = static_cast<uint8_t>(value) | msb;
    value >>= 7;
  }
}

// memcpy(dst, src, n) for the short strings and bytes fields that make up
// most trace data: up to 64 bytes are moved with two overlapping fixed-size
// copies that compile to a few register moves (no call); longer ones go to
// memcpy. n == 0 touches nothing, so null pointers are fine then.
inline void CopyBytes(uint8_t* dst, const void* src_ptr, size_t n) {
  const auto* src = static_cast<const uint8_t*>(src_ptr);
  if (n > 64) {
    memcpy(dst, src, n);
  } else if (n >= 32) {
    memcpy(dst, src, 32);
    memcpy(dst + n - 32, src + n - 32, 32);
  } else if (n >= 16) {
    memcpy(dst, src, 16);
    memcpy(dst + n - 16, src + n - 16, 16);
  } else if (n >= 8) {
    memcpy(dst, src, 8);
    memcpy(dst + n - 8, src + n - 8, 8);
  } else if (n >= 4) {
    memcpy(dst, src, 4);
    memcpy(dst + n - 4, src + n - 4, 4);
  } else if (n > 0) {
    dst[0] = src[0];
    dst[n / 2] = src[n / 2];
    dst[n - 1] = src[n - 1];
  }
}

// WriteRedundantVarInt() for the 4-byte size fields, as one unaligned 32-bit
// store: it runs once per packet and per nested message. |value| must be
// below 2^28 (kMaxMessageLength); higher bits are dropped.
inline void WriteRedundantVarInt4(uint32_t value, uint8_t* buf) {
  const uint32_t spread = (value & 0x7Fu) | ((value << 1) & 0x7F00u) |
                          ((value << 2) & 0x7F0000u) |
                          ((value << 3) & 0x7F000000u) | 0x00808080u;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(buf, &spread, sizeof(spread));
#else
  buf[0] = static_cast<uint8_t>(spread);
  buf[1] = static_cast<uint8_t>(spread >> 8);
  buf[2] = static_cast<uint8_t>(spread >> 16);
  buf[3] = static_cast<uint8_t>(spread >> 24);
#endif
}

// Decodes a varint from [start, end). On success stores it in |*value| and
// returns the position after it. On failure (truncated, or longer than 10
// bytes) returns |start| and leaves |*value| untouched. Bits beyond 64 in the
// tenth byte are dropped, as libprotobuf does.
inline const uint8_t* ParseVarInt(const uint8_t* start, const uint8_t* end,
                                  uint64_t* value) {
  const uint8_t* pos = start;
  uint64_t result = 0;
  for (uint32_t shift = 0; pos < end && shift < 64u; shift += 7) {
    const uint64_t byte = *pos++;
    result |= (byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *value = result;
      return pos;
    }
  }
  return start;
}

// Fixed-width little-endian values (fixed32/64, sfixed, float, double).
template <typename T>
inline void WriteFixed(T value, uint8_t* target) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "fixed fields are 4 or 8 bytes");
  static_assert(std::is_trivially_copyable<T>::value, "");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "zerotrace's protozero assumes a little-endian host"
#endif
  memcpy(target, &value, sizeof(T));
}

}  // namespace proto_utils
}  // namespace protozero
}  // namespace zt

#endif  // ZT_PROTOZERO_PROTO_UTILS_H_
