// The out-of-line half of the macros
// (zt/tracing/internal/track_event_internal.h): sequences, timestamps,
// interning and the event packets. docs/design/track_event.md says what is
// written and why.


#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "src/tracing/sdk/intern_table.h"
#include "src/tracing/sdk/track_event_bytes.h"
#include "src/tracing/sdk/track_event_category_registry.h"
#include "src/tracing/sdk/track_event_clock.h"
#include "src/tracing/sdk/track_event_data_source.h"
#include "src/tracing/sdk/track_event_descriptors.h"
#include "src/tracing/sdk/track_event_hook.h"
#include "src/tracing/sdk/track_event_sequence.h"
#include "src/tracing/sdk/track_event_writer_common.h"
#include "zt/protozero/proto_utils.h"
#include "zt/trace/interned_data/interned_data.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/trace/track_event/debug_annotation.pbzero.h"
#include "zt/trace/track_event/track_event.pbzero.h"
#include "zt/tracing/data_source.h"
#include "zt/tracing/track_event.h"
#include "zt/tracing/track_event_control.h"
#include "zt/tracing/tracing.h"

namespace zt {

using protos::pbzero::TracePacket;

namespace internal {
namespace {

TrackEventSequence* GetSequence(TrackEventDataSource::TraceContext& tc) {
  TrackEventSequence& seq = tc.GetCustomTlsState();
  TrackEventIncrementalState* incremental = tc.GetIncrementalState();
  const uint64_t dropped = tc.writer_packets_dropped();
  if (ZT_UNLIKELY(dropped != seq.packets_dropped_seen)) {
    // What this sequence interned may be in the dropped packets: start
    // again, so that readers can use what follows.
    // Readers forget the sequence's interned data and defaults at the reset
    // that follows, so this side forgets them too.
    seq.packets_dropped_seen = dropped;
    *incremental = TrackEventIncrementalState();
    // The packet begun ahead for the next event was begun while the writer
    // was dropping: it is in the garbage range, and the reset written into
    // it would be lost, leaving readers a loss mark with no clear after it.
    // Finished empty (its drop is counted already), so that the reset
    // begins packets of its own, the first of them carrying the mark.
    if (seq.next_packet && tc.trace_writer()->is_dropping())
      seq.next_packet.Finish();
  }
  seq.incremental = incremental;
  seq.writer = tc.trace_writer();
  return &seq;
}

void WriteEventFields(TrackEventSequence* seq, protos::pbzero::TrackEvent* event,
                      const EventSpec& spec, uint64_t track_uuid) {
  event->set_type(static_cast<protos::pbzero::TrackEvent::Type>(spec.type));
  if (track_uuid != 0)
    event->set_track_uuid(track_uuid);
  if (spec.type == EventType::kSliceEnd)
    return;  // Readers close the innermost open slice of the track.
  if (spec.dynamic_category) {
    event->add_categories(spec.dynamic_category);
  } else {
    InternCategory(seq, spec.category);
    event->add_category_iids(CategoryIid(spec.category));
  }
  if (spec.type == EventType::kCounter) {
    if (spec.counter_is_double)
      event->set_double_counter_value(spec.counter_double);
    else
      event->set_counter_value(spec.counter_int);
    return;
  }
  if (spec.name.kind == EventName::kStatic && spec.name.data) {
    event->set_name_iid(InternEventName(seq, spec.name.data));
  } else if (spec.name.kind == EventName::kDynamic && spec.name.data) {
    event->set_name(std::string_view(spec.name.data, spec.name.size));
  }
}

}  // namespace

void WriteInterned(TrackEventSequence* seq, TracePacket* packet) {
  if (seq->pending.empty())
    return;
  auto* interned = packet->set_interned_data();
  for (const TrackEventSequence::PendingIntern& entry : seq->pending) {
    // EventCategory, EventName and DebugAnnotationName share the layout
    // {iid = 1, name = 2}.
    auto* item = interned->BeginNestedMessage<protozero::Message>(entry.field);
    item->AppendVarInt(1, entry.iid);
    item->AppendString(2, entry.name);
  }
  seq->pending.clear();
}

// Each thread's current sequence per instance: a plain array (no TLS
// initializer to call), checked against the instance slot at each event.
// Initial-exec: one %fs-relative load, where the default model for code
// that may end up in a shared library calls __tls_get_addr.
ZT_INITIAL_EXEC_TLS thread_local TrackEventSequence* t_sequences[kMaxDataSourceInstances];
ZT_INITIAL_EXEC_TLS thread_local HotSequence t_hot_sequence;

// A sequence is destroyed on its own thread (its thread-local state goes
// when the thread ends or the instance slot is reused): a pointer left here
// would be used by that thread's next event, as it was by a static
// destructor tracing after exit() destroyed the thread's state.
TrackEventSequence::~TrackEventSequence() {
  for (TrackEventSequence*& current : t_sequences) {
    if (current == this)
      current = nullptr;
  }
  if (t_hot_sequence.seq == this)
    t_hot_sequence = HotSequence();
}

// Makes instance |instance|'s sequence current for this thread through the
// DataSource machinery (a new writer for a new session, new incremental
// state after a clear or a drop, which it then writes). Null if the
// instance is not recording, or not |category| any more.
ZT_NOINLINE TrackEventSequence* AcquireSequenceSlow(uint32_t instance, EventCategory category) {
  const DataSourceInstanceState& slot = TrackEventDataSource::State().instances[instance];
  // Read first: a change after it is seen as a change at the next event.
  const uint64_t epoch = slot.epoch.load(std::memory_order_acquire);
  const uint64_t generation = slot.generation.load(std::memory_order_acquire);
  TrackEventSequence* result = nullptr;
  t_sequences[instance] = nullptr;
  if (t_hot_sequence.mask == 1u << instance)
    t_hot_sequence = HotSequence();
  TrackEventDataSource::TraceInstances(
      1u << instance, [&](TrackEventDataSource::TraceContext tc) {
        if (InsideAnEvent(&tc.GetCustomTlsState()))
          return;  // Nothing changes until that event ends.
        TrackEventSequence* seq = GetSequence(tc);
        if (seq->epoch != epoch) {
          // The epoch was read (acquire) before this: a category state
          // cleared by the stop of the slot's previous session is seen.
          if (!category.RecordedBy(instance))
            return;  // Left stale: asked again at the next event.
          // The session's settings, once per change of the slot (not at
          // every reacquire after a drop): taking the instance lock.
          auto data_source = tc.GetDataSourceLocked();
          if (data_source)
            seq->timestamp_unit = data_source->timestamp_unit();
        }
        seq->epoch = epoch;
        seq->session_tag = static_cast<uint8_t>(generation);
        seq->session_tags = SessionTags{seq->session_tag} << (8 * instance);
        seq->instance_mask = static_cast<uint8_t>(1u << instance);
        seq->slot_epoch = &slot.epoch;
        seq->fast_epoch = seq->timestamp_unit == 1 ? epoch : ~epoch;
        if (seq->incremental->was_cleared)
          ResetSequence(seq, TrackEventClock::NowNs());
        result = seq;
      });
  t_sequences[instance] = result;
  if (result)
    t_hot_sequence = HotSequence{1u << instance, result};
  return result;
}

void ClearInternedState(TrackEventSequence* seq) {
  if (seq->packet)
    return;  // Inside an event: at a later one.
  *seq->incremental = TrackEventIncrementalState();
  seq->intern_clears++;
  ResetSequence(seq, TrackEventClock::NowNs());
}

// The timestamp to write for |now|: the delta since the sequence's last
// one (held at the last one if the clock stepped back on an anchor
// renewal), in the sequence's units; or, for absolute times (unit 0), |now|
// (held likewise). Advances the sequence's base.
ZT_NOINLINE uint64_t NextTimestampInUnits(TrackEventSequence* seq, uint64_t now) {
  TrackEventIncrementalState* incremental = seq->incremental;
  const uint64_t unit = seq->timestamp_unit;
  const uint64_t value = unit != 0 ? now / unit : now;
  const uint64_t last = incremental->last_timestamp;
  const uint64_t ts = value > last ? value : last;
  incremental->last_timestamp = ts;
  return unit != 0 ? ts - last : ts;
}

namespace {

// A simple event: what the fast paths and the simple path write (the
// common forms, without the nested-message API).
struct SimpleEvent {
  EventType type = EventType::kInstant;
  uint32_t category = 0;
  // The event's static name; a counter's track name. Null (slice ends):
  // not cached.
  const char* name = nullptr;
  uint64_t track_uuid = 0;  // Counters, and ends on a track.
  EventBytesCache::Form form = EventBytesCache::kPlain;
  const char* key = nullptr;  // The annotation forms' key.
  uint64_t value = 0;         // An annotation's, an int counter's.
  double double_value = 0;
  // kStringAnnotation's value: at most kMaxInlineString bytes.
  const char* string_value = nullptr;
  size_t string_size = 0;
};

inline bool IsCounterForm(EventBytesCache::Form form) {
  return form == EventBytesCache::kIntCounter || form == EventBytesCache::kDoubleCounter;
}

// Interns what |event| refers to on the sequence and caches the bytes
// after its timestamp (track_event_bytes.h), which the fast paths copy.
const EventBytesCache::Entry& CacheEvent(TrackEventSequence* seq, const SimpleEvent& event) {
  InternCategory(seq, event.category);
  const bool counter = IsCounterForm(event.form);
  const uint32_t name_iid = counter ? 0 : InternEventName(seq, event.name);
  const uint32_t key_iid = event.key ? InternAnnotationName(seq, event.key) : 0;
  EventBytesCache::Entry& entry = seq->incremental->bytes_cache.EntryFor(event.name, event.form);
  EncodeCachedEvent(&entry, event.form, event.type, CategoryIid(event.category),
                    counter ? event.track_uuid : 0, EncodeIidVarint(name_iid),
                    EncodeIidVarint(key_iid));
  entry.name = event.name;
  entry.key = event.key;
  entry.tag = EventBytesCache::Tag(event.category, event.type, event.form);
  return entry;
}

// Writes a cached event's bytes and value at |p|.
inline uint8_t* WriteCachedEvent(uint8_t* p, const EventBytesCache::Entry& entry,
                                 const SimpleEvent& event) {
  switch (event.form) {
    case EventBytesCache::kPlain:
      return WriteCachedPlainEvent(p, entry);
    case EventBytesCache::kDoubleCounter:
      return WriteCachedDoubleEvent(p, entry, event.double_value);
    case EventBytesCache::kStringAnnotation:
      return WriteCachedStringEvent(p, entry, event.string_value, event.string_size);
    case EventBytesCache::kIntCounter:
      return WriteCachedVarIntEvent<false>(p, entry, event.value);
    default:
      return WriteCachedVarIntEvent(p, entry, event.value);
  }
}

// Encodes a simple event, at most kMaxSimpleEventSize bytes: the timestamp,
// then the cached bytes and value, or for an unnamed event (a slice end)
// the sequence flags and the TrackEvent with one-byte lengths. The
// longest: a timestamp (11), an annotated event's cached bytes (24) and a
// string of kMaxInlineString with its length (65): 100; the cached bytes'
// copy writes kMaxBytes (32) after the timestamp.
constexpr size_t kMaxSimpleEventSize = 104;

inline uint8_t* EncodeSimpleEvent(uint8_t* p, TrackEventSequence* seq,
                                  const SimpleEvent& event, uint64_t delta) {
  *p++ = 0x40;  // timestamp (8), varint.
  p = protozero::proto_utils::WriteVarInt(delta, p);
  if (event.name)
    return WriteCachedEvent(p, CacheEvent(seq, event), event);
  *p++ = 0x68;  // sequence_flags (13) = SEQ_NEEDS_INCREMENTAL_STATE.
  *p++ = kNeedsStateFlag;
  *p++ = 0x5a;  // track_event (11), length-delimited; at most 48 bytes.
  uint8_t* length = p++;
  uint8_t* event_start = p;
  *p++ = 0x48;  // type (9).
  *p++ = static_cast<uint8_t>(event.type);
  if (event.track_uuid != 0) {
    *p++ = 0x58;  // track_uuid (11).
    p = protozero::proto_utils::WriteVarInt(event.track_uuid, p);
  }
  if (event.type != EventType::kSliceEnd) {
    InternCategory(seq, event.category);
    *p++ = 0x18;  // category_iids (3).
    p = protozero::proto_utils::WriteVarInt(CategoryIid(event.category), p);
  }
  if (event.key) {
    const uint32_t iid = InternAnnotationName(seq, event.key);
    *p++ = 0x22;  // debug_annotations (4), length-delimited.
    uint8_t* annotation_length = p++;
    uint8_t* annotation_start = p;
    *p++ = 0x08;  // name_iid (1).
    p = protozero::proto_utils::WriteVarInt(iid, p);
    if (event.form == EventBytesCache::kStringAnnotation) {
      *p++ = 0x32;  // string_value (6), length-delimited.
      *p++ = static_cast<uint8_t>(event.string_size);
      memcpy(p, event.string_value, event.string_size);
      p += event.string_size;
    } else {
      // uint_value (3), int_value (4).
      *p++ = event.form == EventBytesCache::kUintAnnotation ? 0x18 : 0x20;
      p = protozero::proto_utils::WriteVarInt(event.value, p);
    }
    *annotation_length = static_cast<uint8_t>(p - annotation_start);
  }
  *length = static_cast<uint8_t>(p - event_start);
  return p;
}

// A simple event, now (WriteEncodedEvent).
inline void WriteSimpleEvent(uint32_t instance, TrackEventSequence* seq,
                             const SimpleEvent& event) {
  const bool is_end = event.type == EventType::kSliceEnd;
  WriteEncodedEvent<kMaxSimpleEventSize>(
      instance, seq, is_end ? EventCategory{} : EventCategory{event.category}, is_end,
      [&event](uint8_t* p, TrackEventSequence* s, uint64_t delta) {
        return EncodeSimpleEvent(p, s, event, delta);
      });
}

}  // namespace

bool BeginEvent(uint32_t instance, const EventSpec& spec, EventContext* ctx) {
  TrackEventSequence* seq =
      AcquireSequence(instance, EventCategory{spec.category, spec.dynamic_category});
  if (!seq || InsideAnEvent(seq))
    return false;
  const uint64_t now = TrackEventClock::NowNs();
  const uint64_t track_uuid = ResolveTrack(seq, spec);
  seq->packet = seq->TakePacket();
  TracePacket* packet = seq->packet.get();
  if (spec.has_timestamp) {
    // Explicit times may go back: absolute, on BOOTTIME itself.
    packet->set_timestamp(spec.timestamp);
    packet->set_timestamp_clock_id(kBootTimeClockId);
  } else {
    packet->set_timestamp(NextTimestamp(seq, now));
  }
  packet->set_sequence_flags(kNeedsStateFlag);
  auto* event = packet->set_track_event();
  WriteEventFields(seq, event, spec, track_uuid);
  EventContextAccess::Set(ctx, seq, event, track_uuid, seq->session_tag);
  return true;
}

void EndEvent(EventContext* ctx) {
  auto* seq = static_cast<TrackEventSequence*>(EventContextAccess::sequence(*ctx));
  WriteInterned(seq, seq->packet.get());
  seq->packet.Finish();
  seq->next_packet = seq->writer->NewTracePacket();
}

// A counter track new to this sequence's incremental state: its uuid
// (hashed from its name), described if no other name pointer did it yet.
ZT_NOINLINE uint64_t AddCounterTrack(TrackEventSequence* seq, const CounterTrack& track) {
  const uint64_t uuid = track.uuid();
  bool is_new = false;
  seq->incremental->described_tracks.Intern(uuid, &is_new);
  if (is_new)
    WriteTrackDescriptor(seq, track, uuid);  // Readers need it first.
  seq->incremental->counter_uuids.push_back(uuid);
  return uuid;
}

// The uuid of a counter track, by its name's address: hashing the name at
// every value would cost more than the rest of the event.
constexpr char kUnnamedCounter[] = "";

inline uint64_t CounterUuid(TrackEventSequence* seq, const CounterTrack& track) {
  bool is_new = false;
  const uint32_t iid = seq->incremental->counter_names.Intern(
      track.name() ? track.name() : kUnnamedCounter, &is_new);
  if (ZT_LIKELY(!is_new))
    return seq->incremental->counter_uuids[iid - 1];
  return AddCounterTrack(seq, track);
}

// category; the sessions it went to.
static SessionTags WriteSimpleEventTo(uint8_t instances, const SimpleEvent& event) {
  SessionTags sessions = 0;
  for (uint32_t i = 0; instances != 0; i++, instances >>= 1) {
    if (!(instances & 1))
      continue;
    if (TrackEventSequence* seq = SequenceFor(i, EventCategory{event.category})) {
      WriteSimpleEvent(i, seq, event);
      sessions |= TagOf(seq, i);
    }
  }
  return sessions;
}

// The simple path of the events without arguments, where the fast path
// below refuses.
SessionTags WriteEvent(uint32_t category, uint8_t instances, EventType type,
                       const char* static_name) {
  SimpleEvent event;
  event.type = type;
  event.category = category;
  event.name = static_name;
  return WriteSimpleEventTo(instances, event);
}

// The simple path of WriteEventWithInt(), with its arguments.
static ZT_NOINLINE SessionTags WriteEventWithIntSlow(uint32_t category, uint8_t instances,
                                                     EventType type, const char* static_name,
                                                     const char* static_key, int64_t value,
                                                     bool is_unsigned) {
  SimpleEvent event;
  event.type = type;
  event.category = category;
  event.name = static_name;
  event.form = is_unsigned ? EventBytesCache::kUintAnnotation : EventBytesCache::kIntAnnotation;
  event.key = static_key;
  event.value = static_cast<uint64_t>(value);
  return WriteSimpleEventTo(instances, event);
}

// The simple path of WriteEventWithString(), with its arguments.
static ZT_NOINLINE SessionTags WriteEventWithStringSlow(uint32_t category, uint8_t instances,
                                                        EventType type, const char* static_name,
                                                        const char* static_key,
                                                        const char* value, size_t size) {
  SimpleEvent event;
  event.type = type;
  event.category = category;
  event.name = static_name;
  event.form = EventBytesCache::kStringAnnotation;
  event.key = static_key;
  event.string_value = value;
  event.string_size = size;
  return WriteSimpleEventTo(instances, event);
}

// The simple path of WriteCounter().
static ZT_NOINLINE void WriteCounterSlow(uint32_t category, uint8_t instances,
                                         const CounterTrack& track, bool is_double,
                                         int64_t int_value, double double_value) {
  SimpleEvent event;
  event.type = EventType::kCounter;
  event.category = category;
  event.name = track.name() ? track.name() : kUnnamedCounter;
  event.form = is_double ? EventBytesCache::kDoubleCounter : EventBytesCache::kIntCounter;
  event.value = static_cast<uint64_t>(int_value);
  event.double_value = double_value;
  for (uint32_t i = 0; instances != 0; i++, instances >>= 1) {
    if (!(instances & 1))
      continue;
    TrackEventSequence* seq = AcquireSequence(i, EventCategory{category});
    if (!seq || InsideAnEvent(seq))
      continue;
    event.track_uuid = CounterUuid(seq, track);
    WriteSimpleEvent(i, seq, event);
  }
}

// A scoped slice's end goes where its begin went, unless the session there
// is no longer the begin's (the instance slot was stopped and taken by a
// new session while the scope was open): the new session never saw the
// begin, and an end without one is data loss to readers.
static ZT_NOINLINE void WriteSliceEndSlow(uint8_t instances, uint64_t track_uuid,
                                          SessionTags sessions) {
  SimpleEvent event;
  event.type = EventType::kSliceEnd;
  event.track_uuid = track_uuid;
  for (uint32_t i = 0; instances != 0; i++, instances >>= 1) {
    if (!(instances & 1))
      continue;
    TrackEventSequence* seq = SequenceFor(i, EventCategory{});  // The tag is the check.
    if (seq && TagOf(seq, i) == (sessions & (SessionTags{0xFF} << (8 * i))))
      WriteSimpleEvent(i, seq, event);
  }
}

// WriteEventWithInt()'s cache miss (more keys or names than the cache's
// entries, cycled through): when the name, key and category are interned
// on the sequence already, |entry| is composed again from their varints
// and true returned; else (a first use) false, for the simple path, which
// interns them. Inline in the fast path, which it rejoins: a call would
// keep the fast path's values alive across it, in registers the hit path
// would then have to save too.
static ZT_ALWAYS_INLINE inline bool RefillIntEntry(TrackEventIncrementalState* incremental,
                                                   EventBytesCache::Entry* entry, uint32_t tag,
                                                   const char* static_name,
                                                   const char* static_key) {
  const InternTable::Slot* name = incremental->event_names.Lookup(static_name);
  const InternTable::Slot* key = incremental->annotation_names.Lookup(static_key);
  if (ZT_UNLIKELY(name == nullptr || key == nullptr))
    return false;
  const auto form = static_cast<EventBytesCache::Form>(tag >> 24);
  const uint32_t event_key = tag & 0xFFFFFF;  // NamedEventKey(category, type).
  if (ZT_LIKELY(incremental->last_head_key == event_key)) {
    ComposeCachedIntAnnotationEvent(entry, incremental->last_head, form, name->varint,
                                    key->varint);
  } else {
    const uint32_t category = tag & 0xFFFF;
    if (ZT_UNLIKELY(!CategoryInterned(incremental, category)))
      return false;
    EncodeCachedIntAnnotationEvent(entry, form, static_cast<EventType>((tag >> 16) & 0xFF),
                                   CategoryIid(category), name->varint, key->varint);
    RememberHead(incremental, event_key);
  }
  entry->name = static_name;
  entry->key = static_key;
  entry->tag = tag;
  return true;
}

SessionTags WriteEventWithInt(uint32_t category, uint8_t instances, EventType type,
                              const char* static_name, const char* static_key,
                              int64_t value, bool is_unsigned) {
  uint8_t* p;
  uint64_t now;
  if (static_name) {
    if (TrackEventSequence* seq = FastSequence(instances, &p, &now)) {
      // Read once: the bytes written next may alias it for the compiler.
      TraceWriter* const writer = seq->writer;
      const EventBytesCache::Form form =
          is_unsigned ? EventBytesCache::kUintAnnotation : EventBytesCache::kIntAnnotation;
      const uint32_t tag = EventBytesCache::Tag(category, type, form);
      EventBytesCache::Entry* entry = &seq->incremental->bytes_cache.EntryFor(static_name, form);
      if (ZT_LIKELY((entry->name == static_name && entry->tag == tag &&
                     entry->key == static_key) ||
                    RefillIntEntry(seq->incremental, entry, tag, static_name, static_key))) {
        p = WriteFastTimestamp(p, seq, now);
        writer->EndRawPacketAndBeginNext(
            WriteCachedVarIntEvent(p, *entry, static_cast<uint64_t>(value)));
        return seq->session_tags;
      }
    }
  }
  return WriteEventWithIntSlow(category, instances, type, static_name, static_key, value,
                               is_unsigned);
}

SessionTags WriteEventWithString(uint32_t category, uint8_t instances, EventType type,
                                 const char* static_name, const char* static_key,
                                 const char* value, size_t size) {
  ZT_CHECK(size <= kMaxInlineString);
  uint8_t* p;
  uint64_t now;
  if (TrackEventSequence* seq = FastSequence<kMaxSimpleEventSize>(instances, &p, &now)) {
    // Read once: the bytes written next may alias it for the compiler.
    TraceWriter* const writer = seq->writer;
    const EventBytesCache::Entry* entry =
        FastEntry(seq, static_name, EventBytesCache::kStringAnnotation,
                  EventBytesCache::Tag(category, type, EventBytesCache::kStringAnnotation));
    if (entry != nullptr && entry->key == static_key) {
      p = WriteFastTimestamp(p, seq, now);
      writer->EndRawPacketAndBeginNext(WriteCachedStringEvent(p, *entry, value, size));
      return seq->session_tags;
    }
  }
  return WriteEventWithStringSlow(category, instances, type, static_name, static_key, value,
                                  size);
}

void WriteCounter(uint32_t category, uint8_t instances, const CounterTrack& track,
                  bool is_double, int64_t int_value, double double_value) {
  uint8_t* p;
  uint64_t now;
  if (TrackEventSequence* seq = FastSequence(instances, &p, &now)) {
    // Read once: the bytes written next may alias it for the compiler.
    TraceWriter* const writer = seq->writer;
    const char* name = track.name() ? track.name() : kUnnamedCounter;
    const EventBytesCache::Form form =
        is_double ? EventBytesCache::kDoubleCounter : EventBytesCache::kIntCounter;
    if (const EventBytesCache::Entry* entry = FastEntry(
            seq, name, form, EventBytesCache::Tag(category, EventType::kCounter, form))) {
      p = WriteFastTimestamp(p, seq, now);
      writer->EndRawPacketAndBeginNext(
          is_double ? WriteCachedDoubleEvent(p, *entry, double_value)
                    : WriteCachedVarIntEvent<false>(p, *entry, static_cast<uint64_t>(int_value)));
      return;
    }
  }
  WriteCounterSlow(category, instances, track, is_double, int_value, double_value);
}

// The simple path of WriteIntCounter() and WriteDoubleCounter().
static ZT_NOINLINE void WriteNamedCounterSlow(uint32_t category, uint8_t instances,
                                              const char* track_name, bool is_double,
                                              int64_t int_value, double double_value) {
  WriteCounterSlow(category, instances, CounterTrack(track_name), is_double, int_value,
                   double_value);
}

// The fast path of a counter on a track a literal names (the form a
// constant); false where it refuses.
template <EventBytesCache::Form kForm>
static ZT_ALWAYS_INLINE inline bool WriteNamedCounterFast(uint32_t category, uint8_t instances,
                                                          const char* track_name,
                                                          int64_t int_value,
                                                          double double_value) {
  uint8_t* p;
  uint64_t now;
  if (TrackEventSequence* seq = FastSequence(instances, &p, &now)) {
    // Read once: the bytes written next may alias it for the compiler.
    TraceWriter* const writer = seq->writer;
    if (const EventBytesCache::Entry* entry = FastEntry(
            seq, track_name, kForm, EventBytesCache::Tag(category, EventType::kCounter, kForm))) {
      p = WriteFastTimestamp(p, seq, now);
      writer->EndRawPacketAndBeginNext(
          kForm == EventBytesCache::kDoubleCounter
              ? WriteCachedDoubleEvent(p, *entry, double_value)
              : WriteCachedVarIntEvent<false>(p, *entry, static_cast<uint64_t>(int_value)));
      return true;
    }
  }
  return false;
}

void WriteIntCounter(uint32_t category, uint8_t instances, const char* track_name,
                     int64_t value) {
  if (!WriteNamedCounterFast<EventBytesCache::kIntCounter>(category, instances, track_name,
                                                           value, 0))
    WriteNamedCounterSlow(category, instances, track_name, false, value, 0);
}

void WriteDoubleCounter(uint32_t category, uint8_t instances, const char* track_name,
                        double value) {
  if (!WriteNamedCounterFast<EventBytesCache::kDoubleCounter>(category, instances, track_name,
                                                              0, value))
    WriteNamedCounterSlow(category, instances, track_name, true, 0, value);
}

// A slice's end on the thread's track, on the fast path; false where it
// refuses.
static ZT_ALWAYS_INLINE inline bool WriteThreadSliceEndFast(uint8_t instances,
                                                           SessionTags sessions) {
  uint8_t* p;
  uint64_t now;
  TrackEventSequence* seq = FastSequence(instances, &p, &now);
  if (ZT_UNLIKELY(seq == nullptr || seq->session_tags != sessions))
    return false;
  // Read once: the bytes written next may alias it for the compiler.
  TraceWriter* const writer = seq->writer;
  p = WriteFastTimestamp(p, seq, now);
  // sequence_flags = SEQ_NEEDS_INCREMENTAL_STATE, track_event (2 bytes)
  // {type = TYPE_SLICE_END}.
  static constexpr uint8_t kSliceEnd[8] = {0x68, kNeedsStateFlag, 0x5a, 0x02, 0x48, 0x02, 0, 0};
  memcpy(p, kSliceEnd, sizeof(kSliceEnd));
  writer->EndRawPacketAndBeginNext(p + 6);
  return true;
}

void WriteSliceEnd(uint8_t instances, uint64_t track_uuid, SessionTags sessions) noexcept {
  if (track_uuid == 0 && WriteThreadSliceEndFast(instances, sessions))
    return;
  WriteSliceEndSlow(instances, track_uuid, sessions);
}

void WriteThreadSliceEnd(uint8_t instances, SessionTags sessions) noexcept {
  if (WriteThreadSliceEndFast(instances, sessions))
    return;
  WriteSliceEndSlow(instances, 0, sessions);
}

}  // namespace internal

// track_event_control.h.

void FlushTrackEvents() {
  using internal::TrackEventSequence;
  const uint32_t valid = internal::TrackEventDataSource::State().valid_instances.load(
      std::memory_order_acquire);
  for (uint32_t i = 0; i < internal::kMaxDataSourceInstances; i++) {
    if (!(valid & (1u << i)))
      continue;
    TrackEventSequence* seq = internal::CurrentSequence(i);
    if (!seq || seq->packet)
      continue;  // Nothing written yet, or inside an event: its packet is open.
    // The packet begun ahead is empty: finished, it is skipped by readers,
    // and the chunk can go. The next event begins another.
    if (seq->next_packet)
      seq->next_packet.Finish();
    seq->writer->Flush();
  }
}

void SetTrackDescriptor(const Track& track, std::string serialized) {
  using internal::TrackEventSequence;
  internal::StoreTrackDescriptorOverride(track.uuid(), std::move(serialized));
  const uint32_t valid = internal::TrackEventDataSource::State().valid_instances.load(
      std::memory_order_acquire);
  for (uint32_t i = 0; i < internal::kMaxDataSourceInstances; i++) {
    if (!(valid & (1u << i)))
      continue;
    const bool was_current = internal::CurrentSequence(i) != nullptr;
    TrackEventSequence* seq = internal::AcquireSequence(i, internal::EventCategory{});
    if (!seq || internal::InsideAnEvent(seq))
      continue;  // The loss mark makes the sequence reset, and describe again.
    internal::RewriteDescriptor(seq, track, was_current);
    // As after every packet: one begun ahead, so that a scrape takes this.
    if (!seq->next_packet)
      seq->next_packet = seq->writer->NewTracePacket();
  }
}

namespace internal {
namespace {
// Linked with the first TRACE_EVENT (this object): from then on,
// Initialize() registers the data source (see track_event_hook.h).
const bool g_track_event_hook_installed = [] {
  g_track_event_initializer = [] { RegisterTrackEventDataSource(); };
  if (Tracing::IsInitialized())
    RegisterTrackEventDataSource();
  return true;
}();

}  // namespace

}  // namespace internal
}  // namespace zt
