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
#include <memory>
#include <string>
#include <vector>

#include "src/processor/sql/functions/functions.h"
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

  // Runs every statement of `sql` in turn. False with *error (SQLite's
  // message) at the first failing one; an empty `sql` is an error too.
  bool Execute(const std::string& sql, const ColumnsFn& on_columns, const RowFn& on_row,
               std::string* error);

  sqlite3* db() const { return db_; }

 private:
  QueryEngine() = default;

  sqlite3* db_ = nullptr;
  std::unique_ptr<StorageTables> tables_;
  std::unique_ptr<FunctionContext> functions_;
};

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_QUERY_ENGINE_H_
