// intervals.intersect on tables whose intersections are worked out by
// hand (two and three tables, partitions of each type, the instant rules,
// touching ends), checked against a brute-force join on random tables,
// and its refusals.

#include "src/processor/sql/operators/interval_intersect.h"

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

// a: 0 [0,10) c1, 1 [20,30) c1, 2 instant at 5 c2.
// b: 10 [5,25) c1, 11 [0,100) c2.
constexpr char kIntervals[] =
    "INCLUDE PERFETTO MODULE intervals.intersect;"
    "CREATE PERFETTO TABLE a AS SELECT 0 AS id, 0 AS ts, 10 AS dur, 1 AS c "
    "UNION ALL SELECT 1, 20, 10, 1 UNION ALL SELECT 2, 5, 0, 2;"
    "CREATE PERFETTO TABLE b AS SELECT 10 AS id, 5 AS ts, 20 AS dur, 1 AS c "
    "UNION ALL SELECT 11, 0, 100, 2;";

class IntervalIntersectTest : public QueryEngineFixture {
 protected:
  void SetUp() override {
    QueryEngineFixture::SetUp();
    ASSERT_EQ(Run(kIntervals), Rows{});
  }
};

TEST_F(IntervalIntersectTest, TwoTablesGiveEveryOverlappingPairWithTheSharedSpan) {
  EXPECT_EQ(Run("SELECT * FROM _interval_intersect!((a, b), ())"),
            (Rows{"0|10|0|11", "5|5|0|10", "5|0|2|10", "5|0|2|11", "20|5|1|10", "20|10|1|11"}));
  // The order of the tables is the order of the id columns.
  EXPECT_EQ(Run("SELECT * FROM _interval_intersect!((b, a), ()) WHERE id_1 = 0"),
            (Rows{"0|10|11|0", "5|5|10|0"}));
}

TEST_F(IntervalIntersectTest, PartitionsIntersectOnlyWithinThemselves) {
  EXPECT_EQ(Run("SELECT * FROM _interval_intersect!((a, b), (c))"),
            (Rows{"5|5|0|10|1", "20|5|1|10|1", "5|0|2|11|2"}));
  // Text and NULL partitions match their equals; a partition missing
  // from one table gives nothing.
  EXPECT_EQ(Run("SELECT * FROM _interval_intersect!("
                "((SELECT 1 AS id, 0 AS ts, 10 AS dur, 'x' AS p, NULL AS q "
                "  UNION ALL SELECT 2, 0, 10, 'y', NULL), "
                " (SELECT 3 AS id, 5 AS ts, 10 AS dur, 'x' AS p, NULL AS q "
                "  UNION ALL SELECT 4, 5, 10, 'z', NULL)), (p, q))"),
            Rows{"5|5|1|3|x|NULL"});
}

TEST_F(IntervalIntersectTest, ThreeTablesShareOneSpan) {
  EXPECT_EQ(Run("SELECT * FROM _interval_intersect!((a, b, "
                "(SELECT 7 AS id, 8 AS ts, 14 AS dur)), ())"),
            (Rows{"8|2|0|10|7", "8|2|0|11|7", "20|2|1|10|7", "20|2|1|11|7"}));
}

TEST_F(IntervalIntersectTest, InstantsFollowUpstreamsRules) {
  const std::string instants =
      "(SELECT 1 AS id, 10 AS ts, 0 AS dur UNION ALL SELECT 2, 20, 0 UNION ALL SELECT 3, 30, 0)";
  // An instant lies within [ts, ts + dur): the one at the end is out.
  EXPECT_EQ(Run("SELECT * FROM _interval_intersect!((" + instants +
                ", (SELECT 9 AS id, 10 AS ts, 10 AS dur)), ())"),
            Rows{"10|0|1|9"});
  // Two instants meet only at the same ts.
  EXPECT_EQ(Run("SELECT * FROM _interval_intersect!((" + instants +
                ", (SELECT 9 AS id, 20 AS ts, 0 AS dur)), ())"),
            Rows{"20|0|2|9"});
  // Intervals that only touch share nothing.
  EXPECT_EQ(Run("SELECT COUNT(*) FROM _interval_intersect!(((SELECT 1 AS id, 0 AS ts, 10 AS dur), "
                "(SELECT 2 AS id, 10 AS ts, 5 AS dur)), ())"),
            Rows{"0"});
}

TEST_F(IntervalIntersectTest, SingleAndNamedColumnsForms) {
  EXPECT_EQ(Run("SELECT * FROM _interval_intersect_single!(8, 15, a)"),
            (Rows{"0|8|2", "1|20|3"}));
  EXPECT_EQ(Run("SELECT * FROM _interval_intersect_with_col_names!("
                "(SELECT id AS i, ts AS t, dur AS d, c FROM a), i, t, d, b, id, ts, dur, (c))"),
            (Rows{"5|5|0|10|1", "20|5|1|10|1", "5|0|2|11|2"}));
}

TEST_F(IntervalIntersectTest, SelfIntersectCutsAtEveryEnd) {
  // Upstream's documented example: A [10, 30), B [20, 45).
  EXPECT_EQ(Run("SELECT * FROM interval_self_intersect!("
                "(SELECT 1 AS id, 10 AS ts, 20 AS dur UNION ALL SELECT 2, 20, 25)) "
                "ORDER BY ts, interval_ends_at_ts, id"),
            (Rows{"10|10|1|1|0", "20|10|2|1|0", "20|10|2|2|0", "30|15|3|2|0", "30|15|3|1|1",
                  "45|0|4|2|1"}));
}

TEST_F(IntervalIntersectTest, EmptyTablesGiveNoRows) {
  EXPECT_EQ(Run("SELECT COUNT(*) FROM _interval_intersect!((a, (SELECT * FROM b WHERE 0)), ())"),
            Rows{"0"});
}

TEST_F(IntervalIntersectTest, AgreesWithABruteForceJoinOnRandomTables) {
  // Overlapping intervals (and some instants) in 3 partitions.
  ASSERT_EQ(Run("CREATE PERFETTO TABLE r1 AS "
                "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 399) "
                "SELECT i AS id, ABS(RANDOM() % 10000) AS ts, "
                "CASE WHEN i % 7 = 0 THEN 0 ELSE ABS(RANDOM() % 300) END AS dur, i % 3 AS p "
                "FROM n;"
                "CREATE PERFETTO TABLE r2 AS SELECT id + 1000 AS id, (ts * 7) % 10000 AS ts, "
                "dur * 2 AS dur, (p + id) % 3 AS p FROM r1"),
            Rows{});
  const std::string brute =
      "SELECT COUNT(*), SUM(MIN(x.ts + x.dur, y.ts + y.dur) - MAX(x.ts, y.ts)) FROM r1 x "
      "JOIN r2 y ON x.p = y.p WHERE "
      "CASE WHEN x.dur = 0 AND y.dur = 0 THEN x.ts = y.ts "
      "WHEN x.dur = 0 THEN y.ts <= x.ts AND x.ts < y.ts + y.dur "
      "WHEN y.dur = 0 THEN x.ts <= y.ts AND y.ts < x.ts + x.dur "
      "ELSE x.ts < y.ts + y.dur AND y.ts < x.ts + x.dur END";
  const Rows expected = Run(brute);
  ASSERT_EQ(expected.size(), 1u);
  EXPECT_NE(expected[0], "0|NULL");
  EXPECT_EQ(Run("SELECT COUNT(*), SUM(dur) FROM _interval_intersect!((r1, r2), (p))"), expected);
}

TEST_F(IntervalIntersectTest, BadInputsAreRefusedWithAMessage) {
  EXPECT_EQ(Run("SELECT * FROM _interval_intersect!((a, (SELECT 1 AS id, 0 AS ts, -1 AS dur)), "
                "())"),
            Rows{"error: __zt_interval_intersect: table 2: the interval of id 1 has a negative "
                 "dur (-1); intervals must have dur >= 0"});
  EXPECT_EQ(Run("SELECT * FROM _interval_intersect!((a, (SELECT 'x' AS id, 0 AS ts, 1 AS dur)), "
                "())"),
            Rows{"error: __zt_interval_intersect: table 2: an interval's id is not an integer "
                 "(ids must be integers)"});
  EXPECT_EQ(Run("SELECT * FROM _interval_intersect!(a, ())"),
            Rows{"error: __zt_interval_intersect!: expected a list in parentheses, as (a, b), "
                 "not 'a' (at 1:1), in _interval_intersect! at 1:15"});
  EXPECT_EQ(Run("SELECT * FROM _interval_intersect!((a, b), (c, c, c, c, c))"),
            Rows{"error: __zt_interval_intersect!: takes at most 4 partition columns, not 5 (at "
                 "1:1), in _interval_intersect! at 1:15"});
  EXPECT_EQ(Run("SELECT * FROM _interval_intersect!((a,), ())"),
            Rows{"error: __zt_interval_intersect!: an empty item in the list '(a,)' (at 1:1), in "
                 "_interval_intersect! at 1:15"});
}

TEST_F(IntervalIntersectTest, OverlapModuleCountsAndMerges) {
  ASSERT_EQ(Run("INCLUDE PERFETTO MODULE intervals.overlap; "
                "CREATE PERFETTO TABLE o AS SELECT 10 AS ts, 40 AS dur, 'A' AS g "
                "UNION ALL SELECT 20, 10, 'B' UNION ALL SELECT 25, 10, 'A' "
                "UNION ALL SELECT 60, -1, 'B'"),
            Rows{});
  // +1 at 10, 20, 25, 60 (never ends); -1 at 50, 30, 35.
  EXPECT_EQ(Run("SELECT * FROM intervals_overlap_count!(o, ts, dur)"),
            (Rows{"10|1", "20|2", "25|3", "30|2", "35|1", "50|0", "60|1"}));
  EXPECT_EQ(Run("SELECT * FROM intervals_overlap_count_by_group!(o, ts, dur, g)"),
            (Rows{"10|1|A", "20|1|B", "25|2|A", "30|0|B", "35|1|A", "50|0|A", "60|1|B"}));
  EXPECT_EQ(Run("SELECT * FROM _intervals_overlap_in_table!((SELECT * FROM o WHERE dur > 0)), "
                "_intervals_overlap_in_table!((SELECT 0 AS ts, 5 AS dur UNION ALL "
                "SELECT 5, 5))"),
            Rows{"1|0"});
  // A gap of 1 merges with epsilon 1, not with 0; nested and touching merge.
  const std::string gaps =
      "(SELECT 0 AS ts, 10 AS dur, 1 AS p UNION ALL SELECT 11, 4, 1 UNION ALL SELECT 2, 3, 1 "
      "UNION ALL SELECT 15, 5, 1 UNION ALL SELECT 0, 1, NULL UNION ALL SELECT 3, 1, NULL)";
  EXPECT_EQ(Run("SELECT * FROM interval_merge_overlapping!(" + gaps + ", 1)"), Rows{"0|20"});
  EXPECT_EQ(Run("SELECT * FROM interval_merge_overlapping!(" + gaps + ", 0)"),
            (Rows{"0|10", "11|9"}));
  EXPECT_EQ(Run("SELECT * FROM interval_merge_overlapping_partitioned!(" + gaps +
                ", (p)) ORDER BY p, ts"),
            (Rows{"0|1|NULL", "3|1|NULL", "0|10|1", "11|9|1"}));
  EXPECT_EQ(Run("SELECT * FROM interval_merge_overlapping_partitioned!(" + gaps + ", ())"),
            Rows{"error: __zt_columns!: needs at least one column, as (a) or (a, b) (at 4:38), "
                 "in interval_merge_overlapping_partitioned! at 1:15"});
}

TEST_F(IntervalIntersectTest, NegativeAndHugeTimesDoNotOverflow) {
  // Found by review: an end computed past INT64_MAX for every negative ts.
  EXPECT_EQ(Run("SELECT COUNT(*) FROM _interval_intersect!(((SELECT 1 AS id, -5 AS ts, 10 AS dur), "
                "(SELECT 2 AS id, 100 AS ts, 10 AS dur)), ())"),
            Rows{"0"});
  EXPECT_EQ(Run("SELECT ts, dur FROM _interval_intersect!(((SELECT 1 AS id, -10 AS ts, "
                "9223372036854775807 AS dur), (SELECT 2 AS id, -10 AS ts, 20 AS dur)), ())"),
            Rows{"-10|20"});
  EXPECT_EQ(Run("SELECT ts, dur FROM _interval_intersect!(((SELECT 1 AS id, "
                "-9223372036854775807 AS ts, 9223372036854775807 AS dur), "
                "(SELECT 2 AS id, -9223372036854775807 AS ts, 9223372036854775807 AS dur)), ())"),
            Rows{"-9223372036854775807|9223372036854775807"});
}

}  // namespace
}  // namespace sql
}  // namespace processor
}  // namespace zt
