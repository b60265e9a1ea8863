// graphs.search and slices.flow on graphs small enough to search by hand:
// the order nodes are reached in, the parent each is reached from,
// duplicate paths, starts outside the graph, NULL ids, the weight bound
// (floor and ceiling), and bad inputs refused with a message.

#include "src/processor/sql/operators/graph_search.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/processor/sql/query_engine.h"
#include "src/processor/sql/query_engine_fixture_for_testing.h"

namespace zt {
namespace processor {
namespace sql {
namespace {

// 1 -> 2, 1 -> 3, 2 -> 4, 3 -> 4, 4 -> 1 (a cycle), 7 -> 8 (unreachable).
constexpr char kEdges[] =
    "INCLUDE PERFETTO MODULE graphs.search;"
    "CREATE PERFETTO TABLE edges AS "
    "SELECT 1 AS source_node_id, 2 AS dest_node_id, 5 AS edge_weight UNION ALL "
    "SELECT 1, 3, 1 UNION ALL SELECT 2, 4, 1 UNION ALL SELECT 3, 4, 1 UNION ALL "
    "SELECT 4, 1, 1 UNION ALL SELECT 7, 8, 1;";

class GraphSearchTest : public QueryEngineFixture {
 protected:
  void SetUp() override {
    QueryEngineFixture::SetUp();
    ASSERT_EQ(Run(kEdges), Rows{});
  }
};

TEST_F(GraphSearchTest, DepthFirstFollowsEdgesInTheirOrderAndVisitsEachNodeOnce) {
  // 1, then 2 and all below it (4; 4 -> 1 already seen), then 3 (4 seen).
  EXPECT_EQ(Run("SELECT * FROM graph_reachable_dfs!(edges, (SELECT 1 AS node_id))"),
            (Rows{"1|NULL", "2|1", "4|2", "3|1"}));
}

TEST_F(GraphSearchTest, BreadthFirstReachesNeighboursFirst) {
  EXPECT_EQ(Run("SELECT * FROM graph_reachable_bfs!(edges, (SELECT 1 AS node_id))"),
            (Rows{"1|NULL", "2|1", "3|1", "4|2"}));
}

TEST_F(GraphSearchTest, SeveralStartsShareOneVisitedSet) {
  // The starts go on one stack: the last given is searched first.
  EXPECT_EQ(Run("SELECT * FROM graph_reachable_dfs!(edges, "
                "(SELECT 3 AS node_id UNION ALL SELECT 7))"),
            (Rows{"7|NULL", "8|7", "3|NULL", "4|3", "1|4", "2|1"}));
  EXPECT_EQ(Run("SELECT * FROM graph_reachable_bfs!(edges, "
                "(SELECT 7 AS node_id UNION ALL SELECT 7 UNION ALL SELECT 4))"),
            (Rows{"7|NULL", "4|NULL", "8|7", "1|4", "2|1", "3|1"}));
}

TEST_F(GraphSearchTest, StartsOutsideTheGraphAreReachedAlone) {
  EXPECT_EQ(Run("SELECT * FROM graph_reachable_dfs!(edges, (SELECT 42 AS node_id))"),
            (Rows{"42|NULL"}));
  EXPECT_EQ(Run("SELECT * FROM graph_reachable_bfs!(edges, (SELECT 42 AS node_id))"),
            (Rows{"42|NULL"}));
}

TEST_F(GraphSearchTest, EmptyInputsAndNullIdsGiveNoRowsNotNodeZero) {
  EXPECT_EQ(Run("SELECT COUNT(*) FROM graph_reachable_dfs!("
                "(SELECT * FROM edges WHERE 0), (SELECT 1 AS node_id))"),
            Rows{"1"});
  EXPECT_EQ(Run("SELECT COUNT(*) FROM graph_reachable_dfs!(edges, "
                "(SELECT 1 AS node_id WHERE 0))"),
            Rows{"0"});
  EXPECT_EQ(Run("SELECT * FROM graph_reachable_dfs!("
                "(SELECT 2 AS source_node_id, NULL AS dest_node_id UNION ALL SELECT 2, 0), "
                "(SELECT 2 AS node_id UNION ALL SELECT NULL))"),
            (Rows{"2|NULL", "0|2"}));
}

TEST_F(GraphSearchTest, WeightBoundFloorKeepsTheNodeThatPassesIt) {
  // From 1: 1 (0), 2 (+5 = 5 > 4: the last, kept).
  EXPECT_EQ(Run("SELECT * FROM graph_reachable_weight_bounded_dfs!(edges, "
                "(SELECT 1 AS root_node_id, 4 AS root_target_weight), TRUE)"),
            (Rows{"1|1|NULL", "1|2|1"}));
  // From 3: 3 (0), 4 (1), 1 (2), 2 (7 > 6: kept, then stop); from 7 alone.
  EXPECT_EQ(Run("SELECT * FROM graph_reachable_weight_bounded_dfs!(edges, "
                "(SELECT 3 AS root_node_id, 6 AS root_target_weight UNION ALL SELECT 7, 0), "
                "TRUE)"),
            (Rows{"3|3|NULL", "3|4|3", "3|1|4", "3|2|1", "7|7|NULL", "7|8|7"}));
}

TEST_F(GraphSearchTest, WeightBoundCeilingLeavesOutTheNodeThatPassesIt) {
  EXPECT_EQ(Run("SELECT * FROM graph_reachable_weight_bounded_dfs!(edges, "
                "(SELECT 3 AS root_node_id, 6 AS root_target_weight UNION ALL SELECT 7, 0), "
                "FALSE)"),
            (Rows{"3|3|NULL", "3|4|3", "3|1|4", "7|7|NULL"}));
}

TEST_F(GraphSearchTest, NextSiblingOrdersChildrenBySortKey) {
  EXPECT_EQ(Run("SELECT * FROM graph_next_sibling!((SELECT 1 AS node_id, 0 AS node_parent_id, "
                "1 AS sort_key UNION ALL SELECT 2, 1, 9 UNION ALL SELECT 3, 1, 4)) ORDER BY 1"),
            (Rows{"1|NULL", "2|NULL", "3|2"}));
}

TEST_F(GraphSearchTest, BadInputsAreRefusedWithAMessage) {
  EXPECT_EQ(Run("SELECT * FROM __zt_graph_search('sideways', NULL, NULL)"),
            Rows{"error: __zt_graph_search: the mode must be 'dfs' or 'bfs', not 'sideways'"});
  EXPECT_EQ(Run("SELECT * FROM __zt_graph_search('dfs', x'02ff', NULL)"),
            Rows{"error: __zt_graph_search: the edges: bad packed rows at byte 1"});
  EXPECT_EQ(Run("SELECT * FROM __zt_graph_search('dfs', x'0201', NULL)"),
            Rows{"error: __zt_graph_search: the edges: bad packed rows at byte 1"});
  EXPECT_EQ(Run("SELECT * FROM __zt_graph_search('dfs', 'text', NULL)"),
            Rows{"error: __zt_graph_search: the edges must be rows packed by __zt_pack_rows "
                 "with 2 values each"});
  EXPECT_EQ(Run("SELECT * FROM __zt_graph_search('dfs', (SELECT __zt_pack_rows(1, 2, 3)), "
                "NULL)"),
            Rows{"error: __zt_graph_search: the edges must be rows packed by __zt_pack_rows "
                 "with 2 values each"});
  EXPECT_EQ(Run("SELECT * FROM __zt_graph_search('dfs')"),
            Rows{"error: __zt_graph_search: needs its 3 argument(s), as in "
                 "__zt_graph_search(mode, edges, starts)"});
}

TEST_F(GraphSearchTest, SliceFollowingFlowReachesThroughFlows) {
  // The sample's one flow: slice 1 -> slice 3.
  EXPECT_EQ(Run("INCLUDE PERFETTO MODULE slices.flow;"
                "SELECT * FROM _slice_following_flow!((SELECT id FROM slice WHERE id IN (1, 3)))"),
            (Rows{"1|1|NULL", "1|3|1"}));
}

TEST_F(GraphSearchTest, AWeightSumBeyondInt64IsPastTheTarget) {
  // Found by review: the sum overflowed and the search went on.
  EXPECT_EQ(Run("SELECT node_id FROM graph_reachable_weight_bounded_dfs!("
                "(SELECT 1 AS source_node_id, 2 AS dest_node_id, 10 AS edge_weight "
                " UNION ALL SELECT 2, 3, 9223372036854775807 UNION ALL SELECT 3, 4, 1), "
                "(SELECT 1 AS root_node_id, 9223372036854775807 AS root_target_weight), TRUE)"),
            (Rows{"1", "2", "3"}));
}

TEST_F(GraphSearchTest, AFunctionGivenSomeArgumentsSaysWhichItNeeds) {
  // Found by review: SQLite's "xBestIndex malfunction" instead.
  EXPECT_EQ(Run("SELECT * FROM __zt_graph_search WHERE edges = 1 AND starts = 2"),
            Rows{"error: __zt_graph_search: needs its 3 argument(s), as in "
                 "__zt_graph_search(mode, edges, starts)"});
}

}  // namespace
}  // namespace sql
}  // namespace processor
}  // namespace zt
