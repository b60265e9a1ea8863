// PerfettoSQL's own statements through a QueryEngine on the sample storage
// (sample_storage_for_testing.h): what each makes, what it refuses and why,
// and upstream's documented examples of them.

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

class PerfettoSqlStatementsTest : public QueryEngineFixture {};

TEST_F(PerfettoSqlStatementsTest, PerfettoTablesAndViewsAreQueriedLikeAnyOther) {
  EXPECT_EQ(Run("CREATE PERFETTO TABLE inner_slices AS SELECT id, dur FROM slice "
                "WHERE name = 'Inner'; SELECT SUM(dur) FROM inner_slices"),
            Rows{"50"});
  EXPECT_EQ(Run("CREATE PERFETTO VIEW outer_slices(id LONG, name STRING) AS "
                "SELECT id, name FROM slice WHERE depth = 0; "
                "SELECT name FROM outer_slices ORDER BY id"),
            (Rows{"Outer", "Work", "Async"}));
}

TEST_F(PerfettoSqlStatementsTest, ASchemaMustNameTheColumnsMade) {
  EXPECT_EQ(Run("CREATE PERFETTO TABLE t(id LONG, dur LONG) AS SELECT id, name FROM slice"),
            Rows{"error: CREATE PERFETTO TABLE t: the select makes the columns (id, name) but "
                 "the schema declares (id, dur)"});
  // Nothing of it is left behind.
  EXPECT_EQ(Run("SELECT COUNT(*) FROM sqlite_schema WHERE name = 't'"), Rows{"0"});
}

TEST_F(PerfettoSqlStatementsTest, OrReplaceReplacesAndWithoutItAnExistingNameIsAnError) {
  EXPECT_EQ(Run("CREATE PERFETTO TABLE t AS SELECT 1 AS x"), Rows{});
  EXPECT_EQ(Run("CREATE PERFETTO TABLE t AS SELECT 2 AS x"),
            Rows{"error: CREATE PERFETTO TABLE t: table \"t\" already exists"});
  EXPECT_EQ(Run("CREATE OR REPLACE PERFETTO TABLE t AS SELECT 2 AS x; SELECT x FROM t"),
            Rows{"2"});
}

TEST_F(PerfettoSqlStatementsTest, FunctionsBindTheirArgumentsByName) {
  // As upstream's docs write one: a scalar function whose body selects.
  EXPECT_EQ(Run("CREATE PERFETTO FUNCTION slice_name(id LONG) RETURNS STRING AS "
                "SELECT name FROM slice WHERE id = $id; "
                "SELECT slice_name(3), slice_name(99) IS NULL"),
            Rows{"Work|1"});
  EXPECT_EQ(Run("CREATE PERFETTO FUNCTION longer(a LONG, b LONG) RETURNS LONG AS "
                "SELECT MAX($a, $b); SELECT longer(dur, 25) FROM slice WHERE id IN (1, 2) "
                "ORDER BY id"),
            (Rows{"30", "25"}));
  // A function may call another, and itself.
  EXPECT_EQ(Run("CREATE PERFETTO FUNCTION root_of(id LONG) RETURNS LONG AS "
                "SELECT IIF(parent_id IS NULL, id, root_of(parent_id)) FROM slice WHERE id = $id; "
                "SELECT root_of(4), root_of(2), root_of(0)"),
            Rows{"3|0|0"});
}

TEST_F(PerfettoSqlStatementsTest, FunctionErrorsNameTheFunction) {
  EXPECT_EQ(Run("CREATE PERFETTO FUNCTION f(a LONG) RETURNS LONG AS SELECT nope($a)"),
            Rows{"error: CREATE PERFETTO FUNCTION f: no such function: nope"});
  EXPECT_EQ(Run("SELECT f(1)"), Rows{"error: no such function: f"});  // Not left half-made.
  EXPECT_EQ(Run("CREATE PERFETTO FUNCTION g() RETURNS LONG AS SELECT 1; "
                "CREATE PERFETTO FUNCTION g() RETURNS LONG AS SELECT 2"),
            Rows{"error: CREATE PERFETTO FUNCTION g: a function of that name exists (CREATE OR "
                 "REPLACE PERFETTO FUNCTION replaces it)"});
  EXPECT_EQ(Run("CREATE OR REPLACE PERFETTO FUNCTION g() RETURNS LONG AS SELECT 2; SELECT g()"),
            Rows{"2"});
  EXPECT_EQ(Run("CREATE PERFETTO FUNCTION h() RETURNS LONG AS SELECT 1; SELECT 2"),
            Rows{"2"});
  EXPECT_EQ(Run("SELECT h(1)"), Rows{"error: wrong number of arguments to function h()"});
}

TEST_F(PerfettoSqlStatementsTest, TableFunctionsReturnTheBodysRows) {
  EXPECT_EQ(Run("CREATE PERFETTO FUNCTION on_track(track LONG, min_dur LONG) "
                "RETURNS TABLE(id LONG, name STRING) AS "
                "SELECT id, name FROM slice WHERE track_id = $track AND dur >= $min_dur; "
                "SELECT id, name FROM on_track(0, 25) ORDER BY id"),
            (Rows{"0|Outer", "1|Inner"}));
  // Arguments from a join, per row of the other table (Async, on track 2,
  // never ended: its dur is -1).
  EXPECT_EQ(Run("SELECT t.id, COUNT(f.id) FROM __zt_track t LEFT JOIN on_track(t.id, 0) f "
                "GROUP BY t.id ORDER BY t.id LIMIT 3"),
            (Rows{"0|3", "1|2", "2|0"}));
  EXPECT_EQ(Run("SELECT * FROM on_track(0)"),
            Rows{"error: on_track: needs its 2 argument(s), as in on_track(track, min_dur)"});
}

// An argument may share its name with a result column, as upstream's
// sched_time_in_state_and_cpu_for_thread_in_interval(ts, dur, utid) does
// with `dur` (Perfetto UI calls it for every thread slice).
TEST_F(PerfettoSqlStatementsTest, ATableFunctionsArgumentMayBeNamedAsAColumn) {
  EXPECT_EQ(Run("CREATE PERFETTO FUNCTION longer(dur LONG) RETURNS TABLE(id LONG, dur LONG) AS "
                "SELECT id, dur FROM slice WHERE dur > $dur; "
                "SELECT COUNT(*), MIN(dur) > 25 FROM longer(25)"),
            Rows{"3|1"});
}

TEST_F(PerfettoSqlStatementsTest, TableFunctionsMustMakeTheColumnsTheyDeclare) {
  EXPECT_EQ(Run("CREATE PERFETTO FUNCTION f(x LONG) RETURNS TABLE(id LONG, dur LONG) AS "
                "SELECT id, name FROM slice WHERE id = $x"),
            Rows{"error: CREATE PERFETTO FUNCTION f: the body makes the columns (id, name) but "
                 "RETURNS TABLE declares (id, dur)"});
  EXPECT_EQ(Run("SELECT * FROM f(1)"), Rows{"error: no such table: f"});
  EXPECT_EQ(Run("CREATE PERFETTO FUNCTION g(x LONG) RETURNS TABLE(v LONG) AS SELECT $x AS v; "
                "CREATE OR REPLACE PERFETTO FUNCTION g(x LONG) RETURNS TABLE(v LONG) AS "
                "SELECT $x * 2 AS v; SELECT v FROM g(21)"),
            Rows{"42"});
}

// Found while sharing the table functions' planning code: an argument
// constrained twice was handed to SQLite twice ("xBestIndex malfunction").
TEST_F(PerfettoSqlStatementsTest, ATableFunctionArgumentGivenTwiceIsPassedOnce) {
  EXPECT_EQ(Run("CREATE PERFETTO FUNCTION twice(x LONG) RETURNS TABLE(v LONG) AS "
                "SELECT $x * 2 AS v; SELECT v FROM twice WHERE x = 21 AND x = 21"),
            Rows{"42"});
  EXPECT_EQ(Run("SELECT v FROM twice WHERE x = 21 AND x = 22"), Rows{});
}

TEST_F(PerfettoSqlStatementsTest, MacrosExpandInLaterStatements) {
  EXPECT_EQ(Run("CREATE PERFETTO MACRO ends(t TableOrSubquery) RETURNS TableOrSubquery AS "
                "(SELECT id, ts + dur AS end_ts FROM $t WHERE dur >= 0); "
                "SELECT id, end_ts FROM ends!(slice) ORDER BY end_ts DESC LIMIT 2"),
            (Rows{"0|200", "3|200"}));
  EXPECT_EQ(Run("SELECT nope!(1)"),
            Rows{"error: no macro named nope (at 1:8); CREATE PERFETTO MACRO defines one"});
  // In a PerfettoSQL table's select too.
  EXPECT_EQ(Run("CREATE PERFETTO TABLE e AS SELECT * FROM ends!(slice); SELECT COUNT(*) FROM e"),
            Rows{"5"});
}

// A table's own indexes, and one on its `id` made with it: rows are found
// by id without a scan of the whole table (the UI's flamegraph joins its
// tables on id, row by row).
TEST_F(PerfettoSqlStatementsTest, IndexesOnPerfettoTables) {
  EXPECT_EQ(Run("CREATE PERFETTO TABLE t AS SELECT id, ts FROM slice; "
                "CREATE PERFETTO INDEX t_ts ON t(ts); "
                "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 't' "
                "ORDER BY name"),
            (Rows{"__zt_id_of_t", "t_ts"}));
  const Rows plan = Run("EXPLAIN QUERY PLAN SELECT ts FROM t WHERE id = 3");
  ASSERT_FALSE(plan.empty());
  EXPECT_NE(plan.back().find("USING INDEX __zt_id_of_t"), std::string::npos) << plan.back();
  // Its name taken by a table of the user's: the table is made without it.
  EXPECT_EQ(Run("CREATE TABLE __zt_id_of_v(x); CREATE PERFETTO TABLE v AS SELECT id FROM slice; "
                "SELECT COUNT(*) FROM v"),
            Rows{"6"});
  // Replaced, the table gets its index again; a table without id, none.
  EXPECT_EQ(Run("CREATE OR REPLACE PERFETTO TABLE t AS SELECT id FROM slice; "
                "CREATE PERFETTO TABLE u AS SELECT ts FROM slice; "
                "SELECT tbl_name FROM sqlite_schema WHERE type = 'index' ORDER BY 1"),
            Rows{"t"});
}

TEST_F(PerfettoSqlStatementsTest, AnUnknownModuleIsAnErrorNamingIt) {
  const Rows rows = Run("INCLUDE PERFETTO MODULE android.startup");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].rfind("error: INCLUDE PERFETTO MODULE android.startup: no such module "
                          "(zerotrace has ",
                          0),
            0u)
      << rows[0];
  EXPECT_NE(rows[0].find("slices.with_context"), std::string::npos) << rows[0];
}

TEST_F(PerfettoSqlStatementsTest, TimeConversion) {
  EXPECT_EQ(Run("INCLUDE PERFETTO MODULE time.conversion; "
                "SELECT time_from_ms(3), time_from_s(2), time_from_min(1), time_from_hours(1), "
                "time_from_days(1), time_from_us(7), time_from_ns(5)"),
            Rows{"3000000|2000000000|60000000000|3600000000000|86400000000000|7000|5"});
  // Whole units, toward zero.
  EXPECT_EQ(Run("SELECT time_to_us(1999), time_to_ms(2999999), time_to_s(-1500000000), "
                "time_to_min(119999999999), time_to_hours(3600000000000), "
                "time_to_days(86399999999999), time_to_ns(12)"),
            Rows{"1|2|-1|1|1|0|12"});
  // As upstream's docs use them: slices longer than 50 ns, in microseconds.
  EXPECT_EQ(Run("SELECT name, time_to_us(dur * 1000) FROM slice "
                "WHERE dur > time_from_ns(50) ORDER BY id"),
            Rows{"Outer|100"});
}

// upstream's documented example (two tracks, runs of equal values), and a
// last sample on track 2; the last rows last to the trace's end (300).
TEST_F(PerfettoSqlStatementsTest, CounterLeadingIntervals) {
  EXPECT_EQ(Run("INCLUDE PERFETTO MODULE counters.intervals; "
                "CREATE TABLE samples(id INT, ts INT, track_id INT, value DOUBLE); "
                "INSERT INTO samples VALUES (0, 0, 1, 10), (1, 0, 2, 10), (2, 10, 1, 10), "
                "(3, 10, 2, 20), (4, 20, 1, 30), (5, 40, 2, 20); "
                "SELECT ts, dur, track_id, value, next_value, delta_value "
                "FROM counter_leading_intervals!(samples)"),
            (Rows{"0|10|1|10.0|10.0|NULL", "10|10|1|10.0|30.0|0.0", "20|280|1|30.0|NULL|20.0",
                  "0|10|2|10.0|20.0|NULL", "10|30|2|20.0|20.0|10.0",
                  "40|260|2|20.0|NULL|0.0"}));
  // A run of five equal values: its first, one row for the middle three,
  // its last.
  EXPECT_EQ(Run("CREATE TABLE run(id INT, ts INT, track_id INT, value DOUBLE); "
                "INSERT INTO run VALUES (0, 0, 1, 5), (1, 1, 1, 5), (2, 2, 1, 5), (3, 3, 1, 5), "
                "(4, 4, 1, 5), (5, 9, 1, 6); "
                "SELECT id, ts, dur FROM counter_leading_intervals!(run)"),
            (Rows{"0|0|1", "1|1|3", "4|4|5", "5|9|291"}));
}

TEST_F(PerfettoSqlStatementsTest, SlicesWithContext) {
  // Thread slices: main's three, worker's two, with thread and process.
  EXPECT_EQ(Run("INCLUDE PERFETTO MODULE slices.with_context; "
                "SELECT id, name, thread_name, tid, is_main_thread, process_name, pid "
                "FROM thread_slice ORDER BY id"),
            (Rows{"0|Outer|main|100|1|browser|100", "1|Inner|main|100|1|browser|100",
                  "2|Inner|main|100|1|browser|100", "3|Work|worker|101|0|browser|100",
                  "4|Instant|worker|101|0|browser|100"}));
  // The async slice on the process's track.
  EXPECT_EQ(Run("SELECT id, name, track_name, process_name, upid FROM process_slice"),
            Rows{"5|Async|async|browser|1"});
  EXPECT_EQ(Run("SELECT COUNT(*), COUNT(utid) FROM thread_or_process_slice"), Rows{"6|5"});
  // Including again, or by a wildcard, does nothing more.
  EXPECT_EQ(Run("INCLUDE PERFETTO MODULE slices.with_context; INCLUDE PERFETTO MODULE slices.*; "
                "SELECT COUNT(*) FROM thread_slice"),
            Rows{"5"});
}

TEST_F(PerfettoSqlStatementsTest, OrdinaryStatementsStillRunAsBefore) {
  // A trigger's body holds semicolons: SQLite, not the splitter, bounds it.
  EXPECT_EQ(Run("CREATE TABLE a(x); CREATE TABLE b(x); "
                "CREATE TRIGGER copy AFTER INSERT ON a BEGIN INSERT INTO b VALUES (new.x); END; "
                "INSERT INTO a VALUES (7); SELECT x FROM b"),
            Rows{"7"});
  EXPECT_EQ(Run("SELECT 1; -- a trailing comment"), Rows{"1"});
  EXPECT_EQ(Run("SELECT 'a;b' AS x, \"name\" FROM slice WHERE id = 0"), Rows{"a;b|Outer"});
}

TEST_F(PerfettoSqlStatementsTest, UpstreamsPreludeCastMacrosNeedNoInclude) {
  EXPECT_EQ(Run("SELECT cast_int!(1e14), typeof(cast_double!(3)), cast_string!(12) || 'x'"),
            Rows{"100000000000000|real|12x"});
}

// The modules Perfetto UI includes as it opens any trace.
TEST_F(PerfettoSqlStatementsTest, TheUisSummaryModules) {
  EXPECT_EQ(Run("INCLUDE PERFETTO MODULE std.traceinfo.trace; "
                "SELECT trace_id, trace_type, trace_size_bytes FROM _metadata_by_trace"),
            Rows{"0|proto|1234"});
  EXPECT_EQ(Run("INCLUDE PERFETTO MODULE viz.summary.slices; "
                "SELECT SUM(cnt) = (SELECT COUNT(*) FROM slice), "
                "MAX(max_depth) = (SELECT MAX(depth) FROM slice) FROM _slice_track_summary"),
            Rows{"1|1"});
  EXPECT_EQ(Run("INCLUDE PERFETTO MODULE viz.summary.counters; "
                "SELECT SUM(cnt) = (SELECT COUNT(*) FROM counter) FROM _counter_track_summary"),
            Rows{"1"});
  // Every slice of a thread's track counts for its thread, then its process.
  EXPECT_EQ(Run("INCLUDE PERFETTO MODULE viz.summary.processes; "
                "SELECT (SELECT SUM(slice_count) FROM _thread_available_info_summary) = "
                "(SELECT COUNT(*) FROM slice JOIN thread_track tt ON tt.id = slice.track_id)"),
            Rows{"1"});
  EXPECT_EQ(Run("SELECT COUNT(*) FROM _process_available_info_summary "
                "WHERE thread_slice_count + process_slice_count = 0"),
            Rows{"0"});
  // Probed by the UI, never imported: there, empty.
  EXPECT_EQ(Run("SELECT COUNT(*), MIN(ts) IS NULL FROM ftrace_event"), Rows{"0|1"});
}

// What Perfetto UI's plugins include as they open any trace: the track
// tree of track events, threads with their kernel flag, and the modules
// of data zerotrace does not import (empty, with upstream's columns).
TEST_F(PerfettoSqlStatementsTest, TheUisPluginModules) {
  EXPECT_EQ(Run("INCLUDE PERFETTO MODULE viz.threads; "
                "SELECT COUNT(*) = (SELECT COUNT(*) FROM thread), SUM(is_kernel_thread) "
                "FROM _threads_with_kernel_flag"),
            Rows{"1|0"});
  // Every track-event track once; parents before their children.
  EXPECT_EQ(Run("INCLUDE PERFETTO MODULE viz.summary.track_event; "
                "SELECT (SELECT COUNT(*) FROM _track_event_tracks_ordered_groups) = "
                "(SELECT COUNT(*) FROM track WHERE type GLOB '*_track_event')"),
            Rows{"1"});
  EXPECT_EQ(Run("WITH g AS (SELECT row_number() OVER () AS pos, * "
                "FROM _track_event_tracks_ordered_groups) "
                "SELECT COUNT(*) FROM g child JOIN g parent "
                "ON parent.min_track_id = child.parent_id WHERE parent.pos > child.pos"),
            Rows{"0"});
  EXPECT_EQ(Run("INCLUDE PERFETTO MODULE android.process_metadata; "
                "SELECT COUNT(*) = (SELECT COUNT(*) FROM process) FROM android_process_metadata"),
            Rows{"1"});
  for (const char* module :
       {"android.anrs", "android.memory.dmabuf", "android.monitor_contention",
        "android.kernel_wakelocks", "android.startup.startups", "android.cpu.cpu_per_uid",
        "android.gpu.work_period", "android.memory.heap_graph.oome",
        "android.memory.heap_profile.intervals", "wattson.windows", "wattson.device_infos",
        "android.gpu.frequency", "wattson.gpu.freq_idle", "wattson.curves.utils",
        "wattson.tpu.freq_idle", "linux.cpu.idle_time_in_state",
        "android.entity_state_residency", "linux.systemd_journald", "android.power_rails",
        "android.screenshots", "viz.track_event_callstacks", "zt.absent_tables"}) {
    EXPECT_EQ(Run(std::string("INCLUDE PERFETTO MODULE ") + module), Rows{}) << module;
  }
  EXPECT_EQ(Run("SELECT (SELECT COUNT(*) FROM android_anrs) + (SELECT COUNT(*) FROM sched) + "
                "(SELECT COUNT(*) FROM wattson_window_markers) + "
                "(SELECT COUNT(*) FROM android_screenshots)"),
            Rows{"0"});
  EXPECT_EQ(Run("SELECT string_agg(name, ',') FROM (SELECT name FROM pragma_table_info('sched'))"),
            Rows{"id,ts,dur,cpu,utid,end_state,priority,ucpu,ts_end"});
}

// An area selected over slice tracks: Perfetto UI copies the slices it
// holds into a table, indexes it, and asks for each one's self time, the
// walk starting from the leaves (its slice flamegraph), as here.
TEST_F(PerfettoSqlStatementsTest, TheUisAreaSelectionOfSlices) {
  ASSERT_EQ(Run("INCLUDE PERFETTO MODULE viz.slices; "
                "CREATE PERFETTO TABLE area AS SELECT id, ts, dur, name, parent_id, depth FROM slice; "
                "CREATE PERFETTO INDEX area_parent ON area(parent_id); "
                "CREATE PERFETTO TABLE agg AS SELECT * FROM _viz_slice_ancestor_agg!("
                "(SELECT s.id, s.dur FROM area s LEFT JOIN area t ON t.parent_id = s.id "
                " WHERE t.id IS NULL), area)"),
            Rows{});
  EXPECT_EQ(Run("SELECT COUNT(*), SUM(self_count), SUM(simple_count) FROM agg"),
            (Rows{"6|4|6"}));  // Leaves: the two Inner, Instant, Async.
  // Outer (0) holds the two Inner slices: its self time is what they leave.
  EXPECT_EQ(Run("SELECT COUNT(*) FROM agg a JOIN slice s USING (id) "
                "WHERE a.self_dur != s.dur - IFNULL((SELECT SUM(c.dur) FROM slice c "
                "WHERE c.parent_id = s.id), 0) OR a.name != s.name "
                "OR a.parentId IS NOT s.parent_id"),
            Rows{"0"});
  EXPECT_EQ(Run("SELECT self_count FROM agg WHERE id = 0"), Rows{"0"});
  // The UI's table of slices: every slice once, those of threads with theirs.
  EXPECT_EQ(Run("SELECT COUNT(*) = (SELECT COUNT(*) FROM slice), COUNT(utid), COUNT(upid) "
                "FROM _viz_slices_for_ui_table"),
            Rows{"1|5|6"});
}

// Upstream's older way, which Perfetto UI still calls.
TEST_F(PerfettoSqlStatementsTest, CreateFunctionDefinesAFunction) {
  EXPECT_EQ(Run("SELECT CREATE_FUNCTION('twice(x LONG, unused STRING)', 'LONG', "
                "'SELECT $x * 2')"),
            Rows{"NULL"});
  EXPECT_EQ(Run("SELECT twice(21, 'a')"), Rows{"42"});
  // Double-quoted strings in the body, as the UI writes them.
  EXPECT_EQ(Run("SELECT CREATE_FUNCTION('outer_id()', 'INT', "
                "'SELECT id FROM slice WHERE name = \"Outer\"')"),
            Rows{"NULL"});
  EXPECT_EQ(Run("SELECT outer_id()"), Rows{"0"});
  EXPECT_NE(Run("SELECT CREATE_FUNCTION('bad name(x LONG)', 'LONG', 'SELECT 1')")
                .back()
                .find("bad function name"),
            std::string::npos);
  EXPECT_NE(Run("SELECT CREATE_FUNCTION('f(x)', 'LONG', 'SELECT 1')").back().find("name TYPE"),
            std::string::npos);
  EXPECT_NE(Run("SELECT CREATE_FUNCTION('f(x LONG)', 'NUMBER', 'SELECT 1')")
                .back()
                .find("unknown return type NUMBER"),
            std::string::npos);
  EXPECT_NE(Run("SELECT CREATE_FUNCTION('f(x LONG)', 'LONG', 'SELECT nope FROM nothing')")
                .back()
                .find("CREATE_FUNCTION: "),
            std::string::npos);
}

}  // namespace
}  // namespace sql
}  // namespace processor
}  // namespace zt
