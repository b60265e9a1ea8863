// The trace processor's clock tracker: converts timestamps taken in any
// clock domain into the trace clock (BOOTTIME unless a ClockSnapshot's
// `primary_trace_clock` says otherwise), from the ClockSnapshot packets
// seen so far (docs/design/trace_processor.md, "Clocks"; docs/wire.md).
//
//   zt::processor::ClockTracker clocks;
//   clocks.AddSnapshot({{ClockTracker::kBootTime, 1000}, {3 /*MONO*/, 500}});
//   std::optional<int64_t> ts = clocks.ToTraceTime(3, 700);  // 1200
//
// Contract:
//  * Each accepted snapshot links every pair of its clocks: clock domains
//    are the nodes of a graph, and a pair seen together in at least one
//    snapshot is an edge. ToTraceTime() follows a shortest path (fewest
//    hops, found by BFS; ties go to the edge seen first) from the source
//    clock to the trace clock. Across one hop A -> B it uses, among all the
//    snapshots holding both A and B, the latest one whose A-value is at or
//    before the timestamp (the first one if the timestamp precedes them
//    all; on equal A-values the later snapshot), and returns
//    B_value + (ts - A_value): offsets only, no rate correction.
//  * The trace clock converts to itself, even with no snapshot at all.
//    With no path (an unknown clock, a clock never snapshotted together
//    with anything leading to the trace clock) the result is nullopt, and
//    conversion_failures() counts it.
//  * Values are absolute nanoseconds: the caller applies
//    `unit_multiplier_ns` and accumulates incremental clocks before calling.
//    Clock ids 64..127 belong to one sequence: the caller maps them with
//    SequenceScopedClockId() before passing them here.
//  * A snapshot naming a clock twice is refused whole (kDuplicateClock). A
//    clock whose value is lower than in the previous accepted snapshot of
//    the same set of clocks went back (as upstream judges it: each writer
//    snapshots its own set, and a file holds snapshots in the order they
//    were read out, not taken): if it is the trace clock the snapshot is refused whole
//    (kTraceClockWentBack); any other such clock is accepted but marked
//    non-monotonic and from then on is never the source of a hop (a value of
//    it can map to two instants), only its target. Refused snapshots are
//    counted in invalid_snapshots() and change nothing. An empty snapshot is
//    ignored (kEmpty, not counted).
//  * The trace clock can change only until the first ToTraceTime() call
//    (even one that was an identity); after that a different clock is
//    refused (false), as converted timestamps would disagree.
//
// Differences from upstream Perfetto v14's ClockTracker (same results on
// well-formed traces whose snapshots always name the same set of clocks):
//  * Upstream keeps one series per (clock, set of clocks in the snapshot)
//    and a hop uses the series of one such set only; here a hop uses every
//    snapshot that holds both of its clocks, whatever else it holds (kept
//    sorted by the hop's source value).
//  * Upstream refuses a bad snapshot midway (clocks before the bad one stay
//    recorded); here a refused snapshot leaves no trace but the counter.
//  * Upstream's path search stops at 4 hops; here there is no limit.
//  * Upstream applies unit multipliers and incremental accumulation itself
//    and refuses snapshots that redefine a clock's unit; here the caller
//    (sequence state) does both.
//  * Sums that overflow int64 wrap (no undefined behaviour); the result is
//    then meaningless, as upstream's.
//
// Cost: ToTraceTime() is O(1) and allocation-free while the timestamp stays
// between the same two snapshots of the path as the previous call for the
// same source clock (the common case: a few compares and an add). Otherwise
// it steps each hop's snapshot index from its last position (monotonic
// timestamps) or binary-searches it, O(hops * log snapshots); the path
// itself is searched once per source clock until the graph changes (a new
// pair of clocks, or a clock going back).
// AddSnapshot() is O(n^2) in the clocks it names (one point per pair);
// memory is 16 bytes per pair per snapshot.
//
// Thread-compatible: ToTraceTime() updates caches, so even two conversions
// must not run at once on one tracker; distinct trackers are independent.

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_PROTO_CLOCK_TRACKER_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_PROTO_CLOCK_TRACKER_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

namespace zt {
namespace processor {

using ClockId = uint64_t;

class ClockTracker {
 public:
  static constexpr ClockId kBootTime = 6;

  // Clock ids 64..127 belong to one sequence; the tracker keys them by
  // (sequence, id). Global ids (below 64, or 128 and up) map to themselves.
  static bool IsSequenceScoped(uint32_t raw_id) {
    return raw_id >= 64 && raw_id < 128;
  }
  // (sequence << 32) | raw_id for sequence-scoped ids, raw_id otherwise.
  // Sequence ids start at 1, so a mapped id never equals a global one.
  static ClockId SequenceScopedClockId(uint32_t sequence_id, uint32_t raw_id) {
    if (!IsSequenceScoped(raw_id))
      return raw_id;
    return (static_cast<ClockId>(sequence_id) << 32) | raw_id;
  }

  // One clock of a snapshot: absolute, already in ns.
  struct ClockValue {
    ClockId id;
    int64_t ts_ns;
  };

  enum class SnapshotStatus {
    kOk,
    kEmpty,
    kDuplicateClock,
    kTraceClockWentBack
  };

  ClockTracker();
  ~ClockTracker();
  ClockTracker(const ClockTracker&) = delete;
  ClockTracker& operator=(const ClockTracker&) = delete;

  // Records one ClockSnapshot (see the contract above).
  SnapshotStatus AddSnapshot(const std::vector<ClockValue>& clocks);

  // Sets the trace clock (a snapshot's primary_trace_clock). False, and no
  // change, if a conversion already happened and `id` is another clock, or
  // if `id` is an unmapped sequence-scoped id (64..127).
  bool SetTraceClock(ClockId id);
  ClockId trace_clock() const { return trace_clock_; }

  // Converts `ts_ns`, in clock `id`, to the trace clock; nullopt (and
  // counted) if no path leads there.
  std::optional<int64_t> ToTraceTime(ClockId id, int64_t ts_ns) {
    conversion_happened_ = true;
    if (id == trace_clock_)
      return ts_ns;
    const Route* route = last_route_;
    if (route && last_source_ == id && ts_ns >= route->fast_min &&
        ts_ns < route->fast_end) {
      return WrapAdd(ts_ns, route->fast_offset);
    }
    return ToTraceTimeSlow(id, ts_ns);
  }

  // For a caller that converts many timestamps of one clock: after a
  // ToTraceTime(id, ...) that succeeded, the range it was on. Every ts_ns
  // in [min, end) converts to WrapAdd(ts_ns, offset), for as long as
  // epoch() stays `epoch` (any snapshot or trace clock change bumps it).
  // False if the last conversion was not of `id` (or failed).
  struct Range {
    int64_t min;
    int64_t end;
    int64_t offset;
    uint64_t epoch;
  };
  bool LastRange(ClockId id, Range* range) const {
    if (id == trace_clock_) {
      *range = Range{kMin, kMax, 0, epoch_};
      return true;
    }
    if (!last_route_ || last_source_ != id || last_route_->fast_min >= last_route_->fast_end)
      return false;
    *range = Range{last_route_->fast_min, last_route_->fast_end, last_route_->fast_offset, epoch_};
    return true;
  }
  uint64_t epoch() const { return epoch_; }

  // Refused snapshots (duplicate clock, trace clock went back).
  uint64_t invalid_snapshots() const { return invalid_snapshots_; }
  // ToTraceTime() calls that found no path.
  uint64_t conversion_failures() const { return conversion_failures_; }
  // Whether `id` went back in some snapshot (and so is never a hop's source).
  bool IsNonMonotonic(ClockId id) const;

 private:
  static constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

  // The values of two clocks (by dense index, a < b) in every accepted
  // snapshot holding both, in arrival order.
  struct Edge {
    uint32_t clock[2];
    std::vector<int64_t> values[2];  // values[i][k]: clock[i] in snapshot k.
  };
  struct Neighbor {
    uint32_t clock;
    uint32_t edge;
  };
  struct Clock {
    ClockId id;
    int64_t last_ns;
    bool non_monotonic;
    std::vector<Neighbor> neighbors;
  };
  struct Hop {
    uint32_t edge;
    uint8_t from;  // Which side of the edge is the source of the hop.
    size_t index;  // Snapshot used last time (the monotonic hint).
  };
  // The path from one source clock to the trace clock, and the range of
  // source timestamps [fast_min, fast_end) over which the whole path uses
  // the same snapshots, hence adds the same offset.
  struct Route {
    uint64_t graph_generation = 0;
    bool reachable = false;
    std::vector<Hop> hops;
    int64_t fast_min = kMax;  // Empty range: never taken.
    int64_t fast_end = kMin;
    int64_t fast_offset = 0;
  };

  static int64_t WrapAdd(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) +
                                static_cast<uint64_t>(b));
  }

  std::optional<int64_t> ToTraceTimeSlow(ClockId id, int64_t ts_ns);
  void FindPath(uint32_t source, Route* route);
  uint32_t ClockIndex(ClockId id);             // Creates the clock if new.
  uint32_t EdgeIndex(uint32_t a, uint32_t b);  // Creates the edge if new.
  void InvalidateFastRanges();

  ClockId trace_clock_ = kBootTime;
  bool conversion_happened_ = false;
  // Per set of clock ids (sorted): the values of its last snapshot.
  std::map<std::vector<ClockId>, std::vector<int64_t>> last_values_by_set_;
  uint64_t invalid_snapshots_ = 0;
  uint64_t conversion_failures_ = 0;

  std::vector<Clock> clocks_;
  std::unordered_map<ClockId, uint32_t> clock_index_;
  std::vector<Edge> edges_;
  std::unordered_map<uint64_t, uint32_t> edge_index_;  // (a << 32 | b).
  // Bumped whenever the graph's edges change; older routes search again.
  uint64_t graph_generation_ = 1;

  // Routes by source clock (node-based: pointers to them stay valid).
  std::unordered_map<ClockId, Route> routes_;
  ClockId last_source_ = 0;
  const Route* last_route_ = nullptr;
  uint64_t epoch_ = 0;  // See LastRange().
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_PROTO_CLOCK_TRACKER_H_
