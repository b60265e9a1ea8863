// PerfettoSQL's built-in functions (docs/design/perfetto_sql.md), registered
// on a QueryEngine's SQLite connection:
//
//   EXTRACT_ARG(arg_set_id, key)            args_functions.cc
//   trace_start(), trace_end(), trace_dur() trace_bounds_functions.cc
//   slice_is_ancestor(ancestor_id, id)      slice_functions.cc
//   ancestor_slice(id), descendant_slice(id) (tables) slice_functions.cc
//   DIRECTLY_CONNECTED_FLOW(id), FOLLOWING_FLOW(id), PRECEDING_FLOW(id)
//                                            (tables) flow_functions.cc
//   experimental_slice_layout(track_ids)     (table) slice_layout_function.cc
//   TO_REALTIME(ts), TO_MONOTONIC(ts), ABS_TIME_STR(ts) clock_functions.cc
//   PRINT_ARGS(arg_set_id)                  args_functions.cc
//
// Each takes what it reads from a FunctionContext, which the engine owns
// and which must outlive the connection. Thread-compatible, as the
// connection.

#ifndef ZT_SRC_PROCESSOR_SQL_FUNCTIONS_FUNCTIONS_H_
#define ZT_SRC_PROCESSOR_SQL_FUNCTIONS_FUNCTIONS_H_

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>

#include <vector>

#include "src/processor/sql/operators/computed_table_function.h"
#include "src/processor/sql/row_subset_function.h"
#include "src/processor/sql/storage_tables.h"
#include "src/processor/storage/arg_set_index.h"
#include "src/processor/storage/rows_by_key.h"
#include "src/processor/storage/trace_storage.h"

struct sqlite3;

namespace zt {
namespace processor {
namespace sql {

// The storage the functions read, and the indexes they build at their
// first call (a query that never calls EXTRACT_ARG never pays for its
// index).
class FunctionContext {
 public:
  struct Bounds {
    int64_t start = 0;
    int64_t end = 0;
  };

  // `storage` and `tables` (its tables as SQL sees them, whose columns the
  // table functions return) must outlive the context and not change.
  FunctionContext(const TraceStorage* storage, const StorageTables* tables)
      : storage_(storage), tables_(tables) {}

  const TraceStorage& storage() const { return *storage_; }
  // The table named `name` (nullptr if none).
  const ColumnTable* table(const std::string& name) const;
  // The args grouped by set. O(args) at the first call, O(1) after.
  const ArgSetIndex& arg_index();
  // The slices grouped by track, in id (and so time) order. O(slices) at
  // the first call, O(1) after.
  const RowsByKey& slices_by_track();
  // The flows grouped by their outgoing / incoming slice. O(flows) at the
  // first call, O(1) after.
  const RowsByKey& flows_by_slice_out();
  const RowsByKey& flows_by_slice_in();
  // The first timestamp and the last end (ts + max(dur, 0)) of any slice or
  // counter; {0, 0} if there is none; an interval of one instant is widened
  // to 1 ns (as upstream's, so that trace_dur() is never 0). O(slices +
  // counters) at the first call, O(1) after.
  Bounds bounds();

  // Keeps a table function's description alive as long as the connection.
  const RowSubsetFunction* Keep(std::unique_ptr<RowSubsetFunction> function) {
    table_functions_.push_back(std::move(function));
    return table_functions_.back().get();
  }
  const ComputedTableFunction* Keep(std::unique_ptr<ComputedTableFunction> function) {
    computed_functions_.push_back(std::move(function));
    return computed_functions_.back().get();
  }

  // A clock's value (clock_snapshot's clock_value) by the trace time of
  // each snapshot holding it (the first snapshot at a time wins), for
  // TO_REALTIME and the like. O(snapshots) at the first call per clock.
  const std::map<int64_t, int64_t>& clock_timeline(int64_t clock_id);

  // experimental_slice_layout's recent layouts, by argument, oldest first.
  using SliceLayouts =
      std::vector<std::pair<std::string, std::vector<std::vector<ComputedValue>>>>;
  SliceLayouts& slice_layouts() { return slice_layouts_; }

 private:
  const TraceStorage* const storage_;
  const StorageTables* const tables_;
  std::unique_ptr<ArgSetIndex> arg_index_;
  std::unique_ptr<RowsByKey> slices_by_track_;
  std::unique_ptr<RowsByKey> flows_by_slice_out_;
  std::unique_ptr<RowsByKey> flows_by_slice_in_;
  std::unique_ptr<Bounds> bounds_;
  std::vector<std::unique_ptr<RowSubsetFunction>> table_functions_;
  std::vector<std::unique_ptr<ComputedTableFunction>> computed_functions_;
  SliceLayouts slice_layouts_;
  std::map<int64_t, std::map<int64_t, int64_t>> clock_timelines_;
};

// Each registers its functions on `db`; false with *error (SQLite's
// message) if SQLite refuses one.
bool RegisterArgFunctions(sqlite3* db, FunctionContext* context, std::string* error);
bool RegisterTraceBoundsFunctions(sqlite3* db, FunctionContext* context, std::string* error);
bool RegisterSliceFunctions(sqlite3* db, FunctionContext* context, std::string* error);
bool RegisterFlowFunctions(sqlite3* db, FunctionContext* context, std::string* error);
bool RegisterSliceLayoutFunction(sqlite3* db, FunctionContext* context, std::string* error);
// INTERNAL_LAYOUT(ts, dur) OVER (...): depths for overlapping spans.
bool RegisterLayoutWindowFunction(sqlite3* db, std::string* error);
// EXTRACT_METADATA and its _FOR_TRACE, _FOR_MACHINE forms.
bool RegisterMetadataFunctions(sqlite3* db, FunctionContext* context, std::string* error);
// TO_REALTIME, TO_MONOTONIC, ABS_TIME_STR.
bool RegisterClockFunctions(sqlite3* db, FunctionContext* context, std::string* error);
// STR_SPLIT, HASH, TO_TIMECODE, REVERSE, BASE64_*, UNHEX, DEMANGLE:
// functions of their arguments alone; and the aggregate STRING_AGG where
// SQLite has none.
bool RegisterStringFunctions(sqlite3* db, std::string* error);
// REGEXP (2 and 3 arguments), REGEXP_EXTRACT, REGEXP_REPLACE_SIMPLE.
bool RegisterRegexFunctions(sqlite3* db, std::string* error);
// percentile_functions.cc: PERCENTILE, PERCENTILE_CONT, MEDIAN.
bool RegisterPercentileFunctions(sqlite3* db, std::string* error);

// Registers table functions over the table named `table`: each one's rows
// are that table's rows `rows` picks, given the context as its data.
struct SubsetFunctionSpec {
  const char* name;
  RowSubsetFunction::RowsFn rows;
};
bool RegisterSubsetFunctions(sqlite3* db, FunctionContext* context, const char* table,
                             std::initializer_list<SubsetFunctionSpec> functions,
                             std::string* error);

// For the table functions: the slice an SQL value names, or an error
// ("the slice id must be an integer", "no slice has id 12"). A NULL value
// never reaches them (it gives no rows).
bool StartSlice(const SliceTable& slice, sqlite3_value* arg, size_t* row, std::string* error);
// Appends every slice whose parent chain reaches `row`, in id order.
void AppendDescendants(FunctionContext* context, size_t row, std::vector<uint32_t>* rows);

// A slice's stack id: a hash of the categories and names of the slice and
// its ancestors, root first (upstream's `stack_id`: equal for slices at the
// same place in the same kind of stack; an opaque, non-negative number).
// Cost: O(depth). parent_stack_id: its parent's, 0 at depth 0.
int64_t SliceStackId(const TraceStorage& storage, uint32_t row);
int64_t SliceParentStackId(const TraceStorage& storage, uint32_t row);

// All of the above.
bool RegisterBuiltinFunctions(sqlite3* db, FunctionContext* context, std::string* error);

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_FUNCTIONS_FUNCTIONS_H_
