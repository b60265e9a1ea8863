// An SQLite connection (in memory, private to this object) on which the
// trace model's tables (storage_tables.h) and PerfettoSQL's built-in
// functions (functions/functions.h) are registered and queries run.
//
//   std::string error;
//   auto engine = QueryEngine::Create(&storage, &error);
//   engine->Execute("SELECT name FROM slice", on_columns, on_row, &error);
//
// Thread-compatible: one statement at a time per engine; engines over the
// same (finished, read-only) storage are independent.

#ifndef ZT_SRC_PROCESSOR_SQL_QUERY_ENGINE_H_
#define ZT_SRC_PROCESSOR_SQL_QUERY_ENGINE_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/processor/sql/direct_scan.h"
#include "src/processor/sql/functions/functions.h"
#include "src/processor/sql/perfetto_functions.h"
#include "src/processor/sql/perfetto_sql_parser.h"
#include "src/processor/sql/storage_tables.h"
#include "src/processor/storage/trace_storage.h"
#include "zt/processor/trace_processor.h"

struct sqlite3;

namespace zt {
namespace processor {
namespace sql {

class QueryEngine {
 public:
  // The columns of each statement that returns any, before its rows.
  using ColumnsFn = std::function<void(const std::vector<std::string>& columns)>;
  // One row (cells valid during the call); false stops the query.
  using RowFn = std::function<bool(const std::vector<SqlValue>& row)>;

  // `storage` must outlive the engine. Null with *error if SQLite cannot
  // be set up (never for a well-formed storage).
  static std::unique_ptr<QueryEngine> Create(const TraceStorage* storage, std::string* error);
  ~QueryEngine();
  QueryEngine(const QueryEngine&) = delete;
  QueryEngine& operator=(const QueryEngine&) = delete;

  // Runs every statement of `sql` in turn: PerfettoSQL's own
  // (perfetto_sql_parser.h) here, the others, their macros expanded, in
  // SQLite. False with *error (SQLite's message, or what PerfettoSQL
  // statement failed and why) at the first failing one; an empty `sql` is
  // an error too.
  bool Execute(const std::string& sql, const ColumnsFn& on_columns, const RowFn& on_row,
               std::string* error);

  sqlite3* db() const { return db_; }

  // For a server whose clients are not the machine's user (`ztrace
  // serve`): statements that would open or write other files (ATTACH,
  // VACUUM INTO) fail ("not authorized"), so that SQL reads the trace and
  // nothing else. Irreversible for the engine.
  void DenyOtherFiles();

  // Asked every few thousand SQLite steps while a statement runs, on the
  // calling thread: true ends the statement with the error "interrupted".
  // A server stops the query of a client that went away with it. Empty
  // (the default): never asked.
  void SetInterruptCheck(std::function<bool()> check);

  // Whether statements of the grouped-aggregate shape
  // (grouped_aggregate.h) are computed beside SQLite (the default) or by
  // SQLite like any other: the same answer either way, which tests check.
  void set_grouped_aggregate_fast_path(bool enabled) { grouped_aggregate_ = enabled; }
  // The same for plain reads of a table's columns (direct_scan.h).
  void set_direct_scan_fast_path(bool enabled) { direct_scan_ = enabled; }

 private:
  QueryEngine() = default;

  // Runs the statements of `text` in SQLite, handing rows on; `*stopped`
  // if on_row said stop.
  bool RunInSqlite(const char* text, const ColumnsFn& on_columns, const RowFn& on_row,
                   bool* stopped, std::string* error);
  // Runs a statement of the direct-scan shape (direct_scan.h) here.
  bool RunDirectScan(const DirectScan& scan, const ColumnsFn& on_columns, const RowFn& on_row,
                     bool* stopped, std::string* error);
  // Runs one of PerfettoSQL's own statements (perfetto_sql_statements.cc).
  bool RunPerfettoStatement(const PerfettoStatement& statement, std::string* error);
  bool CreateTableOrView(const PerfettoStatement& statement, std::string* error);
  bool Include(const std::string& module, std::string* error);
  bool Exec(const std::string& sql, std::string* error);
  // `text` with its macro calls expanded (as is when it has none).
  bool Expand(std::string_view text, std::string* out, std::string* error);
  static const Macro* FindMacro(const void* engine, std::string_view name);
  // The trace's table of that name (grouped_aggregate.h), unless a
  // temporary object hides it.
  static ColumnTable* FindColumnTable(void* engine, std::string_view name);

  sqlite3* db_ = nullptr;
  std::unique_ptr<StorageTables> tables_;
  std::unique_ptr<FunctionContext> functions_;
  std::unique_ptr<PerfettoFunctions> perfetto_functions_;
  std::map<std::string, Macro, std::less<>> macros_;
  std::vector<std::string> included_;  // Modules run on this connection.
  bool grouped_aggregate_ = true;
  bool direct_scan_ = true;
  std::function<bool()> interrupt_check_;
};

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_QUERY_ENGINE_H_
