// The incremental state of one packet sequence (trusted_packet_sequence_id)
// as the importer reads it in file order: interned strings, the packet
// defaults, the sequence's own clocks, and whether that state can be
// trusted (docs/design/trace_processor.md, "Sequence state").
//
// State changes in generations. A SEQ_INCREMENTAL_STATE_CLEARED packet (or
// incremental_state_cleared) starts an empty one; new TracePacketDefaults
// start one that keeps the interned strings, and so does a loss mark
// (previous_packet_dropped), so that what is interned after a loss never
// rewrites the names of events read before it. Packets are parsed after
// sorting, possibly long after later packets changed the sequence, so each
// packet keeps a pointer to the generation it was read under; generations
// are immutable once a later one exists (entries interned later in the
// same generation only add ids). Strings are resolved to StringPool ids
// when interned, so an event's name costs an array index at parse time.

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_PROTO_SEQUENCE_STATE_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_PROTO_SEQUENCE_STATE_H_

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "src/processor/importers/proto/clock_tracker.h"
#include "src/processor/storage/string_pool.h"

namespace zt {
namespace processor {

// Interned id -> StringId. Writers number ids densely from 1 (ours and
// upstream's), so small ids live in a vector; others in a map.
class IidTable {
 public:
  void Set(uint64_t iid, StringId id) {
    if (iid < kDenseLimit) {
      if (iid >= dense_.size())
        dense_.resize(iid + 1, kMissing);
      dense_[iid] = id;
    } else {
      sparse_[iid] = id;
    }
  }
  // False if `iid` was never interned.
  bool Get(uint64_t iid, StringId* id) const {
    if (iid < dense_.size()) {
      *id = dense_[iid];
      return *id != kMissing;
    }
    if (iid < kDenseLimit || sparse_.empty())
      return false;
    auto it = sparse_.find(iid);
    if (it == sparse_.end())
      return false;
    *id = it->second;
    return true;
  }

 private:
  static constexpr uint64_t kDenseLimit = 1 << 16;
  static constexpr StringId kMissing = 0xffffffffu;
  std::vector<StringId> dense_;
  std::unordered_map<uint64_t, StringId> sparse_;
};

struct InternedGeneration {
  uint32_t sequence_id = 0;
  IidTable event_names;
  IidTable event_categories;
  IidTable debug_annotation_names;
  IidTable debug_annotation_string_values;

  // TracePacketDefaults.
  uint32_t default_clock_id = 0;  // 0: none.
  bool has_default_track = false;
  uint64_t default_track_uuid = 0;
  std::vector<uint64_t> default_extra_counter_track_uuids;
  std::vector<uint64_t> default_extra_double_counter_track_uuids;
};

// A sequence-scoped clock (ids 64..127) as its last ClockSnapshot defined
// it: values of an incremental clock are deltas added in file order.
struct SequenceClock {
  uint32_t raw_id = 0;
  bool is_incremental = false;
  uint64_t unit_multiplier_ns = 1;
  int64_t last_value_ns = 0;
};

struct SequenceState {
  uint32_t sequence_id = 0;
  // Owned by the importer's generation list; never null after the first
  // packet.
  InternedGeneration* generation = nullptr;
  // Interned data and defaults can be trusted: a clear was seen and no loss
  // since.
  bool incremental_state_valid = false;
  // The state was invalidated by a previous_packet_dropped mark (as opposed
  // to never having been cleared): skipped packets are then data loss.
  bool invalidated_by_loss = false;
  bool seen_any_packet = false;
  int64_t last_ts = kNoTs;  // Trace time of its last packet with one.
  static constexpr int64_t kNoTs = INT64_MIN;
  std::vector<SequenceClock> clocks;

  // ProtoTraceReader's fast path: the last conversion of the clock of its
  // previous fast-path packet, valid while the ClockTracker's epoch stays
  // `range.epoch` and a value stays in the range. Dropped whenever the
  // sequence's state changes (any packet read fully), so that `clock`
  // (into `clocks`) is never stale.
  struct TimeCache {
    uint32_t raw_id = 0;             // 0: empty.
    SequenceClock* clock = nullptr;  // Sequence-scoped clocks only.
    ClockTracker::Range range{};
  } time_cache;

  SequenceClock* FindClock(uint32_t raw_id) {
    for (SequenceClock& clock : clocks) {
      if (clock.raw_id == raw_id)
        return &clock;
    }
    return nullptr;
  }
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_PROTO_SEQUENCE_STATE_H_
