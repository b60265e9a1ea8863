// A table-valued function whose rows are some rows of a ColumnTable, chosen
// by one argument: `SELECT * FROM ancestor_slice(12)` has the columns of
// `slice` and the rows the function picks. Registered as an eponymous
// virtual table whose hidden column takes the argument.
//
// The argument may come from another table (`FROM slice s JOIN
// ancestor_slice(s.id)`); a query that never gives it fails with an error
// naming the function, and so does any error the function reports (an id
// that names no row). The rows are delivered in the order given.
// Thread-compatible, as the connection.

#ifndef ZT_SRC_PROCESSOR_SQL_ROW_SUBSET_FUNCTION_H_
#define ZT_SRC_PROCESSOR_SQL_ROW_SUBSET_FUNCTION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "src/processor/sql/column_table.h"

struct sqlite3;
struct sqlite3_value;

namespace zt {
namespace processor {
namespace sql {

struct RowSubsetFunction {
  // Fills `rows` for `arg` (never NULL: a NULL argument gives no rows);
  // false with `error` (shown after "<name>: ") for an argument it refuses.
  using RowsFn = bool (*)(void* data, sqlite3_value* arg, std::vector<uint32_t>* rows,
                          std::string* error);

  std::string name;      // The function's SQL name.
  std::string arg_name;  // Its hidden argument column.
  const ColumnTable* source = nullptr;
  RowsFn rows = nullptr;
  void* data = nullptr;  // Handed to `rows`.
};

// `function` must outlive the connection. False with *error if SQLite
// refuses the module.
bool RegisterRowSubsetFunction(sqlite3* db, const RowSubsetFunction* function,
                               std::string* error);

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_ROW_SUBSET_FUNCTION_H_
