#include "src/processor/sql/query_engine.h"

#include <sqlite3.h>

#include <cstring>
#include <utility>

#include "src/processor/sql/direct_scan.h"
#include "src/processor/sql/grouped_aggregate.h"
#include "src/processor/sql/missing_name_hints.h"
#include "src/processor/sql/operators/graph_scan.h"
#include "src/processor/sql/operators/graph_search.h"
#include "src/processor/sql/operators/interval_intersect.h"
#include "src/processor/sql/operators/mipmap.h"
#include "src/processor/sql/operators/packed_rows.h"
#include "src/processor/sql/operators/span_join.h"
#include "src/processor/sql/table_module.h"

namespace zt {
namespace processor {

// Declared in the public header; defined here, beside the reading of cells.
std::string SqlValue::ToString() const {
  switch (type) {
    case kNull:
      return "";
    case kInt:
      return std::to_string(int_value);
    case kReal: {
      char buffer[64];
      sqlite3_snprintf(sizeof(buffer), buffer, "%!.15g", real_value);
      return buffer;
    }
    case kText:
    case kBlob:
      return text;
  }
  return "";
}

namespace sql {
namespace {

bool IsBlank(const char* text) {
  for (; *text; text++) {
    if (*text != ' ' && *text != '\t' && *text != '\n' && *text != '\r' && *text != ';')
      return false;
  }
  return true;
}

void ReadCell(sqlite3_stmt* stmt, int i, SqlValue* value) {
  switch (sqlite3_column_type(stmt, i)) {
    case SQLITE_INTEGER:
      value->type = SqlValue::kInt;
      value->int_value = sqlite3_column_int64(stmt, i);
      break;
    case SQLITE_FLOAT:
      value->type = SqlValue::kReal;
      value->real_value = sqlite3_column_double(stmt, i);
      break;
    case SQLITE_NULL:
      value->type = SqlValue::kNull;
      break;
    case SQLITE_BLOB: {
      value->type = SqlValue::kBlob;
      const void* data = sqlite3_column_blob(stmt, i);
      const int size = sqlite3_column_bytes(stmt, i);
      value->text.assign(static_cast<const char*>(data), data ? static_cast<size_t>(size) : 0);
      break;
    }
    default: {
      value->type = SqlValue::kText;
      const void* data = sqlite3_column_text(stmt, i);
      const int size = sqlite3_column_bytes(stmt, i);
      value->text.assign(static_cast<const char*>(data), data ? static_cast<size_t>(size) : 0);
      break;
    }
  }
}

}  // namespace

namespace legacy_create_function {

bool IsName(std::string_view text) {
  if (text.empty())
    return false;
  for (const char c : text) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  }
  return true;
}

bool IsType(std::string_view type) {
  static const char* const kTypes[] = {"BOOL",   "LONG",  "TIMESTAMP", "DURATION", "ID",
                                       "JOINID", "ARGSETID", "INT",    "UINT",     "DOUBLE",
                                       "FLOAT",  "STRING", "BYTES",    "PROTO",    "ANY"};
  for (const char* known : kTypes) {
    if (type.size() == strlen(known) &&
        sqlite3_strnicmp(type.data(), known, static_cast<int>(type.size())) == 0)
      return true;
  }
  return false;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\n'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n'))
    text.remove_suffix(1);
  return text;
}

// "NAME(arg TYPE, ...)" -> "NAME(arg TYPE, ...)" checked; false with *error.
bool Prototype(std::string_view text, std::string* out, std::string* error) {
  const size_t open = text.find('(');
  const size_t close = text.find(')', open == std::string_view::npos ? 0 : open);
  if (open == std::string_view::npos || close == std::string_view::npos) {
    *error = "CREATE_FUNCTION: the prototype must be NAME(arg TYPE, ...)";
    return false;
  }
  const std::string_view name = Trim(text.substr(0, open));
  if (!IsName(name)) {
    *error = "CREATE_FUNCTION: bad function name '" + std::string(name) + "'";
    return false;
  }
  *out = std::string(name) + "(";
  std::string_view args = text.substr(open + 1, close - open - 1);
  bool first = true;
  while (!args.empty()) {
    const size_t comma = args.find(',');
    const std::string_view arg = Trim(args.substr(0, comma));
    args = comma == std::string_view::npos ? std::string_view() : args.substr(comma + 1);
    if (arg.empty())
      continue;
    const size_t space = arg.find_first_of(" \t");
    const std::string_view arg_name = arg.substr(0, space);
    const std::string_view type =
        space == std::string_view::npos ? std::string_view() : Trim(arg.substr(space));
    if (!IsName(arg_name) || !IsType(type)) {
      *error = "CREATE_FUNCTION: each argument must be 'name TYPE' (a PerfettoSQL type), not '" +
               std::string(arg) + "'";
      return false;
    }
    *out += (first ? "" : ", ") + std::string(arg_name) + " " + std::string(type);
    first = false;
  }
  *out += ")";
  return true;
}

// CREATE_FUNCTION(prototype, return_type, body): upstream's older way to
// define a function, as CREATE OR REPLACE PERFETTO FUNCTION does (Perfetto
// UI calls it). Returns NULL.
void CreateFunction(sqlite3_context* ctx, int, sqlite3_value** argv) {
  for (int i = 0; i < 3; i++) {
    if (sqlite3_value_type(argv[i]) != SQLITE_TEXT)
      return sqlite3_result_error(
          ctx, "CREATE_FUNCTION: its arguments (prototype, return type, body) are text", -1);
  }
  auto text = [&](int i) {
    return std::string_view(reinterpret_cast<const char*>(sqlite3_value_text(argv[i])),
                            static_cast<size_t>(sqlite3_value_bytes(argv[i])));
  };
  std::string prototype, error;
  if (!Prototype(text(0), &prototype, &error))
    return sqlite3_result_error(ctx, error.c_str(), -1);
  const std::string_view returns = Trim(text(1));
  if (!IsType(returns)) {
    error = "CREATE_FUNCTION: unknown return type " + std::string(returns);
    return sqlite3_result_error(ctx, error.c_str(), -1);
  }
  auto* engine = static_cast<QueryEngine*>(sqlite3_user_data(ctx));
  const std::string statement = "CREATE OR REPLACE PERFETTO FUNCTION " + prototype + " RETURNS " +
                                std::string(returns) + " AS " + std::string(text(2));
  if (!engine->Execute(statement, nullptr, nullptr, &error)) {
    error = "CREATE_FUNCTION: " + error;
    return sqlite3_result_error(ctx, error.c_str(), -1);
  }
  sqlite3_result_null(ctx);
}

}  // namespace legacy_create_function

std::unique_ptr<QueryEngine> QueryEngine::Create(const TraceStorage* storage,
                                                 std::string* error) {
  std::unique_ptr<QueryEngine> engine(new QueryEngine());
  int rc = sqlite3_open_v2(":memory:", &engine->db_,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    *error = std::string("cannot open SQLite: ") + sqlite3_errstr(rc);
    return nullptr;
  }
  engine->tables_ = std::make_unique<StorageTables>(*storage);
  for (const auto& table : engine->tables_->tables()) {
    if (!RegisterColumnTable(engine->db_, table.get(), error))
      return nullptr;
  }
  engine->functions_ = std::make_unique<FunctionContext>(storage, engine->tables_.get());
  engine->perfetto_functions_ = std::make_unique<PerfettoFunctions>(engine->db_);
  if (!RegisterBuiltinFunctions(engine->db_, engine->functions_.get(), error))
    return nullptr;
  if (!RegisterSpanJoin(engine->db_, error) || !RegisterPackRows(engine->db_, error) ||
      !RegisterGraphSearch(engine->db_, error) || !RegisterGraphScan(engine->db_, error) ||
      !RegisterIntervalIntersect(engine->db_, error) ||
      !RegisterMipmaps(engine->db_, error))
    return nullptr;
  if (sqlite3_create_function_v2(engine->db_, "create_function", 3, SQLITE_UTF8, engine.get(),
                                 legacy_create_function::CreateFunction, nullptr, nullptr,
                                 nullptr) != SQLITE_OK) {
    *error = std::string("cannot register create_function: ") + sqlite3_errmsg(engine->db_);
    return nullptr;
  }
  // Upstream's prelude macros, there without an INCLUDE.
  engine->macros_.emplace("cast_int", Macro{{"value"}, "CAST($value AS INT)", nullptr});
  engine->macros_.emplace("cast_double", Macro{{"value"}, "CAST($value AS REAL)", nullptr});
  engine->macros_.emplace("cast_string", Macro{{"value"}, "CAST($value AS TEXT)", nullptr});
  // The operators' native macros, which the standard library's modules
  // call (CREATE OR REPLACE PERFETTO MACRO of the same name replaces one).
  Macro columns;
  columns.args = {"list"};
  columns.native = &ExpandColumnList;
  engine->macros_.emplace("__zt_columns", columns);
  Macro token_apply;
  token_apply.args = {"macro", "list"};
  token_apply.native = &ExpandTokenApply;
  engine->macros_.emplace("__intrinsic_token_apply", token_apply);
  Macro intersect;
  intersect.args = {"tables", "partitions"};
  intersect.native = &ExpandIntervalIntersect;
  engine->macros_.emplace("__zt_interval_intersect", intersect);
  Macro intersect_named;
  intersect_named.args = {"t1", "id1", "ts1", "dur1", "t2", "id2", "ts2", "dur2", "partitions"};
  intersect_named.native = &ExpandIntervalIntersectNamed;
  engine->macros_.emplace("__zt_interval_intersect_named", intersect_named);
  // Upstream's name (its graphs.scan module's), there without an INCLUDE.
  Macro scan;
  scan.args = {"graph_table", "init_table", "scan_columns", "step_query"};
  scan.native = &ExpandGraphScan;
  engine->macros_.emplace("_graph_scan", scan);
  Macro aggregating_scan = scan;
  aggregating_scan.native = &ExpandGraphAggregatingScan;
  engine->macros_.emplace("_graph_aggregating_scan", aggregating_scan);
  char* message = nullptr;
  rc = sqlite3_exec(engine->db_, StorageTables::ViewsSql(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    *error = std::string("cannot create the views: ") + (message ? message : "");
    sqlite3_free(message);
    return nullptr;
  }
  return engine;
}

ColumnTable* QueryEngine::FindColumnTable(void* data, std::string_view name) {
  auto* engine = static_cast<QueryEngine*>(data);
  ColumnTable* found = nullptr;
  for (const auto& table : engine->tables_->tables()) {
    if (table->name().size() == name.size() &&
        sqlite3_strnicmp(table->name().data(), name.data(), static_cast<int>(name.size())) == 0)
      found = table.get();
  }
  if (!found)
    return nullptr;
  // Not if a table or view of the same name in any schema of the
  // connection (temporary, main, or an attached database: the trace's
  // tables are eponymous, so any of them hides them) is what SQLite would
  // read.
  std::vector<std::string> schemas;
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(engine->db_, "SELECT name FROM pragma_database_list", -1, &stmt,
                         nullptr) != SQLITE_OK)
    return nullptr;
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    const unsigned char* schema = sqlite3_column_text(stmt, 0);
    if (schema)
      schemas.emplace_back(reinterpret_cast<const char*>(schema));
  }
  sqlite3_finalize(stmt);
  for (const std::string& schema : schemas) {
    std::string quoted = "\"";
    for (const char c : schema)
      quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    quoted += "\"";
    const std::string sql =
        "SELECT 1 FROM " + quoted + ".sqlite_schema WHERE name = ?1 COLLATE NOCASE";
    if (sqlite3_prepare_v2(engine->db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
      return nullptr;
    sqlite3_bind_text(stmt, 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
    const bool hidden = sqlite3_step(stmt) == SQLITE_ROW;
    sqlite3_finalize(stmt);
    if (hidden)
      return nullptr;
  }
  return found;
}

void QueryEngine::DenyOtherFiles() {
  // No database may be attached (VACUUM INTO attaches its target too);
  // the authorizer says why at prepare time.
  sqlite3_limit(db_, SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_db_config(db_, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_set_authorizer(
      db_,
      [](void*, int action, const char*, const char*, const char*, const char*) {
        return action == SQLITE_ATTACH || action == SQLITE_DETACH ? SQLITE_DENY : SQLITE_OK;
      },
      nullptr);
}

void QueryEngine::SetInterruptCheck(std::function<bool()> check) {
  interrupt_check_ = std::move(check);
  if (!interrupt_check_) {
    sqlite3_progress_handler(db_, 0, nullptr, nullptr);
    return;
  }
  // 10,000 virtual-machine steps are some tens of microseconds: a stop
  // is seen at once, and the check costs nothing measurable.
  sqlite3_progress_handler(
      db_, 10000,
      [](void* self) -> int { return static_cast<QueryEngine*>(self)->interrupt_check_() ? 1 : 0; },
      this);
}

QueryEngine::~QueryEngine() {
  perfetto_functions_.reset();  // Their prepared statements first.
  sqlite3_close_v2(db_);
}

bool QueryEngine::Execute(const std::string& sql, const ColumnsFn& on_columns,
                          const RowFn& on_row, std::string* error) {
  if (IsBlank(sql.c_str())) {
    *error = "empty query";
    return false;
  }
  size_t pos = 0;
  while (pos < sql.size()) {
    size_t begin = 0, end = 0;
    if (!NextStatement(sql, pos, &begin, &end, error))
      return false;
    if (begin >= sql.size())
      break;
    const std::string_view statement(sql.data() + begin, end - begin);
    PerfettoStatement perfetto;
    if (!ParsePerfettoStatement(statement, &perfetto, error))
      return false;
    bool stopped = false;
    if (perfetto.kind != PerfettoStatement::kNotPerfetto) {
      if (!RunPerfettoStatement(perfetto, error))
        return false;
      pos = end;
      continue;
    }
    if (!macros_.empty() && statement.find("!(") != std::string_view::npos) {
      std::string expanded;
      if (!Expand(statement, &expanded, error) ||
          !RunInSqlite(expanded.c_str(), on_columns, on_row, &stopped, error))
        return false;
      if (stopped)
        return true;
      pos = end;
      continue;
    }
    // SQLite finds where its statement ends (a trigger's body holds ';').
    const char* tail = nullptr;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str() + begin, -1, &stmt, &tail) != SQLITE_OK) {
      *error = ExplainMissingName(sqlite3_errmsg(db_));
      return false;
    }
    sqlite3_finalize(stmt);
    const std::string one(sql.c_str() + begin, static_cast<size_t>(tail - (sql.c_str() + begin)));
    DirectScan scan;
    GroupedAggregateResult grouped;
    if (direct_scan_ && ParseDirectScan(one, &QueryEngine::FindColumnTable, this, &scan)) {
      if (!RunDirectScan(scan, on_columns, on_row, &stopped, error))
        return false;
    } else if (grouped_aggregate_ &&
        TryGroupedAggregate(one, &QueryEngine::FindColumnTable, this, &grouped)) {
      if (on_columns)
        on_columns(grouped.columns);
      for (const auto& row : grouped.rows) {
        if (on_row && !on_row(row))
          return true;
      }
    } else if (!RunInSqlite(one.c_str(), on_columns, on_row, &stopped, error)) {
      return false;
    }
    if (stopped)
      return true;
    pos = static_cast<size_t>(tail - sql.c_str());
  }
  return true;
}

bool QueryEngine::RunDirectScan(const DirectScan& scan, const ColumnsFn& on_columns,
                                const RowFn& on_row, bool* stopped, std::string* error) {
  if (on_columns)
    on_columns(scan.names);
  std::vector<SqlValue> row(scan.columns.size());
  const uint32_t end = scan.end_row();
  for (uint32_t r = scan.begin_row(); r < end; r++) {
    // As often as SQLite would ask: a few thousand rows are some
    // microseconds.
    if ((r & 4095) == 0 && interrupt_check_ && interrupt_check_()) {
      *error = "interrupted";
      return false;
    }
    for (size_t i = 0; i < scan.columns.size(); i++) {
      const Cell cell = scan.table->column(scan.columns[i]).Get(r);
      SqlValue& value = row[i];
      switch (cell.type) {
        case Cell::kNull:
          value.type = SqlValue::kNull;
          break;
        case Cell::kInt:
          value.type = SqlValue::kInt;
          value.int_value = cell.i;
          break;
        case Cell::kReal:
          // SQLite stores a NaN result as NULL.
          if (cell.d != cell.d) {
            value.type = SqlValue::kNull;
          } else {
            value.type = SqlValue::kReal;
            value.real_value = cell.d;
          }
          break;
        case Cell::kText:
          value.type = SqlValue::kText;
          value.text.assign(cell.text.data(), cell.text.size());
          break;
      }
    }
    if (on_row && !on_row(row)) {
      *stopped = true;
      return true;
    }
  }
  return true;
}

bool QueryEngine::RunInSqlite(const char* text, const ColumnsFn& on_columns, const RowFn& on_row,
                              bool* stopped, std::string* error) {
  const char* next = text;
  std::vector<std::string> columns;
  std::vector<SqlValue> row;
  while (!IsBlank(next)) {
    sqlite3_stmt* stmt = nullptr;
    const char* tail = nullptr;
    if (sqlite3_prepare_v2(db_, next, -1, &stmt, &tail) != SQLITE_OK) {
      *error = ExplainMissingName(sqlite3_errmsg(db_));
      return false;
    }
    next = tail;
    if (!stmt)
      continue;  // A comment.
    const int count = sqlite3_column_count(stmt);
    if (count > 0) {
      columns.clear();
      for (int i = 0; i < count; i++) {
        const char* name = sqlite3_column_name(stmt, i);
        columns.emplace_back(name ? name : "");
      }
      if (on_columns)
        on_columns(columns);
      row.resize(static_cast<size_t>(count));
    }
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      for (int i = 0; i < count; i++)
        ReadCell(stmt, i, &row[static_cast<size_t>(i)]);
      if (on_row && !on_row(row)) {
        *stopped = true;
        break;
      }
    }
    if (!*stopped && rc != SQLITE_DONE) {
      *error = ExplainMissingName(sqlite3_errmsg(db_));
      sqlite3_finalize(stmt);
      return false;
    }
    sqlite3_finalize(stmt);
    if (*stopped)
      return true;
  }
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
