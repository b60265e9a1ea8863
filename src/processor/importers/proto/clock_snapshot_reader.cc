// The ClockSnapshot packets of a Perfetto protobuf trace: into the clock
// tracker (for converting every later timestamp), the sequence's own clocks,
// and the clock_snapshot table. Part of ProtoTraceReader (pass 1).
#include <cstdint>
#include <vector>

#include "src/processor/importers/proto/proto_trace_reader.h"
#include "zt/protozero/proto_decoder.h"

namespace zt {
namespace processor {
namespace proto_clock_snapshot {

// ClockSnapshot fields (docs/wire.md).
constexpr uint32_t kSnapshotClocks = 1;
constexpr uint32_t kSnapshotPrimaryClock = 2;
constexpr uint32_t kClockId = 1;
constexpr uint32_t kClockTimestamp = 2;
constexpr uint32_t kClockIsIncremental = 3;
constexpr uint32_t kClockUnitMultiplier = 4;

// A sequence may define this many clocks of its own (ids 64..127).
constexpr size_t kMaxSequenceClocks = 64;

}  // namespace proto_clock_snapshot

using protozero::ConstBytes;
using protozero::Field;
using protozero::ProtoDecoder;

void ProtoTraceReader::ParseClockSnapshot(SequenceState* sequence, ConstBytes bytes) {
  std::vector<ClockTracker::ClockValue> values;
  std::vector<uint32_t> raw_ids;
  ProtoDecoder decoder(bytes);
  bool has_primary = false;
  uint32_t primary = 0;
  for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
    if (f.id() == proto_clock_snapshot::kSnapshotPrimaryClock) {
      has_primary = true;
      primary = f.as_uint32();
      continue;
    }
    if (f.id() != proto_clock_snapshot::kSnapshotClocks)
      continue;
    ProtoDecoder clock(f.as_bytes());
    uint32_t id = 0;
    uint64_t timestamp = 0;
    bool incremental = false;
    uint64_t multiplier = 1;
    for (Field c = clock.ReadField(); c.valid(); c = clock.ReadField()) {
      if (c.id() == proto_clock_snapshot::kClockId)
        id = c.as_uint32();
      else if (c.id() == proto_clock_snapshot::kClockTimestamp)
        timestamp = c.as_uint64();
      else if (c.id() == proto_clock_snapshot::kClockIsIncremental)
        incremental = c.as_bool();
      else if (c.id() == proto_clock_snapshot::kClockUnitMultiplier)
        multiplier = c.as_uint64() == 0 ? 1 : c.as_uint64();
    }
    if (clock.parse_error())
      continue;
    const int64_t value_ns = static_cast<int64_t>(timestamp * multiplier);
    ClockId tracker_id = id;
    if (ClockTracker::IsSequenceScoped(id)) {
      SequenceClock* seq_clock = sequence->FindClock(id);
      if (!seq_clock && sequence->clocks.size() < proto_clock_snapshot::kMaxSequenceClocks) {
        sequence->clocks.emplace_back();
        seq_clock = &sequence->clocks.back();
        seq_clock->raw_id = id;
      }
      if (seq_clock) {
        seq_clock->is_incremental = incremental;
        seq_clock->unit_multiplier_ns = multiplier;
        seq_clock->last_value_ns = value_ns;
      }
      tracker_id = ClockTracker::SequenceScopedClockId(sequence->sequence_id, id);
    }
    values.push_back(ClockTracker::ClockValue{tracker_id, value_ns});
    raw_ids.push_back(id);
  }
  if (decoder.parse_error()) {
    storage_->stats.Increment(stats::invalid_clock_snapshots);
    return;
  }
  if (has_primary && !clocks_->SetTraceClock(primary))
    storage_->stats.Increment(stats::invalid_clock_snapshots);
  if (clocks_->AddSnapshot(values) != ClockTracker::SnapshotStatus::kOk) {
    storage_->stats.Increment(stats::invalid_clock_snapshots);
    return;
  }
  RecordClockSnapshot(values, raw_ids);
}

// Kept for to_realtime(), to_monotonic(), abs_time_str() and the
// clock_snapshot table.
void ProtoTraceReader::RecordClockSnapshot(const std::vector<ClockTracker::ClockValue>& values,
                                           const std::vector<uint32_t>& raw_ids) {
  const ClockId trace_clock = clocks_->trace_clock();
  const ClockTracker::ClockValue* on_trace_clock = nullptr;
  for (const auto& value : values) {
    if (value.id == trace_clock)
      on_trace_clock = &value;
  }
  if (!on_trace_clock)
    return;
  ClockSnapshotTable& table = storage_->clock_snapshot;
  const uint32_t snapshot_id = table.size() == 0 ? 0 : table.snapshot_id.back() + 1;
  static const char* const kBuiltinNames[] = {nullptr,     "REALTIME",         "REALTIME_COARSE",
                                              "MONOTONIC", "MONOTONIC_COARSE", "MONOTONIC_RAW",
                                              "BOOTTIME"};
  for (size_t i = 0; i < values.size(); i++) {
    table.ts.push_back(on_trace_clock->ts_ns);
    table.clock_id.push_back(raw_ids[i]);
    table.clock_name.push_back(raw_ids[i] < 7 ? kBuiltinNames[raw_ids[i]] : nullptr);
    table.clock_value.push_back(values[i].ts_ns);
    table.snapshot_id.push_back(snapshot_id);
  }
}

}  // namespace processor
}  // namespace zt
