// Queries written the way upstream Perfetto's documentation writes them, on
// the upstream v14 SDK fixture (test/data/perfetto_v14/): each must run
// unchanged, and where PerfettoSQL offers a shortcut (EXTRACT_ARG,
// ancestor_slice, thread_slice, trace_bounds, ...) it must agree with the
// same question asked in plain SQL over the base tables.

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "zt/processor/trace_processor.h"

namespace zt {
namespace processor {
namespace {

using Lines = std::vector<std::string>;

class UpstreamDocQueriesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string error;
    tp_ = TraceProcessor::Open(std::string(ZT_TEST_DATA_DIR) + "/perfetto_v14/inprocess_small.pftrace",
                               {}, &error)
              .release();
    ASSERT_NE(tp_, nullptr) << error;
    // As a notebook would start.
    ASSERT_EQ(Rows("INCLUDE PERFETTO MODULE slices.with_context; "
                   "INCLUDE PERFETTO MODULE time.conversion; SELECT 1"),
              Lines{"1"});
  }
  static void TearDownTestSuite() {
    delete tp_;
    tp_ = nullptr;
  }

  // Each row as "a|b", NULL as "NULL"; an error as "error: ...".
  static Lines Rows(const std::string& sql) {
    const QueryResult result = tp_->Query(sql);
    if (!result.ok())
      return {"error: " + result.error};
    Lines rows;
    for (const auto& row : result.rows) {
      std::string line;
      for (size_t i = 0; i < row.size(); i++)
        line += (i ? "|" : "") + (row[i].is_null() ? std::string("NULL") : row[i].ToString());
      rows.push_back(line);
    }
    return rows;
  }

  static TraceProcessor* tp_;
};

TraceProcessor* UpstreamDocQueriesTest::tp_ = nullptr;

TEST_F(UpstreamDocQueriesTest, ExtractArgAgreesWithTheArgsTable) {
  EXPECT_EQ(Rows("SELECT SUM(EXTRACT_ARG(arg_set_id, 'debug.int_arg')) FROM slice"),
            Lines{"765"});
  EXPECT_EQ(Rows("SELECT SUM(EXTRACT_ARG(arg_set_id, 'debug.int_arg')) FROM slice"),
            Rows("SELECT SUM(a.int_value) FROM slice s JOIN args a USING (arg_set_id) "
                 "WHERE a.key = 'debug.int_arg'"));
  EXPECT_EQ(Rows("SELECT COUNT(*) FROM args WHERE display_value IS NULL AND value_type != 'null'"),
            Lines{"0"});
}

TEST_F(UpstreamDocQueriesTest, AncestorsAndDescendantsAgreeWithParentIds) {
  // Every slice has as many ancestors as its depth ...
  EXPECT_EQ(Rows("SELECT COUNT(*) FROM slice s "
                 "WHERE (SELECT COUNT(*) FROM ancestor_slice(s.id)) != s.depth"),
            Lines{"0"});
  // ... its first ancestor is the root of its parent chain, and the slices
  // with descendants are the parents.
  EXPECT_EQ(Rows("SELECT COUNT(*) FROM slice s WHERE EXISTS (SELECT 1 FROM descendant_slice(s.id))"),
            Rows("SELECT COUNT(DISTINCT parent_id) FROM slice"));
  EXPECT_EQ(Rows("SELECT COUNT(*) FROM slice s JOIN descendant_slice(s.id) d"),
            Rows("WITH RECURSIVE up(id, ancestor) AS ("
                 "  SELECT id, parent_id FROM slice WHERE parent_id IS NOT NULL"
                 "  UNION ALL SELECT up.id, s.parent_id FROM up JOIN slice s ON s.id = up.ancestor"
                 "  WHERE s.parent_id IS NOT NULL) SELECT COUNT(*) FROM up"));
  EXPECT_EQ(Rows("SELECT COUNT(*) FROM slice a JOIN slice d ON d.parent_id = a.id "
                 "WHERE NOT slice_is_ancestor(a.id, d.id)"),
            Lines{"0"});
}

TEST_F(UpstreamDocQueriesTest, FlowsAsTheDocsJoinThem) {
  EXPECT_EQ(Rows("SELECT COUNT(*) FROM flow JOIN slice s1 ON flow.slice_out = s1.id "
                 "JOIN slice s2 ON flow.slice_in = s2.id"),
            Lines{"45"});
  // Number of following flows of each slice, as the docs count them: here
  // no flow continues another, so each leaves one slice (or its ancestors).
  EXPECT_EQ(Rows("SELECT SUM(following) FROM (SELECT (SELECT COUNT(*) FROM FOLLOWING_FLOW(slice_id)) "
                 "AS following FROM slice)"),
            Rows("SELECT COUNT(*) FROM flow f JOIN slice s "
                 "ON s.id = f.slice_out OR slice_is_ancestor(s.id, f.slice_out)"));
  EXPECT_EQ(Rows("SELECT COUNT(*) FROM slice s JOIN DIRECTLY_CONNECTED_FLOW(s.id)"),
            Lines{"90"});  // Each flow, from either end.
}

TEST_F(UpstreamDocQueriesTest, ThreadSlicesAgreeWithTheTrackJoins) {
  EXPECT_EQ(Rows("SELECT thread_name, COUNT(*) FROM thread_slice GROUP BY utid ORDER BY utid"),
            Rows("SELECT thread.name, COUNT(*) FROM slice JOIN thread_track "
                 "ON slice.track_id = thread_track.id JOIN thread USING (utid) "
                 "GROUP BY utid ORDER BY utid"));
  EXPECT_EQ(Rows("SELECT COUNT(*) FROM thread_or_process_slice"),
            Rows("SELECT (SELECT COUNT(*) FROM thread_slice) + (SELECT COUNT(*) FROM process_slice)"));
}

TEST_F(UpstreamDocQueriesTest, TraceBoundsSpanTheEvents) {
  EXPECT_EQ(Rows("SELECT end_ts - start_ts FROM trace_bounds"), Lines{"1075464"});
  EXPECT_EQ(Rows("SELECT start_ts, end_ts FROM trace_bounds"),
            Rows("SELECT MIN(ts), MAX(end_ts) FROM ("
                 "  SELECT ts, ts + MAX(dur, 0) AS end_ts FROM slice"
                 "  UNION ALL SELECT ts, ts FROM counter)"));
  EXPECT_EQ(Rows("SELECT COUNT(*) FROM slice WHERE ts < trace_start() OR ts > trace_end()"),
            Lines{"0"});
  EXPECT_EQ(Rows("SELECT time_to_us(trace_dur())"), Lines{"1075"});
}

TEST_F(UpstreamDocQueriesTest, PerfettoTablesFunctionsAndMacrosAsTheSyntaxPageWritesThem) {
  EXPECT_EQ(Rows("CREATE PERFETTO TABLE long_slices AS "
                 "SELECT id, ts, dur, name FROM slice WHERE dur > time_from_us(10); "
                 "CREATE PERFETTO FUNCTION slice_count(name STRING) RETURNS LONG AS "
                 "SELECT COUNT(*) FROM slice WHERE name = $name; "
                 "CREATE PERFETTO MACRO count_of(t TableOrSubquery) RETURNS Expr AS "
                 "(SELECT COUNT(*) FROM $t); "
                 "SELECT count_of!(long_slices) = (SELECT COUNT(*) FROM slice WHERE dur > 10000), "
                 "slice_count('ArgsA')"),
            Lines{"1|45"});
  EXPECT_EQ(Rows("SELECT COUNT(*) FROM instant"), Rows("SELECT COUNT(*) FROM slice WHERE dur = 0"));
}

TEST_F(UpstreamDocQueriesTest, PrintArgsAgreesWithExtractArg) {
  EXPECT_EQ(Rows("SELECT COUNT(*), SUM(json_valid(PRINT_ARGS(arg_set_id))), "
                 "SUM(json_extract(PRINT_ARGS(arg_set_id), '$.debug.int_arg') = "
                 "    EXTRACT_ARG(arg_set_id, 'debug.int_arg')) "
                 "FROM slice WHERE EXTRACT_ARG(arg_set_id, 'debug.int_arg') IS NOT NULL"),
            Rows("SELECT COUNT(*), COUNT(*), COUNT(*) FROM slice "
                 "WHERE EXTRACT_ARG(arg_set_id, 'debug.int_arg') IS NOT NULL"));
}

TEST_F(UpstreamDocQueriesTest, ClockSnapshotsConvertTraceTime) {
  EXPECT_EQ(Rows("SELECT COUNT(*) FROM clock_snapshot WHERE clock_name = 'BOOTTIME' "
                 "AND ts != clock_value"),
            Lines{"0"});
  EXPECT_EQ(Rows("SELECT to_realtime(trace_start()) > 1500000000000000000, "
                 "abs_time_str(trace_start()) GLOB "
                 "'20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9].[0-9]*', "
                 "to_monotonic(trace_start()) IS NOT NULL"),
            Lines{"1|1|1"});
}

TEST_F(UpstreamDocQueriesTest, StandardLibraryOperatorsAgreeWithPlainSql) {
  // Every slice reachable through flows, as a recursive query finds it.
  EXPECT_EQ(Rows("INCLUDE PERFETTO MODULE slices.flow; "
                 "SELECT COUNT(*) FROM (SELECT DISTINCT root_node_id, node_id "
                 "FROM _slice_following_flow!(slice))"),
            Rows("WITH RECURSIVE r(root, node) AS ("
                 "  SELECT slice_out, slice_out FROM flow "
                 "  UNION SELECT r.root, f.slice_in FROM r JOIN flow f ON f.slice_out = r.node) "
                 "SELECT COUNT(*) FROM r"));
  // Every finished slice lies within the trace.
  EXPECT_EQ(Rows("INCLUDE PERFETTO MODULE intervals.intersect; "
                 "SELECT COUNT(*), SUM(dur) FROM _interval_intersect_single!("
                 "trace_start(), trace_dur(), (SELECT id, ts, dur FROM slice WHERE dur > 0))"),
            Rows("SELECT COUNT(*), SUM(dur) FROM slice WHERE dur > 0"));
  // The layout of every thread track: no two slices overlap on a row.
  EXPECT_EQ(Rows("WITH l AS (SELECT s.id, s.ts, s.dur, l.layout_depth AS d "
                 "  FROM experimental_slice_layout((SELECT GROUP_CONCAT(id) FROM thread_track)) l "
                 "  JOIN slice s USING (id)) "
                 "SELECT COUNT(*) FROM l a JOIN l b ON a.d = b.d AND a.id < b.id "
                 "AND a.ts < b.ts + b.dur AND b.ts < a.ts + a.dur"),
            Lines{"0"});
  EXPECT_EQ(Rows("SELECT COUNT(*) FROM experimental_slice_layout("
                 "(SELECT GROUP_CONCAT(id) FROM thread_track))"),
            Rows("SELECT COUNT(*) FROM slice WHERE track_id IN (SELECT id FROM thread_track)"));
}

}  // namespace
}  // namespace processor
}  // namespace zt
