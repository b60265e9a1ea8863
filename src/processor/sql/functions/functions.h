// PerfettoSQL's built-in functions (docs/design/perfetto_sql.md), registered
// on a QueryEngine's SQLite connection:
//
//   EXTRACT_ARG(arg_set_id, key)            args_functions.cc
//   trace_start(), trace_end(), trace_dur() trace_bounds_functions.cc
//   slice_is_ancestor(ancestor_id, id)      slice_functions.cc
//
// Each takes what it reads from a FunctionContext, which the engine owns
// and which must outlive the connection. Thread-compatible, as the
// connection.

#ifndef ZT_SRC_PROCESSOR_SQL_FUNCTIONS_FUNCTIONS_H_
#define ZT_SRC_PROCESSOR_SQL_FUNCTIONS_FUNCTIONS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "src/processor/storage/arg_set_index.h"
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

  // `storage` must outlive the context and not change.
  explicit FunctionContext(const TraceStorage* storage) : storage_(storage) {}

  const TraceStorage& storage() const { return *storage_; }
  // The args grouped by set. O(args) at the first call, O(1) after.
  const ArgSetIndex& arg_index();
  // The first timestamp and the last end (ts + max(dur, 0)) of any slice or
  // counter; {0, 0} if there is none; an interval of one instant is widened
  // to 1 ns (as upstream's, so that trace_dur() is never 0). O(slices +
  // counters) at the first call, O(1) after.
  Bounds bounds();

 private:
  const TraceStorage* const storage_;
  std::unique_ptr<ArgSetIndex> arg_index_;
  std::unique_ptr<Bounds> bounds_;
};

// Each registers its functions on `db`; false with *error (SQLite's
// message) if SQLite refuses one.
bool RegisterArgFunctions(sqlite3* db, FunctionContext* context, std::string* error);
bool RegisterTraceBoundsFunctions(sqlite3* db, FunctionContext* context, std::string* error);
bool RegisterSliceFunctions(sqlite3* db, FunctionContext* context, std::string* error);

// All of the above.
bool RegisterBuiltinFunctions(sqlite3* db, FunctionContext* context, std::string* error);

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_FUNCTIONS_FUNCTIONS_H_
