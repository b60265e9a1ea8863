#include "src/processor/importers/json/json_slice_tracker.h"

#include "src/processor/importers/json/json_event.h"

namespace zt {
namespace processor {
namespace {

constexpr int64_t kOpen = -1;

}  // namespace

uint32_t JsonSliceTracker::AddRow(int64_t ts, int64_t dur, uint32_t track_id,
                                  StringId category, StringId name, uint32_t arg_set_id,
                                  int64_t thread_ts, int64_t thread_dur) {
  SliceTable& slice = storage_->slice;
  std::vector<uint32_t>& stack = StackOf(track_id);
  const uint32_t id = static_cast<uint32_t>(slice.size());
  slice.ts.push_back(ts);
  slice.dur.push_back(dur);
  slice.track_id.push_back(track_id);
  slice.category.push_back(category);
  slice.name.push_back(name);
  slice.depth.push_back(static_cast<uint32_t>(stack.size()));
  slice.parent_id.push_back(stack.empty() ? kNullId : stack.back());
  slice.arg_set_id.push_back(arg_set_id);
  // Thread time columns exist from the first slice that has a value.
  const bool has_thread_time = thread_ts != JsonEvent::kUnset;
  if (has_thread_time || !slice.thread_ts.empty()) {
    slice.thread_ts.resize(id, kNullInt);
    slice.thread_dur.resize(id, kNullInt);
    slice.thread_ts.push_back(has_thread_time ? thread_ts : kNullInt);
    slice.thread_dur.push_back(has_thread_time && thread_dur != JsonEvent::kUnset ? thread_dur
                                                                                  : kNullInt);
  }
  stack.push_back(id);
  return id;
}

bool JsonSliceTracker::CloseEnded(uint32_t track_id, int64_t new_ts, int64_t new_dur) {
  std::vector<uint32_t>& stack = StackOf(track_id);
  SliceTable& slice = storage_->slice;
  bool open_above = false;
  for (size_t i = stack.size(); i-- > 0;) {
    const uint32_t id = stack[i];
    const int64_t start = slice.ts[id];
    const int64_t dur = slice.dur[id];
    if (dur == kOpen) {
      open_above = true;
      continue;
    }
    const int64_t end = start + dur;
    if (open_above) {
      if (new_ts <= end)
        continue;
      // Slices begun inside this one are still open after it ended: they
      // end with it.
      storage_->stats.Increment(stats::misplaced_end_event);
      for (size_t j = stack.size() - 1; j > i; --j) {
        const uint32_t child = stack[j];
        if (slice.dur[child] == kOpen)
          slice.dur[child] = end - slice.ts[child];
      }
      stack.resize(i);
      open_above = false;
      continue;
    }
    // Closed on the left, open on the right; only instants block instants.
    const bool ended = end < new_ts || (end == new_ts && !(dur == 0 && new_dur == 0));
    if (ended) {
      stack.erase(stack.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    if (new_dur == kOpen)
      continue;
    if (new_ts < end && new_ts + new_dur > end)
      return false;
  }
  return true;
}

uint32_t JsonSliceTracker::Begin(int64_t ts, uint32_t track_id, StringId category,
                                 StringId name, uint32_t arg_set_id, int64_t thread_ts) {
  CloseEnded(track_id, ts, kOpen);
  if (StackOf(track_id).size() >= kMaxDepth) {
    storage_->stats.Increment(stats::slice_max_depth_exceeded);
    return kNullId;
  }
  return AddRow(ts, kOpen, track_id, category, name, arg_set_id, thread_ts, JsonEvent::kUnset);
}

uint32_t JsonSliceTracker::Complete(int64_t ts, int64_t dur, uint32_t track_id,
                                    StringId category, StringId name, uint32_t arg_set_id,
                                    int64_t thread_ts, int64_t thread_dur, bool* overlaps) {
  *overlaps = !CloseEnded(track_id, ts, dur);
  if (*overlaps)
    return kNullId;
  if (StackOf(track_id).size() >= kMaxDepth) {
    storage_->stats.Increment(stats::slice_max_depth_exceeded);
    return kNullId;
  }
  return AddRow(ts, dur, track_id, category, name, arg_set_id, thread_ts, thread_dur);
}

uint32_t JsonSliceTracker::End(int64_t ts, uint32_t track_id, StringId category,
                               StringId name) {
  CloseEnded(track_id, ts, kOpen);
  std::vector<uint32_t>& stack = StackOf(track_id);
  SliceTable& slice = storage_->slice;
  for (size_t i = stack.size(); i-- > 0;) {
    const uint32_t id = stack[i];
    if (slice.dur[id] != kOpen)
      continue;
    // A missing category or name on the end matches any; a begin without
    // a category matches only an end without one.
    if (category != kNullStringId && slice.category[id] != category)
      continue;
    if (name != kNullStringId && slice.name[id] != kNullStringId && slice.name[id] != name)
      continue;
    slice.dur[id] = ts - slice.ts[id];
    return id;
  }
  return kNullId;
}

void JsonSliceTracker::Finish() {
  SliceTable& slice = storage_->slice;
  int64_t open = 0;
  for (int64_t dur : slice.dur)
    open += dur == kOpen;
  storage_->stats.Set(stats::slices_unterminated, open);
  if (!slice.thread_ts.empty()) {
    slice.thread_ts.resize(slice.size(), kNullInt);
    slice.thread_dur.resize(slice.size(), kNullInt);
  }
}

}  // namespace processor
}  // namespace zt
