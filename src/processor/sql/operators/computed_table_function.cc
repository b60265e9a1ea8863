#include "src/processor/sql/operators/computed_table_function.h"

#include <sqlite3.h>

#include <memory>

#include "src/processor/sql/eponymous_module.h"

namespace zt {
namespace processor {
namespace sql {
// Named, not anonymous: the unity build puts other modules in this unit.
namespace computed_table_module {

struct Table : sqlite3_vtab {
  const ComputedTableFunction* function = nullptr;
};

struct Cursor : sqlite3_vtab_cursor {
  std::vector<std::vector<ComputedValue>> rows;
  std::vector<sqlite3_value*> args;
  size_t pos = 0;

  void Clear() {
    rows.clear();
    for (sqlite3_value* v : args)
      sqlite3_value_free(v);
    args.clear();
    pos = 0;
  }
  ~Cursor() { Clear(); }
};

const ComputedTableFunction& FunctionOf(sqlite3_vtab* vtab) {
  return *static_cast<Table*>(vtab)->function;
}

int Connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
  const auto* function = static_cast<const ComputedTableFunction*>(aux);
  std::vector<SchemaColumn> columns, args;
  for (const std::string& column : function->columns)
    columns.push_back(SchemaColumn{column, ""});
  for (const std::string& arg : function->args)
    args.push_back(SchemaColumn{arg, ""});
  return ConnectTableFunction<Table>(db, function, columns, args, out);
}

int BestIndex(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  const ComputedTableFunction& function = FunctionOf(vtab);
  return BestIndexWithEveryArgument(info, static_cast<int>(function.columns.size()),
                                    static_cast<int>(function.args.size()), 1000);
}

int Filter(sqlite3_vtab_cursor* base, int idx_num, const char*, int argc, sqlite3_value** argv) {
  Cursor& cursor = *static_cast<Cursor*>(base);
  const ComputedTableFunction& function = FunctionOf(cursor.pVtab);
  cursor.Clear();
  if (idx_num != 1 || static_cast<size_t>(argc) != function.args.size()) {
    std::string names;
    for (const std::string& arg : function.args)
      names += (names.empty() ? "" : ", ") + arg;
    return VtabError(cursor.pVtab, function.name + ": needs its " +
                                  std::to_string(function.args.size()) + " argument(s), as in " +
                                  function.name + "(" + names + ")");
  }
  std::string error;
  if (!function.compute(function.data, argv, &cursor.rows, &error)) {
    cursor.rows.clear();
    return VtabError(cursor.pVtab, function.name + ": " + error);
  }
  for (int i = 0; i < argc; i++) {
    sqlite3_value* copy = sqlite3_value_dup(argv[i]);
    if (!copy) {
      cursor.Clear();
      return SQLITE_NOMEM;
    }
    cursor.args.push_back(copy);
  }
  return SQLITE_OK;
}

int ColumnValue(sqlite3_vtab_cursor* base, sqlite3_context* ctx, int col) {
  const Cursor& cursor = *static_cast<Cursor*>(base);
  const size_t c = static_cast<size_t>(col);
  const size_t columns = FunctionOf(cursor.pVtab).columns.size();
  if (c >= columns) {  // A hidden argument column.
    if (c - columns < cursor.args.size())
      sqlite3_result_value(ctx, cursor.args[c - columns]);
    return SQLITE_OK;
  }
  const std::vector<ComputedValue>& row = cursor.rows[cursor.pos];
  if (c >= row.size())
    return SQLITE_OK;  // A short row (a function's bug): NULL.
  const ComputedValue& value = row[c];
  switch (value.type) {
    case ComputedValue::kNull:
      sqlite3_result_null(ctx);
      break;
    case ComputedValue::kInt:
      sqlite3_result_int64(ctx, value.i);
      break;
    case ComputedValue::kReal:
      sqlite3_result_double(ctx, value.d);
      break;
    case ComputedValue::kText:
      sqlite3_result_text(ctx, value.text.data(), static_cast<int>(value.text.size()),
                          SQLITE_TRANSIENT);
      break;
  }
  return SQLITE_OK;
}

int RowId(sqlite3_vtab_cursor* base, sqlite3_int64* out) {
  *out = static_cast<sqlite3_int64>(static_cast<Cursor*>(base)->pos);
  return SQLITE_OK;
}

const sqlite3_module kModule =
    EponymousModule<Table, Cursor>::Make(Connect, BestIndex, Filter, ColumnValue, RowId);

}  // namespace computed_table_module

bool RegisterComputedTableFunction(sqlite3* db, std::unique_ptr<ComputedTableFunction> function,
                                   std::string* error) {
  ComputedTableFunction* owned = function.release();
  // SQLite calls the destructor when the module goes, and also when the
  // registration fails.
  const int rc = sqlite3_create_module_v2(db, owned->name.c_str(), &computed_table_module::kModule,
                                          owned, [](void* p) {
                                            delete static_cast<ComputedTableFunction*>(p);
                                          });
  if (rc != SQLITE_OK) {
    *error = std::string("cannot register a table function: ") + sqlite3_errstr(rc);
    return false;
  }
  return true;
}

bool RegisterComputedTableFunction(sqlite3* db, const ComputedTableFunction* function,
                                   std::string* error) {
  const int rc =
      sqlite3_create_module_v2(db, function->name.c_str(), &computed_table_module::kModule,
                               const_cast<ComputedTableFunction*>(function), nullptr);
  if (rc != SQLITE_OK) {
    *error = "cannot register " + function->name + ": " + sqlite3_errstr(rc);
    return false;
  }
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
