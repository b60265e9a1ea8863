#include "src/processor/trace_processor_impl.h"

#include <utility>

#include "src/processor/sql/export_database.h"
#include "src/processor/sql/query_engine.h"
#include "src/processor/sql/storage_tables.h"

namespace zt {
namespace processor {
namespace {

class TraceProcessorImpl : public TraceProcessor {
 public:
  TraceProcessorImpl(std::unique_ptr<TraceStorage> storage,
                     std::unique_ptr<sql::QueryEngine> engine)
      : storage_(std::move(storage)), engine_(std::move(engine)) {}
  ~TraceProcessorImpl() override {
    engine_.reset();  // Before the storage its tables view.
  }

  using TraceProcessor::Query;

  bool Query(const std::string& sql, const ColumnsCallback& on_columns,
             const RowCallback& on_row, std::string* error) override {
    std::vector<std::string> columns;
    return engine_->Execute(
        sql,
        [&columns, &on_columns](const std::vector<std::string>& names) {
          columns = names;
          if (on_columns)
            on_columns(columns);
        },
        [&](const std::vector<SqlValue>& row) { return !on_row || on_row(columns, row); },
        error);
  }

  QueryResult Query(const std::string& sql) override {
    QueryResult result;
    std::string error;
    const bool ok = engine_->Execute(
        sql,
        [&result](const std::vector<std::string>& names) {
          result.columns = names;
          result.rows.clear();
        },
        [&result](const std::vector<SqlValue>& row) {
          result.rows.push_back(row);
          return true;
        },
        &error);
    if (!ok)
      result.error = error.empty() ? "query failed" : error;
    return result;
  }

  bool ExportDatabase(const std::string& path, std::string* error) override {
    return sql::ExportDatabase(engine_->db(), sql::StorageTables::ExportedNames(), path, error);
  }

  std::vector<std::string> TableNames() override { return sql::StorageTables::PublicNames(); }

 private:
  std::unique_ptr<TraceStorage> storage_;
  std::unique_ptr<sql::QueryEngine> engine_;
};

}  // namespace

TraceProcessor::~TraceProcessor() = default;

bool TraceProcessor::Query(const std::string& sql, const RowCallback& on_row,
                           std::string* error) {
  return Query(sql, ColumnsCallback(), on_row, error);
}

std::unique_ptr<TraceProcessor> CreateTraceProcessor(std::unique_ptr<TraceStorage> storage,
                                                     std::string* error) {
  auto engine = sql::QueryEngine::Create(storage.get(), error);
  if (!engine)
    return nullptr;
  return std::make_unique<TraceProcessorImpl>(std::move(storage), std::move(engine));
}

}  // namespace processor
}  // namespace zt
