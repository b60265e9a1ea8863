// A table-valued function whose rows a C++ function computes from its
// arguments: `SELECT * FROM __zt_graph_search('dfs', edges, starts)`.
// Registered as an eponymous virtual table with the declared columns and
// one hidden column per argument. The operators behind the standard
// library's macros (graph search, interval intersection) are such
// functions: the macros hand them their inputs packed by an aggregate
// (packed_rows.h) and rename the columns.
//
// Every argument must be given (a call that leaves one out fails naming
// the function and its arguments). The rows are computed once per call
// (per scan), held in memory while the scan lasts, and delivered in the
// order the function made them. Thread-compatible, as the connection.

#ifndef ZT_SRC_PROCESSOR_SQL_OPERATORS_COMPUTED_TABLE_FUNCTION_H_
#define ZT_SRC_PROCESSOR_SQL_OPERATORS_COMPUTED_TABLE_FUNCTION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct sqlite3;
struct sqlite3_value;

namespace zt {
namespace processor {
namespace sql {

// One cell of a computed row.
struct ComputedValue {
  enum Type : uint8_t { kNull, kInt, kReal, kText };
  Type type = kNull;
  int64_t i = 0;
  double d = 0;
  std::string text;

  static ComputedValue Null() { return ComputedValue(); }
  static ComputedValue Int(int64_t v) {
    ComputedValue value;
    value.type = kInt;
    value.i = v;
    return value;
  }
};

struct ComputedTableFunction {
  // Fills `rows` (each of columns.size() cells) from the `args` (one per
  // declared argument, in order); false with `error` (shown after
  // "<name>: ") for arguments it refuses. `data` is the function's.
  using ComputeFn = bool (*)(void* data, sqlite3_value** args,
                             std::vector<std::vector<ComputedValue>>* rows, std::string* error);

  std::string name;
  std::vector<std::string> columns;
  std::vector<std::string> args;  // The hidden columns' names.
  ComputeFn compute = nullptr;
  void* data = nullptr;
};

// `function` must outlive the connection. False with *error if SQLite
// refuses the module.
bool RegisterComputedTableFunction(sqlite3* db, const ComputedTableFunction* function,
                                   std::string* error);
// The same for a function the connection owns (one whose `data` is the
// connection's own, say): freed with it.
bool RegisterComputedTableFunction(sqlite3* db, std::unique_ptr<ComputedTableFunction> function,
                                   std::string* error);

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_OPERATORS_COMPUTED_TABLE_FUNCTION_H_
