#include "zt/protozero/proto_decoder.h"

#include <algorithm>

namespace zt {
namespace protozero {

namespace {

using proto_utils::ProtoWireType;

// Parses the field starting at |pos|. Returns the position after it, or
// nullptr if the input is malformed there. Precondition: pos < end.
inline const uint8_t* ParseOneField(const uint8_t* pos, const uint8_t* end,
                                    Field* field) {
  // Tags and small values are almost always one byte: decode those inline.
  uint64_t tag;
  if (ZT_LIKELY(*pos < 0x80)) {
    tag = *pos++;
  } else {
    const uint8_t* next = proto_utils::ParseVarInt(pos, end, &tag);
    if (next == pos || tag > 0xffffffffu)
      return nullptr;
    pos = next;
  }
  const uint32_t id = static_cast<uint32_t>(tag >> 3);
  if (ZT_UNLIKELY(id == 0))
    return nullptr;

  switch (static_cast<ProtoWireType>(tag & 7)) {
    case ProtoWireType::kVarInt: {
      uint64_t value;
      if (ZT_LIKELY(pos < end && *pos < 0x80)) {
        value = *pos++;
      } else {
        const uint8_t* next = proto_utils::ParseVarInt(pos, end, &value);
        if (next == pos)
          return nullptr;
        pos = next;
      }
      field->initialize(id, ProtoWireType::kVarInt, value, 0);
      return pos;
    }
    case ProtoWireType::kLengthDelimited: {
      uint64_t len;
      if (ZT_LIKELY(pos < end && *pos < 0x80)) {
        len = *pos++;
      } else {
        const uint8_t* next = proto_utils::ParseVarInt(pos, end, &len);
        if (next == pos)
          return nullptr;
        pos = next;
      }
      if (ZT_UNLIKELY(len > static_cast<uint64_t>(end - pos)))
        return nullptr;
      field->initialize(id, ProtoWireType::kLengthDelimited,
                        static_cast<uint64_t>(reinterpret_cast<uintptr_t>(pos)),
                        static_cast<uint32_t>(len));
      return pos + len;
    }
    case ProtoWireType::kFixed64: {
      if (ZT_UNLIKELY(end - pos < 8))
        return nullptr;
      uint64_t value;
      memcpy(&value, pos, 8);
      field->initialize(id, ProtoWireType::kFixed64, value, 0);
      return pos + 8;
    }
    case ProtoWireType::kFixed32: {
      if (ZT_UNLIKELY(end - pos < 4))
        return nullptr;
      uint32_t value;
      memcpy(&value, pos, 4);
      field->initialize(id, ProtoWireType::kFixed32, value, 0);
      return pos + 4;
    }
  }
  return nullptr;  // Groups (3, 4) and undefined wire types (6, 7).
}

}  // namespace

Field ProtoDecoder::ReadField() {
  Field field;
  if (read_ptr_ >= end_ || parse_error_)
    return field;
  const uint8_t* next = ParseOneField(read_ptr_, end_, &field);
  if (!next) {
    parse_error_ = true;
    read_ptr_ = end_;
    return Field();
  }
  read_ptr_ = next;
  return field;
}

Field ProtoDecoder::FindField(uint32_t field_id) const {
  Field found;
  const uint8_t* pos = begin_;
  while (pos < end_) {
    Field field;
    pos = ParseOneField(pos, end_, &field);
    if (!pos)
      break;
    if (field.id() == field_id)
      found = field;
  }
  return found;
}

void TypedProtoDecoderBase::ParseAllFields(bool keep_duplicates) {
  const uint8_t* pos = read_ptr_;
  while (pos < end_) {
    Field field;
    const uint8_t* next = ParseOneField(pos, end_, &field);
    if (ZT_UNLIKELY(!next)) {
      parse_error_ = true;
      break;
    }
    pos = next;
    const uint32_t id = field.id();
    if (ZT_UNLIKELY(id >= num_fields_))
      continue;  // Not in this schema (e.g. from a newer peer): skipped.
    if (keep_duplicates && fields_[id].valid()) {
      if (ZT_UNLIKELY(size_ >= capacity_))
        ExpandHeapStorage();
      fields_[size_++] = fields_[id];
    }
    fields_[id] = field;
  }
  read_ptr_ = end_;
}

void TypedProtoDecoderBase::ExpandHeapStorage() {
  const uint32_t new_capacity = std::max(capacity_ * 2, capacity_ + 16);
  std::unique_ptr<Field[]> bigger(new Field[new_capacity]);
  std::copy(fields_, fields_ + size_, bigger.get());
  heap_storage_ = std::move(bigger);
  fields_ = heap_storage_.get();
  capacity_ = new_capacity;
}

}  // namespace protozero
}  // namespace zt
