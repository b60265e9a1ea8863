// The grouped-aggregate fast path gives exactly SQLite's answer: each
// query is run through the engine (the fast path when it applies) and as
// a subquery SQLite must run itself, and the columns and rows compared;
// which queries the fast path takes, and which it leaves to SQLite.

#include "src/processor/sql/grouped_aggregate.h"

#include <strings.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/processor/sql/query_engine.h"
#include "src/processor/sql/query_rows_for_testing.h"
#include "src/processor/sql/sample_storage_for_testing.h"
#include "src/processor/sql/find_table_for_testing.h"
#include "src/processor/sql/storage_tables.h"

namespace zt {
namespace processor {
namespace sql {
namespace {

using Rows = std::vector<std::string>;

// The sample's slices, plus many more with repeated names, NULL names and
// categories, and durations near INT64_MAX in one group.
std::unique_ptr<TraceStorage> MakeStorage() {
  auto s = MakeSampleStorage();
  const StringId names[] = {s->strings.Intern("b"), s->strings.Intern("a"),
                            s->strings.Intern("B"), kNullStringId};
  for (uint32_t i = 0; i < 500; i++) {
    s->slice.ts.push_back(1000 + i);
    s->slice.dur.push_back(i % 7 == 0 ? int64_t{-1} : int64_t{(i * 37) % 101});
    s->slice.track_id.push_back(i % 3);
    s->slice.category.push_back(i % 5 == 0 ? kNullStringId : names[i % 2]);
    s->slice.name.push_back(names[i % 4]);
    s->slice.depth.push_back(i % 4);
    s->slice.parent_id.push_back(kNullId);
    s->slice.arg_set_id.push_back(i % 9 == 0 ? 0 : kNullId);
  }
  return s;
}

class GroupedAggregateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage_ = MakeStorage();
    std::string error;
    engine_ = QueryEngine::Create(storage_.get(), &error);
    ASSERT_TRUE(engine_) << error;
    tables_ = std::make_unique<StorageTables>(*storage_);
  }

  // Whether the fast path takes `sql`.
  bool Fast(const std::string& sql) {
    GroupedAggregateResult result;
    return TryGroupedAggregate(sql, &FindStorageTableForTesting, tables_.get(), &result);
  }
  // The columns then the rows, through the engine.
  Rows Run(const std::string& sql) {
    Rows out;
    std::string error;
    const bool ok = engine_->Execute(
        sql,
        [&out](const std::vector<std::string>& columns) {
          std::string line = "columns:";
          for (const auto& c : columns)
            line += " [" + c + "]";
          out.push_back(line);
        },
        [&out](const std::vector<SqlValue>& row) {
          std::string line;
          for (size_t i = 0; i < row.size(); i++) {
            line += (i ? "|" : "");
            line += row[i].is_null() ? "NULL"
                                     : (row[i].type == SqlValue::kReal ? "r" : "") + row[i].ToString();
          }
          out.push_back(line);
          return true;
        },
        &error);
    if (!ok)
      out.push_back("error: " + error);
    return out;
  }

  std::unique_ptr<TraceStorage> storage_;
  std::unique_ptr<QueryEngine> engine_;
  std::unique_ptr<StorageTables> tables_;
};

TEST_F(GroupedAggregateTest, AgreesWithSqliteOnEveryShapeItTakes) {
  const char* const queries[] = {
      "SELECT name, SUM(dur) FROM slice GROUP BY name",
      "select NAME, count(*), Count( category ), min(dur), MAX(dur), sum(depth) from SLICE "
      "group by name",
      "SELECT name, COUNT(*) AS n FROM slice GROUP BY name ORDER BY n DESC, name",
      "SELECT s.name AS who, SUM(s.dur) total FROM slice AS s GROUP BY s.name ORDER BY total "
      "DESC, who LIMIT 2",
      "SELECT name, SUM(dur) FROM slice GROUP BY name ORDER BY SUM(dur) ASC, 1 DESC LIMIT 3 "
      "OFFSET 1",
      "SELECT name, MAX(ts) FROM slice GROUP BY name ORDER BY 2 DESC, name;",
      "SELECT name, MAX(ts) FROM slice GROUP BY name ORDER BY name DESC",
      "SELECT \"name\", COUNT(arg_set_id), MIN(arg_set_id) FROM slice GROUP BY \"name\"",
      "SELECT category, COUNT(*), SUM(dur) FROM slice GROUP BY category ORDER BY category DESC",
      "SELECT track_id, COUNT(*), SUM(dur), MIN(ts) FROM slice GROUP BY track_id",
      "SELECT COUNT(*), SUM(id) FROM slice GROUP BY parent_id",
      "SELECT track_id, MAX(value), MIN(value), COUNT(value) FROM counter GROUP BY track_id",
      "SELECT name, COUNT(*) FROM slice GROUP BY name LIMIT 0",
      "SELECT flat_key, COUNT(*) FROM __zt_args GROUP BY flat_key -- a comment\n",
      // Found by grouped_aggregate_fuzzer: an expression's name runs to the
      // next token, a comment included.
      "SELECT name, COUNT(*)-- counted\n FROM slice GROUP BY name",
  };
  for (const char* query : queries) {
    SCOPED_TRACE(query);
    EXPECT_TRUE(Fast(query));
    const Rows fast = Run(query);
    engine_->set_grouped_aggregate_fast_path(false);
    const Rows sqlite = Run(query);
    engine_->set_grouped_aggregate_fast_path(true);
    EXPECT_EQ(fast, sqlite);
    EXPECT_GT(fast.size(), 0u);
  }
}

TEST_F(GroupedAggregateTest, LeavesEveryOtherShapeToSqlite) {
  const char* const queries[] = {
      "SELECT name, SUM(dur) FROM slice WHERE dur > 0 GROUP BY name",
      "SELECT name, AVG(dur) FROM slice GROUP BY name",
      "SELECT name, SUM(dur) FROM slice GROUP BY name HAVING SUM(dur) > 0",
      "SELECT name, SUM(dur + 1) FROM slice GROUP BY name",
      "SELECT name, ts, SUM(dur) FROM slice GROUP BY name",
      "SELECT name, COUNT(DISTINCT dur) FROM slice GROUP BY name",
      "SELECT name, SUM(dur) FROM slice GROUP BY ts",
      "SELECT name, COUNT(*) FROM slice GROUP BY name ORDER BY ts",
      // Ties on the count would be ordered SQLite's own way.
      "SELECT name, COUNT(*) AS n FROM slice GROUP BY name ORDER BY n DESC",
      "SELECT COUNT(*) AS n FROM slice GROUP BY name ORDER BY n",
      "SELECT name, COUNT(*) FROM slice GROUP BY name ORDER BY name COLLATE NOCASE",
      "SELECT name, COUNT(*) FROM slice GROUP BY name ORDER BY name NULLS LAST",
      "SELECT name, MIN(name) FROM slice GROUP BY name",
      "SELECT value, COUNT(*) FROM counter GROUP BY track_id",
      "SELECT track_id, SUM(value) FROM counter GROUP BY track_id",
      "SELECT name, COUNT(*) FROM slice s JOIN thread_track t ON s.track_id = t.id GROUP BY name",
      "SELECT name, COUNT(*) FROM slices GROUP BY name",
      "SELECT name, COUNT(*) FROM slice GROUP BY name; SELECT 1",
      "SELECT 'x', COUNT(*) FROM slice GROUP BY name",
      "SELECT name, COUNT(*) FROM slice GROUP BY name LIMIT -1",
      // Found by grouped_aggregate_fuzzer: an alias two items share, an
      // ordinal out of range however many zeros lead it.
      "SELECT name AS n, COUNT(*) n FROM slice GROUP BY name ORDER BY n",
      "SELECT name, COUNT(*) FROM slice GROUP BY name ORDER BY 0000000000000000000001314686383",
      // A keyword as a name: SQLite decides whether it may be one.
      "SELECT name, COUNT(*) outer FROM slice GROUP BY name",
      "SELECT key, COUNT(*) FROM __zt_args GROUP BY key",
  };
  for (const char* query : queries) {
    SCOPED_TRACE(query);
    EXPECT_FALSE(Fast(query));
  }
}

TEST_F(GroupedAggregateTest, AnOverflowingSumIsSqlitesError) {
  storage_->slice.dur[0] = INT64_MAX;
  storage_->slice.dur[1] = 5;
  storage_->slice.name[1] = storage_->slice.name[0];
  EXPECT_FALSE(Fast("SELECT name, SUM(dur) FROM slice GROUP BY name"));
  EXPECT_EQ(Run("SELECT name, SUM(dur) FROM slice GROUP BY name").back(),
            "error: integer overflow");
}

// More result columns than SQLite allows are its error to give, as for
// the direct scan (SQLite prepares the statement first).
TEST_F(GroupedAggregateTest, MoreColumnsThanSqliteTakesAreItsError) {
  std::string counts = "name";
  for (int i = 0; i < 2000; i++)
    counts += ", COUNT(*) AS c" + std::to_string(i);
  const std::string query = "SELECT " + counts + " FROM slice GROUP BY name";
  EXPECT_TRUE(Fast(query));  // A shape the fast path takes, but for its width.
  const Rows rows = Run(query);
  ASSERT_FALSE(rows.empty());
  EXPECT_NE(rows.back().find("too many columns in result set"), std::string::npos)
      << rows.back().substr(0, 200);
}

TEST_F(GroupedAggregateTest, ATableOrViewOfTheSameNameIsSqlites) {
  // Found by review: a table in main hides the trace's (eponymous) table.
  EXPECT_EQ(Run("CREATE TABLE slice(name TEXT, dur INT); INSERT INTO slice VALUES ('x', 1); "
                "SELECT name, SUM(dur) FROM slice GROUP BY name"),
            (Rows{"columns: [name] [SUM(dur)]", "x|1"}));
  EXPECT_EQ(Run("CREATE PERFETTO VIEW counter AS SELECT 7 AS track_id; "
                "SELECT track_id, COUNT(*) FROM counter GROUP BY track_id"),
            (Rows{"columns: [track_id] [COUNT(*)]", "7|1"}));
}

TEST_F(GroupedAggregateTest, NotANumberIsNullAsToSqlite) {
  // Found by review: SQLite reads a NaN value as NULL.
  const double nan = std::nan("");
  storage_->counter.value = {nan, 1.0, 2.0, nan};
  storage_->counter.ts = {1, 2, 3, 4};
  storage_->counter.track_id = {0, 0, 0, 0};
  std::string error;
  engine_ = QueryEngine::Create(storage_.get(), &error);
  ASSERT_TRUE(engine_) << error;
  const std::string query =
      "SELECT track_id, COUNT(value), MIN(value), MAX(value) FROM counter GROUP BY track_id";
  EXPECT_EQ(Run(query), (Rows{"columns: [track_id] [COUNT(value)] [MIN(value)] [MAX(value)]",
                              "0|2|r1.0|r2.0"}));
  engine_->set_grouped_aggregate_fast_path(false);
  EXPECT_EQ(Run(query), (Rows{"columns: [track_id] [COUNT(value)] [MIN(value)] [MAX(value)]",
                              "0|2|r1.0|r2.0"}));
}

TEST_F(GroupedAggregateTest, ATemporaryTableOfTheSameNameIsSqlites) {
  EXPECT_EQ(Run("CREATE TEMP TABLE slice(name TEXT, dur INT); "
                "INSERT INTO temp.slice VALUES ('t', 4), ('t', 5); "
                "SELECT name, SUM(dur) FROM slice GROUP BY name"),
            (Rows{"columns: [name] [SUM(dur)]", "t|9"}));
}

}  // namespace
}  // namespace sql
}  // namespace processor
}  // namespace zt
