// experimental_slice_layout(filter_track_ids): upstream's table function
// that lays out the slices of several tracks as if on one, for the UI's
// merged tracks. Written from upstream v58's documented behaviour: each
// root slice with its descendants (a "stalactite") is one box (from its
// start to its latest end, as deep as its deepest slice); boxes are
// placed tallest first (then by start, then in id order), each at the
// lowest run of free rows as deep as it is, free over its whole time
// span; a slice's layout_depth is its depth plus its box's row.
//
// Columns id, layout_depth; the argument is text, track ids separated by
// commas ("1,5"); words that are not ids are ignored. Rows in id order.
// Cost: O(n log n) for n slices of the tracks; the last 16 layouts are
// kept (the UI asks for the same tracks again and again).

#include <sqlite3.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <unordered_set>

#include "src/processor/sql/functions/functions.h"
#include "src/processor/sql/operators/computed_table_function.h"

namespace zt {
namespace processor {
namespace sql {
namespace slice_layout {

constexpr size_t kCachedLayouts = 16;
constexpr uint64_t kMaxLayoutDepth = 1 << 16;

// A box: a root slice and all below it.
struct Box {
  int64_t start;
  int64_t end;
  uint32_t height;  // The deepest slice's depth relative to the root.
  uint32_t row = 0;
};

// The time ranges taken on one row, sorted by (start, end). Ranges of
// positive length never overlap; an empty one (a box of zero duration) may
// sit at another's start, and sorts before it, so that the range just
// before a point is the one that may reach past it.
class TakenRanges {
 public:
  bool IsFree(int64_t start, int64_t end) const {
    if (ranges_.empty() || start >= max_end_)
      return true;
    const auto next = FirstAtOrAfter(start);
    if (next != ranges_.end() && next->first < end)
      return false;
    return next == ranges_.begin() || std::prev(next)->second <= start;
  }
  void Take(int64_t start, int64_t end) {
    const std::pair<int64_t, int64_t> range(start, end);
    if (ranges_.empty() || range >= ranges_.back())
      ranges_.push_back(range);
    else
      ranges_.insert(std::upper_bound(ranges_.begin(), ranges_.end(), range), range);
    max_end_ = ranges_.size() == 1 ? end : std::max(max_end_, end);
  }

 private:
  using Ranges = std::vector<std::pair<int64_t, int64_t>>;
  Ranges::const_iterator FirstAtOrAfter(int64_t ts) const {
    return std::lower_bound(ranges_.begin(), ranges_.end(), ts,
                            [](const std::pair<int64_t, int64_t>& r, int64_t t) {
                              return r.first < t;
                            });
  }
  Ranges ranges_;
  int64_t max_end_ = 0;
};

void ParseTrackIds(const std::string& text, std::unordered_set<uint32_t>* ids) {
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string::npos)
      comma = text.size();
    size_t b = pos, e = comma;
    while (b < e && text[b] == ' ')
      b++;
    while (e > b && text[e - 1] == ' ')
      e--;
    uint64_t value = 0;
    bool ok = b < e && e - b <= 10;
    for (size_t i = b; ok && i < e; i++) {
      ok = text[i] >= '0' && text[i] <= '9';
      value = value * 10 + static_cast<uint64_t>(text[i] - '0');
    }
    if (ok && value <= UINT32_MAX)
      ids->insert(static_cast<uint32_t>(value));
    pos = comma + 1;
  }
}

using Rows = std::vector<std::vector<ComputedValue>>;

Rows Layout(const SliceTable& slice, const std::unordered_set<uint32_t>& tracks) {
  std::vector<uint32_t> slices;
  for (uint32_t i = 0; i < slice.size(); i++) {
    if (tracks.count(slice.track_id[i]))
      slices.push_back(i);
  }
  // Each slice's box: a parent comes before its children (ids follow
  // time), so one pass finds them.
  std::vector<uint32_t> box_of(slice.size(), kNullId);
  std::vector<Box> boxes;
  for (uint32_t i : slices) {
    int64_t end;
    if (slice.dur[i] < 0 || __builtin_add_overflow(slice.ts[i], slice.dur[i], &end))
      end = std::numeric_limits<int64_t>::max();
    const uint32_t parent = slice.parent_id[i];
    if (parent != kNullId && parent < slice.size() && box_of[parent] != kNullId) {
      Box& box = boxes[box_of[parent]];
      box.end = std::max(box.end, end);
      box.height = std::max(box.height, slice.depth[i]);
      box_of[i] = box_of[parent];
    } else {
      box_of[i] = static_cast<uint32_t>(boxes.size());
      boxes.push_back(Box{slice.ts[i], end, slice.depth[i]});
    }
  }
  std::vector<uint32_t> order(boxes.size());
  for (uint32_t b = 0; b < boxes.size(); b++)
    order[b] = b;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (boxes[a].height != boxes[b].height)
      return boxes[a].height > boxes[b].height;
    if (boxes[a].start != boxes[b].start)
      return boxes[a].start < boxes[b].start;
    return a < b;
  });
  std::vector<TakenRanges> rows;
  for (uint32_t b : order) {
    Box& box = boxes[b];
    // Depths come from the importer's nesting; a hostile trace's cannot
    // make one box take more rows than this (a row costs a vector).
    const uint64_t height = std::min<uint64_t>(box.height, kMaxLayoutDepth);
    uint64_t first = 0, run = 0;
    for (uint64_t r = 0;; r++) {
      if (r >= rows.size() || rows[r].IsFree(box.start, box.end)) {
        if (run++ == 0)
          first = r;
        if (run == height + 1)
          break;
      } else {
        run = 0;
      }
    }
    box.row = static_cast<uint32_t>(first);
    if (rows.size() <= first + height)
      rows.resize(first + height + 1);
    for (uint64_t r = first; r <= first + height; r++)
      rows[r].Take(box.start, box.end);
  }
  Rows out;
  out.reserve(slices.size());
  for (uint32_t i : slices) {
    out.push_back({ComputedValue::Int(i),
                   ComputedValue::Int(static_cast<int64_t>(slice.depth[i]) + boxes[box_of[i]].row)});
  }
  return out;
}

bool Compute(void* data, sqlite3_value** args, Rows* rows, std::string* error) {
  auto* context = static_cast<FunctionContext*>(data);
  if (sqlite3_value_type(args[0]) != SQLITE_TEXT) {
    *error = "filter_track_ids must be text: track ids separated by commas, as '1,2'";
    return false;
  }
  const std::string filter(reinterpret_cast<const char*>(sqlite3_value_text(args[0])),
                           static_cast<size_t>(sqlite3_value_bytes(args[0])));
  auto& cache = context->slice_layouts();
  for (const auto& entry : cache) {
    if (entry.first == filter) {
      *rows = entry.second;
      return true;
    }
  }
  std::unordered_set<uint32_t> tracks;
  ParseTrackIds(filter, &tracks);
  *rows = Layout(context->storage().slice, tracks);
  if (cache.size() >= kCachedLayouts)
    cache.erase(cache.begin());
  cache.emplace_back(filter, *rows);
  return true;
}

}  // namespace slice_layout

bool RegisterSliceLayoutFunction(sqlite3* db, FunctionContext* context, std::string* error) {
  auto function = std::make_unique<ComputedTableFunction>();
  function->name = "experimental_slice_layout";
  function->columns = {"id", "layout_depth"};
  function->args = {"filter_track_ids"};
  function->compute = &slice_layout::Compute;
  function->data = context;
  return RegisterComputedTableFunction(db, context->Keep(std::move(function)), error);
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
