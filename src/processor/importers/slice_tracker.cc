#include "src/processor/importers/slice_tracker.h"

namespace zt {
namespace processor {

uint32_t SliceTracker::AddRow(int64_t ts, int64_t dur, uint32_t track_id,
                              StringId category, StringId name, uint32_t arg_set_id) {
  SliceTable& slice = storage_->slice;
  const std::vector<uint32_t>& stack = StackOf(track_id);
  const uint32_t id = static_cast<uint32_t>(slice.size());
  slice.ts.push_back(ts);
  slice.dur.push_back(dur);
  slice.track_id.push_back(track_id);
  slice.category.push_back(category);
  slice.name.push_back(name);
  slice.depth.push_back(static_cast<uint32_t>(stack.size()));
  slice.parent_id.push_back(stack.empty() ? kNullId : stack.back());
  slice.arg_set_id.push_back(arg_set_id);
  return id;
}

uint32_t SliceTracker::Begin(int64_t ts, uint32_t track_id, StringId category,
                             StringId name, uint32_t arg_set_id) {
  const uint32_t id = AddRow(ts, -1, track_id, category, name, arg_set_id);
  StackOf(track_id).push_back(id);
  return id;
}

uint32_t SliceTracker::Instant(int64_t ts, uint32_t track_id, StringId category,
                               StringId name, uint32_t arg_set_id) {
  return AddRow(ts, 0, track_id, category, name, arg_set_id);
}

uint32_t SliceTracker::End(int64_t ts, uint32_t track_id) {
  std::vector<uint32_t>& stack = StackOf(track_id);
  if (stack.empty()) {
    storage_->stats.Increment(stats::misplaced_end_event);
    return kNullId;
  }
  const uint32_t id = stack.back();
  stack.pop_back();
  storage_->slice.dur[id] = ts - storage_->slice.ts[id];
  return id;
}

void SliceTracker::Finish() {
  int64_t open = 0;
  for (const std::vector<uint32_t>& stack : stacks_)
    open += static_cast<int64_t>(stack.size());
  storage_->stats.Set(stats::slices_unterminated, open);
}

}  // namespace processor
}  // namespace zt
