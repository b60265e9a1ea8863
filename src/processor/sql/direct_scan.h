// A fast path for reading a table's columns as they are, the query of a
// notebook or an export (and of `ztrace serve`'s clients):
//
//   SELECT id, ts, dur, name FROM slice [LIMIT n [OFFSET m]]
//   SELECT * FROM counter
//
// SQLite hands such rows over at ~3,000 instructions a row of 4 columns
// (its virtual machine, a virtual-table call per cell, its column API);
// this reads the cells from the columns directly, in row order as
// SQLite's scan of the table does. The rows, their order, their values and
// the column names are SQLite's: the shape is recognised strictly (plain
// column names, `*`, aliases, `table.column`, one table that is one of
// the trace's, not hidden by a table or view of the session) and anything
// else (a WHERE, ORDER BY, expression, function, join, DISTINCT, a LIMIT
// that is not a plain number) is left to SQLite, which gives the same
// answer slower. Tests compare the two on every table.
//
// Thread-compatible, as the engine.

#ifndef ZT_SRC_PROCESSOR_SQL_DIRECT_SCAN_H_
#define ZT_SRC_PROCESSOR_SQL_DIRECT_SCAN_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "src/processor/sql/column_table.h"
#include "src/processor/sql/grouped_aggregate.h"

namespace zt {
namespace processor {
namespace sql {

struct DirectScan {
  const ColumnTable* table = nullptr;
  std::vector<size_t> columns;     // The table's columns, in output order.
  std::vector<std::string> names;  // The output columns' names, as SQLite gives them.
  uint64_t offset = 0;
  uint64_t limit = UINT64_MAX;

  // The rows the statement returns: [begin, end) of the table's.
  uint32_t begin_row() const;
  uint32_t end_row() const;
};

// True, with *scan, if `statement` (one SQL statement) has the shape above
// over a table `find` knows; false if SQLite must run it.
bool ParseDirectScan(std::string_view statement, FindTableFn find, void* data, DirectScan* scan);

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_DIRECT_SCAN_H_
