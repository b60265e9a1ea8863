// WriteEventWithDynamicName(): an event named by a string that lives only
// for the call (DynamicString), without arguments, on the fast path: the
// name written inline (TrackEvent.name), no interning. Longer names, or a
// sequence the fast path refuses, take the general path.

#include <cstddef>
#include <cstdint>

#include "src/tracing/sdk/track_event_bytes.h"
#include "src/tracing/sdk/track_event_descriptors.h"
#include "src/tracing/sdk/track_event_writer_common.h"
#include "zt/protozero/proto_utils.h"

namespace zt {
namespace internal {

// The general path of WriteEventWithDynamicName(): any name length, any
// sequence state, several instances.
static ZT_NOINLINE SessionTags WriteEventWithDynamicNameSlow(uint32_t category,
                                                             uint8_t instances, EventType type,
                                                             const char* name, size_t size) {
  EventSpec spec;
  spec.category = category;
  spec.type = type;
  spec.name = EventName{name, size, EventName::kDynamic};
  return EmitWithSpec(spec, instances).sessions;
}

// A packet of WriteEventWithDynamicName()'s fast path: a timestamp (11),
// sequence flags and the TrackEvent's tag and length (4), type (2), the
// category iid (3), the name's tag (2), length (1) and bytes.
constexpr size_t kMaxDynamicNameEventBytes = 11 + 4 + 2 + 3 + 2 + 1 + kMaxInlineString;

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
        writer->EndRawPacketAndBeginNext(q);
        return seq->session_tags;
      }
    }
  }
  return WriteEventWithDynamicNameSlow(category, instances, type, name, size);
}

}  // namespace internal
}  // namespace zt
