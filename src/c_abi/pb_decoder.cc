// PerfettoPbDecoder (zt/c/abi/pb_decoder.h). Every bound is checked by
// comparing lengths with the bytes left, never by forming a pointer past
// the buffer: a hostile length of 2^64 - 1 must not wrap around.

#include "zt/c/abi/pb_decoder.h"

namespace {

enum WireType : uint32_t { kVarInt = 0, kFixed64 = 1, kDelimited = 2, kFixed32 = 5 };

// Reads a varint of at most 10 bytes in [p, end): the byte after it, or
// null if it does not end in time.
const uint8_t* ReadVarInt(const uint8_t* p, const uint8_t* end, uint64_t* value) {
  uint64_t result = 0;
  for (unsigned shift = 0; shift < 64 && p < end; shift += 7) {
    const uint8_t byte = *p++;
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *value = result;
      return p;
    }
  }
  return nullptr;
}

uint64_t LoadLittleEndian(const uint8_t* p, size_t size) {
  uint64_t value = 0;
  for (size_t i = 0; i < size; i++)
    value |= static_cast<uint64_t>(p[i]) << (8 * i);
  return value;
}

// Reads the field at decoder->read_ptr into *field (status OK) and returns
// where it ends; null (status ERROR or DONE) if there is none.
const uint8_t* ReadField(const PerfettoPbDecoder* decoder, PerfettoPbDecoderField* field) {
  const uint8_t* p = decoder->read_ptr;
  const uint8_t* const end = decoder->end_ptr;
  if (p >= end) {
    field->status = PERFETTO_PB_DECODER_DONE;
    return nullptr;
  }
  field->status = PERFETTO_PB_DECODER_ERROR;
  uint64_t tag;
  p = ReadVarInt(p, end, &tag);
  if (p == nullptr || (tag >> 3) > UINT32_MAX)
    return nullptr;
  field->wire_type = static_cast<uint32_t>(tag & 7);
  field->id = static_cast<uint32_t>(tag >> 3);
  const size_t left = static_cast<size_t>(end - p);
  switch (field->wire_type) {
    case kVarInt:
      p = ReadVarInt(p, end, &field->value.integer64);
      if (p == nullptr)
        return nullptr;
      break;
    case kFixed64:
      if (left < 8)
        return nullptr;
      field->value.integer64 = LoadLittleEndian(p, 8);
      p += 8;
      break;
    case kFixed32:
      if (left < 4)
        return nullptr;
      field->value.integer32 = static_cast<uint32_t>(LoadLittleEndian(p, 4));
      p += 4;
      break;
    case kDelimited: {
      uint64_t len;
      const uint8_t* data = ReadVarInt(p, end, &len);
      if (data == nullptr || len > static_cast<uint64_t>(end - data))
        return nullptr;
      field->value.delimited.start = data;
      field->value.delimited.len = static_cast<size_t>(len);
      p = data + len;
      break;
    }
    default:
      return nullptr;  // Groups (3, 4) and the unused 6, 7.
  }
  field->status = PERFETTO_PB_DECODER_OK;
  return p;
}

}  // namespace

PerfettoPbDecoderField PerfettoPbDecoderParseField(PerfettoPbDecoder* decoder) {
  PerfettoPbDecoderField field;
  field.wire_type = 0;
  field.id = 0;
  field.value.integer64 = 0;
  field.value.delimited.len = 0;
  if (const uint8_t* next = ReadField(decoder, &field))
    decoder->read_ptr = next;
  return field;
}

uint32_t PerfettoPbDecoderSkipField(PerfettoPbDecoder* decoder) {
  PerfettoPbDecoderField field;
  if (const uint8_t* next = ReadField(decoder, &field))
    decoder->read_ptr = next;
  return field.status;
}
