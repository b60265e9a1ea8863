// The cached bytes of the common track events (track_event_bytes.h).

#include "src/tracing/sdk/track_event_bytes.h"

#include <cstring>

#include "zt/base/logging.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {
namespace internal {

// Writes an id's varint as the intern table keeps it; returns the end.
// Writes 4 bytes: the entries have the room.
static uint8_t* WriteIid(IidVarint varint, uint8_t* p) {
  const uint32_t bytes = VarintBytes(varint);
  memcpy(p, &bytes, 4);
  return p + VarintSize(varint);
}

void EncodeCachedEvent(EventBytesCache::Entry* entry, EventBytesCache::Form form,
                       EventType type, uint64_t category_iid, uint64_t track_uuid,
                       IidVarint name, IidVarint key) {
  using protozero::proto_utils::WriteVarInt;
  using Form = EventBytesCache::Form;
  ZT_CHECK(category_iid < (1u << 14));
  const bool counter = form == Form::kIntCounter || form == Form::kDoubleCounter;
  uint8_t* p = entry->bytes;
  *p++ = 0x68;  // sequence_flags (13) = SEQ_NEEDS_INCREMENTAL_STATE.
  *p++ = protos::pbzero::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE;
  *p++ = 0x5a;  // track_event (11), length-delimited, one byte.
  *p++ = 0;     // Its length: below, or by the writer after the value.
  *p++ = 0x48;  // type (9).
  *p++ = static_cast<uint8_t>(type);
  if (counter) {
    *p++ = 0x58;  // track_uuid (11): at most 10 bytes.
    p = WriteVarInt(track_uuid, p);
  }
  *p++ = 0x18;  // category_iids (3): at most 2 bytes (ids < 4096).
  p = WriteVarInt(category_iid, p);
  if (!counter) {
    *p++ = 0x50;  // name_iid (10): at most 3 bytes.
    p = WriteIid(name, p);
  }
  entry->annotation_length_offset = 0;
  switch (form) {
    case Form::kPlain:
      break;
    case Form::kIntAnnotation:
    case Form::kUintAnnotation:
    case Form::kStringAnnotation:
      *p++ = 0x22;  // debug_annotations (4), length-delimited, one byte.
      entry->annotation_length_offset = static_cast<uint8_t>(p - entry->bytes);
      *p++ = 0;
      *p++ = 0x08;  // name_iid (1): at most 3 bytes.
      p = WriteIid(key, p);
      // int_value (4), uint_value (3), string_value (6, length-delimited).
      *p++ = form == Form::kIntAnnotation ? 0x20 : form == Form::kUintAnnotation ? 0x18 : 0x32;
      break;
    case Form::kIntCounter:
      *p++ = 0xf0;  // counter_value (30), varint.
      *p++ = 0x01;
      break;
    case Form::kDoubleCounter:
      *p++ = 0xe1;  // double_counter_value (44), fixed64.
      *p++ = 0x02;
      break;
  }
  // The longest: a counter, 6 + 11 + 3 + 2 = 22; an annotated event,
  // 6 + 3 + 6 + 8 + 1 = 24; a plain one 15.
  const size_t size = static_cast<size_t>(p - entry->bytes);
  ZT_CHECK(size <= (form == Form::kPlain ? EventBytesCache::kPlainBytes
                                         : EventBytesCache::kMaxBytes));
  entry->size = static_cast<uint8_t>(size);
  entry->bytes[EventBytesCache::kLengthOffset] =
      static_cast<uint8_t>(size - (EventBytesCache::kLengthOffset + 1));
}

void EncodeCachedArgsEvent(ArgsEventCache::Entry* entry, EventType type,
                           uint64_t category_iid, uint32_t name_iid, const FastArgs& args,
                           const uint32_t* key_iids) {
  using protozero::proto_utils::WriteVarInt;
  uint8_t* p = entry->head;
  *p++ = 0x68;  // sequence_flags (13) = SEQ_NEEDS_INCREMENTAL_STATE.
  *p++ = protos::pbzero::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE;
  *p++ = 0x5a;  // track_event (11), length-delimited, one byte.
  *p++ = 0;     // Its length: set by the writer.
  *p++ = 0x48;  // type (9).
  *p++ = static_cast<uint8_t>(type);
  *p++ = 0x18;  // category_iids (3): at most 2 bytes (ids < 4096).
  p = WriteVarInt(category_iid, p);
  *p++ = 0x50;  // name_iid (10): at most 5 bytes.
  p = WriteVarInt(name_iid, p);
  const size_t head_size = static_cast<size_t>(p - entry->head);
  ZT_CHECK(head_size < ArgsEventCache::kHeadBytes && category_iid < (1u << 14));
  entry->head_size = static_cast<uint8_t>(head_size);
  size_t fixed = 11 + head_size;  // The timestamp: at most 11 bytes.
  entry->string_mask = 0;
  uint32_t shape = args.shape;
  for (uint32_t i = 0; shape != 0; i++, shape >>= 4) {
    const FastArgKind kind = static_cast<FastArgKind>(shape & 15);
    uint8_t* start = entry->prefix[i];
    uint8_t* q = start;
    switch (kind) {
      case FastArgKind::kFlow:
        *q++ = 0xf9;  // flow_ids (47), fixed64.
        *q++ = 0x02;
        break;
      case FastArgKind::kTerminatingFlow:
        *q++ = 0x81;  // terminating_flow_ids (48), fixed64.
        *q++ = 0x03;
        break;
      default: {
        // The key's iid in at most 4 bytes keeps the prefix in 8.
        ZT_CHECK(key_iids[i] < (1u << 28));
        *q++ = 0x22;  // debug_annotations (4), length-delimited, one byte.
        *q++ = 0;     // Its length: set by the writer.
        *q++ = 0x08;  // name_iid (1).
        q = WriteVarInt(key_iids[i], q);
        static constexpr uint8_t kValueTags[] = {
            0,     // kNone
            0x20,  // kInt: int_value (4), varint.
            0x18,  // kUint: uint_value (3), varint.
            0x10,  // kBool: bool_value (2), varint.
            0x29,  // kDouble: double_value (5), fixed64.
            0x38,  // kPointer: pointer_value (7), varint.
            0x32,  // kString: string_value (6), length-delimited.
        };
        ZT_CHECK(kind != FastArgKind::kNone && kind <= FastArgKind::kString);
        *q++ = kValueTags[static_cast<uint32_t>(kind)];
        // The annotation's length where it does not depend on the value
        // (a string's: this part; the writer adds the string's length).
        const size_t rest = static_cast<size_t>(q - (start + 2));
        if (kind == FastArgKind::kBool)
          start[1] = static_cast<uint8_t>(rest + 1);
        else if (kind == FastArgKind::kDouble)
          start[1] = static_cast<uint8_t>(rest + 8);
        else if (kind == FastArgKind::kString)
          start[1] = static_cast<uint8_t>(rest + 1);  // With the string's length byte.
        break;
      }
    }
    entry->prefix_size[i] = static_cast<uint8_t>(q - start);
    fixed += entry->prefix_size[i] + FastValueBytes(kind);
    if (kind == FastArgKind::kString)
      entry->string_mask |= static_cast<uint8_t>(1u << i);
  }
  ZT_CHECK(fixed <= kFastEventRoom);
  entry->string_room = static_cast<uint8_t>(kFastEventRoom - fixed);
}

}  // namespace internal
}  // namespace zt
