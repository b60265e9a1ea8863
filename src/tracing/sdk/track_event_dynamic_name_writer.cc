// WriteEventWithDynamicName(): an event named by a string that lives only
// for the call (DynamicString), without arguments, on the fast path: the
// name written inline (TrackEvent.name), no interning. Where the fast path
// refuses (a chunk's end, several sessions, ...), names up to 64 bytes take
// a simple path that writes the same bytes; longer ones the general path.

#include <cstddef>
#include <cstdint>

#include "src/tracing/sdk/track_event_bytes.h"
#include "src/tracing/sdk/track_event_descriptors.h"
#include "src/tracing/sdk/track_event_writer_common.h"
#include "zt/protozero/proto_utils.h"

namespace zt {
namespace internal {

// A packet of the fast and simple paths: a timestamp (11), sequence flags
// and the TrackEvent's tag and length (4), type (2), the category iid (3),
// the name's tag (2), length (1) and bytes.
constexpr size_t kMaxDynamicNameEventBytes = 11 + 4 + 2 + 3 + 2 + 1 + kMaxInlineString;

// The packet's bytes after the timestamp, at |p|; returns their end.
static ZT_ALWAYS_INLINE inline uint8_t* WriteDynamicNameEvent(uint8_t* p, EventType type,
                                                              uint32_t category,
                                                              const char* name, size_t size) {
  p[0] = 0x68;  // sequence_flags (13) = SEQ_NEEDS_INCREMENTAL_STATE.
  p[1] = kNeedsStateFlag;
  p[2] = 0x5a;  // track_event (11), length-delimited, one byte.
  uint8_t* const length = p + 3;
  p[4] = 0x48;  // type (9).
  p[5] = static_cast<uint8_t>(type);
  p[6] = 0x18;  // category_iids (3).
  uint8_t* q = protozero::proto_utils::WriteVarInt(CategoryIid(category), p + 7);
  *q++ = 0xba;  // name (23), length-delimited.
  *q++ = 0x01;
  *q++ = static_cast<uint8_t>(size);
  CopyShortString(q, name, size);
  q += size;
  *length = static_cast<uint8_t>(q - (length + 1));
  return q;
}

// The simple path of WriteEventWithDynamicName(): several instances, a
// sequence the fast path refuses (a chunk's end, a timestamp unit, a drop
// to answer, the category's first use). Names the fast path takes are
// written as it writes them, through the writer's raw packets, so that at
// a chunk's end the event opens the next chunk (it would otherwise go in
// fragments through the handle, and so would the next events until the
// chunk is full); longer names go through the general path.
static ZT_NOINLINE SessionTags WriteEventWithDynamicNameSlow(uint32_t category,
                                                             uint8_t instances, EventType type,
                                                             const char* name, size_t size) {
  if (size > kMaxInlineString) {
    EventSpec spec;
    spec.category = category;
    spec.type = type;
    spec.name = EventName{name, size, EventName::kDynamic};
    return EmitWithSpec(spec, instances).sessions;
  }
  SessionTags sessions = 0;
  for (uint32_t i = 0; instances != 0; i++, instances >>= 1) {
    if (!(instances & 1))
      continue;
    if (TrackEventSequence* seq = SequenceFor(i, EventCategory{category})) {
      if (InsideAnEvent(seq))
        continue;
      WriteEncodedEvent<kMaxDynamicNameEventBytes>(
          i, seq, EventCategory{category}, false,
          [&](uint8_t* p, TrackEventSequence* s, uint64_t delta) {
            InternCategory(s, category);
            *p++ = 0x40;  // timestamp (8), varint.
            p = protozero::proto_utils::WriteVarInt(delta, p);
            return WriteDynamicNameEvent(p, type, category, name, size);
          });
      sessions |= TagOf(seq, i);
    }
  }
  return sessions;
}

SessionTags WriteEventWithDynamicName(uint32_t category, uint8_t instances, EventType type,
                                      const char* name, size_t size) {
  uint8_t* p;
  uint64_t now;
  if (ZT_LIKELY(size <= kMaxInlineString)) {
    if (TrackEventSequence* seq =
            FastSequence<kMaxDynamicNameEventBytes>(instances, &p, &now)) {
      // Read once: the bytes written next may alias it for the compiler.
      TraceWriter* const writer = seq->writer;
      const bool category_interned =
          (seq->incremental->interned_categories[category / 64] >> (category % 64)) & 1;
      if (ZT_LIKELY(category_interned)) {
        p = WriteFastTimestamp(p, seq, now);
        writer->EndRawPacketAndBeginNext(WriteDynamicNameEvent(p, type, category, name, size));
        return seq->session_tags;
      }
    }
  }
  return WriteEventWithDynamicNameSlow(category, instances, type, name, size);
}

}  // namespace internal
}  // namespace zt
