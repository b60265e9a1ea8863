// slice_is_ancestor(ancestor_id, descendant_id).

#include <sqlite3.h>

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

}  // namespace

bool RegisterSliceFunctions(sqlite3* db, FunctionContext* context, std::string* error) {
  if (sqlite3_create_function_v2(db, "slice_is_ancestor", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                 context, SliceIsAncestor, nullptr, nullptr,
                                 nullptr) != SQLITE_OK) {
    *error = std::string("cannot register slice_is_ancestor: ") + sqlite3_errmsg(db);
    return false;
  }
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
