// WriteNamedInstant() and WriteNamedSliceBegin(): events named by a
// literal or a StaticString, without arguments, on the fast path (the
// bytes cache's plain form), and its misses when more names are in use
// than the cache holds (docs/design/track_event_names_at_scale.md).

#include <cstdint>

#include "src/tracing/sdk/intern_table.h"
#include "src/tracing/sdk/track_event_bytes.h"
#include "src/tracing/sdk/track_event_sequence.h"
#include "src/tracing/sdk/track_event_writer_common.h"
#include "zt/ext/tracing/core/trace_writer.h"
#include "zt/tracing/internal/track_event_internal.h"

namespace zt {
namespace internal {

// Writes a named event from |entry| (filled for |static_name| and
// |event_key|), the packet begun at |p| at |now| by the fast path.
static ZT_ALWAYS_INLINE inline SessionTags WriteFromRefilledEntry(
    TrackEventSequence* seq, uint8_t* p, uint64_t now, uint32_t event_key,
    EventBytesCache::Entry* entry, const char* static_name) {
  TraceWriter* const writer = seq->writer;
  entry->name = static_name;
  entry->key = nullptr;
  entry->tag = event_key;
  p = WriteFastTimestamp(p, seq, now);
  writer->EndRawPacketAndBeginNext(WriteCachedPlainEvent(p, *entry));
  return seq->session_tags;
}

// WriteNamedEventMiss() where the remembered head is another category's or
// type's: the head composed from the category's iid (and remembered), or,
// for a category new to the sequence, the simple path, which interns it.
// Out of line so that the miss's common path makes no call it returns
// from, and so saves no registers.
template <EventType kType>
static ZT_NOINLINE SessionTags WriteNamedEventMissNewHead(TrackEventSequence* seq, uint8_t* p,
                                                          uint64_t now, uint32_t event_key,
                                                          EventBytesCache::Entry* entry,
                                                          const char* static_name,
                                                          IidVarint name) {
  const uint32_t category = event_key & 0xFFFF;
  TrackEventIncrementalState* incremental = seq->incremental;
  if (ZT_UNLIKELY(!CategoryInterned(incremental, category)))
    return WriteEvent(category, seq->instance_mask, kType, static_name);
  EncodeCachedPlainEvent(entry, kType, CategoryIid(category), name);
  RememberHead(incremental, event_key);
  return WriteFromRefilledEntry(seq, p, now, event_key, entry, static_name);
}

// A named event whose bytes are not in |entry|, the cache entry the fast
// path found for its name (more names than entries, cycled through): when
// the name and category are interned on the sequence already, the entry is
// composed again from the name's varint and the remembered head (or the
// category's, then remembered) and written, the packet begun at |p| at
// |now| by the fast path; else (a first use) the simple path, which
// interns them.
template <EventType kType>
static ZT_NOINLINE SessionTags WriteNamedEventMiss(TrackEventSequence* seq, uint8_t* p,
                                                   uint64_t now, uint32_t event_key,
                                                   EventBytesCache::Entry* entry,
                                                   const char* static_name) {
  TrackEventIncrementalState* incremental = seq->incremental;
  const InternTable::Slot* name = incremental->event_names.Lookup(static_name);
  if (ZT_UNLIKELY(name == nullptr))
    return WriteEvent(event_key & 0xFFFF, seq->instance_mask, kType, static_name);
  if (ZT_UNLIKELY(incremental->last_head_key != event_key)) {
    return WriteNamedEventMissNewHead<kType>(seq, p, now, event_key, entry, static_name,
                                             name->varint);
  }
  ComposeCachedPlainEvent(entry, incremental->last_head, name->varint);
  return WriteFromRefilledEntry(seq, p, now, event_key, entry, static_name);
}

// WriteNamedEventMiss() for the common case, the name in its home slot and
// the remembered head its category's and type's; the others go there.
// Every call it makes is a tail call, and it keeps few enough values to
// save no registers (a probe loop would need more: measured, a frame of
// 11 instructions).
template <EventType kType>
static ZT_NOINLINE SessionTags WriteNamedEventMissCommon(TrackEventSequence* seq, uint8_t* p,
                                                         uint64_t now, uint32_t event_key,
                                                         EventBytesCache::Entry* entry,
                                                         const char* static_name) {
  TrackEventIncrementalState* incremental = seq->incremental;
  if (ZT_UNLIKELY(static_name == nullptr))
    return WriteEvent(event_key & 0xFFFF, seq->instance_mask, kType, static_name);
  const InternTable::Slot& name = incremental->event_names.HomeSlot(static_name);
  if (ZT_UNLIKELY(name.key != reinterpret_cast<uintptr_t>(static_name) ||
                  incremental->last_head_key != event_key)) {
    return WriteNamedEventMiss<kType>(seq, p, now, event_key, entry, static_name);
  }
  ComposeCachedPlainEvent(entry, incremental->last_head, name.varint);
  return WriteFromRefilledEntry(seq, p, now, event_key, entry, static_name);
}

// The call site's key is the cache's tag for the plain form.
static_assert(EventBytesCache::kPlain == 0 &&
                  EventBytesCache::Tag(7, EventType::kInstant, EventBytesCache::kPlain) ==
                      NamedEventKey(7, EventType::kInstant),
              "NamedEventKey() is the plain form's cache tag");

template <EventType kType>
static ZT_ALWAYS_INLINE inline SessionTags WriteNamedEventFast(uint32_t event_key,
                                                               uint8_t instances,
                                                               const char* static_name) {
  uint8_t* p;
  uint64_t now;
  if (TrackEventSequence* seq = FastSequence(instances, &p, &now)) {
    // Read once: the bytes written next may alias it for the compiler.
    TraceWriter* const writer = seq->writer;
    EventBytesCache::Entry* entry =
        &seq->incremental->bytes_cache.EntryFor(static_name, EventBytesCache::kPlain);
    if (ZT_LIKELY(entry->name == static_name && entry->tag == event_key)) {
      p = WriteFastTimestamp(p, seq, now);
      writer->EndRawPacketAndBeginNext(WriteCachedPlainEvent(p, *entry));
      return seq->session_tags;
    }
    return WriteNamedEventMissCommon<kType>(seq, p, now, event_key, entry, static_name);
  }
  return WriteEvent(event_key & 0xFFFF, instances, kType, static_name);
}

SessionTags WriteNamedSliceBegin(uint32_t event_key, uint8_t instances,
                                 const char* static_name) {
  return WriteNamedEventFast<EventType::kSliceBegin>(event_key, instances, static_name);
}

void WriteNamedInstant(uint32_t event_key, uint8_t instances, const char* static_name) {
  WriteNamedEventFast<EventType::kInstant>(event_key, instances, static_name);
}

}  // namespace internal
}  // namespace zt
