// What the track event writers share (track_event_writer.cc: events
// without arguments, one annotation, counters; track_event_args_writer.cc:
// up to four arguments of any fast kind): how a writer finds the calling
// thread's sequence, interns on it, and the pieces of the fast paths.
// Private to the SDK. docs/design/track_event.md, "The fast path".

#ifndef ZT_SRC_TRACING_SDK_TRACK_EVENT_WRITER_COMMON_H_
#define ZT_SRC_TRACING_SDK_TRACK_EVENT_WRITER_COMMON_H_

#include <atomic>
#include <cstdint>

#include "src/tracing/sdk/track_event_bytes.h"
#include "src/tracing/sdk/track_event_category_registry.h"
#include "src/tracing/sdk/track_event_clock.h"
#include "src/tracing/sdk/track_event_data_source.h"
#include "src/tracing/sdk/track_event_sequence.h"
#include "zt/protozero/proto_utils.h"
#include "zt/trace/interned_data/interned_data.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/tracing/track_event.h"

namespace zt {
namespace internal {

// The category iid of a registered category (iids start at 1).
inline uint64_t CategoryIid(uint32_t category) { return category + 1u; }

inline void InternCategory(TrackEventSequence* seq, uint32_t category) {
  uint64_t& word = seq->incremental->interned_categories[category / 64];
  const uint64_t bit = 1ull << (category % 64);
  if (word & bit)
    return;
  word |= bit;
  const char* name = RegisteredCategoryName(category);
  seq->pending.push_back(
      {protos::pbzero::InternedData::kEventCategoriesFieldNumber,
       static_cast<uint32_t>(CategoryIid(category)), name ? name : "?"});
}

// The iid of a static event name on the sequence, interned (and queued for
// the packet's interned_data) if new.
inline uint32_t InternEventName(TrackEventSequence* seq, const char* name) {
  bool is_new = false;
  const uint32_t iid = seq->incremental->event_names.Intern(name, &is_new);
  if (ZT_UNLIKELY(is_new))
    seq->pending.push_back({protos::pbzero::InternedData::kEventNamesFieldNumber, iid, name});
  return iid;
}

// Writes the interned entries the open event queued into its packet.
void WriteInterned(TrackEventSequence* seq, protos::pbzero::TracePacket* packet);

// Whether |seq| is in the middle of an event: its packet open while the
// event's callback (or an annotation's) runs, and that code emits another
// event. A thread writes one packet at a time, so the inner event is not
// recorded; the loss is counted and marked on the sequence's next packet
// (TraceWriter::MarkPacketLost), and the drop that makes is answered with
// a reset once the outer event ends.
inline bool InsideAnEvent(TrackEventSequence* seq) {
  if (ZT_LIKELY(!seq->packet))
    return false;
  seq->writer->MarkPacketLost();
  return true;
}

// Each thread's current sequence per instance: a plain array (no TLS
// initializer to call), checked against the instance slot at each event.
// Initial-exec: one %fs-relative load, where the default model for code
// that may end up in a shared library calls __tls_get_addr. Defined in
// track_event_writer.cc.
extern ZT_INITIAL_EXEC_TLS thread_local TrackEventSequence*
    t_sequences[kMaxDataSourceInstances];

// The sequence this thread last made current, and the instances mask of
// its instance alone: the fast paths' lookup is one compare with the
// call's mask. None: a mask no call has (|instances| is 8 bits).
struct HotSequence {
  uint32_t mask = ~uint32_t{0};
  TrackEventSequence* seq = nullptr;
};
extern ZT_INITIAL_EXEC_TLS thread_local HotSequence t_hot_sequence;

// The category of the event a sequence is acquired for. The caller read
// the category's instances before the acquisition; if the slot moved on
// since this thread last wrote to it, the session the caller saw may have
// stopped and a new one, not recording the category, taken the slot: the
// category is asked again then (a load; a filter match for a dynamic one).
struct EventCategory {
  static constexpr uint32_t kNone = ~uint32_t{0};  // Not an event's: no check.
  uint32_t id = kNone;
  const char* dynamic_name = nullptr;

  bool RecordedBy(uint32_t instance) const {
    if (id == kNone)
      return true;
    const uint8_t instances = id == kDynamicCategoryId
                                  ? DynamicCategoryInstances(DynamicCategory{dynamic_name})
                                  : LoadCategoryState(id);
    return (instances >> instance) & 1;
  }
};

// Makes instance |instance|'s sequence current for this thread through the
// DataSource machinery (a new writer for a new session, new incremental
// state after a clear or a drop, which it then writes). Null if the
// instance is not recording, or not |category| any more.
TrackEventSequence* AcquireSequenceSlow(uint32_t instance, EventCategory category);

// The sequence of |instance| for this thread if it is still current (the
// instance neither stopped, nor was set up again, nor had its incremental
// state cleared since), else null. Does not look at the writer's drops:
// the simple-event path learns of them from the writer's raw fast path
// refusing (a drop leaves the writer in drop mode, or opens the next packet
// with the loss mark).
inline TrackEventSequence* CurrentSequence(uint32_t instance) {
  TrackEventSequence* seq = t_sequences[instance];
  if (ZT_LIKELY(seq != nullptr &&
                seq->epoch == TrackEventDataSource::State().instances[instance].epoch.load(
                                  std::memory_order_acquire))) {
    return seq;
  }
  return nullptr;
}

// The sequence of |instance|, made current if it is not; null if the
// instance is not recording.
// The most names and tracks a sequence interns between two clears of its
// incremental state: past it, the sequence clears that state itself (as
// after a drop: readers forget the sequence's interned data at the clear
// packet that follows, and every name is interned again at its next use),
// so that a writer's tables stay within a bound whatever the number of
// names a program uses: 4 tables of at most 32,768 slots of 16 bytes.
constexpr uint32_t kMaxInternedPerSequence = 16384;
static_assert(kMaxInternedPerSequence < kMaxIid,
              "every id the fast paths compose from has its varint kept");
inline uint32_t InternedCount(const TrackEventIncrementalState* incremental) {
  return incremental->event_names.size() + incremental->annotation_names.size() +
         incremental->counter_names.size() + incremental->described_tracks.size();
}
// Clears |seq|'s incremental state and writes its reset (not inside an
// event: then at a later event). Counted in the sequence.
void ClearInternedState(TrackEventSequence* seq);
// What the slow paths use: new names are interned only there.
inline TrackEventSequence* WithRoomToIntern(TrackEventSequence* seq) {
  if (ZT_UNLIKELY(seq != nullptr &&
                  InternedCount(seq->incremental) >= kMaxInternedPerSequence))
    ClearInternedState(seq);
  return seq;
}

inline TrackEventSequence* SequenceFor(uint32_t instance, EventCategory category) {
  TrackEventSequence* seq = CurrentSequence(instance);
  return WithRoomToIntern(ZT_LIKELY(seq != nullptr) ? seq
                                                    : AcquireSequenceSlow(instance, category));
}

inline bool SawEveryDrop(const TrackEventSequence* seq) {
  return seq->writer->stats().packets_dropped == seq->packets_dropped_seen;
}

// The sequence, current and with every writer drop answered by a reset.
inline TrackEventSequence* AcquireSequence(uint32_t instance, EventCategory category) {
  TrackEventSequence* seq = CurrentSequence(instance);
  if (ZT_LIKELY(seq != nullptr && SawEveryDrop(seq)))
    return WithRoomToIntern(seq);
  return WithRoomToIntern(AcquireSequenceSlow(instance, category));
}

// The timestamp to write for |now|: the delta since the sequence's last
// one (held at the last one if the clock stepped back on an anchor
// renewal), in the sequence's units; or, for absolute times (unit 0), |now|
// (held likewise). Advances the sequence's base.
uint64_t NextTimestampInUnits(TrackEventSequence* seq, uint64_t now);

inline uint64_t NextTimestamp(TrackEventSequence* seq, uint64_t now) {
  if (ZT_UNLIKELY(seq->timestamp_unit != 1))
    return NextTimestampInUnits(seq, now);
  TrackEventIncrementalState* incremental = seq->incremental;
  const uint64_t last = incremental->last_timestamp;
  const uint64_t ts = now > last ? now : last;
  incremental->last_timestamp = ts;
  return ts - last;
}

// The iid of an annotation key on the sequence, interned if new.
inline uint32_t InternAnnotationName(TrackEventSequence* seq, const char* name) {
  bool is_new = false;
  const uint32_t iid = seq->incremental->annotation_names.Intern(name, &is_new);
  if (ZT_UNLIKELY(is_new)) {
    seq->pending.push_back(
        {protos::pbzero::InternedData::kDebugAnnotationNamesFieldNumber, iid, name});
  }
  return iid;
}

inline SessionTags TagOf(const TrackEventSequence* seq, uint32_t instance) {
  return SessionTags{seq->session_tag} << (8 * instance);
}


// The fast paths: one session, its sequence current with the default
// timestamp unit, the open packet writable raw, the clock a conversion,
// and the event's bytes cached (track_event_bytes.h). Everything is
// checked before anything is written, so each refusal is a tail call to
// the simple path, and the paths themselves make no call.

// The packet size to ask BeginRawPacket() for when a writer touches at
// most |touched| bytes: all of them as the packet, or past the largest
// packet the writer's scratch bytes.
constexpr size_t RawPacketSizeFor(size_t touched) {
  return touched <= TraceWriter::kMaxRawPacketSize ? touched : TraceWriter::kMaxRawPacketSize;
}

// The sequence of |instances| (one instance) when a fast path may write to
// it, its packet's start in |*p| (room for kMaxBytes: the most the path
// touches, scratch copies past the packet's end included) and the time in
// |*now|; else null.
template <size_t kMaxBytes = TraceWriter::kRawPacketRoom>
ZT_ALWAYS_INLINE inline TrackEventSequence* FastSequence(uint8_t instances, uint8_t** p,
                                                         uint64_t* now) {
  TrackEventSequence* seq;
  if (ZT_LIKELY(instances == t_hot_sequence.mask)) {
    seq = t_hot_sequence.seq;
  } else {
    // Another instance than the last one made current: its own.
    if ((instances & (instances - 1)) != 0)
      return nullptr;
    seq = t_sequences[__builtin_ctz(instances)];
    if (seq == nullptr)
      return nullptr;
  }
  // The slot's epoch first: the sequence's own is then compared from
  // memory (read before the acquire load, it would take a register).
  const uint64_t epoch = seq->slot_epoch->load(std::memory_order_acquire);
  if (ZT_LIKELY(epoch == seq->fast_epoch)) {
    *p = seq->writer->BeginRawPacket(RawPacketSizeFor(kMaxBytes));
    if (ZT_LIKELY(*p != nullptr && TrackEventClock::TryNowNs(now)))
      return seq;
  }
  return nullptr;
}

// The cached entry of (|name|, |form|) if it is the one for |tag|; else
// null. (The tag holds the form: an entry of another form never matches.)
ZT_ALWAYS_INLINE inline const EventBytesCache::Entry* FastEntry(
    TrackEventSequence* seq, const char* name, EventBytesCache::Form form, uint32_t tag) {
  const EventBytesCache::Entry& entry = seq->incremental->bytes_cache.EntryFor(name, form);
  if (ZT_LIKELY(entry.name == name && entry.tag == tag))
    return &entry;
  return nullptr;
}

// Whether |category| has its iid interned on the sequence (its
// InternedData written since the last clear).
ZT_ALWAYS_INLINE inline bool CategoryInterned(
    const TrackEventIncrementalState* incremental, uint32_t category) {
  return (incremental->interned_categories[category / 64] >> (category % 64)) & 1;
}

// Keeps the cached forms' first bytes for |event_key| (NamedEventKey; its
// category interned), for the next misses (TrackEventIncrementalState::
// last_head).
ZT_ALWAYS_INLINE inline void RememberHead(TrackEventIncrementalState* incremental,
                                          uint32_t event_key) {
  const uint64_t category_iid = CategoryIid(event_key & 0xFFFF);
  if (category_iid >= 128)
    return;
  incremental->last_head_key = event_key;
  incremental->last_head =
      ShortCategoryEventHead(static_cast<EventType>(event_key >> 16), category_iid,
                             EventBytesCache::kLengthOffset + 1);
}

// Writes the packet's timestamp, a delta on clock 64 in ns (the fast path's
// unit), and returns where the rest goes.
ZT_ALWAYS_INLINE inline uint8_t* WriteFastTimestamp(uint8_t* p,
                                                           TrackEventSequence* seq,
                                                           uint64_t now) {
  TrackEventIncrementalState* incremental = seq->incremental;
  const uint64_t last = incremental->last_timestamp;
  const uint64_t ts = now > last ? now : last;  // Held on anchor renewals.
  incremental->last_timestamp = ts;
  *p++ = 0x40;  // timestamp (8), varint.
  return protozero::proto_utils::WriteVarInt(ts - last, p);
}

// Writing one event into |seq|'s open packet without the message API.
// |encode(p, seq, delta)| writes the packet's bytes at |p| (the timestamp
// delta first), interning on |seq| as it needs, and returns their end: at
// most kMaxBytes bytes are touched, copies that end past the packet's end
// included. |category| and |is_end| are for reacquiring the sequence after
// a drop (an end goes only to the session its begin went to).

// The same through the packet handle (the writer's raw fast path refused:
// a new chunk is due, a drop is to be answered, ...).
template <size_t kMaxBytes, typename Encoder>
ZT_NOINLINE void WriteEncodedEventSlow(uint32_t instance, TrackEventSequence* seq,
                                       EventCategory category, bool is_end,
                                       const Encoder& encode) {
  if (InsideAnEvent(seq))
    return;
  if (!SawEveryDrop(seq)) {
    const uint8_t session_tag = seq->session_tag;
    seq = AcquireSequenceSlow(instance, category);
    if (!seq || (is_end && seq->session_tag != session_tag))
      return;
  }
  const uint64_t delta = NextTimestamp(seq, TrackEventClock::NowNs());
  TraceWriter::TracePacketHandle packet = seq->TakePacket();
  protozero::ScatteredStreamWriter* stream = packet->stream_writer();
  uint8_t* dst = stream->write_ptr();
  if (stream->end() - dst >= static_cast<ptrdiff_t>(kMaxBytes)) {
    stream->set_write_ptr(encode(dst, seq, delta));
  } else {
    uint8_t buf[kMaxBytes];
    const uint8_t* end = encode(buf, seq, delta);
    packet->AppendRawProtoBytes(buf, static_cast<size_t>(end - buf));
  }
  WriteInterned(seq, packet.get());
  packet.Finish();
  seq->next_packet = seq->writer->NewTracePacket();
}

// The common case is encoded straight into the packet the sequence holds
// open, which is then closed and the next one opened without the handle
// and Message bookkeeping.
template <size_t kMaxBytes, typename Encoder>
inline void WriteEncodedEvent(uint32_t instance, TrackEventSequence* seq,
                              EventCategory category, bool is_end, const Encoder& encode) {
  static_assert(kMaxBytes <= TraceWriter::kMaxRawPacketSize + TraceWriter::kRawScratchBytes,
                "an event must fit the writer's raw packet and scratch");
  TraceWriter* writer = seq->writer;
  // Non-null only with the sequence's next packet open and empty: every
  // packet the sequence writes through a handle has bytes (a timestamp)
  // before any user code runs.
  uint8_t* dst = writer->BeginRawPacket(RawPacketSizeFor(kMaxBytes));
  if (ZT_UNLIKELY(dst == nullptr)) {
    // At a chunk's end: the next chunk, rather than fragments in two.
    dst = writer->BeginRawPacketSlow(RawPacketSizeFor(kMaxBytes));
    if (dst == nullptr) {
      WriteEncodedEventSlow<kMaxBytes>(instance, seq, category, is_end, encode);
      return;
    }
  }
  const uint64_t delta = NextTimestamp(seq, TrackEventClock::NowNs());
  uint8_t* end = encode(dst, seq, delta);
  if (ZT_LIKELY(seq->pending.empty())) {
    writer->EndRawPacketAndBeginNext(end);
    return;
  }
  // First use of a name or category on this sequence: its interned data
  // follows in the same packet.
  writer->EndRawBytes(end);
  WriteInterned(seq, seq->next_packet.get());
  seq->next_packet.Finish();
  seq->next_packet = writer->NewTracePacket();
}

}  // namespace internal
}  // namespace zt

#endif  // ZT_SRC_TRACING_SDK_TRACK_EVENT_WRITER_COMMON_H_
