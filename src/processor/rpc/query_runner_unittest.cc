#include "src/processor/rpc/query_runner.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/processor/sql/query_engine_fixture_for_testing.h"
#include "zt/trace_processor/trace_processor.pb.h"

namespace zt {
namespace processor {
namespace rpc {
namespace {

class QueryRunnerTest : public sql::QueryEngineFixture {
 protected:
  // The messages of one query, merged as the Python API reads /query.
  protos::QueryResult RunAndMerge(const std::string& sql, bool* ok, size_t* messages = nullptr) {
    std::string all;
    size_t count = 0;
    QueryResultWriter writer([&](std::string message) {
      all += message;
      count++;
    });
    *ok = RunQuery(engine_.get(), sql, &writer);
    EXPECT_TRUE(writer.ended());
    if (messages)
      *messages = count;
    protos::QueryResult merged;
    EXPECT_TRUE(merged.ParseFromString(all));
    return merged;
  }
};

TEST_F(QueryRunnerTest, OnlyTheLastStatementsRowsAreSent) {
  bool ok = false;
  const protos::QueryResult r = RunAndMerge(
      "CREATE TABLE t AS SELECT 1 AS x; SELECT * FROM slice LIMIT 2; SELECT 5 AS five", &ok);
  EXPECT_TRUE(ok);
  ASSERT_EQ(r.column_names_size(), 1);
  EXPECT_EQ(r.column_names(0), "five");
  EXPECT_EQ(r.statement_count(), 3u);
  EXPECT_EQ(r.statement_with_output_count(), 2u);
  EXPECT_EQ(r.last_statement_sql(), "SELECT 5 AS five");
  ASSERT_EQ(r.batch_size(), 1);
  ASSERT_EQ(r.batch(0).varint_cells_size(), 1);
  EXPECT_EQ(r.batch(0).varint_cells(0), 5);
  EXPECT_TRUE(r.batch(0).is_last_batch());
  EXPECT_FALSE(r.has_error());
}

TEST_F(QueryRunnerTest, ALastStatementWithoutRowsGivesNoColumns) {
  bool ok = false;
  const protos::QueryResult r = RunAndMerge("SELECT 1; CREATE TABLE u(a INT);", &ok);
  EXPECT_TRUE(ok);
  EXPECT_EQ(r.column_names_size(), 0);
  EXPECT_EQ(r.statement_count(), 2u);
  EXPECT_EQ(r.statement_with_output_count(), 1u);
  ASSERT_EQ(r.batch_size(), 1);
  EXPECT_EQ(r.batch(0).cells_size(), 0);
  EXPECT_TRUE(r.batch(0).is_last_batch());
}

TEST_F(QueryRunnerTest, AnErrorEndsTheResultAtItsStatement) {
  bool ok = true;
  const protos::QueryResult r = RunAndMerge("SELECT 1; SELECT * FROM nope; SELECT 2", &ok);
  EXPECT_FALSE(ok);
  EXPECT_NE(r.error().find("no such table: nope"), std::string::npos) << r.error();
  EXPECT_EQ(r.statement_count(), 3u);
  ASSERT_EQ(r.batch_size(), 1);
  EXPECT_TRUE(r.batch(0).is_last_batch());
}

TEST_F(QueryRunnerTest, EmptySqlIsAnError) {
  bool ok = true;
  const protos::QueryResult r = RunAndMerge("  -- nothing\n", &ok);
  EXPECT_FALSE(ok);
  EXPECT_EQ(r.error(), "empty query");
}

TEST_F(QueryRunnerTest, ManyRowsStreamInSeveralBatches) {
  bool ok = false;
  size_t messages = 0;
  const protos::QueryResult r = RunAndMerge(
      "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 119999) "
      "SELECT i, i * 0.5 AS half, 'row' AS s FROM n",
      &ok, &messages);
  EXPECT_TRUE(ok);
  EXPECT_GT(messages, 5u);
  EXPECT_EQ(r.column_names_size(), 3);
  int64_t rows = 0;
  for (const auto& batch : r.batch())
    rows += batch.varint_cells_size();
  EXPECT_EQ(rows, 120000);
  EXPECT_TRUE(r.batch(r.batch_size() - 1).is_last_batch());
}

}  // namespace
}  // namespace rpc
}  // namespace processor
}  // namespace zt
