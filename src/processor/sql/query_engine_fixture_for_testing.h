// A gtest fixture for the SQL tests: a QueryEngine over a storage
// (MakeSampleStorage() unless a test gives its own with Use()), and Run(),
// a query's rows as text lines (query_rows_for_testing.h).

#ifndef ZT_SRC_PROCESSOR_SQL_QUERY_ENGINE_FIXTURE_FOR_TESTING_H_
#define ZT_SRC_PROCESSOR_SQL_QUERY_ENGINE_FIXTURE_FOR_TESTING_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "src/processor/sql/query_engine.h"
#include "src/processor/sql/query_rows_for_testing.h"
#include "src/processor/sql/sample_storage_for_testing.h"

namespace zt {
namespace processor {
namespace sql {

class QueryEngineFixture : public ::testing::Test {
 protected:
  using Rows = std::vector<std::string>;

  void SetUp() override { Use(MakeSampleStorage()); }

  // The engine over `storage` from now on (the previous engine goes first).
  void Use(std::unique_ptr<TraceStorage> storage) {
    engine_.reset();
    storage_ = std::move(storage);
    std::string error;
    engine_ = QueryEngine::Create(storage_.get(), &error);
    ASSERT_TRUE(engine_) << error;
  }

  Rows Run(const std::string& sql) { return QueryRows(engine_.get(), sql); }

  std::unique_ptr<TraceStorage> storage_;
  std::unique_ptr<QueryEngine> engine_;
};

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_QUERY_ENGINE_FIXTURE_FOR_TESTING_H_
