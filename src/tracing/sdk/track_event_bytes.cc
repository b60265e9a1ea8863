// The cached bytes of the common track events (track_event_bytes.h).

#include "src/tracing/sdk/track_event_bytes.h"

#include "zt/base/logging.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {
namespace internal {

void EncodeCachedEvent(EventBytesCache::Entry* entry, EventBytesCache::Form form,
                       EventType type, uint64_t category_iid, uint64_t track_uuid,
                       uint32_t name_iid, uint32_t key_iid) {
  using protozero::proto_utils::WriteVarInt;
  using Form = EventBytesCache::Form;
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
    *p++ = 0x50;  // name_iid (10): at most 5 bytes.
    p = WriteVarInt(name_iid, p);
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
      *p++ = 0x08;  // name_iid (1): at most 5 bytes.
      p = WriteVarInt(key_iid, p);
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

}  // namespace internal
}  // namespace zt
