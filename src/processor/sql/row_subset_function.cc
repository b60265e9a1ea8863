#include "src/processor/sql/row_subset_function.h"

#include <sqlite3.h>

#include <memory>

#include "src/processor/sql/eponymous_module.h"
#include "src/processor/sql/sqlite_cell.h"

namespace zt {
namespace processor {
namespace sql {
// Named, not anonymous: the unity build puts table_module.cc's module in
// the same translation unit.
namespace row_subset_module {

struct Table : sqlite3_vtab {
  const RowSubsetFunction* function = nullptr;
};

struct Cursor : sqlite3_vtab_cursor {
  std::vector<uint32_t> rows;
  size_t pos = 0;
  sqlite3_int64 arg = 0;
};

const RowSubsetFunction& FunctionOf(sqlite3_vtab* vtab) {
  return *static_cast<Table*>(vtab)->function;
}

int Connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
  const auto* function = static_cast<const RowSubsetFunction*>(aux);
  std::vector<SchemaColumn> columns;
  for (const Column& column : function->source->columns())
    columns.push_back(SchemaColumn{column.name, column.DeclaredType()});
  return ConnectTableFunction<Table>(db, function, columns,
                                     {SchemaColumn{function->arg_name, "INTEGER"}}, out);
}

int BestIndex(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  return BestIndexWithEveryArgument(
      info, static_cast<int>(FunctionOf(vtab).source->columns().size()), 1, 10);
}

int Filter(sqlite3_vtab_cursor* base, int idx_num, const char*, int argc, sqlite3_value** argv) {
  Cursor& cursor = *static_cast<Cursor*>(base);
  const RowSubsetFunction& function = FunctionOf(cursor.pVtab);
  cursor.rows.clear();
  cursor.pos = 0;
  if (idx_num != 1 || argc != 1) {
    return VtabError(cursor.pVtab, function.name + ": needs its argument, as in " + function.name +
                                  "(" + function.arg_name + ")");
  }
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
    return SQLITE_OK;  // Nothing matches NULL.
  cursor.arg = sqlite3_value_int64(argv[0]);
  std::string error;
  if (!function.rows(function.data, argv[0], &cursor.rows, &error))
    return VtabError(cursor.pVtab, function.name + ": " + error);
  return SQLITE_OK;
}

int ColumnValue(sqlite3_vtab_cursor* base, sqlite3_context* ctx, int col) {
  const Cursor& cursor = *static_cast<Cursor*>(base);
  const ColumnTable& source = *FunctionOf(cursor.pVtab).source;
  if (static_cast<size_t>(col) >= source.columns().size()) {
    sqlite3_result_int64(ctx, cursor.arg);
    return SQLITE_OK;
  }
  ResultCell(ctx, source.column(static_cast<size_t>(col)).Get(cursor.rows[cursor.pos]));
  return SQLITE_OK;
}

int RowId(sqlite3_vtab_cursor* base, sqlite3_int64* out) {
  const Cursor& cursor = *static_cast<Cursor*>(base);
  *out = cursor.rows[cursor.pos];
  return SQLITE_OK;
}

const sqlite3_module kModule =
    EponymousModule<Table, Cursor>::Make(Connect, BestIndex, Filter, ColumnValue, RowId);

}  // namespace row_subset_module

bool RegisterRowSubsetFunction(sqlite3* db, const RowSubsetFunction* function,
                               std::string* error) {
  const int rc = sqlite3_create_module_v2(db, function->name.c_str(), &row_subset_module::kModule,
                                          const_cast<RowSubsetFunction*>(function), nullptr);
  if (rc != SQLITE_OK) {
    *error = "cannot register " + function->name + ": " + sqlite3_errstr(rc);
    return false;
  }
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
