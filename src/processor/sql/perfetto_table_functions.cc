// Functions that `RETURNS TABLE(...)`: each is an eponymous virtual table
// with the declared columns and one hidden column per argument; a call
// (`SELECT * FROM f(1, 'x')`, or `JOIN f(s.id)`) binds the arguments by
// name into the body, runs it and serves the rows it made (copied: the
// body's statement is reset before the rows are read out).

#include <sqlite3.h>

#include <algorithm>
#include <memory>

#include "src/processor/sql/eponymous_module.h"
#include "src/processor/sql/perfetto_functions.h"

namespace zt {
namespace processor {
namespace sql {
// Named, not anonymous: the unity build puts other modules in this unit.
namespace perfetto_table_function {

using Function = PerfettoFunctions::Function;

struct Table : sqlite3_vtab {
  Function* function = nullptr;
};

struct Cursor : sqlite3_vtab_cursor {
  std::vector<std::vector<sqlite3_value*>> rows;
  std::vector<sqlite3_value*> args;
  size_t pos = 0;

  void Clear() {
    for (auto& row : rows) {
      for (sqlite3_value* v : row)
        sqlite3_value_free(v);
    }
    rows.clear();
    for (sqlite3_value* v : args)
      sqlite3_value_free(v);
    args.clear();
    pos = 0;
  }
  ~Cursor() { Clear(); }
};

Function& FunctionOf(sqlite3_vtab* vtab) {
  return *static_cast<Table*>(vtab)->function;
}

int Connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
  auto* function = static_cast<Function*>(aux);
  std::vector<SchemaColumn> columns, args;
  for (const std::string& column : function->columns)
    columns.push_back(SchemaColumn{column, ""});
  // An argument's hidden column is named after it, unless a result column
  // has that name (upstream's functions take `dur` and return `dur`): then
  // it keeps its `$`, as SQLite refuses two columns of one name. Calls
  // pass arguments by position, so the name only shows in constraints.
  for (const std::string& arg : function->args) {
    const std::string bare = arg.substr(1);
    const bool clashes = std::any_of(
        function->columns.begin(), function->columns.end(), [&bare](const std::string& column) {
          return sqlite3_stricmp(column.c_str(), bare.c_str()) == 0;
        });
    args.push_back(SchemaColumn{clashes ? arg : bare, ""});
  }
  return ConnectTableFunction<Table>(db, function, columns, args, out);
}

int BestIndex(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  const Function& function = FunctionOf(vtab);
  return BestIndexWithEveryArgument(info, static_cast<int>(function.columns.size()),
                                    static_cast<int>(function.args.size()), 1000);
}

int Filter(sqlite3_vtab_cursor* base, int idx_num, const char*, int argc, sqlite3_value** argv) {
  Cursor& cursor = *static_cast<Cursor*>(base);
  Function& function = FunctionOf(cursor.pVtab);
  cursor.Clear();
  if (idx_num != 1 || static_cast<size_t>(argc) != function.args.size()) {
    std::string names;
    for (const std::string& arg : function.args)
      names += (names.empty() ? "" : ", ") + arg.substr(1);
    return VtabError(cursor.pVtab, function.name + ": needs its " +
                                  std::to_string(function.args.size()) + " argument(s), as in " +
                                  function.name + "(" + names + ")");
  }
  sqlite3_stmt* stmt = nullptr;
  std::string error;
  if (!PerfettoFunctions::PrepareBody(&function, &stmt, &error))
    return VtabError(cursor.pVtab, error);
  for (int i = 0; i < argc; i++) {
    const int index =
        sqlite3_bind_parameter_index(stmt, function.args[static_cast<size_t>(i)].c_str());
    if (index > 0)
      sqlite3_bind_value(stmt, index, argv[i]);
  }
  const int columns = static_cast<int>(function.columns.size());
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    std::vector<sqlite3_value*> row(static_cast<size_t>(columns));
    for (int c = 0; c < columns; c++)
      row[static_cast<size_t>(c)] = sqlite3_value_dup(sqlite3_column_value(stmt, c));
    cursor.rows.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) {
    const std::string message = function.name + ": " + sqlite3_errmsg(function.db);
    sqlite3_finalize(stmt);
    return VtabError(cursor.pVtab, message);
  }
  sqlite3_finalize(stmt);
  for (int i = 0; i < argc; i++)
    cursor.args.push_back(sqlite3_value_dup(argv[i]));
  return SQLITE_OK;
}

int ColumnValue(sqlite3_vtab_cursor* base, sqlite3_context* ctx, int col) {
  const Cursor& cursor = *static_cast<Cursor*>(base);
  const size_t c = static_cast<size_t>(col);
  const std::vector<sqlite3_value*>& row = cursor.rows[cursor.pos];
  if (c < row.size())
    sqlite3_result_value(ctx, row[c]);
  else if (c - row.size() < cursor.args.size())
    sqlite3_result_value(ctx, cursor.args[c - row.size()]);
  return SQLITE_OK;
}

int RowId(sqlite3_vtab_cursor* base, sqlite3_int64* out) {
  *out = static_cast<sqlite3_int64>(static_cast<Cursor*>(base)->pos);
  return SQLITE_OK;
}

const sqlite3_module kModule =
    EponymousModule<Table, Cursor>::Make(Connect, BestIndex, Filter, ColumnValue, RowId);

}  // namespace perfetto_table_function

bool PerfettoFunctions::RegisterTableFunction(Function* function, std::string* error) {
  if (sqlite3_create_module_v2(db_, function->name.c_str(), &perfetto_table_function::kModule,
                               function, nullptr) != SQLITE_OK) {
    *error = sqlite3_errmsg(db_);
    return false;
  }
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
