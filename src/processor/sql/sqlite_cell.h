// A Cell (column_table.h) as an SQLite result: text views are handed over
// as static (they point into the string pool or static storage, which
// outlive every statement of the connection).

#ifndef ZT_SRC_PROCESSOR_SQL_SQLITE_CELL_H_
#define ZT_SRC_PROCESSOR_SQL_SQLITE_CELL_H_

#include <sqlite3.h>

#include "src/processor/sql/column_table.h"

namespace zt {
namespace processor {
namespace sql {

inline void ResultCell(sqlite3_context* ctx, const Cell& cell) {
  switch (cell.type) {
    case Cell::kNull:
      sqlite3_result_null(ctx);
      break;
    case Cell::kInt:
      sqlite3_result_int64(ctx, cell.i);
      break;
    case Cell::kReal:
      sqlite3_result_double(ctx, cell.d);
      break;
    case Cell::kText:
      sqlite3_result_text(ctx, cell.text.data(), static_cast<int>(cell.text.size()),
                          SQLITE_STATIC);
      break;
  }
}

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_SQLITE_CELL_H_
