// The viz.flamegraph module, called step by step as Perfetto UI calls it
// when it draws a flamegraph (each step's result stored in a table the
// next reads), on a forest small enough to lay out by hand:
//
//   main (1) ── a (2, value 5) ── c (4, value 2)
//            └─ b (3, value 3)
//   main (5) ── a (6, value 4)
//
// The two roots named main, and their children named a, share a path:
// they are merged into one node each.

#include <string>

#include <gtest/gtest.h>

#include "src/processor/sql/query_engine_fixture_for_testing.h"

namespace zt {
namespace processor {
namespace sql {
namespace viz_flamegraph_test {

constexpr char kFrames[] =
    "CREATE PERFETTO TABLE frames AS "
    "SELECT 1 AS id, NULL AS parentId, 'main' AS name, 0 AS value, 1 AS simple_count "
    "UNION ALL SELECT 2, 1, 'a', 5, 1 UNION ALL SELECT 3, 1, 'b', 3, 1 "
    "UNION ALL SELECT 4, 2, 'c', 2, 1 UNION ALL SELECT 5, NULL, 'main', 0, 1 "
    "UNION ALL SELECT 6, 5, 'a', 4, 1";

class VizFlamegraphTest : public QueryEngineFixture {
 protected:
  void SetUp() override {
    QueryEngineFixture::SetUp();
    ASSERT_EQ(Run(kFrames), Rows{});
  }

  // The UI's steps with its filters' SQL: `show_stack`, `hide_frame` and
  // `pivot` expressions, the show-stack bits wanted, and whether the
  // view is top-down. Returns the final layout, ordered by `order`.
  Rows Draw(const std::string& show_stack, const std::string& hide_frame,
            const std::string& pivot, int show_stack_bits, bool downward,
            const std::string& columns, const std::string& order) {
    // The bit past the show filters' (the UI's "1 << filters").
    const std::string impossible = std::to_string(show_stack_bits + 1);
    const std::string steps[] = {
        "INCLUDE PERFETTO MODULE viz.flamegraph",
        "CREATE PERFETTO TABLE fg_source AS SELECT * FROM _viz_flamegraph_prepare_filter!("
        "(SELECT s.id, s.parentId, s.name, s.value, '' AS groupingColumn, s.simple_count "
        "FROM frames s), (" + show_stack + "), (false), (false), (" + hide_frame + "), (" +
            pivot + "), " + impossible + ", (groupingColumn))",
        "CREATE PERFETTO TABLE fg_filtered AS SELECT * FROM "
        "_viz_flamegraph_filter_frames!(fg_source, 0)",
        "CREATE PERFETTO INDEX fg_filtered_index ON fg_filtered(parentId)",
        "CREATE PERFETTO TABLE fg_accumulated AS SELECT * FROM "
        "_viz_flamegraph_accumulate!(fg_filtered, " + std::to_string(show_stack_bits) + ")",
        "CREATE PERFETTO TABLE fg_hash AS SELECT * FROM _viz_flamegraph_downwards_hash!("
        "fg_source, fg_filtered, fg_accumulated, (groupingColumn), (simple_count), " +
            std::string(downward ? "TRUE" : "FALSE") + ") UNION ALL SELECT * FROM "
            "_viz_flamegraph_upwards_hash!(fg_source, fg_filtered, fg_accumulated, "
            "(groupingColumn), (simple_count)) ORDER BY hash",
        "CREATE PERFETTO TABLE fg_merged AS SELECT * FROM _viz_flamegraph_merge_hashes!("
        "fg_hash, (groupingColumn), (SUM(simple_count) AS simple_count))",
        "CREATE PERFETTO INDEX fg_merged_index ON fg_merged(parentId)",
        "CREATE PERFETTO TABLE fg_layout AS SELECT * FROM _viz_flamegraph_local_layout!(fg_merged)",
    };
    for (const std::string& step : steps) {
      const Rows rows = Run(step);
      if (!rows.empty())
        return rows;  // The error.
    }
    return Run("SELECT " + columns + " FROM _viz_flamegraph_global_layout!(fg_merged, fg_layout, "
               "(groupingColumn), (simple_count)) AS n ORDER BY " + order);
  }
};

// No filter, top-down: the two mains and the two a's merged; siblings
// laid out largest first; every column the UI reads.
TEST_F(VizFlamegraphTest, TopDownMergesSamePathsAndLaysThemOut) {
  EXPECT_EQ(Draw("0", "false", "false", 0, true,
                 "n.name, (SELECT p.name FROM fg_merged p WHERE p.id = n.parentId), n.depth, "
                 "n.selfValue, n.cumulativeValue, n.parentCumulativeValue, n.xStart, n.xEnd, "
                 "n.simple_count, n.groupingColumn",
                 "n.depth, n.xStart"),
            (Rows{"main|NULL|1|0|14|NULL|0|14|2|", "a|main|2|9|11|14|0|11|2|",
                  "b|main|2|3|3|14|11|14|1|", "c|a|3|2|2|11|0|2|1|"}));
  // A root's parent is -1, as the UI expects.
  EXPECT_EQ(Run("SELECT COUNT(*) FROM _viz_flamegraph_global_layout!(fg_merged, fg_layout, "
                "(groupingColumn), (simple_count)) WHERE parentId = -1"),
            Rows{"1"});
}

// A hidden frame gives its value to the nearest shown frame above it, and
// its children move up to that frame. So does a frame without a name,
// for which the hide filter (`name = 'a'`) gives NULL: neither kept nor
// made its own parent. Top-down draws main holding b and c either way.
TEST_F(VizFlamegraphTest, AHiddenFrameGivesItsValueAndChildrenUp) {
  for (const char* sixth : {"'a'", "NULL"}) {
    SCOPED_TRACE(sixth);
    ASSERT_EQ(Run(std::string("UPDATE frames SET name = ") + sixth + " WHERE id = 6; "
                  "DROP TABLE IF EXISTS fg_source; DROP TABLE IF EXISTS fg_filtered; "
                  "DROP TABLE IF EXISTS fg_accumulated; DROP TABLE IF EXISTS fg_hash; "
                  "DROP TABLE IF EXISTS fg_merged; DROP TABLE IF EXISTS fg_layout"),
              Rows{});
    EXPECT_EQ(Draw("0", "name = 'a'", "false", 0, true,
                   "n.name, (SELECT p.name FROM fg_merged p WHERE p.id = n.parentId), n.depth, "
                   "n.selfValue, n.cumulativeValue, n.xStart, n.xEnd",
                   "n.depth, n.xStart"),
              (Rows{"main|NULL|1|9|14|0|14", "b|main|2|3|3|0|3", "c|main|2|2|2|3|5"}));
  }
}

// Pivoted on c: c alone below (top-down from it), and the path above it
// upwards (depths -1, -2, ...), each with c's value.
TEST_F(VizFlamegraphTest, APivotShowsItsStackBelowAndAbove) {
  EXPECT_EQ(Draw("((name = 'c') << 0)", "false", "name = 'c'", 1, true,
                 "n.name, n.depth, n.selfValue, n.cumulativeValue, n.xStart, n.xEnd",
                 "n.depth"),
            (Rows{"main|-3|0|2|0|2", "a|-2|5|2|0|2", "c|-1|2|2|0|2", "c|1|2|2|0|2"}));
}

// Bottom-up, as the UI asks for it: every frame with a value of its own
// is a pivot (and so a root: a 2 no longer holds c), nothing is drawn
// from the roots down, and each pivot's callers are drawn above it: the
// two a's merged (5 + 4), their callers main (9); c's caller a, and a's
// caller main (2, c's value).
TEST_F(VizFlamegraphTest, BottomUpDrawsEachFramesCallers) {
  EXPECT_EQ(Draw("0", "false", "value > 0", 0, false,
                 "n.name, (SELECT p.name FROM fg_merged p WHERE p.id = n.parentId), n.depth, "
                 "n.selfValue, n.cumulativeValue, n.xStart, n.xEnd",
                 "n.depth DESC, n.xStart"),
            (Rows{"a|NULL|-1|9|9|0|9", "b|NULL|-1|3|3|9|12", "c|NULL|-1|2|2|12|14",
                  "main|a|-2|0|9|0|9", "main|b|-2|0|3|9|12", "a|c|-2|5|2|12|14",
                  "main|a|-3|0|2|12|14"}));
}

}  // namespace viz_flamegraph_test
}  // namespace sql
}  // namespace processor
}  // namespace zt
