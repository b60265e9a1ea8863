// The mipmap tables Perfetto UI draws tracks from, over the sample's
// slices and counters (query_engine_fixture_for_testing.h): one row per
// depth and bucket holding a start, the longest slice there and the count;
// the slice still running at the window's start; the counters' range and
// last sample per bucket; the errors of a table made or queried wrong.

#include "src/processor/sql/operators/mipmap.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/processor/sql/query_engine_fixture_for_testing.h"

namespace zt {
namespace processor {
namespace sql {
namespace {

using Rows = std::vector<std::string>;

class MipmapTest : public QueryEngineFixture {};

TEST_F(MipmapTest, SlicesOneRowPerDepthAndBucketWithTheLongest) {
  ASSERT_EQ(Run("CREATE VIRTUAL TABLE m USING __intrinsic_slice_mipmap(("
                "SELECT id, ts, dur, depth FROM slice ORDER BY ts))"),
            Rows{});
  // Depth 0 holds Outer [100, 200), Work [160, 200), Async from 300 (never
  // ended); depth 1 Inner [110, 140), Inner [150, 170), Instant at 170.
  EXPECT_EQ(Run("SELECT ts, id, count, dur, depth FROM m(0, 400, 100)"),
            (Rows{"100|0|2|100|0", "300|5|1|-1|0", "110|1|3|30|1"}));
  // From 145 in buckets of 10: Outer, still running, joins the first
  // bucket; the Inner that ended at 140 does not.
  EXPECT_EQ(Run("SELECT ts, id, count, dur, depth FROM m(145, 200, 10)"),
            (Rows{"100|0|1|100|0", "160|3|1|40|0", "150|2|1|20|1", "170|4|1|0|1"}));
  // The last bucket may reach past the end; none after; none before start.
  EXPECT_EQ(Run("SELECT COUNT(*) FROM m(0, 50, 100)"), Rows{"0"});
  EXPECT_EQ(Run("SELECT COUNT(*) FROM m(400, 300, 10)"), Rows{"0"});
  // The whole trace in one bucket: every slice counted.
  EXPECT_EQ(Run("SELECT SUM(count) FROM m(0, 1000, 1000)"), Rows{"6"});
}

TEST_F(MipmapTest, CountersRangeAndLastSamplePerBucket) {
  ASSERT_EQ(Run("CREATE VIRTUAL TABLE c USING __intrinsic_counter_mipmap(("
                "SELECT ts, value FROM counter WHERE track_id = 3))"),
            Rows{});
  // 1024 at 100, 2048 at 200. From 150 the sample at 100 is in effect.
  EXPECT_EQ(Run("SELECT min_value, max_value, last_ts, last_value FROM c(150, 300, 100)"),
            (Rows{"1024.0|2048.0|200|2048.0"}));
  EXPECT_EQ(Run("SELECT min_value, max_value, last_ts, last_value FROM c(0, 300, 100)"),
            (Rows{"1024.0|1024.0|100|1024.0", "2048.0|2048.0|200|2048.0"}));
}

TEST_F(MipmapTest, AnEmptySubqueryHasNoRows) {
  Run("CREATE VIRTUAL TABLE e USING __intrinsic_slice_mipmap((SELECT id, ts, dur, depth "
      "FROM slice WHERE 0))");
  EXPECT_EQ(Run("SELECT COUNT(*) FROM e(0, 1000, 10)"), Rows{"0"});
}

TEST_F(MipmapTest, MadeOrQueriedWrongSaysHow) {
  EXPECT_NE(Run("CREATE VIRTUAL TABLE x USING __intrinsic_slice_mipmap()")[0].find(
                "takes one argument"),
            std::string::npos);
  EXPECT_NE(Run("CREATE VIRTUAL TABLE x USING __intrinsic_slice_mipmap((SELECT id, ts "
                "FROM slice))")[0]
                .find("id, ts, dur, depth"),
            std::string::npos);
  EXPECT_NE(Run("CREATE VIRTUAL TABLE x USING __intrinsic_counter_mipmap((SELECT 1 AS a))")[0]
                .find("no such column"),
            std::string::npos);
  Run("CREATE VIRTUAL TABLE m USING __intrinsic_slice_mipmap((SELECT id, ts, dur, depth "
      "FROM slice))");
  EXPECT_NE(Run("SELECT * FROM m")[0].find("FROM t(start, end, step)"), std::string::npos);
  EXPECT_NE(Run("SELECT * FROM m(0, 100, 0)")[0].find("step must be positive"),
            std::string::npos);
}

}  // namespace
}  // namespace sql
}  // namespace processor
}  // namespace zt
