// Track events with arguments on the fast path: up to four debug
// annotations with literal keys and flows (FastArgs,
// zt/tracing/internal/track_event_fast_args.h), written from bytes cached
// per (name, shape) and the values. docs/design/track_event_args_fast_path.md.

#include "src/tracing/sdk/track_event_bytes.h"
#include "src/tracing/sdk/track_event_writer_common.h"
#include "zt/base/logging.h"

namespace zt {
namespace internal {
namespace {

inline bool KeysMatch(const ArgsEventCache::Entry& entry, const FastArgs& args) {
  // Past the last argument both are null.
  return ((reinterpret_cast<uintptr_t>(entry.keys[0]) ^
           reinterpret_cast<uintptr_t>(args.keys[0])) |
          (reinterpret_cast<uintptr_t>(entry.keys[1]) ^
           reinterpret_cast<uintptr_t>(args.keys[1])) |
          (reinterpret_cast<uintptr_t>(entry.keys[2]) ^
           reinterpret_cast<uintptr_t>(args.keys[2])) |
          (reinterpret_cast<uintptr_t>(entry.keys[3]) ^
           reinterpret_cast<uintptr_t>(args.keys[3]))) == 0;
}

// The bytes the string values take, checked against what the entry leaves
// them: the caller's own check (EmitFastArgs) makes this hold; a breach
// would write past the packet's room.
inline void CheckStringRoom(const ArgsEventCache::Entry& entry, const FastArgs& args) {
  size_t strings = 0;
  for (uint32_t mask = entry.string_mask; mask != 0; mask &= mask - 1)
    strings += args.sizes[__builtin_ctz(mask)];
  ZT_CHECK(strings <= entry.string_room);
}

// Interns what the event refers to on the sequence and fills its entry.
const ArgsEventCache::Entry& CacheArgsEvent(TrackEventSequence* seq, uint32_t category,
                                            EventType type, const char* name,
                                            const FastArgs& args) {
  InternCategory(seq, category);
  const uint32_t name_iid = InternEventName(seq, name);
  uint32_t key_iids[kMaxFastArgs] = {};
  for (uint32_t i = 0; i < args.count; i++) {
    if (args.keys[i])
      key_iids[i] = InternAnnotationName(seq, args.keys[i]);
  }
  ArgsEventCache::Entry& entry = seq->incremental->args_cache.EntryFor(name, args.shape);
  EncodeCachedArgsEvent(&entry, type, CategoryIid(category), name_iid, args, key_iids);
  entry.name = name;
  for (size_t i = 0; i < kMaxFastArgs; i++)
    entry.keys[i] = args.keys[i];
  entry.tag = ArgsEventCache::Tag(category, type, args.shape);
  return entry;
}

// The packet: the timestamp (at most 11 bytes) and the event, at most
// kFastEventRoom bytes; the last prefix's copy may end 8 bytes past it.
constexpr size_t kMaxArgsEventBytes = kFastEventRoom + ArgsEventCache::kPrefixBytes;

// The simple path of WriteEventWithArgs(): any sequence state, several
// instances; fills the cache.
ZT_NOINLINE SessionTags WriteEventWithArgsSlow(uint32_t category, uint8_t instances,
                                               EventType type, const char* name,
                                               const FastArgs& args) {
  ZT_CHECK(args.count <= kMaxFastArgs && args.shape >> (4 * args.count) == 0);
  SessionTags sessions = 0;
  for (uint32_t i = 0; instances != 0; i++, instances >>= 1) {
    if (!(instances & 1))
      continue;
    TrackEventSequence* seq = SequenceFor(i, EventCategory{category});
    if (!seq)
      continue;
    WriteEncodedEvent<kMaxArgsEventBytes>(
        i, seq, EventCategory{category}, false,
        [&](uint8_t* p, TrackEventSequence* s, uint64_t delta) {
          const ArgsEventCache::Entry& entry = CacheArgsEvent(s, category, type, name, args);
          CheckStringRoom(entry, args);
          *p++ = 0x40;  // timestamp (8), varint.
          p = protozero::proto_utils::WriteVarInt(delta, p);
          return WriteCachedArgsEvent(p, entry, args);
        });
    sessions |= TagOf(seq, i);
  }
  return sessions;
}

}  // namespace

SessionTags WriteEventWithArgs(uint32_t category, uint8_t instances, EventType type,
                               const char* static_name, const FastArgs& args) {
  uint8_t* p;
  uint64_t now;
  if (TrackEventSequence* seq = FastSequence<kMaxArgsEventBytes>(instances, &p, &now)) {
    // Read once: the bytes written next may alias it for the compiler.
    TraceWriter* const writer = seq->writer;
    const ArgsEventCache::Entry& entry =
        seq->incremental->args_cache.EntryFor(static_name, args.shape);
    if (ZT_LIKELY(entry.name == static_name &&
                  entry.tag == ArgsEventCache::Tag(category, type, args.shape) &&
                  KeysMatch(entry, args))) {
      CheckStringRoom(entry, args);
      p = WriteFastTimestamp(p, seq, now);
      writer->EndRawPacketAndBeginNext(WriteCachedArgsEvent(p, entry, args));
      return seq->session_tags;
    }
  }
  return WriteEventWithArgsSlow(category, instances, type, static_name, args);
}

SessionTags WriteSiteEventWithArgs(uint8_t instances, EventType type, const char* table,
                                   FastArgs* args) {
  const uint32_t category = FastSiteCategory(table);
  const char* const name = table + kFastSiteNameOffset;
  uint8_t* p;
  uint64_t now;
  if (TrackEventSequence* seq = FastSequence<kMaxArgsEventBytes>(instances, &p, &now)) {
    TraceWriter* const writer = seq->writer;
    const ArgsEventCache::Entry& entry =
        seq->incremental->args_cache.EntryFor(name, args->shape);
    // No key to compare: the name is the table's own, which only its call
    // site passes, always with the table's keys; an entry with this name
    // and shape was filled from them.
    if (ZT_LIKELY(entry.name == name &&
                  entry.tag == ArgsEventCache::Tag(category, type, args->shape))) {
      CheckStringRoom(entry, *args);
      p = WriteFastTimestamp(p, seq, now);
      writer->EndRawPacketAndBeginNext(WriteCachedArgsEvent(p, entry, *args));
      return seq->session_tags;
    }
  }
  FillFastSiteKeys(table, args);
  return WriteEventWithArgsSlow(category, instances, type, name, *args);
}

SessionTags WriteEventWithLongArgs(uint32_t category, uint8_t instances, EventType type,
                                   const char* static_name, const FastArgs& args) {
  ZT_CHECK(args.count <= kMaxFastArgs && args.shape >> (4 * args.count) == 0);
  EventSpec spec;
  spec.category = category;
  spec.type = type;
  spec.name = EventName{static_name, 0, EventName::kStatic};
  auto write_args = [&args](EventContext& ctx) {
    for (uint32_t i = 0; i < args.count; i++) {
      const uint64_t value = args.values[i];
      const char* key = args.keys[i];
      switch (static_cast<FastArgKind>(args.shape >> (4 * i) & 0xf)) {
        case FastArgKind::kInt:
          ctx.AddDebugAnnotation(key, static_cast<int64_t>(value));
          break;
        case FastArgKind::kUint:
          ctx.AddDebugAnnotation(key, value);
          break;
        case FastArgKind::kBool:
          ctx.AddDebugAnnotation(key, value != 0);
          break;
        case FastArgKind::kDouble: {
          double d;
          __builtin_memcpy(&d, &value, sizeof(d));
          ctx.AddDebugAnnotation(key, d);
          break;
        }
        case FastArgKind::kPointer:
          ctx.AddDebugAnnotation(key, reinterpret_cast<const void*>(value));
          break;
        case FastArgKind::kString:
          ctx.AddDebugAnnotation(
              key, DynamicString(reinterpret_cast<const char*>(value), args.sizes[i]));
          break;
        case FastArgKind::kFlow:
          ctx.AddFlow(Flow{value});
          break;
        case FastArgKind::kTerminatingFlow:
          ctx.AddTerminatingFlow(TerminatingFlow{value});
          break;
        case FastArgKind::kNone:
          ZT_CHECK(false && "a FastArgs shape names no kind for an argument");
      }
    }
  };
  // No track among these arguments: the thread's (a track uuid of 0).
  return EmitBody(spec, instances, write_args).sessions;
}

}  // namespace internal
}  // namespace zt
