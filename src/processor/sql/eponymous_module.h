// What the SQL layer's table-valued functions (row_subset_function.cc,
// perfetto_table_functions.cc) write the same way: an eponymous, read-only
// SQLite module whose vtab and cursor objects are C++ objects, whose
// cursor walks a vector of rows, and whose errors are messages.

#ifndef ZT_SRC_PROCESSOR_SQL_EPONYMOUS_MODULE_H_
#define ZT_SRC_PROCESSOR_SQL_EPONYMOUS_MODULE_H_

#include <sqlite3.h>

#include <string>

namespace zt {
namespace processor {
namespace sql {

// Makes `message` the statement's error; returns SQLITE_ERROR.
inline int VtabError(sqlite3_vtab* vtab, const std::string& message) {
  sqlite3_free(vtab->zErrMsg);
  vtab->zErrMsg = sqlite3_mprintf("%s", message.c_str());
  return SQLITE_ERROR;
}

// `Table` derives from sqlite3_vtab (made by Connect, deleted here);
// `Cursor` from sqlite3_vtab_cursor, default-constructible, with a `rows`
// container and a `pos` into it.
template <typename Table, typename Cursor>
struct EponymousModule {
  using ConnectFn = int (*)(sqlite3*, void*, int, const char* const*, sqlite3_vtab**, char**);
  using BestIndexFn = int (*)(sqlite3_vtab*, sqlite3_index_info*);
  using FilterFn = int (*)(sqlite3_vtab_cursor*, int, const char*, int, sqlite3_value**);
  using ColumnFn = int (*)(sqlite3_vtab_cursor*, sqlite3_context*, int);
  using RowIdFn = int (*)(sqlite3_vtab_cursor*, sqlite3_int64*);

  static sqlite3_module Make(ConnectFn connect, BestIndexFn best_index, FilterFn filter,
                             ColumnFn column, RowIdFn row_id) {
    sqlite3_module module = {};
    module.xCreate = nullptr;  // Eponymous only: no CREATE VIRTUAL TABLE.
    module.xConnect = connect;
    module.xBestIndex = best_index;
    module.xDisconnect = Disconnect;
    module.xDestroy = Disconnect;
    module.xOpen = Open;
    module.xClose = Close;
    module.xFilter = filter;
    module.xNext = Next;
    module.xEof = Eof;
    module.xColumn = column;
    module.xRowid = row_id;
    return module;
  }

  static int Disconnect(sqlite3_vtab* vtab) {
    delete static_cast<Table*>(vtab);
    return SQLITE_OK;
  }
  static int Open(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
    *out = new Cursor();
    return SQLITE_OK;
  }
  static int Close(sqlite3_vtab_cursor* cursor) {
    delete static_cast<Cursor*>(cursor);
    return SQLITE_OK;
  }
  static int Next(sqlite3_vtab_cursor* cursor) {
    static_cast<Cursor*>(cursor)->pos++;
    return SQLITE_OK;
  }
  static int Eof(sqlite3_vtab_cursor* base) {
    const Cursor& cursor = *static_cast<Cursor*>(base);
    return cursor.pos >= cursor.rows.size();
  }
};

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_EPONYMOUS_MODULE_H_
