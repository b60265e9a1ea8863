// slice_is_ancestor(ancestor_id, descendant_id), and the tables
// ancestor_slice(id) and descendant_slice(id): the slices that enclose one
// slice, or that it encloses, with the slice table's columns, in id order;
// ancestor_slice_by_stack(stack_id) and descendant_slice_by_stack(stack_id)
// the same for every slice of a stack id, each slice once.

#include <sqlite3.h>

#include <algorithm>
#include <limits>
#include <string_view>
#include <vector>

#include "src/processor/sql/functions/functions.h"

namespace zt {
namespace processor {
namespace sql {
namespace {

// A slice id (the row) from an SQL value; false for NULL, a non-integer or
// an id that names no slice.
bool SliceRow(sqlite3_value* value, const SliceTable& slice, size_t* row) {
  if (sqlite3_value_type(value) != SQLITE_INTEGER)
    return false;
  const sqlite3_int64 id = sqlite3_value_int64(value);
  if (id < 0 || static_cast<uint64_t>(id) >= slice.size())
    return false;
  *row = static_cast<size_t>(id);
  return true;
}

// True when the first slice encloses the second on the same track: it is
// shallower, starts no later and ends no earlier (or never ended). NULL
// when either id names no slice.
void SliceIsAncestor(sqlite3_context* ctx, int, sqlite3_value** argv) {
  for (int i = 0; i < 2; i++) {
    const int type = sqlite3_value_type(argv[i]);
    if (type != SQLITE_INTEGER && type != SQLITE_NULL) {
      sqlite3_result_error(ctx, i == 0 ? "slice_is_ancestor: the ancestor id (1st argument) "
                                         "must be an integer"
                                       : "slice_is_ancestor: the descendant id (2nd argument) "
                                         "must be an integer",
                           -1);
      return;
    }
  }
  const SliceTable& slice = static_cast<FunctionContext*>(sqlite3_user_data(ctx))->storage().slice;
  size_t a = 0, d = 0;
  if (!SliceRow(argv[0], slice, &a) || !SliceRow(argv[1], slice, &d))
    return;
  const bool encloses =
      slice.track_id[a] == slice.track_id[d] && slice.depth[a] < slice.depth[d] &&
      slice.ts[a] <= slice.ts[d] &&
      (slice.dur[a] == -1 || slice.ts[a] + slice.dur[a] >= slice.ts[d] + slice.dur[d]);
  sqlite3_result_int(ctx, encloses ? 1 : 0);
}

// Its parent, the parent's parent, ... up to the root; root first.
bool AncestorRows(void* data, sqlite3_value* arg, std::vector<uint32_t>* rows,
                  std::string* error) {
  const SliceTable& slice = static_cast<FunctionContext*>(data)->storage().slice;
  size_t row = 0;
  if (!StartSlice(slice, arg, &row, error))
    return false;
  // Parents precede their children (parent_id < id), so the walk ends; the
  // guard keeps a corrupt chain from looping.
  for (uint32_t parent = slice.parent_id[row]; parent != kNullId && parent < row;
       parent = slice.parent_id[parent]) {
    rows->push_back(parent);
    row = parent;
  }
  std::reverse(rows->begin(), rows->end());
  return true;
}

bool DescendantRows(void* data, sqlite3_value* arg, std::vector<uint32_t>* rows,
                    std::string* error) {
  auto* context = static_cast<FunctionContext*>(data);
  size_t start = 0;
  if (!StartSlice(context->storage().slice, arg, &start, error))
    return false;
  AppendDescendants(context, start, rows);
  return true;
}

// Every slice of `stack_id`, in id order: a scan (stack ids are not kept).
std::vector<uint32_t> SlicesOfStack(const TraceStorage& storage, int64_t stack_id) {
  std::vector<uint32_t> rows;
  for (uint32_t row = 0; row < storage.slice.size(); ++row) {
    if (SliceStackId(storage, row) == stack_id)
      rows.push_back(row);
  }
  return rows;
}

bool StackIdArg(sqlite3_value* arg, int64_t* stack_id, std::string* error) {
  if (sqlite3_value_type(arg) != SQLITE_INTEGER) {
    *error = "the stack id must be an integer";
    return false;
  }
  *stack_id = sqlite3_value_int64(arg);
  return true;
}

void SortUnique(std::vector<uint32_t>* rows) {
  std::sort(rows->begin(), rows->end());
  rows->erase(std::unique(rows->begin(), rows->end()), rows->end());
}

bool AncestorRowsByStack(void* data, sqlite3_value* arg, std::vector<uint32_t>* rows,
                         std::string* error) {
  const TraceStorage& storage = static_cast<FunctionContext*>(data)->storage();
  int64_t stack_id = 0;
  if (!StackIdArg(arg, &stack_id, error))
    return false;
  for (uint32_t row : SlicesOfStack(storage, stack_id)) {
    for (uint32_t parent = storage.slice.parent_id[row]; parent != kNullId && parent < row;
         parent = storage.slice.parent_id[parent]) {
      rows->push_back(parent);
      row = parent;
    }
  }
  SortUnique(rows);
  return true;
}

bool DescendantRowsByStack(void* data, sqlite3_value* arg, std::vector<uint32_t>* rows,
                           std::string* error) {
  auto* context = static_cast<FunctionContext*>(data);
  int64_t stack_id = 0;
  if (!StackIdArg(arg, &stack_id, error))
    return false;
  for (uint32_t row : SlicesOfStack(context->storage(), stack_id))
    AppendDescendants(context, row, rows);
  SortUnique(rows);
  return true;
}

}  // namespace

int64_t SliceStackId(const TraceStorage& storage, uint32_t row) {
  const SliceTable& slice = storage.slice;
  // FNV-1a over the stack from the root: the chain is walked up, then
  // hashed down.
  uint32_t chain[64];
  size_t depth = 0;
  for (uint32_t at = row; at != kNullId && depth < 64; at = slice.parent_id[at]) {
    chain[depth++] = at;
    if (slice.parent_id[at] != kNullId && slice.parent_id[at] >= at)
      break;  // A corrupt chain ends here.
  }
  uint64_t hash = 14695981039346656037ull;
  auto mix = [&hash](std::string_view text) {
    for (char c : text)
      hash = (hash ^ static_cast<uint8_t>(c)) * 1099511628211ull;
    hash = (hash ^ 0xFF) * 1099511628211ull;  // Ends each string.
  };
  while (depth > 0) {
    const uint32_t at = chain[--depth];
    mix(slice.category[at] == kNullStringId ? std::string_view()
                                            : storage.strings.Get(slice.category[at]));
    mix(slice.name[at] == kNullStringId ? std::string_view() : storage.strings.Get(slice.name[at]));
  }
  return static_cast<int64_t>(hash & 0x7FFFFFFFFFFFFFFFull);
}

int64_t SliceParentStackId(const TraceStorage& storage, uint32_t row) {
  const uint32_t parent = storage.slice.parent_id[row];
  return parent == kNullId || parent >= row ? 0 : SliceStackId(storage, parent);
}

bool StartSlice(const SliceTable& slice, sqlite3_value* arg, size_t* row, std::string* error) {
  if (sqlite3_value_type(arg) != SQLITE_INTEGER) {
    *error = "the slice id must be an integer";
    return false;
  }
  if (!SliceRow(arg, slice, row)) {
    *error = "no slice has id " + std::to_string(sqlite3_value_int64(arg));
    return false;
  }
  return true;
}

// The descendants are on its track, after it, and start before it ends
// (an unfinished slice: up to the track's end); of those, the ones whose
// parent chain reaches it.
void AppendDescendants(FunctionContext* context, size_t start, std::vector<uint32_t>* rows) {
  const SliceTable& slice = context->storage().slice;
  const int64_t end = slice.dur[start] < 0 ? std::numeric_limits<int64_t>::max()
                                           : slice.ts[start] + slice.dur[start];
  const RowsByKey::Rows track = context->slices_by_track().Get(slice.track_id[start]);
  const uint32_t* it = std::upper_bound(track.begin(), track.end(), static_cast<uint32_t>(start));
  for (; it != track.end() && slice.ts[*it] <= end; ++it) {
    // Up the chain while deeper than the start slice.
    uint32_t up = *it;
    while (up != kNullId && up > start && slice.depth[up] > slice.depth[start])
      up = slice.parent_id[up];
    if (up == start)
      rows->push_back(*it);
  }
}

bool RegisterSliceFunctions(sqlite3* db, FunctionContext* context, std::string* error) {
  if (sqlite3_create_function_v2(db, "slice_is_ancestor", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                 context, SliceIsAncestor, nullptr, nullptr,
                                 nullptr) != SQLITE_OK) {
    *error = std::string("cannot register slice_is_ancestor: ") + sqlite3_errmsg(db);
    return false;
  }
  return RegisterSubsetFunctions(db, context, "slice",
                                 {{"ancestor_slice", AncestorRows},
                                  {"descendant_slice", DescendantRows},
                                  {"ancestor_slice_by_stack", AncestorRowsByStack},
                                  {"descendant_slice_by_stack", DescendantRowsByStack}},
                                 error);
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
