// _graph_scan! and _graph_aggregating_scan! on graphs small enough to scan
// by hand: depths down a tree (Perfetto UI's callstack query), self times
// up one (its slice flamegraph), nodes reached by several paths, cycles,
// empty graphs, and bad inputs refused.

#include "src/processor/sql/operators/graph_scan.h"

#include <string>

#include <gtest/gtest.h>

#include "src/processor/sql/query_engine.h"
#include "src/processor/sql/query_engine_fixture_for_testing.h"

namespace zt {
namespace processor {
namespace sql {
namespace graph_scan_test {

// A tree 1 -> 2, 1 -> 3, 3 -> 4; a diamond 10 -> 11, 10 -> 12, 11 -> 13,
// 12 -> 13; a cycle 20 -> 21 -> 20 below 19.
constexpr char kEdges[] =
    "CREATE PERFETTO TABLE edges AS "
    "SELECT 1 AS source_node_id, 2 AS dest_node_id UNION ALL SELECT 1, 3 UNION ALL "
    "SELECT 3, 4 UNION ALL SELECT 10, 11 UNION ALL SELECT 10, 12 UNION ALL "
    "SELECT 11, 13 UNION ALL SELECT 12, 13 UNION ALL SELECT 19, 20 UNION ALL "
    "SELECT 20, 21 UNION ALL SELECT 21, 20;";

class GraphScanTest : public QueryEngineFixture {
 protected:
  void SetUp() override {
    QueryEngineFixture::SetUp();
    ASSERT_EQ(Run(kEdges), Rows{});
  }
};

TEST_F(GraphScanTest, DepthsDownATreeAsTheUiAsksThem) {
  EXPECT_EQ(Run("SELECT id, depth FROM _graph_scan!(edges, (SELECT 1 AS id, 0 AS depth), "
                "(depth), (SELECT t.id, t.depth + 1 AS depth FROM $table t)) "
                "ORDER BY id"),
            (Rows{"1|0", "2|1", "3|1", "4|2"}));
}

// 13, reached from both its parents in the same step, sees one row per
// edge into it: their values.
TEST_F(GraphScanTest, ANodeReachedTwiceInAStepSeesEachEdge) {
  EXPECT_EQ(Run("SELECT id, total, paths FROM _graph_scan!(edges, "
                "(SELECT 10 AS id, 1 AS total, 1 AS paths), (total, paths), "
                "(SELECT id, SUM(total) + id AS total, SUM(paths) AS paths "
                " FROM $table GROUP BY id)) ORDER BY id"),
            (Rows{"10|1|1", "11|12|1", "12|13|1", "13|38|2"}));
}

// As upstream's: a node is met once per path to it, at the step the path
// reaches it (3: from 1 at once, from 2 a step later).
TEST_F(GraphScanTest, ANodeIsMetOncePerPath) {
  EXPECT_EQ(Run("SELECT id, hops FROM _graph_scan!("
                "(SELECT 1 AS source_node_id, 2 AS dest_node_id UNION ALL SELECT 2, 3 "
                " UNION ALL SELECT 1, 3), (SELECT 1 AS id, 0 AS hops), (hops), "
                "(SELECT id, hops + 1 AS hops FROM $table))"),
            (Rows{"1|0", "2|1", "3|1", "3|2"}));
}

// A walk round a cycle would not end: it is stopped with an error.
TEST_F(GraphScanTest, ACycleIsAnError) {
  const Rows rows = Run("SELECT id FROM _graph_scan!(edges, (SELECT 19 AS id, 'x' AS s), (s), "
                        "(SELECT id, s || 'y' AS s FROM $table))");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_NE(rows[0].find("the walk went round a cycle through node"), std::string::npos)
      << rows[0];
  // A step that stops making rows ends the walk, cycle or not.
  EXPECT_EQ(Run("SELECT id, s FROM _graph_scan!(edges, (SELECT 19 AS id, 'x' AS s), (s), "
                "(SELECT id, s || 'y' AS s FROM $table WHERE length(s) < 3))"),
            (Rows{"19|x", "20|xy", "21|xyy"}));
}

TEST_F(GraphScanTest, NothingToStartFromIsEmpty) {
  EXPECT_EQ(Run("SELECT COUNT(*) FROM _graph_scan!(edges, (SELECT 1 AS id, 0 AS d WHERE 0), "
                "(d), (SELECT id, d FROM $table))"),
            Rows{"0"});
  EXPECT_EQ(Run("SELECT id, d FROM _graph_scan!((SELECT 1 AS source_node_id, "
                "2 AS dest_node_id WHERE 0), (SELECT 5 AS id, 7 AS d), (d), "
                "(SELECT id, d FROM $table))"),
            Rows{"5|7"});
}

// A step takes all its rows at once, however many edges go into one
// node: a slice with tens of thousands of children (a long root slice)
// is one node of the UI's flamegraph walks.
TEST_F(GraphScanTest, ANodeWithManyEdgesIntoItIsOneStep) {
  const std::string fan =
      "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 129999) ";
  EXPECT_EQ(Run(fan + "SELECT COUNT(*), SUM(parents) FROM _graph_scan!("
                      "(SELECT i AS source_node_id, 1000000 + i % 1300 AS dest_node_id FROM n), "
                      "(SELECT i AS id, 1 AS parents FROM n), (parents), "
                      "(SELECT id, SUM(parents) AS parents FROM $table GROUP BY id)) "
                      "WHERE id >= 1000000"),
            Rows{"1300|130000"});
  EXPECT_EQ(Run(fan + "SELECT id, parents FROM _graph_scan!("
                      "(SELECT i AS source_node_id, -1 AS dest_node_id FROM n), "
                      "(SELECT i AS id, 1 AS parents FROM n), (parents), "
                      "(SELECT id, SUM(parents) AS parents FROM $table GROUP BY id)) "
                      "WHERE id = -1"),
            Rows{"-1|130000"});
  EXPECT_EQ(Run(fan + "SELECT id, total FROM _graph_aggregating_scan!("
                      "(SELECT i AS source_node_id, -1 AS dest_node_id FROM n), "
                      "(SELECT i AS id, i AS total FROM n), (total), "
                      "(SELECT id, SUM(total) AS total FROM $table GROUP BY id)) "
                      "WHERE id = -1"),
            Rows{"-1|8449935000"});
}

// A walk that multiplies along the paths of a graph stops with an error,
// before it makes what would not fit: rungs of 64 nodes between single
// nodes multiply the paths by 64 each (64^4 rows would be sent on).
TEST_F(GraphScanTest, AWalkThatMultipliesStopsWithAnError) {
  const Rows rows = Run(
      "WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < 9), "
      "m(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM m WHERE j < 64) "
      "SELECT COUNT(*) FROM _graph_scan!("
      "(SELECT i * 100 AS source_node_id, i * 100 + j AS dest_node_id FROM r, m UNION ALL "
      " SELECT i * 100 + j, i * 100 + 100 FROM r, m), "
      "(SELECT 0 AS id, 0 AS v), (v), (SELECT id, v FROM $table))");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_NE(rows[0].find("the scan made more than 32 M values"), std::string::npos) << rows[0];
}

TEST_F(GraphScanTest, AStepThatFailsSaysSo) {
  const Rows rows = Run("SELECT * FROM _graph_scan!(edges, (SELECT 1 AS id, 0 AS d), (d), "
                        "(SELECT id FROM $table))");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_NE(rows[0].find("the step query returns 1 columns"), std::string::npos) << rows[0];
  const Rows bad = Run("SELECT * FROM _graph_scan!(edges, (SELECT 1 AS id, 0 AS d), (d), "
                       "(SELECT id, nope FROM $table))");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_NE(bad[0].find("no such column: nope"), std::string::npos) << bad[0];
}

// _graph_aggregating_scan!, as Perfetto UI's slice flamegraph uses it:
// edges from each slice to its parent, the leaves as start rows, and each
// parent's self time once all its children have given theirs. A tree
// 1 <- 2 <- 4, 1 <- 3 (durations 100, 40, 30, 10).
constexpr char kSlices[] =
    "(SELECT 1 AS id, NULL AS parent_id, 100 AS dur UNION ALL SELECT 2, 1, 40 "
    "UNION ALL SELECT 3, 1, 30 UNION ALL SELECT 4, 2, 10)";

TEST_F(GraphScanTest, AggregatingScanGoesFromTheLeavesUpDeepestFirst) {
  const std::string slices = kSlices;
  EXPECT_EQ(Run("SELECT id, dur, self_dur FROM _graph_aggregating_scan!("
                "(SELECT id AS source_node_id, parent_id AS dest_node_id FROM " + slices +
                " WHERE parent_id IS NOT NULL), "
                "(SELECT id, dur, dur AS self_dur FROM " + slices + " WHERE id IN (3, 4)), "
                "(dur, self_dur), "
                "(SELECT a.id, s.dur, s.dur - a.child_dur AS self_dur "
                " FROM (SELECT id, SUM(dur) AS child_dur FROM $table GROUP BY id) a "
                " JOIN " + slices + " s USING (id)))"),
            (Rows{"3|30|30", "4|10|10", "2|40|30", "1|100|30"}));
}

// A node is taken once every path up to it has been walked, however long:
// 13 waits for 11 and 12 (diamond); 3 for 1 directly and through 2.
TEST_F(GraphScanTest, AggregatingScanWaitsForEveryPath) {
  EXPECT_EQ(Run("SELECT id, v FROM _graph_aggregating_scan!(edges, (SELECT 10 AS id, 1 AS v), "
                "(v), (SELECT id, SUM(v) + 1 AS v FROM $table GROUP BY id))"),
            (Rows{"10|1", "11|2", "12|2", "13|5"}));
  EXPECT_EQ(Run("SELECT id, v FROM _graph_aggregating_scan!("
                "(SELECT 1 AS source_node_id, 2 AS dest_node_id UNION ALL SELECT 2, 3 "
                " UNION ALL SELECT 1, 3), (SELECT 1 AS id, 1 AS v), (v), "
                "(SELECT id, SUM(v) + 1 AS v FROM $table GROUP BY id))"),
            (Rows{"1|1", "2|2", "3|4"}));
}

TEST_F(GraphScanTest, AggregatingScanRefusesACycleAndStrayRows) {
  const Rows cycle = Run("SELECT * FROM _graph_aggregating_scan!(edges, (SELECT 19 AS id, 0 AS v), "
                         "(v), (SELECT id, SUM(v) AS v FROM $table GROUP BY id))");
  ASSERT_EQ(cycle.size(), 1u);
  EXPECT_NE(cycle[0].find("the graph has a cycle through node"), std::string::npos) << cycle[0];
  const Rows stray = Run("SELECT * FROM _graph_aggregating_scan!(edges, (SELECT 1 AS id, 0 AS v), "
                         "(v), (SELECT 99 AS id, 0 AS v FROM $table))");
  ASSERT_EQ(stray.size(), 1u);
  EXPECT_NE(stray[0].find("returned node 99, which its $table did not hold"), std::string::npos)
      << stray[0];
  // Nothing to start from: nothing at all.
  EXPECT_EQ(Run("SELECT COUNT(*) FROM _graph_aggregating_scan!(edges, "
                "(SELECT 1 AS id, 0 AS v WHERE 0), (v), (SELECT id, v FROM $table))"),
            Rows{"0"});
}

}  // namespace graph_scan_test
}  // namespace sql
}  // namespace processor
}  // namespace zt
