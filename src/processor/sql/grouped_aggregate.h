// A fast path for the most common analysis query: one table grouped by one
// key column, with counts, sums, minima and maxima:
//
//   SELECT name, COUNT(*) AS n, SUM(dur) FROM slice GROUP BY name
//     [ORDER BY n DESC] [LIMIT 10]
//
// SQLite runs it at ~65 ns a row (a virtual-table call per column per row,
// an aggregate step per row); this walks the key column's index (rows
// grouped by key, keys in SQLite's order) and sums the columns' values in
// that order, a few ns a row. The rows, their order and the column names
// are SQLite's: the shape is recognised strictly and anything else (a
// WHERE, HAVING, join, expression, DISTINCT, AVG, a SUM over reals, an
// integer SUM that overflows, a key without an index, a name a table or
// view of the session hides, an ORDER BY that does not reach the key, whose ties
// SQLite orders its own way) is left to SQLite, which gives the same
// answer slower.
//
// Thread-compatible, as the engine.

#ifndef ZT_SRC_PROCESSOR_SQL_GROUPED_AGGREGATE_H_
#define ZT_SRC_PROCESSOR_SQL_GROUPED_AGGREGATE_H_

#include <string>
#include <string_view>
#include <vector>

#include "src/processor/sql/column_table.h"
#include "zt/processor/trace_processor.h"

namespace zt {
namespace processor {
namespace sql {

struct GroupedAggregateResult {
  std::vector<std::string> columns;
  std::vector<std::vector<SqlValue>> rows;
};

// Finds the table named in `statement` (nullptr: not ours).
using FindTableFn = ColumnTable* (*)(void* data, std::string_view name);

// True, with *result, if `statement` (one SQL statement) has the shape
// above over a table `find` knows and was computed here; false if SQLite
// must run it (nothing is computed then).
bool TryGroupedAggregate(std::string_view statement, FindTableFn find, void* data,
                         GroupedAggregateResult* result);

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_GROUPED_AGGREGATE_H_
