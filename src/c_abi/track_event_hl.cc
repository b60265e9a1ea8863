// PerfettoTeHlEmitImpl: one call per trace point. The extras are read
// once; then, for each instance the category is on in, the event is
// written as raw bytes into the packet the sequence keeps open when it
// can (the fast path below: what it needs is interned and described
// already, its extras are simple ones), else through the general path
// (track_event_hl_slow.cc).

#include "zt/c/abi/track_event_hl.h"

#include <atomic>
#include <cstring>

#include "src/c_abi/track_event_internal.h"
#include "zt/base/logging.h"
#include "zt/protozero/proto_utils.h"

namespace zt {
namespace c_abi {
namespace {

// This thread's slot states for "track_event" (see CreateThreadLocalState)
// and trace point flag. Trivially destructible; here, beside the hot path
// that reads it.
thread_local TeThread t_te_thread;

// The thread's state, its address computed once per call: the compiler
// otherwise computes it again at each use, which in the shared object is
// a TLS descriptor call each time. (The empty asm hides where the value
// came from, so it is kept in a register instead.)
ZT_ALWAYS_INLINE inline TeThread* ThisThread() {
  TeThread* thread = &t_te_thread;
  asm("" : "+r"(thread));
  return thread;
}

// Tags of the fields the fast path writes: (field number << 3) | wire type.
constexpr uint8_t kTimestampTag = 8 << 3;            // TracePacket.timestamp
constexpr uint8_t kSequenceFlagsTag = 13 << 3;       // TracePacket.sequence_flags
constexpr uint8_t kTrackEventTag = (11 << 3) | 2;    // TracePacket.track_event
constexpr uint8_t kTypeTag = 9 << 3;                 // TrackEvent.type
constexpr uint8_t kCategoryIidsTag = 3 << 3;         // TrackEvent.category_iids
constexpr uint8_t kNameIidTag = 10 << 3;             // TrackEvent.name_iid
constexpr uint8_t kTrackUuidTag = 11 << 3;           // TrackEvent.track_uuid
constexpr uint8_t kDebugAnnotationTag = (4 << 3) | 2;  // TrackEvent.debug_annotations
// Two-byte tags (field numbers of 16 and more), as varints.
constexpr uint16_t TwoByteTag(uint32_t field, uint32_t wire_type) {
  return static_cast<uint16_t>((((field << 3) | wire_type) & 0x7f) | 0x80 |
                               (((field << 3) | wire_type) >> 7) << 8);
}
constexpr uint16_t kCounterValueTag = TwoByteTag(30, 0);        // counter_value
constexpr uint16_t kDoubleCounterValueTag = TwoByteTag(44, 1);  // double_counter_value
constexpr uint16_t kFlowIdsTag = TwoByteTag(47, 1);             // flow_ids (fixed64)
constexpr uint16_t kTerminatingFlowIdsTag = TwoByteTag(48, 1);  // terminating_flow_ids
// DebugAnnotation.
constexpr uint8_t kArgNameIidTag = 1 << 3;
constexpr uint8_t kArgBoolTag = 2 << 3;
constexpr uint8_t kArgUintTag = 3 << 3;
constexpr uint8_t kArgIntTag = 4 << 3;
constexpr uint8_t kArgDoubleTag = (5 << 3) | 1;
constexpr uint8_t kArgStringTag = (6 << 3) | 2;
constexpr uint8_t kArgPointerTag = 7 << 3;
// InternedData fields.
constexpr uint32_t kInternedEventNames = 2;
constexpr uint32_t kInternedDebugAnnotationNames = 3;

// The most an extra adds in the fast path: a debug annotation with a
// string value of up to kMaxFastString bytes.
constexpr size_t kMaxFastString = 32;
constexpr size_t kMaxExtraBytes = 2 + 11 + 2 + kMaxFastString;

void ReadExtras(PerfettoTeHlExtra* const* extras, TeExtras* out) {
  for (PerfettoTeHlExtra* const* it = extras; *it; it++) {
    switch ((*it)->type) {
      case PERFETTO_TE_HL_EXTRA_TYPE_REGISTERED_TRACK:
      case PERFETTO_TE_HL_EXTRA_TYPE_NAMED_TRACK:
      case PERFETTO_TE_HL_EXTRA_TYPE_PROTO_TRACK:
        out->track = *it;
        break;
      case PERFETTO_TE_HL_EXTRA_TYPE_NESTED_TRACKS:
        out->track = *it;
        out->fast = false;
        break;
      case PERFETTO_TE_HL_EXTRA_TYPE_TIMESTAMP:
        out->timestamp = reinterpret_cast<const PerfettoTeHlExtraTimestamp*>(*it);
        out->fast = false;
        break;
      case PERFETTO_TE_HL_EXTRA_TYPE_DYNAMIC_CATEGORY:
        out->dynamic_category = reinterpret_cast<const PerfettoTeHlExtraDynamicCategory*>(*it)->desc;
        out->fast = false;
        break;
      case PERFETTO_TE_HL_EXTRA_TYPE_NO_INTERN:
        out->intern = false;
        out->fast = false;
        break;
      case PERFETTO_TE_HL_EXTRA_TYPE_FLUSH:
        out->flush = true;
        out->fast = false;
        break;
      case PERFETTO_TE_HL_EXTRA_TYPE_COUNTER_INT64:
      case PERFETTO_TE_HL_EXTRA_TYPE_COUNTER_DOUBLE:
      case PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_BOOL:
      case PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_UINT64:
      case PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_INT64:
      case PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_DOUBLE:
      case PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_STRING:
      case PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_POINTER:
      case PERFETTO_TE_HL_EXTRA_TYPE_FLOW:
      case PERFETTO_TE_HL_EXTRA_TYPE_TERMINATING_FLOW:
        break;
      default:  // Raw fields, correlation ids, and types this library does not know.
        out->fast = false;
        break;
    }
  }
}

inline uint8_t* PutTag2(uint8_t* p, uint16_t tag) {
  p[0] = static_cast<uint8_t>(tag);
  p[1] = static_cast<uint8_t>(tag >> 8);
  return p + 2;
}

inline uint8_t* PutFixed64(uint8_t* p, uint64_t value) {
  memcpy(p, &value, sizeof(value));
  return p + sizeof(value);
}

// The uuid of a track extra the sequence described already; false if it
// did not (the general path describes it).
ZT_ALWAYS_INLINE inline bool DescribedTrackUuid(TeIncrementalState& incr, const PerfettoTeHlExtra* extra, uint64_t* uuid) {
  switch (extra->type) {
    case PERFETTO_TE_HL_EXTRA_TYPE_REGISTERED_TRACK: {
      const auto* track = reinterpret_cast<const PerfettoTeHlExtraRegisteredTrack*>(extra)->track;
      if (!track)
        return false;
      *uuid = track->uuid;
      break;
    }
    case PERFETTO_TE_HL_EXTRA_TYPE_NAMED_TRACK: {
      const auto* named = reinterpret_cast<const PerfettoTeHlExtraNamedTrack*>(extra);
      const char* name = named->name ? named->name : "";
      *uuid = named->parent_uuid ^ Fnv1a(name, strlen(name)) ^ named->id;
      break;
    }
    case PERFETTO_TE_HL_EXTRA_TYPE_PROTO_TRACK:
      *uuid = reinterpret_cast<const PerfettoTeHlExtraProtoTrack*>(extra)->uuid;
      break;
    default:
      return false;
  }
  // The track of the sequence's previous event on a track is the common
  // case (a counter updated again): one compare instead of a lookup.
  if (*uuid == 0)
    return incr.root_track_seen;
  if (*uuid == incr.last_described_track)
    return true;
  if (!incr.seen_tracks.Contains(*uuid))
    return false;
  incr.last_described_track = *uuid;
  incr.last_track_varint_size = static_cast<uint8_t>(
      protozero::proto_utils::WriteVarInt(*uuid, incr.last_track_varint) - incr.last_track_varint);
  return true;
}

// Writes the fast path's extras from |p|, and points |*track| at the
// last track extra (the caller writes it: a field's order does not
// matter); null if one needs the general path (any other extra, an
// argument name not interned yet, a long string) or the bytes would pass
// |limit|.
ZT_ALWAYS_INLINE inline uint8_t* WriteFastExtras(TeIncrementalState& incr, int32_t type,
                                                 PerfettoTeHlExtra* const* extras, uint8_t* p,
                                                 const uint8_t* limit,
                                                 const PerfettoTeHlExtra** track) {
  for (PerfettoTeHlExtra* const* it = extras; *it; it++) {
    if (p + kMaxExtraBytes > limit)
      return nullptr;
    const PerfettoTeHlExtra* extra = *it;
    const uint32_t t = extra->type;
    // Arguments first: the commonest extras.
    if (t - PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_BOOL >
        PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_POINTER - PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_BOOL) {
      if (t == PERFETTO_TE_HL_EXTRA_TYPE_COUNTER_INT64) {
        if (type == PERFETTO_TE_TYPE_COUNTER) {
          p = PutTag2(p, kCounterValueTag);
          p = protozero::proto_utils::WriteVarInt(
              reinterpret_cast<const PerfettoTeHlExtraCounterInt64*>(extra)->value, p);
        }
      } else if (t == PERFETTO_TE_HL_EXTRA_TYPE_COUNTER_DOUBLE) {
        double value = reinterpret_cast<const PerfettoTeHlExtraCounterDouble*>(extra)->value;
        uint64_t bits;
        memcpy(&bits, &value, sizeof(bits));
        p = PutFixed64(PutTag2(p, kDoubleCounterValueTag), bits);
      } else if (t == PERFETTO_TE_HL_EXTRA_TYPE_FLOW ||
                 t == PERFETTO_TE_HL_EXTRA_TYPE_TERMINATING_FLOW) {
        p = PutTag2(p, t == PERFETTO_TE_HL_EXTRA_TYPE_FLOW ? kFlowIdsTag : kTerminatingFlowIdsTag);
        p = PutFixed64(p, reinterpret_cast<const PerfettoTeHlExtraFlow*>(extra)->id);
      } else if (t == PERFETTO_TE_HL_EXTRA_TYPE_REGISTERED_TRACK ||
                 t == PERFETTO_TE_HL_EXTRA_TYPE_NAMED_TRACK ||
                 t == PERFETTO_TE_HL_EXTRA_TYPE_PROTO_TRACK) {
        *track = extra;  // Written by the caller; the last one wins.
      } else {
        return nullptr;
      }
      continue;
    }
    // Every debug argument struct has its name right after the header.
    const char* name = reinterpret_cast<const PerfettoTeHlExtraDebugArgBool*>(extra)->name;
    uint64_t name_iid = 0;
    if (name) {
      name_iid = incr.name_cache.Find(name, kInternedDebugAnnotationNames);
      if (!name_iid)
        return nullptr;
    }
    *p++ = kDebugAnnotationTag;
    uint8_t* const length = p++;
    if (name_iid) {
      *p++ = kArgNameIidTag;
      p = protozero::proto_utils::WriteVarInt(name_iid, p);
    }
    switch (t) {
      case PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_BOOL:
        *p++ = kArgBoolTag;
        *p++ = reinterpret_cast<const PerfettoTeHlExtraDebugArgBool*>(extra)->value ? 1 : 0;
        break;
      case PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_UINT64:
        *p++ = kArgUintTag;
        p = protozero::proto_utils::WriteVarInt(
            reinterpret_cast<const PerfettoTeHlExtraDebugArgUint64*>(extra)->value, p);
        break;
      case PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_INT64:
        *p++ = kArgIntTag;
        p = protozero::proto_utils::WriteVarInt(
            reinterpret_cast<const PerfettoTeHlExtraDebugArgInt64*>(extra)->value, p);
        break;
      case PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_DOUBLE: {
        const double value = reinterpret_cast<const PerfettoTeHlExtraDebugArgDouble*>(extra)->value;
        uint64_t bits;
        memcpy(&bits, &value, sizeof(bits));
        *p++ = kArgDoubleTag;
        p = PutFixed64(p, bits);
        break;
      }
      case PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_STRING: {
        const char* value = reinterpret_cast<const PerfettoTeHlExtraDebugArgString*>(extra)->value;
        const size_t size = value ? strnlen(value, kMaxFastString + 1) : 0;
        if (size > kMaxFastString)
          return nullptr;
        *p++ = kArgStringTag;
        *p++ = static_cast<uint8_t>(size);
        memcpy(p, value ? value : "", size);
        p += size;
        break;
      }
      case PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_POINTER:
        *p++ = kArgPointerTag;
        p = protozero::proto_utils::WriteVarInt(
            reinterpret_cast<const PerfettoTeHlExtraDebugArgPointer*>(extra)->value, p);
        break;
    }
    *length = static_cast<uint8_t>(p - (length + 1));
  }
  return p;
}

// Remembers the bytes of a named event from |begin| to |end| (after its
// timestamp; |length|, the TrackEvent's length byte, among them).
ZT_NOINLINE void RememberEvent(TeEventCache* cache, const char* name,
                               const PerfettoTeCategoryImpl* cat, int32_t type,
                               const uint8_t* begin, const uint8_t* end, const uint8_t* length) {
  if (!TeEventCache::Cacheable(cat))
    return;
  const uint64_t key = TeEventCache::Key(cat, type);
  const size_t size = static_cast<size_t>(end - begin);
  TeEventCache::Entry& e = cache->entries[TeEventCache::Index(name, key)];
  // Names whose 16 bytes cross into the next page are compared byte by
  // byte, by the general path: not cached.
  if (size > TeEventCache::kBytes || length != begin + TeEventCache::kLengthOffset ||
      !WordsReadable(name) || !NameWords(name, strnlen(name, 16), e.words, e.masks)) {
    e.name = nullptr;
    return;
  }
  e.name = name;
  e.key = key;
  memcpy(e.bytes, begin, size);
  // The TrackEvent's length without extras, so that an event without any
  // is the bytes as they are.
  e.bytes[TeEventCache::kLengthOffset] = static_cast<uint8_t>(end - (length + 1));
}

// The event as raw bytes into the packet |slot|'s sequence keeps open, on
// the incremental clock at |now| (when the chunk has no room for a raw
// packet, the bytes go through the packet's handle instead). False, with
// nothing written, when the event needs the general path: a sequence to
// (re)start, a config with other clocks, a name, category or track the
// sequence has not interned or described yet.
// (The hot path, EmitHot below, is a leaner copy for the common case.)
ZT_ALWAYS_INLINE inline bool TryFastEvent(const TeSlot& slot, uint64_t now,
                                          PerfettoTeCategoryImpl* cat, int32_t type,
                                          const char* name, PerfettoTeHlExtra* const* extras,
                                          const TeExtras& x) {
  TeIncrementalState& incr = *slot.incr;
  TeSequence& seq = *slot.seq;
  if (incr.was_cleared || !seq.next_packet || now < incr.last_timestamp_ns ||
      !seq.settings.ns_deltas())
    return false;
  const bool named = type != PERFETTO_TE_TYPE_SLICE_END && name;
  const TeEventCache::Entry* cached =
      named && TeEventCache::Cacheable(cat)
          ? incr.event_cache.Find(name, TeEventCache::Key(cat, type))
          : nullptr;
  uint64_t name_iid = 0;
  bool with_category = false;
  if (!cached) {
    if (named) {
      name_iid = incr.name_cache.Find(name, kInternedEventNames);
      if (!name_iid)
        return false;
    }
    with_category =
        type != PERFETTO_TE_TYPE_SLICE_END && type != PERFETTO_TE_TYPE_COUNTER && cat->desc;
    if (with_category && !incr.CategorySeen(cat->cat_iid))
      return false;
  }
  uint64_t track_uuid = 0;
  if (x.track && !DescribedTrackUuid(incr, x.track, &track_uuid))
    return false;
  TraceWriter* writer = slot.writer();
  uint8_t buffer[TraceWriter::kMaxRawPacketSize];
  uint8_t* start = writer->BeginRawPacket(TraceWriter::kMaxRawPacketSize);
  const bool raw = start != nullptr;
  if (!raw)
    start = buffer;
  const uint8_t* const limit = start + TraceWriter::kMaxRawPacketSize;
  uint8_t* p = start;
  *p++ = kTimestampTag;
  p = protozero::proto_utils::WriteVarInt(now - incr.last_timestamp_ns, p);
  uint8_t* length;
  if (cached) {
    // Room: at most 11 bytes of timestamp, then 16 of the 127.
    memcpy(p, cached->bytes, TeEventCache::kBytes);
    length = p + TeEventCache::kLengthOffset;
    p += cached->size();
  } else {
    uint8_t* const event_start = p;
    *p++ = kSequenceFlagsTag;
    *p++ = kNeedsStateFlag;
    *p++ = kTrackEventTag;
    length = p++;
    if (type >= PERFETTO_TE_TYPE_SLICE_BEGIN && type <= PERFETTO_TE_TYPE_STATE) {
      *p++ = kTypeTag;
      *p++ = static_cast<uint8_t>(type);
    }
    if (with_category) {
      *p++ = kCategoryIidsTag;
      p = protozero::proto_utils::WriteVarInt(cat->cat_iid, p);
    }
    if (name_iid) {
      *p++ = kNameIidTag;
      p = protozero::proto_utils::WriteVarInt(name_iid, p);
      RememberEvent(&incr.event_cache, name, cat, type, event_start, p, length);
    }
  }
  if (x.track) {
    *p++ = kTrackUuidTag;
    if (track_uuid == incr.last_described_track && track_uuid != 0) {
      memcpy(p, incr.last_track_varint, sizeof(incr.last_track_varint));
      p += incr.last_track_varint_size;
    } else {
      p = protozero::proto_utils::WriteVarInt(track_uuid, p);
    }
  }
  if (*extras) {
    const PerfettoTeHlExtra* track = nullptr;  // x.track already.
    p = WriteFastExtras(incr, type, extras, p, limit, &track);
    if (!p)
      return false;
  }
  // At most 127 bytes in all, so the TrackEvent's length fits one byte.
  *length = static_cast<uint8_t>(p - (length + 1));
  incr.last_timestamp_ns = now;
  if (ZT_LIKELY(raw)) {
    writer->EndRawPacketAndBeginNext(p);
    return true;
  }
  // The chunk's end: the same bytes through the open packet, which moves
  // to the next chunk as needed.
  seq.next_packet->AppendRawProtoBytes(start, static_cast<size_t>(p - start));
  seq.next_packet.Finish();
  seq.next_packet = writer->NewTracePacket();
  return true;
}

// The event into one instance: fast if it can, else the general path.
ZT_ALWAYS_INLINE inline void EmitInto(const TeSlot& slot, PerfettoTeTimestamp ts, PerfettoTeCategoryImpl* cat,
                     int32_t type, const char* name, PerfettoTeHlExtra* const* extras,
                     const TeExtras& x) {
  if (x.fast && TryFastEvent(slot, ts.value, cat, type, name, extras, x))
    return;
  if (x.dynamic_category && !TeDynamicCategoryEnabled(slot, *x.dynamic_category))
    return;
  TeWriteEventSlow(slot, ts, cat, type, name, extras, x);
}

// How far before a sequence's last time a reading of now may be and still
// be held at that time rather than written as an absolute time.
constexpr uint64_t kMaxHeldNs = 1000;

// Every event the hot path below does not take: several instances, a
// slot to prepare, any extra; and none while the thread is inside a trace
// point already. Makes the slot it writes into the hot path's when it can.
ZT_NOINLINE void EmitGeneral(TeThread* thread, uint32_t mask, PerfettoTeCategoryImpl* cat,
                             int32_t type, const char* name, PerfettoTeHlExtra* const* extras) {
  if (mask == 0 || thread->in_trace_point)
    return;
  thread->in_trace_point = true;
  thread->ResetHot();
  TeExtras x;
  ReadExtras(extras, &x);
  PerfettoTeTimestamp ts;
  if (x.timestamp) {
    ts = x.timestamp->timestamp;
  } else {
    ts.clock_id = PERFETTO_TE_TIMESTAMP_TYPE_INCREMENTAL;
    ts.value = TeNowNs(thread);
  }
  TeSlot slot;
  for (uint32_t m = mask; m != 0; m &= m - 1) {
    const uint32_t index = static_cast<uint32_t>(__builtin_ctz(m));
    // Read before the slot is prepared: a change in between is a change.
    const std::atomic<uint64_t>& epoch = g_te_state.instances[index].epoch;
    const uint64_t epoch_value = epoch.load(std::memory_order_acquire);
    if (!TePrepareSlot(thread, index, &slot))
      continue;
    // Now, a little before the sequence's last time (an anchor renewal
    // steps back by a few ns), is held at it, as on the hot paths: written
    // as an absolute time instead, a slice's end could go before its begin.
    PerfettoTeTimestamp slot_ts = ts;
    if (!x.timestamp && ts.value < slot.incr->last_timestamp_ns &&
        slot.incr->last_timestamp_ns - ts.value <= kMaxHeldNs)
      slot_ts.value = slot.incr->last_timestamp_ns;
    EmitInto(slot, slot_ts, cat, type, name, extras, x);
    // Not while a drop is unanswered (a packet of a multi-packet event
    // may have been lost, its loss mark spent on a later one): the next
    // event's TePrepareSlot() restarts the sequence first.
    if (mask == (1u << index) && slot.seq->next_packet && !slot.incr->was_cleared &&
        slot.seq->settings.ns_deltas() &&
        slot.writer()->stats().packets_dropped == slot.seq->packets_dropped_seen) {
      thread->hot_mask = mask;
      thread->hot_epoch_ptr = &epoch;
      thread->hot_epoch = epoch_value;
      thread->hot_writer = slot.writer();
      thread->hot_slot = slot;
    }
  }
  thread->in_trace_point = false;
}

// What follows the timestamp of an unnamed event (a slice's end, a
// counter's value): sequence_flags = SEQ_NEEDS_INCREMENTAL_STATE, then the
// TrackEvent's tag, its length (byte 3: 2 without extras) and its type
// (byte 5, the event's).
constexpr uint8_t kUnnamedEvent[8] = {kSequenceFlagsTag, kNeedsStateFlag, kTrackEventTag, 2,
                                      kTypeTag,          0,               0,              0};

// The hot slot's writer's open packet, if the hot path may write into
// it now (the slot is still the instance's, the clock a conversion, the
// writer takes a raw packet of |kMaxSize| bytes): where the bytes go, the
// time in |*now|.
template <size_t kMaxSize>
ZT_ALWAYS_INLINE inline uint8_t* BeginHot(TeThread* thread, uint64_t* now) {
  // No test of |slots|: the hot slot is reset when they go (TePrepareSlot).
  if (thread->hot_epoch_ptr->load(std::memory_order_acquire) != thread->hot_epoch ||
      !internal::TrackEventClock::TryNowNs(thread->clock, now))
    return nullptr;
  return thread->hot_writer->BeginRawPacket(kMaxSize);
}

// The event's time on the sequence's incremental clock: |now|, or the
// sequence's last time when |now| is a little before it (at most
// kMaxHeldNs: an anchor renewal steps back by a few ns); false when it is
// further back (the sequence's clock was set from an explicit timestamp
// ahead of now): the general path writes that event's time as an absolute
// one.
ZT_ALWAYS_INLINE inline bool HotTimestamp(const TeIncrementalState& incr, uint64_t now,
                                          uint64_t* ts) {
  const uint64_t last = incr.last_timestamp_ns;
  if (ZT_UNLIKELY(now < last)) {
    if (last - now > kMaxHeldNs)
      return false;
    now = last;
  }
  *ts = now;
  return true;
}

// Writes the packet's timestamp, |ts| as a delta, and returns where the
// event goes.
ZT_ALWAYS_INLINE inline uint8_t* WriteHotTimestamp(uint8_t* p, TeIncrementalState& incr,
                                                   uint64_t ts) {
  const uint64_t last = incr.last_timestamp_ns;
  incr.last_timestamp_ns = ts;
  *p++ = kTimestampTag;
  return protozero::proto_utils::WriteVarInt(ts - last, p);
}

// The commonest event: no extras. As EmitHot below, with less to do.
ZT_ALWAYS_INLINE inline bool EmitHotPlain(TeThread* thread, PerfettoTeCategoryImpl* cat,
                                          int32_t type, const char* name) {
  // At most a timestamp (11 bytes) and a cached event's copy (16).
  static_assert(11 + TeEventCache::kBytes <= TraceWriter::kRawPacketRoom, "a small packet");
  uint64_t now;
  uint8_t* p = BeginHot<TraceWriter::kRawPacketRoom>(thread, &now);
  if (!p)
    return false;
  TeIncrementalState& incr = *thread->hot_slot.incr;
  uint64_t ts;
  if (!HotTimestamp(incr, now, &ts))
    return false;
  if (type == PERFETTO_TE_TYPE_SLICE_END || (type == PERFETTO_TE_TYPE_COUNTER && !name)) {
    p = WriteHotTimestamp(p, incr, ts);
    memcpy(p, kUnnamedEvent, sizeof(kUnnamedEvent));
    p[5] = static_cast<uint8_t>(type);
    p += 6;
  } else {
    const TeEventCache::Entry* cached =
        name && TeEventCache::Cacheable(cat)
            ? incr.event_cache.Find(name, TeEventCache::Key(cat, type))
            : nullptr;
    if (!cached)
      return false;
    p = WriteHotTimestamp(p, incr, ts);
    memcpy(p, cached->bytes, TeEventCache::kBytes);
    p += cached->size();
  }
  thread->hot_writer->EndRawPacketAndBeginNext(p);
  return true;
}

// A track_uuid field: its tag and a 10-byte varint, the most there is.
constexpr size_t kMaxTrackUuidBytes = 11;

// An event with extras, as raw bytes into the hot slot's open packet: the
// category on in the one instance the hot slot is for, the event's bytes
// cached (or an unnamed one), simple extras, names and tracks interned and
// described. False, with nothing written, otherwise.
ZT_ALWAYS_INLINE inline bool EmitHot(TeThread* thread, PerfettoTeCategoryImpl* cat,
                                     int32_t type, const char* name,
                                     PerfettoTeHlExtra* const* extras) {
  uint64_t now;
  uint8_t* p = BeginHot<TraceWriter::kMaxRawPacketSize>(thread, &now);
  if (!p)
    return false;
  TeIncrementalState& incr = *thread->hot_slot.incr;
  uint8_t* const start = p;
  uint64_t ts;
  if (!HotTimestamp(incr, now, &ts))
    return false;
  const uint64_t last = incr.last_timestamp_ns;
  *p++ = kTimestampTag;
  p = protozero::proto_utils::WriteVarInt(ts - last, p);
  uint8_t* length;
  if (type == PERFETTO_TE_TYPE_SLICE_END || (type == PERFETTO_TE_TYPE_COUNTER && !name)) {
    memcpy(p, kUnnamedEvent, sizeof(kUnnamedEvent));
    p[5] = static_cast<uint8_t>(type);
    length = p + 3;
    p += 6;
  } else {
    if (!name || !TeEventCache::Cacheable(cat))
      return false;
    const TeEventCache::Entry* cached = incr.event_cache.Find(name, TeEventCache::Key(cat, type));
    if (!cached)
      return false;
    memcpy(p, cached->bytes, TeEventCache::kBytes);
    length = p + TeEventCache::kLengthOffset;
    p += cached->size();
  }
  // One pass over the extras; the track's uuid after them, in at most
  // kMaxTrackUuidBytes.
  const PerfettoTeHlExtra* track = nullptr;
  p = WriteFastExtras(incr, type, extras, p,
                      start + TraceWriter::kMaxRawPacketSize - kMaxTrackUuidBytes, &track);
  if (!p)
    return false;
  if (track) {
    uint64_t track_uuid;
    if (!DescribedTrackUuid(incr, track, &track_uuid))
      return false;
    *p++ = kTrackUuidTag;
    if (track_uuid == incr.last_described_track && track_uuid != 0) {
      memcpy(p, incr.last_track_varint, sizeof(incr.last_track_varint));
      p += incr.last_track_varint_size;
    } else {
      p = protozero::proto_utils::WriteVarInt(track_uuid, p);
    }
  }
  // At most 127 bytes in all, so the TrackEvent's length fits one byte.
  *length = static_cast<uint8_t>(p - (length + 1));
  incr.last_timestamp_ns = ts;
  thread->hot_writer->EndRawPacketAndBeginNext(p);
  return true;
}

// Whether the hot slot's writer is still the current one of its instance
// (as BeginHot() checks before using it).
inline bool HotWriterCurrent(const TeThread* thread) {
  return thread->hot_epoch_ptr->load(std::memory_order_acquire) == thread->hot_epoch;
}

// EmitCold()'s way when the hot path refused: at a chunk's end (its writer
// refusing for want of room) the next chunk and the hot path again, rather
// than the general path writing the event through the handle in fragments
// across two chunks; else the general path.
ZT_NOINLINE void EmitColdRetry(TeThread* thread, uint32_t mask, PerfettoTeCategoryImpl* cat,
                               int32_t type, const char* name,
                               PerfettoTeHlExtra* const* extras) {
  if (*extras && mask == thread->hot_mask && !thread->in_trace_point) {
    // The flag first: a signal handler's trace point must not write into
    // the writer while it changes chunks.
    thread->in_trace_point = true;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    const bool done =
        HotWriterCurrent(thread) &&
        thread->hot_writer->BeginRawPacketSlow(TraceWriter::kMaxRawPacketSize) &&
        EmitHot(thread, cat, type, name, extras);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    thread->in_trace_point = false;
    if (done)
      return;
  }
  EmitGeneral(thread, mask, cat, type, name, extras);
}

// An event with extras: the hot path for them if it can; else (or for
// an event without extras the plain hot path did not take) the general
// path. Out of line, reached by tail calls.
ZT_NOINLINE void EmitCold(PerfettoTeCategoryImpl* cat, int32_t type, const char* name,
                          PerfettoTeHlExtra* const* extras) {
  TeThread* thread = ThisThread();
  const uint32_t mask = TeInstances(cat);
  if (*extras && mask == thread->hot_mask && !thread->in_trace_point) {
    thread->in_trace_point = true;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    const bool done = EmitHot(thread, cat, type, name, extras);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    thread->in_trace_point = false;
    if (ZT_LIKELY(done))
      return;
  }
  return EmitColdRetry(thread, mask, cat, type, name, extras);
}

// ZT_C_COUNTER's event: a counter, no name, exactly a registered track and
// a value (in that order).
inline bool IsRegisteredCounter(int32_t type, const char* name,
                                PerfettoTeHlExtra* const* extras) {
  return type == PERFETTO_TE_TYPE_COUNTER && !name &&
         extras[0]->type == PERFETTO_TE_HL_EXTRA_TYPE_REGISTERED_TRACK && extras[1] &&
         (extras[1]->type == PERFETTO_TE_HL_EXTRA_TYPE_COUNTER_INT64 ||
          extras[1]->type == PERFETTO_TE_HL_EXTRA_TYPE_COUNTER_DOUBLE) &&
         !extras[2];
}

// The hot path of such a counter: its bytes straight, no pass over the
// extras. False, with nothing written, where EmitHot() would refuse.
ZT_ALWAYS_INLINE inline bool EmitHotCounter(TeThread* thread,
                                            PerfettoTeHlExtra* const* extras) {
  // A timestamp (11), the unnamed event (6), a value (10) and a track
  // uuid (11).
  static_assert(11 + 6 + 10 + kMaxTrackUuidBytes <= TraceWriter::kRawPacketRoom,
                "a small packet");
  uint64_t now;
  uint8_t* p = BeginHot<TraceWriter::kRawPacketRoom>(thread, &now);
  if (!p)
    return false;
  TeIncrementalState& incr = *thread->hot_slot.incr;
  uint64_t ts;
  uint64_t track_uuid;
  if (!HotTimestamp(incr, now, &ts) || !DescribedTrackUuid(incr, extras[0], &track_uuid))
    return false;
  p = WriteHotTimestamp(p, incr, ts);
  memcpy(p, kUnnamedEvent, sizeof(kUnnamedEvent));
  p[5] = PERFETTO_TE_TYPE_COUNTER;
  uint8_t* const length = p + 3;
  p += 6;
  if (extras[1]->type == PERFETTO_TE_HL_EXTRA_TYPE_COUNTER_INT64) {
    p = protozero::proto_utils::WriteVarInt(
        reinterpret_cast<const PerfettoTeHlExtraCounterInt64*>(extras[1])->value,
        PutTag2(p, kCounterValueTag));
  } else {
    const double value = reinterpret_cast<const PerfettoTeHlExtraCounterDouble*>(extras[1])->value;
    uint64_t bits;
    memcpy(&bits, &value, sizeof(bits));
    p = PutFixed64(PutTag2(p, kDoubleCounterValueTag), bits);
  }
  *p++ = kTrackUuidTag;
  if (track_uuid == incr.last_described_track && track_uuid != 0) {
    memcpy(p, incr.last_track_varint, sizeof(incr.last_track_varint));
    p += incr.last_track_varint_size;
  } else {
    p = protozero::proto_utils::WriteVarInt(track_uuid, p);
  }
  *length = static_cast<uint8_t>(p - (length + 1));
  thread->hot_writer->EndRawPacketAndBeginNext(p);
  return true;
}

// ZT_C_COUNTER's events: the counter's hot path if it can, else as any
// event with extras. Out of line, reached by a tail call.
ZT_NOINLINE void EmitRegisteredCounter(PerfettoTeCategoryImpl* cat,
                                       PerfettoTeHlExtra* const* extras) {
  TeThread* thread = ThisThread();
  const uint32_t mask = TeInstances(cat);
  if (mask == thread->hot_mask && !thread->in_trace_point) {
    thread->in_trace_point = true;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    const bool done = EmitHotCounter(thread, extras);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    thread->in_trace_point = false;
    if (ZT_LIKELY(done))
      return;
  }
  return EmitColdRetry(thread, mask, cat, PERFETTO_TE_TYPE_COUNTER, nullptr, extras);
}

// EmitPlain()'s way out: its arguments, kept in the thread's state, so
// that EmitPlain() need not keep them in registers it saves. Called with
// the thread's trace point flag set (a signal handler's trace point cannot
// overwrite them meanwhile); clears it.
ZT_NOINLINE void EmitPlainCold(TeThread* thread) {
  static PerfettoTeHlExtra* const kNoExtras[] = {nullptr};
  PerfettoTeCategoryImpl* const cat = thread->plain_cat;
  const int32_t type = thread->plain_type;
  const char* const name = thread->plain_name;
  // At a chunk's end the hot path's writer refuses for want of room: the
  // next chunk, and the hot path again, rather than the general path
  // writing the event through the handle in fragments across two chunks.
  // (Here, not in the hot path: a call there costs it saved registers.)
  if (TeInstances(cat) == thread->hot_mask && HotWriterCurrent(thread) &&
      thread->hot_writer->BeginRawPacketSlow(TraceWriter::kRawPacketRoom) &&
      EmitHotPlain(thread, cat, type, name)) {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    thread->in_trace_point = false;
    return;
  }
  std::atomic_signal_fence(std::memory_order_seq_cst);
  thread->in_trace_point = false;
  EmitCold(cat, type, name, kNoExtras);
}

// An event without extras: the plain hot path if it can, else EmitCold().
ZT_NOINLINE void EmitPlain(PerfettoTeCategoryImpl* cat, int32_t type, const char* name) {
  TeThread* thread = ThisThread();
  if (ZT_UNLIKELY(thread->in_trace_point))
    return;  // Inside another trace point (a callback, a signal handler).
  // The flag is set around the hot path too: a trace point in a signal
  // handler would otherwise write into the packet this one is writing.
  // Fences for the compiler: what is written between the flag's stores
  // stays there, as a signal handler sees it.
  thread->in_trace_point = true;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  thread->plain_cat = cat;
  thread->plain_type = type;
  thread->plain_name = name;
  if (ZT_UNLIKELY(TeInstances(cat) != thread->hot_mask || !EmitHotPlain(thread, cat, type, name)))
    return EmitPlainCold(thread);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  thread->in_trace_point = false;
}

}  // namespace

TeThread* CurrentTeThread() { return &t_te_thread; }

}  // namespace c_abi
}  // namespace zt

void PerfettoTeHlEmitImpl(PerfettoTeCategoryImpl* cat, int32_t type, const char* name,
                          PerfettoTeHlExtra* const* extra_data) {
  using namespace zt::c_abi;
  if (ZT_UNLIKELY(cat == nullptr || extra_data == nullptr))
    ZT_FATAL("PerfettoTeHlEmitImpl: the category or the extras array is NULL");
  // Tail calls: no path pays for another's registers.
  if (*extra_data) {
    if (IsRegisteredCounter(type, name, extra_data))
      return EmitRegisteredCounter(cat, extra_data);
    return EmitCold(cat, type, name, extra_data);
  }
  return EmitPlain(cat, type, name);
}
