// The engine's planning: which queries the virtual tables serve without a
// sort or a full scan (EXPLAIN QUERY PLAN), and that they return the same
// rows as a plain scan would.

#include "src/processor/sql/query_engine.h"

#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include "src/processor/sql/query_engine_fixture_for_testing.h"
#include "src/processor/sql/sample_storage_for_testing.h"

namespace zt {
namespace processor {
namespace sql {
namespace {

class QueryEngineTest : public QueryEngineFixture {
 protected:
  // The plan's detail lines, joined.
  std::string Plan(const std::string& sql) {
    std::string plan;
    for (const std::string& row : Run("EXPLAIN QUERY PLAN " + sql))
      plan += row.substr(row.rfind('|') + 1) + "\n";
    return plan;
  }
};

TEST_F(QueryEngineTest, GroupByAndOrderByNeedNoSort) {
  EXPECT_EQ(Plan("SELECT name, SUM(dur) FROM slice GROUP BY name").find("TEMP B-TREE"),
            std::string::npos);
  EXPECT_EQ(Plan("SELECT * FROM slice ORDER BY ts").find("TEMP B-TREE"), std::string::npos);
  EXPECT_EQ(Plan("SELECT * FROM slice ORDER BY id DESC").find("TEMP B-TREE"),
            std::string::npos);
  EXPECT_EQ(Plan("SELECT * FROM slice ORDER BY name").find("TEMP B-TREE"), std::string::npos);
  EXPECT_EQ(Plan("SELECT track_id, COUNT(*) FROM slice GROUP BY track_id").find("TEMP B-TREE"),
            std::string::npos);
  // With a range, SQLite sorts the few rows left rather than the table
  // walking all of them in order.
  EXPECT_NE(
      Plan("SELECT * FROM slice WHERE ts BETWEEN 1 AND 2 ORDER BY name").find("TEMP B-TREE"),
      std::string::npos);
  EXPECT_EQ(Run("SELECT name FROM slice WHERE ts BETWEEN 110 AND 170 ORDER BY name DESC"),
            (std::vector<std::string>{"Work", "Instant", "Inner", "Inner"}));
  // A column with no index is sorted by SQLite.
  EXPECT_NE(Plan("SELECT * FROM slice ORDER BY dur").find("TEMP B-TREE"), std::string::npos);
}

TEST_F(QueryEngineTest, OrderedResultsMatchSqliteSort) {
  // The same query with the order served by the table and by SQLite's
  // sorter (+name defeats the index).
  for (const char* column :
       {"name", "category", "track_id", "parent_id", "arg_set_id", "depth"}) {
    for (const char* dir : {"", " DESC"}) {
      const std::string a =
          std::string("SELECT ") + column + " FROM slice ORDER BY " + column + dir;
      const std::string b =
          std::string("SELECT ") + column + " FROM slice ORDER BY +" + column + dir;
      EXPECT_EQ(Run(a), Run(b)) << a;
    }
  }
}

TEST_F(QueryEngineTest, DistinctReadsOneRowPerKey) {
  EXPECT_EQ(Run("SELECT DISTINCT name FROM slice"),
            (std::vector<std::string>{"Async", "Inner", "Instant", "Outer", "Work"}));
  EXPECT_EQ(Run("SELECT DISTINCT name FROM slice ORDER BY name DESC"),
            (std::vector<std::string>{"Work", "Outer", "Instant", "Inner", "Async"}));
  EXPECT_EQ(Run("SELECT DISTINCT track_id FROM slice"),
            (std::vector<std::string>{"0", "1", "2"}));
  EXPECT_EQ(Run("SELECT DISTINCT category FROM slice"),
            (std::vector<std::string>{"NULL", "cat"}));
  // The plan says so: order by column 5 (name), colUsed 32, one per key.
  EXPECT_NE(Plan("SELECT DISTINCT name FROM slice").find("INDEX 0:-1 5 0 32 1"),
            std::string::npos)
      << Plan("SELECT DISTINCT name FROM slice");
  // Not with a constraint: the row kept per key might fail it.
  EXPECT_EQ(Run("SELECT DISTINCT name FROM slice WHERE dur = 20"),
            (std::vector<std::string>{"Inner"}));
  EXPECT_EQ(Run("SELECT DISTINCT name FROM slice WHERE depth = 1 ORDER BY name"),
            (std::vector<std::string>{"Inner", "Instant"}));
  // Nor in a join: the row kept might find no partner where another would.
  EXPECT_EQ(Run("SELECT DISTINCT s.name FROM slice s JOIN thread_track t "
                "ON s.track_id = t.id WHERE t.utid = 2 ORDER BY 1"),
            (std::vector<std::string>{"Instant", "Work"}));
  EXPECT_EQ(Run("SELECT DISTINCT s.name FROM slice s, slice p WHERE s.parent_id = p.id"),
            (std::vector<std::string>{"Inner", "Instant"}));
  // Nor when another column is read.
  EXPECT_EQ(
      Run("SELECT DISTINCT name, depth FROM slice ORDER BY name, depth"),
      (std::vector<std::string>{"Async|0", "Inner|1", "Instant|1", "Outer|0", "Work|0"}));
  EXPECT_EQ(
      Run("SELECT name, COUNT(*) FROM slice GROUP BY name"),
      (std::vector<std::string>{"Async|1", "Inner|2", "Instant|1", "Outer|1", "Work|1"}));
}

TEST_F(QueryEngineTest, ConstraintsMatchAFullScan) {
  const char* const kWheres[] = {"id = 2",
                                 "id >= 2 AND id < 4",
                                 "id > 2.5",
                                 "id < -3",
                                 "ts BETWEEN 100 AND 160",
                                 "ts > 160 OR ts < 110",
                                 "ts = 150",
                                 "ts >= 9e18",
                                 "ts <= -9e18",
                                 "track_id = 0",
                                 "track_id = 1 AND id > 3",
                                 "track_id = 1.5",
                                 "name = 'Inner'",
                                 "name = 1",
                                 "name IN ('Work', 'Outer')",
                                 "track_id IN (0, 2) AND ts > 120",
                                 "parent_id = 0",
                                 "id = 1 AND ts = 110"};
  for (const char* where : kWheres) {
    const std::string fast = std::string("SELECT id FROM slice WHERE ") + where;
    // The unary + keeps SQLite from offering the constraint to the table.
    std::string slow = std::string("SELECT id FROM slice WHERE ") + where;
    for (const char* column : {"id", "ts", "track_id", "name", "parent_id"}) {
      std::string from = column;
      size_t at = 0;
      std::string out;
      while ((at = slow.find(from, at)) != std::string::npos) {
        const bool word_start =
            at == 0 || !(isalnum(slow[at - 1]) || slow[at - 1] == '_' || slow[at - 1] == '+');
        const size_t end = at + from.size();
        const bool word_end = end >= slow.size() || !(isalnum(slow[end]) || slow[end] == '_');
        if (word_start && word_end && at > slow.find("WHERE")) {
          slow.insert(at, "+");
          at += from.size() + 1;
        } else {
          at += from.size();
        }
      }
    }
    EXPECT_EQ(Run(fast + " ORDER BY +id"), Run(slow + " ORDER BY +id"))
        << fast << " vs " << slow;
  }
}

TEST_F(QueryEngineTest, LookupsUseTheTable) {
  // No full scan for an id, a ts range or a track: the plan names the
  // constraint the table takes ("VIRTUAL TABLE INDEX 0:<plan>").
  const std::string by_id = Plan("SELECT * FROM slice WHERE id = 3");
  EXPECT_NE(by_id.find("-1 2"), std::string::npos) << by_id;
  const std::string by_ts = Plan("SELECT * FROM slice WHERE ts BETWEEN 1 AND 2");
  EXPECT_NE(by_ts.find(" 1 32 1 8"), std::string::npos) << by_ts;
  const std::string by_track = Plan("SELECT * FROM slice WHERE track_id = 3");
  EXPECT_NE(by_track.find("INDEX 0:3 "), std::string::npos) << by_track;
}

TEST_F(QueryEngineTest, ErrorsAndEmptyInput) {
  EXPECT_EQ(Run("SELECT * FROM nope"), std::vector<std::string>{"error: no such table: nope"});
  EXPECT_EQ(Run(" ; "), std::vector<std::string>{"error: empty query"});
  EXPECT_EQ(Run("-- only a comment"), std::vector<std::string>{});
  EXPECT_EQ(Run("SELECT 1; SELECT 2"), (std::vector<std::string>{"1", "2"}));
}

TEST_F(QueryEngineTest, ArgsShowTheirValueAsUpstreamDisplaysIt) {
  EXPECT_EQ(Run("SELECT id, key, display_value FROM args ORDER BY id"),
            (std::vector<std::string>{"0|debug.count|3", "1|debug.name|x", "2|debug.ratio|0.25",
                                      "3|debug.flag|true"}));
  // An unsigned value above 2^63 (stored as int64), a pointer, false.
  ArgTable& args = storage_->args;
  auto add = [&](ArgType type, int64_t value) {
    args.arg_set_id.push_back(2);
    args.flat_key.push_back(storage_->strings.Intern("k"));
    args.key.push_back(storage_->strings.Intern("k"));
    args.value_type.push_back(type);
    args.int_value.push_back(value);
    args.string_value.push_back(kNullStringId);
    args.real_value.push_back(0);
  };
  add(ArgType::kUint, -1);
  add(ArgType::kPointer, 0xbeef);
  add(ArgType::kBool, 0);
  std::string error;
  engine_ = QueryEngine::Create(storage_.get(), &error);
  ASSERT_TRUE(engine_) << error;
  EXPECT_EQ(Run("SELECT value_type, display_value FROM args WHERE arg_set_id = 2 ORDER BY id"),
            (std::vector<std::string>{"uint|18446744073709551615", "pointer|0xbeef",
                                      "bool|false"}));
}

TEST_F(QueryEngineTest, UpstreamsConvenienceViews) {
  EXPECT_EQ(Run("SELECT ts, track_id, name, arg_set_id FROM instant"),
            std::vector<std::string>{"170|1|Instant|NULL"});
  // Durations 100 + 30 + 20 + 40 + 0, and -1 for the unfinished Async.
  EXPECT_EQ(Run("SELECT COUNT(*), SUM(dur) FROM slices"), std::vector<std::string>{"6|189"});
  EXPECT_EQ(Run("SELECT ts, value, name, unit FROM counters"),
            (std::vector<std::string>{"100|1024.0|mem|bytes", "200|2048.0|mem|bytes",
                                      "250|0.5|load|NULL", "260|7.0|cpu_time|ns"}));
}

TEST_F(QueryEngineTest, AnInterruptCheckEndsALongStatement) {
  // A statement that would run for minutes and return one row: only the
  // check can stop it.
  const std::string endless =
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
      "SELECT COUNT(*) FROM n";
  int asked = 0;
  engine_->SetInterruptCheck([&asked] { return ++asked >= 3; });
  std::string error;
  EXPECT_FALSE(engine_->Execute(endless, nullptr, nullptr, &error));
  EXPECT_EQ(error, "interrupted");
  EXPECT_EQ(asked, 3);

  // Without a check (or one that says go on), statements run to the end.
  engine_->SetInterruptCheck([] { return false; });
  EXPECT_EQ(Run("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < "
                "100000) SELECT COUNT(*) FROM n"),
            (std::vector<std::string>{"100000"}));
  engine_->SetInterruptCheck(nullptr);
  EXPECT_EQ(Run("SELECT 1"), (std::vector<std::string>{"1"}));
}

TEST_F(QueryEngineTest, BlobsComeOutAsBlobsWithEveryByte) {
  std::vector<SqlValue> cells;
  std::string error;
  ASSERT_TRUE(engine_->Execute(
      "SELECT x'0100ff', 'text', zeroblob(2)", nullptr,
      [&cells](const std::vector<SqlValue>& row) {
        cells = row;
        return true;
      },
      &error))
      << error;
  ASSERT_EQ(cells.size(), 3u);
  EXPECT_EQ(cells[0].type, SqlValue::kBlob);
  EXPECT_EQ(cells[0].text, std::string("\x01\0\xff", 3));
  EXPECT_EQ(cells[1].type, SqlValue::kText);
  EXPECT_EQ(cells[2].type, SqlValue::kBlob);
  EXPECT_EQ(cells[2].text, std::string(2, '\0'));
}

// One machine per session, the host, numbered as upstream numbers it: a
// reader that joins on machine_id or reads it as a number gets 0.
TEST_F(QueryEngineTest, EveryRowIsOfTheHostMachineZero) {
  EXPECT_EQ(Run("SELECT COUNT(*), MIN(id), MIN(label_index) FROM machine"),
            (std::vector<std::string>{"1|0|0"}));
  for (const char* table : {"thread", "process", "track", "thread_track", "process_track",
                            "counter_track", "clock_snapshot"}) {
    EXPECT_EQ(Run(std::string("SELECT COUNT(*) FROM ") + table +
                  " WHERE machine_id IS NOT 0"),
              (std::vector<std::string>{"0"}))
        << table;
  }
  EXPECT_EQ(Run("SELECT COUNT(*) FROM thread WHERE is_idle IS NOT 0"),
            (std::vector<std::string>{"0"}));
}

TEST_F(QueryEngineTest, AServersEngineReadsNoOtherFile) {
  const std::string path = ::testing::TempDir() + "/zt_deny_other_files.db";
  unlink(path.c_str());
  engine_->DenyOtherFiles();
  for (const std::string& sql :
       {"ATTACH DATABASE '" + path + "' AS w", "VACUUM INTO '" + path + "'",
        "SELECT * FROM pragma_database_list WHERE 0; ATTACH '" + path + "' AS x"}) {
    const std::vector<std::string> rows = Run(sql);
    ASSERT_FALSE(rows.empty()) << sql;
    EXPECT_EQ(rows.back().rfind("error: ", 0), 0u) << sql << ": " << rows.back();
  }
  EXPECT_NE(access(path.c_str(), F_OK), 0) << "a file was made";
  // Queries of the trace still run, and temporary tables too.
  EXPECT_EQ(Run("CREATE TEMP TABLE t AS SELECT COUNT(*) AS n FROM slice; SELECT n FROM t"),
            (std::vector<std::string>{"6"}));
}

}  // namespace
}  // namespace sql
}  // namespace processor
}  // namespace zt
