// Slices of each track, nested: a begin opens a slice on its track's
// stack, an end closes the innermost open one, an instant is a zero-length
// slice at the current depth. Depth and parent_id come from the stack; an
// end with nothing open is counted (misplaced_end_event) and dropped, and
// slices still open at the end keep dur = -1 (counted as unterminated).
//
// Events must arrive in timestamp order (the importer sorts them), so rows
// are appended in ts order. Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_SLICE_TRACKER_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_SLICE_TRACKER_H_

#include <cstdint>
#include <vector>

#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

class SliceTracker {
 public:
  explicit SliceTracker(TraceStorage* storage) : storage_(storage) {}

  // Each returns the new slice's id.
  uint32_t Begin(int64_t ts, uint32_t track_id, StringId category, StringId name,
                 uint32_t arg_set_id);
  uint32_t Instant(int64_t ts, uint32_t track_id, StringId category, StringId name,
                   uint32_t arg_set_id);
  // Closes the innermost open slice of the track and returns its id, or
  // kNullId (counted) if none is open.
  uint32_t End(int64_t ts, uint32_t track_id);
  // The same, but nothing open is not an error (state tracks).
  void EndIfOpen(int64_t ts, uint32_t track_id) {
    if (!StackOf(track_id).empty())
      End(ts, track_id);
  }

  // Counts the slices left open. Call once, after the last event.
  void Finish();

 private:
  uint32_t AddRow(int64_t ts, int64_t dur, uint32_t track_id, StringId category,
                  StringId name, uint32_t arg_set_id);
  std::vector<uint32_t>& StackOf(uint32_t track_id) {
    if (track_id >= stacks_.size())
      stacks_.resize(track_id + 1);
    return stacks_[track_id];
  }

  TraceStorage* const storage_;
  std::vector<std::vector<uint32_t>> stacks_;  // Index: track id.
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_SLICE_TRACKER_H_
