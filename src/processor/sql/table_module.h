// Exposes a ColumnTable to SQLite as an eponymous virtual table (usable by
// its name, like a real table, with no CREATE VIRTUAL TABLE), read-only.
//
// What the query planner is offered (xBestIndex), cheapest first:
//   * `id = ?` (the row id): one row;
//   * ranges and equality on the row id and on a sorted column (`ts
//     BETWEEN a AND b`): a binary search, then the rows in between;
//   * `col = ?` on a key column (track_id, utid, name, ...): the rows of an
//     index built on first use (O(rows), then kept);
//   * ORDER BY (one column, either direction) on the row id or a sorted
//     column comes for free; on a key column it is served from the same
//     index, which is also what lets `GROUP BY name` stream groups instead
//     of sorting every row (orderByConsumed); for `SELECT DISTINCT col`
//     (sqlite3_vtab_distinct) only the first row of each key is returned.
// Every constraint is still checked by SQLite (omit is never set): the
// table only narrows the rows, so a value of an unexpected type (text
// compared with an integer column) can never lose a row.

#ifndef ZT_SRC_PROCESSOR_SQL_TABLE_MODULE_H_
#define ZT_SRC_PROCESSOR_SQL_TABLE_MODULE_H_

#include <string>

#include "src/processor/sql/column_table.h"

struct sqlite3;

namespace zt {
namespace processor {
namespace sql {

// Registers `table` under table->name() in `db`. `table` must outlive the
// connection (or its last use). False with *error if SQLite refuses.
bool RegisterColumnTable(sqlite3* db, ColumnTable* table, std::string* error);

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_TABLE_MODULE_H_
