#include "src/processor/importers/proto/proto_trace_reader.h"

#include <cinttypes>
#include <cstdio>
#include <optional>

#include "src/processor/importers/proto/field_reader.h"
#include "src/processor/importers/proto/track_event_parser.h"
#include "zt/base/compiler.h"
#include "zt/protozero/proto_decoder.h"

namespace zt {
namespace processor {
namespace {

using protozero::ConstBytes;
using protozero::Field;
using protozero::ProtoDecoder;

// TracePacket fields (docs/wire.md).
constexpr uint32_t kPacketTrustedUid = 3;
constexpr uint32_t kPacketClockSnapshot = 6;
constexpr uint32_t kPacketTimestamp = 8;
constexpr uint32_t kPacketTrustedSequenceId = 10;
constexpr uint32_t kPacketTrackEvent = 11;
constexpr uint32_t kPacketInternedData = 12;
constexpr uint32_t kPacketSequenceFlags = 13;
constexpr uint32_t kPacketTraceStats = 35;
constexpr uint32_t kPacketIncrementalStateCleared = 41;
constexpr uint32_t kPacketPreviousPacketDropped = 42;
constexpr uint32_t kPacketTimestampClockId = 58;
constexpr uint32_t kPacketTracePacketDefaults = 59;
constexpr uint32_t kPacketTrackDescriptor = 60;
constexpr uint32_t kPacketTrustedPid = 79;
constexpr uint32_t kPacketFirstPacketOnSequence = 87;
constexpr uint32_t kPacketTraceUuid = 89;

constexpr uint64_t kPacketSeqIncrementalStateCleared = 1;
constexpr uint64_t kPacketSeqNeedsIncrementalState = 2;

// TracePacketDefaults / TrackEventDefaults.
constexpr uint32_t kPacketDefaultsClockId = 58;
constexpr uint32_t kPacketDefaultsTrackEvent = 11;
constexpr uint32_t kPacketDefaultsTrackUuid = 11;
constexpr uint32_t kPacketDefaultsExtraCounterUuids = 31;
constexpr uint32_t kPacketDefaultsExtraDoubleCounterUuids = 45;

// InternedData.
constexpr uint32_t kPacketInternedCategories = 1;
constexpr uint32_t kPacketInternedEventNames = 2;
constexpr uint32_t kPacketInternedAnnotationNames = 3;
constexpr uint32_t kPacketInternedAnnotationStrings = 29;

}  // namespace

ProtoTraceReader::ProtoTraceReader(const uint8_t* base, TraceStorage* storage,
                                   TrackTracker* tracks, ClockTracker* clocks,
                                   PacketSorter* sorter)
    : base_(base), storage_(storage), tracks_(tracks), clocks_(clocks), sorter_(sorter) {}

ProtoTraceReader::~ProtoTraceReader() = default;

void ProtoTraceReader::RememberTrailer(const uint8_t* trailer, const uint8_t* end) {
  // Only a trailer of trusted fields alone (uid, sequence id, pid) in one-
  // or two-byte keys and short varints, holding the sequence id, is kept.
  trailer_size_ = 0;
  bool has_sequence_id = false;
  uint32_t sequence_id = 0;
  const size_t size = static_cast<size_t>(end - trailer);
  if (size < sizeof(trailer_head_) || size > 2 * sizeof(trailer_head_))
    return;
  const uint8_t* p = trailer;
  while (p < end) {
    uint32_t key = *p++;
    if (key >= 0x80) {
      if (p == end || *p >= 0x80)
        return;
      key = (key & 0x7f) | static_cast<uint32_t>(*p++) << 7;
    }
    uint64_t value;
    if (!ReadShortVarint(&p, end, &value))
      return;
    if (key == kPacketTrustedSequenceId << 3) {
      has_sequence_id = true;
      sequence_id = static_cast<uint32_t>(value);
    } else if (key != kPacketTrustedUid << 3 && key != kPacketTrustedPid << 3) {
      return;
    }
  }
  if (!has_sequence_id)
    return;
  memcpy(&trailer_head_, trailer, sizeof(trailer_head_));
  memcpy(&trailer_tail_, end - sizeof(trailer_tail_), sizeof(trailer_tail_));
  trailer_size_ = static_cast<uint32_t>(size);
  trailer_sequence_id_ = sequence_id;
}

SequenceState* ProtoTraceReader::GetSequenceSlow(uint32_t sequence_id, uint32_t* index) {
  SequenceState* sequence = LookUpSequence(sequence_id, index);
  last_sequence_ = sequence;
  last_sequence_index_ = *index;
  return sequence;
}

SequenceState* ProtoTraceReader::LookUpSequence(uint32_t sequence_id, uint32_t* index) {
  auto it = sequence_index_.find(sequence_id);
  if (it != sequence_index_.end()) {
    *index = it->second;
    return sequences_[it->second].get();
  }
  *index = static_cast<uint32_t>(sequences_.size());
  sequence_index_.emplace(sequence_id, *index);
  sequences_.emplace_back(new SequenceState());
  SequenceState* sequence = sequences_.back().get();
  sequence->sequence_id = sequence_id;
  generation_index_.push_back(0);
  loss_marks_.push_back(0);
  NewGeneration(sequence, /*keep_interned_data=*/false);
  return sequence;
}

void ProtoTraceReader::NewGeneration(SequenceState* sequence, bool keep_interned_data) {
  std::unique_ptr<InternedGeneration> generation;
  if (keep_interned_data && sequence->generation)
    generation.reset(new InternedGeneration(*sequence->generation));
  else
    generation.reset(new InternedGeneration());
  generation->sequence_id = sequence->sequence_id;
  sequence->generation = generation.get();
  generation_index_[sequence_index_[sequence->sequence_id]] =
      static_cast<uint32_t>(generations_.size());
  generations_.push_back(std::move(generation));
}

void ProtoTraceReader::ReadPacket(const PacketView& view) {
  // The fast path: a packet holding nothing but its time, flags, a track
  // event and the service's trusted fields, on a sequence already seen,
  // that does not clear state (nearly every packet of a track event trace).
  // Anything else is read by ReadPacketFully(), from the start.
  uint64_t timestamp = 0;
  bool has_timestamp = false;
  uint32_t sequence_id = 0;
  uint64_t flags = 0;
  const uint8_t* track_event = nullptr;
  uint64_t track_event_size = 0;
  // Whole keys (field and wire type) in one switch; a key or a value
  // that is not a well-formed varint of the expected kind falls back too.
  const uint8_t* p = view.data;
  const uint8_t* const end = p + view.size;
  const uint8_t* trailer = nullptr;
  // The shape of nearly every packet first, in straight-line code: its
  // time, its flags, then its event (the order the SDKs write them; the
  // loop below reads them the same way in any order, and everything else).
  if (ZT_LIKELY(p < end && *p == kPacketTimestamp << 3)) {
    const uint8_t* q = p + 1;
    if (ReadShortVarint(&q, end, &timestamp)) {
      has_timestamp = true;
      p = q;
    }
  }
  if (p < end && *p == kPacketSequenceFlags << 3) {
    const uint8_t* q = p + 1;
    if (ReadShortVarint(&q, end, &flags))
      p = q;
  }
  if (ZT_LIKELY(p < end && *p == (kPacketTrackEvent << 3 | 2))) {
    const uint8_t* q = p + 1;
    uint64_t size;
    if (ReadShortVarint(&q, end, &size) && size <= static_cast<uint64_t>(end - q)) {
      track_event = q;
      track_event_size = size;
      p = q + size;
    }
  }
  while (p < end) {
    // The service ends every packet of a sequence with the same trusted
    // fields, byte for byte: bytes equal to the last trailer read say what
    // it said.
    if (*p == kPacketTrustedUid << 3) {
      // 8 to 16 bytes, compared as two words that cover them.
      const size_t left = static_cast<size_t>(end - p);
      if (left == trailer_size_) {
        uint64_t head;
        uint64_t tail;
        memcpy(&head, p, sizeof(head));
        memcpy(&tail, end - sizeof(tail), sizeof(tail));
        if (head == trailer_head_ && tail == trailer_tail_) {
          sequence_id = trailer_sequence_id_;
          trailer = nullptr;
          break;
        }
      }
      if (!trailer)
        trailer = p;
    }
    uint32_t key = *p++;
    if (key >= 0x80) {
      if (p == end || *p >= 0x80)
        return ReadPacketFully(view);
      key = (key & 0x7f) | static_cast<uint32_t>(*p++) << 7;
    }
    uint64_t value;
    if (!ReadShortVarint(&p, end, &value))
      return ReadPacketFully(view);
    switch (key) {
      case kPacketTimestamp << 3:
        timestamp = value;
        has_timestamp = true;
        break;
      case kPacketTrustedSequenceId << 3:
        sequence_id = static_cast<uint32_t>(value);
        break;
      case kPacketSequenceFlags << 3:
        flags = value;
        break;
      case kPacketTrackEvent << 3 | 2:
        if (value > static_cast<uint64_t>(end - p))
          return ReadPacketFully(view);
        track_event = p;
        track_event_size = value;
        p += value;
        break;
      case kPacketTrustedUid << 3:
      case kPacketTrustedPid << 3:
        break;
      default:
        return ReadPacketFully(view);
    }
  }
  if (ZT_UNLIKELY(flags & kPacketSeqIncrementalStateCleared))
    return ReadPacketFully(view);
  if (ZT_UNLIKELY(trailer != nullptr))
    RememberTrailer(trailer, end);
  uint32_t sequence_index = 0;
  SequenceState* sequence = GetSequence(sequence_id, &sequence_index);
  if (ZT_UNLIKELY(!sequence->seen_any_packet))
    return ReadPacketFully(view);
  int64_t ts;
  const uint32_t clock_id = sequence->generation->default_clock_id;
  if (!PlaceInTimeFast(sequence, flags, has_timestamp, clock_id, timestamp, &ts)) {
    if (!PlaceInTime(sequence, flags, has_timestamp, clock_id, timestamp, &ts))
      return;
    RememberConversion(sequence, has_timestamp, clock_id);
  }
  if (track_event) {
    QueueEvent(sequence_index, ts, static_cast<uint64_t>(track_event - base_),
                  track_event_size, generation_index_[sequence_index]);
  }
}

void ProtoTraceReader::RememberConversion(SequenceState* sequence, bool has_timestamp,
                                          uint32_t clock_id) {
  SequenceState::TimeCache& cache = sequence->time_cache;
  cache.raw_id = 0;
  if (!has_timestamp || clock_id == 0)
    return;
  ClockId id = clock_id;
  SequenceClock* clock = nullptr;
  if (ClockTracker::IsSequenceScoped(clock_id)) {
    clock = sequence->FindClock(clock_id);
    id = ClockTracker::SequenceScopedClockId(sequence->sequence_id, clock_id);
  }
  if (clocks_->LastRange(id, &cache.range)) {
    cache.raw_id = clock_id;
    cache.clock = clock;
  }
}

void ProtoTraceReader::ReadPacketFully(const PacketView& view) {
  // One walk over the packet's fields; sub-messages are kept as views.
  uint64_t timestamp = 0;
  bool has_timestamp = false;
  uint32_t clock_id = 0;
  bool has_clock_id = false;
  uint32_t sequence_id = 0;
  uint64_t flags = 0;
  bool cleared = false;
  uint64_t dropped = 0;
  bool first_on_sequence = false;
  ConstBytes track_event, interned_data, defaults, clock_snapshot, trace_stats, trace_uuid;
  std::vector<ConstBytes>* descriptors = nullptr;

  FieldReader reader(view.data, view.size);
  RawField f{};
  while (reader.Next(&f)) {
    switch (f.id) {
      case kPacketTimestamp:
        timestamp = f.value;
        has_timestamp = true;
        break;
      case kPacketTimestampClockId:
        clock_id = static_cast<uint32_t>(f.value);
        has_clock_id = true;
        break;
      case kPacketTrustedSequenceId:
        sequence_id = static_cast<uint32_t>(f.value);
        break;
      case kPacketSequenceFlags:
        flags = f.value;
        break;
      case kPacketIncrementalStateCleared:
        cleared = cleared || f.as_bool();
        break;
      case kPacketPreviousPacketDropped:
        dropped = f.value;  // The last value: the service's, OR-ed.
        break;
      case kPacketFirstPacketOnSequence:
        first_on_sequence = f.as_bool();
        break;
      case kPacketTrackEvent:
        track_event = ConstBytes{f.bytes(), f.size()};
        break;
      case kPacketInternedData:
        interned_data = ConstBytes{f.bytes(), f.size()};
        break;
      case kPacketTracePacketDefaults:
        defaults = ConstBytes{f.bytes(), f.size()};
        break;
      case kPacketClockSnapshot:
        clock_snapshot = ConstBytes{f.bytes(), f.size()};
        break;
      case kPacketTrackDescriptor:
        if (!descriptors) {
          descriptors = &descriptor_scratch_;
          descriptors->clear();
        }
        descriptors->push_back(ConstBytes{f.bytes(), f.size()});
        break;
      case kPacketTraceStats:
        trace_stats = ConstBytes{f.bytes(), f.size()};
        break;
      case kPacketTraceUuid:
        trace_uuid = ConstBytes{f.bytes(), f.size()};
        break;
      default:
        break;
    }
  }
  if (reader.error()) {
    storage_->stats.Increment(stats::packets_malformed);
    return;
  }

  uint32_t sequence_index = 0;
  SequenceState* sequence = GetSequence(sequence_id, &sequence_index);
  // Its state may change here (clocks, defaults, clears): the fast path's
  // conversion is learned again.
  sequence->time_cache.raw_id = 0;
  const bool first_seen = !sequence->seen_any_packet;
  sequence->seen_any_packet = true;
  if (first_seen && !first_on_sequence && sequence_id != 0)
    storage_->stats.Increment(stats::sequences_without_first_packet);

  if (dropped != 0 && !first_seen) {
    // What came before on this sequence was lost: its interned data may be
    // incomplete until the next clear. The mark counts even on a packet
    // that clears the state too (our SDK's writer answers its own drops so:
    // the loss mark and the new state in one packet).
    sequence->incremental_state_valid = false;
    sequence->invalidated_by_loss = true;
    // Events read so far are parsed later against their generation: what
    // this and later packets intern (a writer starting its ids again after
    // a drop whose reset was lost) must not rewrite it.
    NewGeneration(sequence, /*keep_interned_data=*/true);
    loss_marks_[sequence_index]++;
    DataLossMark mark;
    mark.sequence_id = sequence_id;
    mark.offset = view.offset;
    mark.reasons = dropped;
    if (sequence->last_ts != SequenceState::kNoTs)
      mark.ts_before = sequence->last_ts;
    storage_->data_losses.push_back(mark);
  }
  if (cleared || (flags & kPacketSeqIncrementalStateCleared)) {
    NewGeneration(sequence, /*keep_interned_data=*/false);
    sequence->incremental_state_valid = true;
    sequence->invalidated_by_loss = false;
  }

  if (defaults.data)
    ParseDefaults(sequence, defaults);
  if (interned_data.data)
    ParseInternedData(sequence, interned_data);
  if (clock_snapshot.data)
    ParseClockSnapshot(sequence, clock_snapshot);
  if (descriptors) {
    for (ConstBytes descriptor : *descriptors) {
      if (!tracks_->OnTrackDescriptor(descriptor))
        storage_->stats.Increment(stats::track_event_tokenizer_errors);
    }
  }
  if (trace_stats.data)
    ParseTraceStats(trace_stats);
  if (trace_uuid.data)
    ParseTraceUuid(trace_uuid);

  int64_t ts;
  if (!PlaceInTime(sequence, flags, has_timestamp,
                   has_clock_id ? clock_id : sequence->generation->default_clock_id, timestamp,
                   &ts))
    return;
  if (!storage_->data_losses.empty() && storage_->data_losses.back().offset == view.offset &&
      storage_->data_losses.back().sequence_id == sequence_id && has_timestamp)
    storage_->data_losses.back().ts = ts;

  if (track_event.data) {
    QueueEvent(sequence_index, ts, static_cast<uint64_t>(track_event.data - base_),
                  track_event.size, generation_index_[sequence_index]);
  }
}

bool ProtoTraceReader::PlaceInTime(SequenceState* sequence, uint64_t flags,
                                   bool has_timestamp, uint32_t clock_id, uint64_t raw,
                                   int64_t* ts) {
  if ((flags & kPacketSeqNeedsIncrementalState) && !sequence->incremental_state_valid) {
    if (!sequence->invalidated_by_loss) {
      storage_->stats.Increment(stats::tokenizer_skipped_packets);
      return false;
    }
    // After a loss: the names interned before it still hold (ids are not
    // reassigned within a generation), but a time on an incremental clock
    // ran through the lost packets' deltas and is unknowable.
    if (drop_events_after_loss_ || OnIncrementalClock(sequence, has_timestamp, clock_id)) {
      storage_->stats.Increment(stats::incremental_state_lost_packets);
      return false;
    }
    storage_->stats.Increment(stats::incremental_state_recovered_packets);
  }
  // Packets without a time take the latest one seen, as upstream's reader
  // does.
  *ts = latest_ts_;
  if (!has_timestamp)
    return true;
  if (!ToTraceTime(sequence, clock_id, raw, ts))
    return false;
  if (*ts > latest_ts_)
    latest_ts_ = *ts;
  sequence->last_ts = *ts;
  return true;
}

bool ProtoTraceReader::OnIncrementalClock(SequenceState* sequence, bool has_timestamp,
                                          uint32_t clock_id) {
  if (!has_timestamp || !ClockTracker::IsSequenceScoped(clock_id))
    return false;
  const SequenceClock* clock = sequence->FindClock(clock_id);
  return clock == nullptr || clock->is_incremental;
}

bool ProtoTraceReader::ToTraceTime(SequenceState* sequence, uint32_t clock_id,
                                   uint64_t raw, int64_t* ts) {
  if (clock_id == 0) {
    *ts = static_cast<int64_t>(raw);  // Already on the trace clock.
    return true;
  }
  std::optional<int64_t> converted;
  if (ClockTracker::IsSequenceScoped(clock_id)) {
    SequenceClock* clock = sequence->FindClock(clock_id);
    if (!clock) {
      storage_->stats.Increment(stats::clock_sync_failure);
      return false;
    }
    int64_t value = static_cast<int64_t>(raw * clock->unit_multiplier_ns);
    if (clock->is_incremental) {
      clock->last_value_ns = static_cast<int64_t>(static_cast<uint64_t>(clock->last_value_ns) +
                                                  static_cast<uint64_t>(value));
      value = clock->last_value_ns;
    }
    converted = clocks_->ToTraceTime(
        ClockTracker::SequenceScopedClockId(sequence->sequence_id, clock_id), value);
  } else {
    converted = clocks_->ToTraceTime(clock_id, static_cast<int64_t>(raw));
  }
  if (!converted) {
    storage_->stats.Increment(stats::clock_sync_failure);
    return false;
  }
  *ts = *converted;
  return true;
}

void ProtoTraceReader::ParseDefaults(SequenceState* sequence, ConstBytes bytes) {
  NewGeneration(sequence, /*keep_interned_data=*/true);
  InternedGeneration* generation = sequence->generation;
  generation->default_clock_id = 0;
  generation->has_default_track = false;
  generation->default_extra_counter_track_uuids.clear();
  generation->default_extra_double_counter_track_uuids.clear();
  ProtoDecoder decoder(bytes);
  for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
    if (f.id() == kPacketDefaultsClockId) {
      generation->default_clock_id = f.as_uint32();
    } else if (f.id() == kPacketDefaultsTrackEvent) {
      const ConstBytes event_bytes = f.as_bytes();
      FieldReader event(event_bytes.data, event_bytes.size);
      RawField e{};
      while (event.Next(&e)) {
        if (e.id == kPacketDefaultsTrackUuid) {
          generation->has_default_track = true;
          generation->default_track_uuid = e.value;
        } else if (e.id == kPacketDefaultsExtraCounterUuids) {
          ForEachVarint(e, [&](uint64_t v) {
            generation->default_extra_counter_track_uuids.push_back(v);
          });
        } else if (e.id == kPacketDefaultsExtraDoubleCounterUuids) {
          ForEachVarint(e, [&](uint64_t v) {
            generation->default_extra_double_counter_track_uuids.push_back(v);
          });
        }
      }
      if (event.error())
        storage_->stats.Increment(stats::track_event_tokenizer_errors);
    }
  }
  if (decoder.parse_error())
    storage_->stats.Increment(stats::track_event_tokenizer_errors);
}

void ProtoTraceReader::ParseInternedData(SequenceState* sequence, ConstBytes bytes) {
  InternedGeneration* generation = sequence->generation;
  ProtoDecoder decoder(bytes);
  for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
    IidTable* table = nullptr;
    switch (f.id()) {
      case kPacketInternedCategories:
        table = &generation->event_categories;
        break;
      case kPacketInternedEventNames:
        table = &generation->event_names;
        break;
      case kPacketInternedAnnotationNames:
        table = &generation->debug_annotation_names;
        break;
      case kPacketInternedAnnotationStrings:
        table = &generation->debug_annotation_string_values;
        break;
      default:
        continue;
    }
    // Every entry is {iid = 1, name/str = 2}.
    ProtoDecoder entry(f.as_bytes());
    uint64_t iid = 0;
    std::string_view name;
    bool has_name = false;
    for (Field e = entry.ReadField(); e.valid(); e = entry.ReadField()) {
      if (e.id() == 1) {
        iid = e.as_uint64();
      } else if (e.id() == 2) {
        name = e.as_string();
        has_name = true;
      }
    }
    if (entry.parse_error() || iid == 0 || !has_name) {
      storage_->stats.Increment(stats::interned_data_tokenizer_errors);
      continue;
    }
    table->Set(iid, storage_->strings.Intern(name));
  }
  if (decoder.parse_error())
    storage_->stats.Increment(stats::interned_data_tokenizer_errors);
}

void ProtoTraceReader::ParseTraceStats(ConstBytes bytes) {
  // The last TraceStats of the trace wins: each one is cumulative.
  ProtoDecoder decoder(bytes);
  int buffer = 0;
  for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
    switch (f.id()) {
      case 1: {  // buffer_stats
        ProtoDecoder b(f.as_bytes());
        for (Field s = b.ReadField(); s.valid(); s = b.ReadField()) {
          static constexpr struct {
            uint32_t field;
            stats::Key key;
          } kBufferStats[] = {
              {12, stats::traced_buf_buffer_size},
              {1, stats::traced_buf_bytes_written},
              {13, stats::traced_buf_bytes_overwritten},
              {14, stats::traced_buf_bytes_read},
              {2, stats::traced_buf_chunks_written},
              {18, stats::traced_buf_chunks_discarded},
              {3, stats::traced_buf_chunks_overwritten},
              {6, stats::traced_buf_patches_failed},
              {9, stats::traced_buf_abi_violations},
              {19, stats::traced_buf_trace_writer_packet_loss},
              {1001, stats::traced_buf_writer_packets_dropped},
          };
          for (const auto& entry : kBufferStats) {
            if (entry.field == s.id())
              storage_->stats.SetIndexed(entry.key, buffer, s.as_int64());
          }
        }
        buffer++;
        break;
      }
      case 2:
        storage_->stats.Set(stats::traced_producers_connected, f.as_int64());
        break;
      case 3:
        storage_->stats.Set(stats::traced_producers_seen, f.as_int64());
        break;
      case 4:
        storage_->stats.Set(stats::traced_data_sources_registered, f.as_int64());
        break;
      case 5:
        storage_->stats.Set(stats::traced_data_sources_seen, f.as_int64());
        break;
      case 6:
        storage_->stats.Set(stats::traced_tracing_sessions, f.as_int64());
        break;
      case 7:
        storage_->stats.Set(stats::traced_total_buffers, f.as_int64());
        break;
      case 8:
        storage_->stats.Set(stats::traced_chunks_discarded, f.as_int64());
        break;
      case 9:
        storage_->stats.Set(stats::traced_patches_discarded, f.as_int64());
        break;
      case 12:
        storage_->stats.Set(stats::traced_flushes_requested, f.as_int64());
        break;
      case 13:
        storage_->stats.Set(stats::traced_flushes_succeeded, f.as_int64());
        break;
      case 14:
        storage_->stats.Set(stats::traced_flushes_failed, f.as_int64());
        break;
      case 15:
        storage_->stats.Set(stats::traced_final_flush_failed, f.as_int64() == 2 ? 1 : 0);
        break;
      case 18: {  // writer_stats: which buffer each sequence wrote into.
        ProtoDecoder w(f.as_bytes());
        uint64_t sequence_id = 0;
        uint32_t writer_buffer = 0;
        for (Field s = w.ReadField(); s.valid(); s = w.ReadField()) {
          if (s.id() == 1)
            sequence_id = s.as_uint64();
          else if (s.id() == 4)
            writer_buffer = s.as_uint32();
        }
        buffer_of_sequence_[sequence_id] = writer_buffer;
        break;
      }
      default:
        break;
    }
  }
}

void ProtoTraceReader::ParseTraceUuid(ConstBytes bytes) {
  ProtoDecoder decoder(bytes);
  uint64_t msb = 0, lsb = 0;
  for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
    if (f.id() == 1)
      msb = f.as_uint64();
    else if (f.id() == 2)
      lsb = f.as_uint64();
  }
  char text[40];
  snprintf(text, sizeof(text), "%08" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%04" PRIx64
           "-%012" PRIx64, msb >> 32, (msb >> 16) & 0xffff, msb & 0xffff, lsb >> 48,
           lsb & uint64_t{0xffffffffffff});
  MetadataTable& metadata = storage_->metadata;
  const StringId name = storage_->strings.Intern("trace_uuid");
  for (size_t i = 0; i < metadata.size(); i++) {
    if (metadata.name[i] == name) {
      metadata.str_value[i] = storage_->strings.Intern(text);
      return;
    }
  }
  metadata.name.push_back(name);
  metadata.int_value.push_back(kNullInt);
  metadata.str_value.push_back(storage_->strings.Intern(text));
}

void ProtoTraceReader::PushQueuedEvents(const uint8_t* base, const uint8_t* p,
                                        const uint8_t* end, PacketSorter* sorter) {
  ZT_CHECK((end - p) % sizeof(QueuedEvent) == 0);
  for (; p < end; p += sizeof(QueuedEvent)) {
    QueuedEvent event;
    memcpy(&event, p, sizeof(event));
    const uint64_t hint = TrackEventParser::ScanHint(
        protozero::ConstBytes{base + event.offset, static_cast<size_t>(event.size)});
    sorter->Push(event.queue, event.ts, event.offset, event.size, event.generation, hint);
  }
}

void ProtoTraceReader::Finish() {
  for (size_t i = 0; i < sequences_.size(); i++) {
    if (loss_marks_[i] == 0)
      continue;
    auto it = buffer_of_sequence_.find(sequences_[i]->sequence_id);
    const int buffer = it == buffer_of_sequence_.end() ? 0 : static_cast<int>(it->second);
    storage_->stats.IncrementIndexed(stats::traced_buf_sequence_packet_loss, buffer,
                                     static_cast<int64_t>(loss_marks_[i]));
  }
}

}  // namespace processor
}  // namespace zt
