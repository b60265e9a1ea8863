#include "src/processor/slice_tracker.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "zt/base/compiler.h"

namespace zt {
namespace processor {
namespace {

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older headers lack the name.
#endif

// Rows whose pages are mapped ahead of the appends, per column.
constexpr size_t kPrefaultRows = 64 * 1024;

// Maps the pages of rows [from, from + kPrefaultRows) of a reserved column
// in one system call, instead of one page fault per page as the appends
// reach them (on a VM, faults dominate the cost of filling a table).
// Advice: ignored where unsupported, and never past the capacity.
template <typename T>
void PrefaultRows(const std::vector<T>& column, size_t from) {
  const size_t to = std::min(column.capacity(), from + kPrefaultRows);
  if (to <= from)
    return;
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(column.data() + from) & ~(page - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(column.data() + to) & ~(page - 1);
  if (end > begin)
    madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
}

}  // namespace

uint32_t SliceTracker::AddRow(int64_t ts, int64_t dur, uint32_t track_id,
                              StringId category, StringId name, uint32_t arg_set_id) {
  SliceTable& slice = storage_->slice;
  const std::vector<uint32_t>& stack = StackOf(track_id);
  const uint32_t id = static_cast<uint32_t>(slice.size());
  if (ZT_UNLIKELY(id % kPrefaultRows == 0)) {
    PrefaultRows(slice.ts, id);
    PrefaultRows(slice.dur, id);
    PrefaultRows(slice.track_id, id);
    PrefaultRows(slice.category, id);
    PrefaultRows(slice.name, id);
    PrefaultRows(slice.depth, id);
    PrefaultRows(slice.parent_id, id);
    PrefaultRows(slice.arg_set_id, id);
  }
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
