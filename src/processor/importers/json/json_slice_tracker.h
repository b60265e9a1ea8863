// Nests a JSON trace's slices on their tracks the way upstream Perfetto's
// importer does, so that depth, parent_id and dur come out the same:
//
// * Begin (B, b) opens a slice; End (E, e) closes the innermost open slice
//   whose name and category match (a missing one matches any), which may
//   not be the innermost slice; an End matching nothing is ignored.
// * Complete (X, instants, n) adds a slice whose end is known. Before any
//   new slice, slices of the track that ended are taken off the stack: one
//   ending exactly where the new one starts too, except that instants at
//   one time stack on each other.
// * A complete slice that starts inside another complete slice but ends
//   after it cannot nest there: Complete refuses it (*overlaps) and the
//   caller puts it on an overflow track.
// * A complete slice that ends while slices begun inside it are still
//   open truncates them to its end (misplaced_end_event).
// * Nesting deeper than kMaxDepth drops the slice (slice_max_depth_exceeded).
//
// Events must come in timestamp order. Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_JSON_JSON_SLICE_TRACKER_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_JSON_JSON_SLICE_TRACKER_H_

#include <cstdint>
#include <vector>

#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

class JsonSliceTracker {
 public:
  static constexpr size_t kMaxDepth = 512;

  explicit JsonSliceTracker(TraceStorage* storage) : storage_(storage) {}

  // Each returns the new slice's id, or kNullId when it was not added.
  uint32_t Begin(int64_t ts, uint32_t track_id, StringId category, StringId name,
                 uint32_t arg_set_id, int64_t thread_ts);
  uint32_t Complete(int64_t ts, int64_t dur, uint32_t track_id, StringId category,
                    StringId name, uint32_t arg_set_id, int64_t thread_ts,
                    int64_t thread_dur, bool* overlaps);
  // The id of the slice closed, or kNullId.
  uint32_t End(int64_t ts, uint32_t track_id, StringId category, StringId name);

  // The innermost slice on the track's stack (possibly one that already
  // ended but was not yet taken off), or kNullId: what a flow event binds
  // to.
  uint32_t Innermost(uint32_t track_id) const {
    return track_id < stacks_.size() && !stacks_[track_id].empty() ? stacks_[track_id].back()
                                                                  : kNullId;
  }

  // Counts the slices left open (slices_unterminated) and evens out the
  // thread time columns. Call once, after the last event.
  void Finish();

 private:
  // False when a complete slice [ts, ts + dur) would overlap one on the
  // stack without nesting; dur -1 for a slice whose end is not known.
  bool CloseEnded(uint32_t track_id, int64_t ts, int64_t dur);
  uint32_t AddRow(int64_t ts, int64_t dur, uint32_t track_id, StringId category,
                  StringId name, uint32_t arg_set_id, int64_t thread_ts, int64_t thread_dur);
  std::vector<uint32_t>& StackOf(uint32_t track_id) {
    if (track_id >= stacks_.size())
      stacks_.resize(track_id + 1);
    return stacks_[track_id];
  }

  TraceStorage* const storage_;
  std::vector<std::vector<uint32_t>> stacks_;  // Index: track id; slice ids.
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_JSON_JSON_SLICE_TRACKER_H_
