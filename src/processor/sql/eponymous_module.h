// What the SQL layer's table-valued functions (row_subset_function.cc,
// perfetto_table_functions.cc, operators/computed_table_function.cc) write
// the same way: an eponymous, read-only SQLite module whose vtab and cursor
// objects are C++ objects, whose cursor walks a vector of rows, whose
// arguments are hidden columns that must all be given, and whose errors
// are messages.

#ifndef ZT_SRC_PROCESSOR_SQL_EPONYMOUS_MODULE_H_
#define ZT_SRC_PROCESSOR_SQL_EPONYMOUS_MODULE_H_

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace zt {
namespace processor {
namespace sql {

// Makes `message` the statement's error; returns SQLITE_ERROR.
inline int VtabError(sqlite3_vtab* vtab, const std::string& message) {
  sqlite3_free(vtab->zErrMsg);
  vtab->zErrMsg = sqlite3_mprintf("%s", message.c_str());
  return SQLITE_ERROR;
}

// A column of a table function's schema: its name, and its declared type
// (may be empty).
struct SchemaColumn {
  std::string name;
  std::string type;
};

// Declares a table function's table (its result columns, then its
// arguments as HIDDEN columns) and makes its vtab, a `Table` whose
// `function` member is set to `function`.
template <typename Table, typename Function>
int ConnectTableFunction(sqlite3* db, Function* function, const std::vector<SchemaColumn>& columns,
                         const std::vector<SchemaColumn>& args, sqlite3_vtab** out) {
  std::string schema = "CREATE TABLE x(";
  for (const SchemaColumn& column : columns)
    schema += "\"" + column.name + "\" " + column.type + ", ";
  for (const SchemaColumn& arg : args)
    schema += "\"" + arg.name + "\" " + arg.type + " HIDDEN, ";
  schema.resize(schema.size() - 2);
  schema += ")";
  const int rc = sqlite3_declare_vtab(db, schema.c_str());
  if (rc != SQLITE_OK)
    return rc;
  auto table = std::make_unique<Table>();
  table->function = function;
  *out = table.release();
  return SQLITE_OK;
}

// xBestIndex of a table function whose `args` arguments (the hidden
// columns from `first_arg` on; at most 32) must all be given by equality:
// such a plan is cheap (idxNum 1, `cost` and as many rows); any other is
// offered at a prohibitive cost with no argument used (idxNum 0), so that
// xFilter can say which arguments are missing rather than SQLite's "no
// query solution". An argument constrained twice is passed once.
inline int BestIndexWithEveryArgument(sqlite3_index_info* info, int first_arg, int args,
                                      double cost) {
  uint32_t given = 0;
  for (int i = 0; i < info->nConstraint; i++) {
    const auto& c = info->aConstraint[i];
    if (c.iColumn >= first_arg && c.iColumn < first_arg + args &&
        c.op == SQLITE_INDEX_CONSTRAINT_EQ && c.usable &&
        !(given & (1u << (c.iColumn - first_arg)))) {
      info->aConstraintUsage[i].argvIndex = c.iColumn - first_arg + 1;
      info->aConstraintUsage[i].omit = 1;
      given |= 1u << (c.iColumn - first_arg);
    }
  }
  const bool all = given == (args == 32 ? ~0u : (1u << args) - 1);
  if (!all) {
    // argvIndex values may leave no gaps: use none.
    for (int i = 0; i < info->nConstraint; i++) {
      info->aConstraintUsage[i].argvIndex = 0;
      info->aConstraintUsage[i].omit = 0;
    }
  }
  info->idxNum = all ? 1 : 0;
  info->estimatedCost = all ? cost : 1e30;
  info->estimatedRows = all ? static_cast<sqlite3_int64>(cost) : 1000000000;
  return SQLITE_OK;
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
