#include "zt/protozero/proto_decoder.h"

#include <algorithm>

namespace zt {
namespace protozero {

namespace {

using proto_utils::ProtoWireType;

// Decodes a varint at |pos|. Returns the position after it, or nullptr if it
// is truncated or longer than 10 bytes. With 10 readable bytes the loop
// needs no end check, which is the common case inside a message.
inline const uint8_t* ReadVarInt(const uint8_t* pos, const uint8_t* end,
                                 uint64_t* value) {
  if (ZT_LIKELY(end - pos >= static_cast<ptrdiff_t>(
                                 proto_utils::kMaxVarIntEncodedSize))) {
    uint64_t result = 0;
    for (uint32_t shift = 0; shift < 70; shift += 7) {
      const uint64_t byte = *pos++;
      result |= (byte & 0x7f) << (shift & 63);
      if (!(byte & 0x80)) {
        *value = result;
        return pos;
      }
    }
    return nullptr;  // Eleven bytes or more.
  }
  const uint8_t* next = proto_utils::ParseVarInt(pos, end, value);
  return next == pos ? nullptr : next;
}

// Parses the field starting at |pos|. Returns the position after it, or
// nullptr if the input is malformed there. Precondition: pos < end.
ZT_ALWAYS_INLINE inline const uint8_t* ParseOneField(const uint8_t* pos,
                                                     const uint8_t* end,
                                                     Field* field) {
  // Tags and small values are almost always one byte: decode those inline.
  uint64_t tag;
  if (ZT_LIKELY(*pos < 0x80)) {
    tag = *pos++;
  } else {
    pos = ReadVarInt(pos, end, &tag);
    if (!pos || tag > 0xffffffffu)
      return nullptr;
  }
  if (ZT_UNLIKELY(tag < 8))  // Field id 0.
    return nullptr;
  const uint32_t tag32 = static_cast<uint32_t>(tag);

  switch (static_cast<ProtoWireType>(tag32 & 7)) {
    case ProtoWireType::kVarInt: {
      uint64_t value;
      if (ZT_LIKELY(pos < end && *pos < 0x80)) {
        value = *pos++;
      } else {
        pos = ReadVarInt(pos, end, &value);
        if (!pos)
          return nullptr;
      }
      field->initialize_from_tag(tag32, value, 0);
      return pos;
    }
    case ProtoWireType::kLengthDelimited: {
      uint64_t len;
      if (ZT_LIKELY(pos < end && *pos < 0x80)) {
        len = *pos++;
      } else {
        pos = ReadVarInt(pos, end, &len);
        if (!pos)
          return nullptr;
      }
      // Field keeps 32-bit lengths: a 4 GiB+ field is rejected, not cut.
      if (ZT_UNLIKELY(len > static_cast<uint64_t>(end - pos) ||
                      len > 0xffffffffu))
        return nullptr;
      field->initialize_from_tag(
          tag32, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(pos)),
          static_cast<uint32_t>(len));
      return pos + len;
    }
    case ProtoWireType::kFixed64: {
      if (ZT_UNLIKELY(end - pos < 8))
        return nullptr;
      uint64_t value;
      memcpy(&value, pos, 8);
      field->initialize_from_tag(tag32, value, 0);
      return pos + 8;
    }
    case ProtoWireType::kFixed32: {
      if (ZT_UNLIKELY(end - pos < 4))
        return nullptr;
      uint32_t value;
      memcpy(&value, pos, 4);
      field->initialize_from_tag(tag32, value, 0);
      return pos + 4;
    }
  }
  return nullptr;  // Groups (3, 4) and undefined wire types (6, 7).
}

}  // namespace

Field ProtoDecoder::ReadFieldSlow() {
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
  // Locals, so that stores into fields_ cannot force reloads of the bounds.
  const uint8_t* pos = read_ptr_;
  const uint8_t* const end = end_;
  const uint32_t num_fields = num_fields_;
  while (pos < end) {
    Field field;
    const uint8_t* next = ParseOneField(pos, end, &field);
    if (ZT_UNLIKELY(!next)) {
      parse_error_ = true;
      break;
    }
    pos = next;
    const uint32_t id = field.id();
    if (ZT_UNLIKELY(id >= num_fields))
      continue;  // Not in this schema (e.g. from a newer peer): skipped.
    Field* const slot = &fields_[id];
    if (keep_duplicates && slot->valid()) {
      if (ZT_UNLIKELY(size_ >= capacity_))
        ExpandHeapStorage();
      fields_[size_++] = fields_[id];  // fields_ may have moved.
    }
    fields_[id] = field;
  }
  read_ptr_ = end;
}

void TypedProtoDecoderBase::ExpandHeapStorage() {
  const size_t new_capacity = std::max(capacity_ * 2, capacity_ + 16);
  std::unique_ptr<Field[]> bigger(new Field[new_capacity]);
  std::copy(fields_, fields_ + size_, bigger.get());
  heap_storage_ = std::move(bigger);
  fields_ = heap_storage_.get();
  capacity_ = new_capacity;
}

}  // namespace protozero
}  // namespace zt
