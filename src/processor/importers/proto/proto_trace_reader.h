// The importer's first pass: reads every TracePacket in file order and does
// what must happen in that order: sequence state (clears, loss marks,
// defaults, interned data), clock snapshots and the conversion of each
// timestamp to the trace clock, track descriptors, and the service's
// packets (trace stats, uuid). Track events are then queued in the sorter
// with their time and state generation, for the second pass.
//
// A packet that is not valid protobuf is skipped and counted; a packet that
// needs interned state its sequence does not have is skipped and counted
// (as data loss when a loss mark caused it). Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_PROTO_PROTO_TRACE_READER_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_PROTO_PROTO_TRACE_READER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#include "src/processor/importers/proto/batch_channel.h"
#include "src/processor/importers/proto/clock_tracker.h"
#include "src/processor/importers/proto/packet_sorter.h"
#include "src/processor/importers/proto/sequence_state.h"
#include "src/processor/storage/trace_storage.h"
#include "src/processor/importers/track_tracker.h"
#include "zt/processor/trace_tokenizer.h"

namespace zt {
namespace processor {

class ProtoTraceReader {
 public:
  // `base` is the start of the tokenized buffer: queued events are offsets
  // from it.
  ProtoTraceReader(const uint8_t* base, TraceStorage* storage, TrackTracker* tracks,
                   ClockTracker* clocks, PacketSorter* sorter);
  ~ProtoTraceReader();

  void ReadPacket(const PacketView& packet);

  // After a previous_packet_dropped mark, packets that need incremental
  // state are kept (the default): interned ids are never reassigned within
  // a generation, so what the sequence interned before the loss still
  // names them, and an id interned nowhere becomes NULL (counted as
  // interned_data_missing_iid). Only packets timed by an incremental clock
  // are still skipped: their deltas ran through the lost packets. With
  // `drop` set, every such packet is skipped until the next clear, as
  // upstream's importer does.
  void set_drop_events_after_loss(bool drop) { drop_events_after_loss_ = drop; }

  // From now on, track events are not pushed into the sorter but sent
  // through `channel` as records, for another thread to push with
  // PushQueuedEvents() (pass 1 on two threads; two_thread_pass.h). The
  // sorter must then not be touched here until that thread is done.
  void QueueEventsThrough(BatchChannel* channel) { queue_channel_ = channel; }
  // The other side: pushes the events of those records into a sorter, in
  // the order sent.
  // The sorter (made with hints) also gets each event's
  // TrackEventParser::ScanHint(), read off the input at `base`.
  static void PushQueuedEvents(const uint8_t* base, const uint8_t* p, const uint8_t* end,
                               PacketSorter* sorter);

  // After the last packet: attributes loss marks to buffers (TraceStats'
  // writer_stats), records per-sequence facts.
  void Finish();

  const InternedGeneration& generation(uint32_t index) const {
    return *generations_[index];
  }
  size_t sequence_count() const { return sequences_.size(); }

 private:
  struct Packet;
  static constexpr uint64_t kSeqNeedsIncrementalState = 2;  // TracePacket flag.
  // A record of QueueEvent(): fixed size, copied whole (cheaper to write
  // and read than varints, which matters on the reading thread).
  struct QueuedEvent {
    int64_t ts;
    uint64_t offset;
    uint64_t size;
    uint32_t queue;
    uint32_t generation;
  };

  void ReadPacketFully(const PacketView& packet);
  // A track event for pass 2: into the sorter, or through the channel.
  ZT_ALWAYS_INLINE void QueueEvent(uint32_t queue, int64_t ts, uint64_t offset, uint64_t size,
                                   uint32_t generation) {
    if (!queue_channel_) {
      sorter_->Push(queue, ts, offset, size, generation);
      return;
    }
    // Field by field, as QueuedEvent lays them out: a struct built on the
    // stack and copied whole is read back wider than it was written, which
    // stalls (no store forwarding) and measured most of this thread's time.
    static_assert(sizeof(QueuedEvent) == 32, "QueuedEvent is 8+8+8+4+4 bytes");
    uint8_t* p = queue_channel_->Reserve(sizeof(QueuedEvent));
    memcpy(p + offsetof(QueuedEvent, ts), &ts, sizeof(ts));
    memcpy(p + offsetof(QueuedEvent, offset), &offset, sizeof(offset));
    memcpy(p + offsetof(QueuedEvent, size), &size, sizeof(size));
    memcpy(p + offsetof(QueuedEvent, queue), &queue, sizeof(queue));
    memcpy(p + offsetof(QueuedEvent, generation), &generation, sizeof(generation));
    queue_channel_->Commit(p + sizeof(QueuedEvent));
  }
  SequenceState* GetSequence(uint32_t sequence_id, uint32_t* index) {
    // Packets of one sequence come in runs (a writer's chunk at a time).
    if (ZT_LIKELY(last_sequence_ && last_sequence_->sequence_id == sequence_id)) {
      *index = last_sequence_index_;
      return last_sequence_;
    }
    return GetSequenceSlow(sequence_id, index);
  }
  SequenceState* GetSequenceSlow(uint32_t sequence_id, uint32_t* index);
  void RememberTrailer(const uint8_t* trailer, const uint8_t* end);
  SequenceState* LookUpSequence(uint32_t sequence_id, uint32_t* index);
  void NewGeneration(SequenceState* sequence, bool keep_interned_data);
  void ParseDefaults(SequenceState* sequence, protozero::ConstBytes bytes);
  void ParseInternedData(SequenceState* sequence, protozero::ConstBytes bytes);
  void ParseClockSnapshot(SequenceState* sequence, protozero::ConstBytes bytes);
  void RecordClockSnapshot(const std::vector<ClockTracker::ClockValue>& values,
                           const std::vector<uint32_t>& raw_ids);
  // Whether a packet's time is read off a sequence-scoped incremental
  // clock (or one the sequence never defined).
  bool OnIncrementalClock(SequenceState* sequence, bool has_timestamp, uint32_t clock_id);
  // The packet's time on the trace clock, in *ts; false (counted) if the
  // packet is to be skipped: it needs state its sequence never had or lost
  // (set_drop_events_after_loss), or its time cannot be converted.
  bool PlaceInTime(SequenceState* sequence, uint64_t flags, bool has_timestamp,
                   uint32_t clock_id, uint64_t raw, int64_t* ts);
  // PlaceInTime() for the common case, from the sequence's TimeCache: true
  // with *ts set, or false having changed nothing (then PlaceInTime(), and
  // RememberConversion() after it, decide). Same results, by construction:
  // it takes only packets PlaceInTime() would place without a stat, and a
  // value whose conversion the ClockTracker vouched for (LastRange()).
  ZT_ALWAYS_INLINE bool PlaceInTimeFast(SequenceState* sequence, uint64_t flags,
                                        bool has_timestamp, uint32_t clock_id, uint64_t raw,
                                        int64_t* ts) {
    const SequenceState::TimeCache& cache = sequence->time_cache;
    if (!has_timestamp || cache.raw_id != clock_id || cache.raw_id == 0 ||
        cache.range.epoch != clocks_->epoch() ||
        ((flags & kSeqNeedsIncrementalState) && !sequence->incremental_state_valid))
      return false;
    int64_t value = static_cast<int64_t>(raw);
    SequenceClock* clock = cache.clock;
    if (clock) {
      value = static_cast<int64_t>(raw * clock->unit_multiplier_ns);
      if (clock->is_incremental)
        value = static_cast<int64_t>(static_cast<uint64_t>(clock->last_value_ns) +
                                     static_cast<uint64_t>(value));
    }
    if (value < cache.range.min || value >= cache.range.end)
      return false;
    if (clock && clock->is_incremental)
      clock->last_value_ns = value;
    *ts = static_cast<int64_t>(static_cast<uint64_t>(value) +
                               static_cast<uint64_t>(cache.range.offset));
    if (*ts > latest_ts_)
      latest_ts_ = *ts;
    sequence->last_ts = *ts;
    return true;
  }
  void RememberConversion(SequenceState* sequence, bool has_timestamp, uint32_t clock_id);
  // False (counted) if the time cannot be placed on the trace clock.
  bool ToTraceTime(SequenceState* sequence, uint32_t clock_id, uint64_t raw, int64_t* ts);
  void ParseTraceStats(protozero::ConstBytes bytes);
  void ParseTraceUuid(protozero::ConstBytes bytes);

  const uint8_t* const base_;
  TraceStorage* const storage_;
  TrackTracker* const tracks_;
  ClockTracker* const clocks_;
  PacketSorter* const sorter_;
  BatchChannel* queue_channel_ = nullptr;
  bool drop_events_after_loss_ = false;
  // The trusted fields ending the last packet read in full on the fast
  // path (8 to 16 bytes: the first and last 8 of them), and the sequence id
  // they hold (ReadPacket()).
  uint64_t trailer_head_ = 0;
  uint64_t trailer_tail_ = 0;
  uint32_t trailer_size_ = 0;
  uint32_t trailer_sequence_id_ = 0;
  std::unordered_map<uint32_t, uint32_t> sequence_index_;
  std::vector<std::unique_ptr<SequenceState>> sequences_;
  std::vector<std::unique_ptr<InternedGeneration>> generations_;
  std::vector<uint32_t> generation_index_;  // Per sequence: its current one.
  std::vector<uint64_t> loss_marks_;        // Per sequence.
  std::unordered_map<uint64_t, uint32_t> buffer_of_sequence_;
  std::vector<protozero::ConstBytes> descriptor_scratch_;
  int64_t latest_ts_ = 0;
  SequenceState* last_sequence_ = nullptr;
  uint32_t last_sequence_index_ = 0;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_PROTO_PROTO_TRACE_READER_H_
