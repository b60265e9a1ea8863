// Helpers called by the generated .gen.cc files of cppgen value classes
// (docs/design/cppgen.md). Not an API: names and signatures follow what the
// generator emits.

#ifndef ZT_PROTOZERO_CPP_MESSAGE_INTERNAL_H_
#define ZT_PROTOZERO_CPP_MESSAGE_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "zt/protozero/cpp_message_base.h"
#include "zt/protozero/field.h"
#include "zt/protozero/message.h"
#include "zt/protozero/packed_repeated_fields.h"
#include "zt/protozero/proto_decoder.h"
#include "zt/protozero/proto_utils.h"
#include "zt/protozero/schema.h"

namespace zt {
namespace protozero {
namespace cppgen_internal {

enum class ReadResult { kOk, kWrongWireType, kMalformed };

// Appends the values of one occurrence of a repeated scalar field: a packed
// blob (length-delimited) or a single value of the wire type |kKind| implies.
// Values are read as R (the wire representation: int32_t for enums) and
// stored as S. O(values).
template <PackedKind kKind, typename R, typename S>
ReadResult ReadRepeatedScalar(const Field& field, std::vector<S>* out) {
  if (field.type() == proto_utils::ProtoWireType::kLengthDelimited) {
    bool error = false;
    for (PackedRepeatedFieldIterator<kKind, R> it(field.data(), field.size(),
                                                  &error);
         it; ++it) {
      out->push_back(static_cast<S>(*it));
    }
    return error ? ReadResult::kMalformed : ReadResult::kOk;
  }
  constexpr proto_utils::ProtoWireType kWireType =
      kKind == PackedKind::kFixed32   ? proto_utils::ProtoWireType::kFixed32
      : kKind == PackedKind::kFixed64 ? proto_utils::ProtoWireType::kFixed64
                                      : proto_utils::ProtoWireType::kVarInt;
  if (field.type() != kWireType)
    return ReadResult::kWrongWireType;
  R value{};
  if constexpr (kKind == PackedKind::kZigZag) {
    if constexpr (sizeof(R) == 4)
      value = field.as_sint32();
    else
      value = field.as_sint64();
  } else {
    field.get(&value);
  }
  out->push_back(static_cast<S>(value));
  return ReadResult::kOk;
}

// Writes |values| as one packed field (nothing when empty). W is the wire
// representation each value is converted to first. O(values).
template <PackedKind kKind, typename W, typename S>
void AppendPacked(Message* msg, uint32_t field_id,
                  const std::vector<S>& values) {
  if (values.empty())
    return;
  if constexpr (kKind == PackedKind::kFixed32 ||
                kKind == PackedKind::kFixed64) {
    PackedFixedSizeInt<W> packed;
    for (const S& v : values)
      packed.Append(static_cast<W>(v));
    msg->AppendBytes(field_id, packed.data(), packed.size());
  } else {
    PackedVarInt packed;
    for (const S& v : values) {
      if constexpr (kKind == PackedKind::kZigZag)
        packed.AppendZigZag(static_cast<W>(v));
      else
        packed.Append(static_cast<W>(v));
    }
    msg->AppendBytes(field_id, packed.data(), packed.size());
  }
}

// Out-of-line appenders for the generated Serialize() methods: configs and
// IPC arguments are encoded a few times per session, so a call per field is
// free where Message's inline fast path, expanded in every Serialize() of
// every class, costs compile time and kilobytes of text. Each overload calls
// the Message method of the same type, so the bytes are the same.
void AppendVarIntField(Message* msg, uint32_t id, int32_t value);
void AppendVarIntField(Message* msg, uint32_t id, int64_t value);
void AppendVarIntField(Message* msg, uint32_t id, uint32_t value);
void AppendVarIntField(Message* msg, uint32_t id, uint64_t value);
void AppendVarIntField(Message* msg, uint32_t id, bool value);
void AppendSignedVarIntField(Message* msg, uint32_t id, int32_t value);
void AppendSignedVarIntField(Message* msg, uint32_t id, int64_t value);
void AppendFixedField(Message* msg, uint32_t id, int32_t value);
void AppendFixedField(Message* msg, uint32_t id, int64_t value);
void AppendFixedField(Message* msg, uint32_t id, uint32_t value);
void AppendFixedField(Message* msg, uint32_t id, uint64_t value);
void AppendFixedField(Message* msg, uint32_t id, float value);
void AppendFixedField(Message* msg, uint32_t id, double value);
void AppendBytesField(Message* msg, uint32_t id, const std::string& value);
Message* BeginNestedField(Message* msg, uint32_t id);

// True if |field| can hold an embedded message we accept (see
// kCppGenMaxNestedMessageSize).
inline bool IsAcceptableNestedMessage(const Field& field) {
  return field.type() == proto_utils::ProtoWireType::kLengthDelimited &&
         field.size() <= kCppGenMaxNestedMessageSize;
}

// Runs |serialize|(obj, root) on a fresh heap-buffered root message and
// returns the bytes. Out of line (cpp_message_internal.cc) so the writer
// machinery is not instantiated in every generated file.
using SerializeFn = void (*)(const void* obj, Message* root);
std::string SerializeToString(const void* obj, SerializeFn serialize);
std::vector<uint8_t> SerializeToArray(const void* obj, SerializeFn serialize);

}  // namespace cppgen_internal
}  // namespace protozero
}  // namespace zt

#endif  // ZT_PROTOZERO_CPP_MESSAGE_INTERNAL_H_
