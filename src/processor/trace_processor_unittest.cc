// The SQL surface through the public API, on a hand-filled storage
// (sample_storage_for_testing.h): queries written as for upstream
// Perfetto's trace processor, with exact expected results.

#include "zt/processor/trace_processor.h"

#include <sqlite3.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include "src/processor/sql/sample_storage_for_testing.h"
#include "src/processor/trace_processor_impl.h"

namespace zt {
namespace processor {
namespace {

std::unique_ptr<TraceProcessor> Sample() {
  std::string error;
  auto tp = CreateTraceProcessor(sql::MakeSampleStorage(), &error);
  EXPECT_TRUE(tp) << error;
  return tp;
}

// Each row as "a|b|c", NULL as "NULL"; an error as "error: ...".
std::vector<std::string> Rows(TraceProcessor* tp, const std::string& sql) {
  const QueryResult result = tp->Query(sql);
  if (!result.ok())
    return {"error: " + result.error};
  std::vector<std::string> rows;
  for (const auto& row : result.rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); i++) {
      if (i)
        line += '|';
      line += row[i].is_null() ? "NULL" : row[i].ToString();
    }
    rows.push_back(line);
  }
  return rows;
}

using Lines = std::vector<std::string>;

TEST(TraceProcessorTest, SliceColumnsAsUpstream) {
  auto tp = Sample();
  const QueryResult r = tp->Query("SELECT * FROM slice WHERE id = 1");
  ASSERT_TRUE(r.ok()) << r.error;
  // Upstream v58's columns: the thread time and instruction columns (NULL:
  // this sample has none), the aliases cat and slice_id, the stack ids
  // (hashes of the stack's categories and names: Outer's, then Inner's).
  EXPECT_EQ(r.columns, (Lines{"id", "ts", "dur", "track_id", "category", "name", "depth",
                              "parent_id", "arg_set_id", "thread_ts", "thread_dur",
                              "thread_instruction_count", "thread_instruction_delta", "cat",
                              "slice_id", "stack_id", "parent_stack_id"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT * FROM slice WHERE id = 1"),
            (Lines{"1|110|30|0|cat|Inner|1|0|NULL|NULL|NULL|NULL|NULL|cat|1|"
                   "851677860497470992|1945549414932175884"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT stack_id FROM slice WHERE id = 0"),
            (Lines{"1945549414932175884"}));
}

TEST(TraceProcessorTest, SlicesPerThread) {
  auto tp = Sample();
  EXPECT_EQ(Rows(tp.get(),
                 "SELECT thread.name, thread.tid, COUNT(*) AS n, SUM(slice.dur) "
                 "FROM slice JOIN thread_track ON slice.track_id = thread_track.id "
                 "JOIN thread USING(utid) GROUP BY utid ORDER BY n DESC"),
            (Lines{"main|100|3|150", "worker|101|2|40"}));
}

TEST(TraceProcessorTest, SelfTimeViaParentId) {
  auto tp = Sample();
  EXPECT_EQ(Rows(tp.get(),
                 "SELECT s.name, s.dur - IFNULL((SELECT SUM(c.dur) FROM slice c "
                 "WHERE c.parent_id = s.id), 0) AS self "
                 "FROM slice s WHERE s.dur >= 0 ORDER BY self DESC, s.id"),
            (Lines{"Outer|50", "Work|40", "Inner|30", "Inner|20", "Instant|0"}));
}

TEST(TraceProcessorTest, TotalsByNameGroupBy) {
  auto tp = Sample();
  EXPECT_EQ(Rows(tp.get(), "SELECT name, SUM(dur), COUNT(*) FROM slice GROUP BY name"),
            (Lines{"Async|-1|1", "Inner|50|2", "Instant|0|1", "Outer|100|1", "Work|40|1"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT name FROM slice ORDER BY name DESC LIMIT 2"),
            (Lines{"Work", "Outer"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT DISTINCT category FROM slice ORDER BY category"),
            (Lines{"NULL", "cat"}));
}

TEST(TraceProcessorTest, CountersByTrack) {
  auto tp = Sample();
  EXPECT_EQ(Rows(tp.get(),
                 "SELECT t.name, t.unit, COUNT(*), MAX(c.value) FROM counter c "
                 "JOIN counter_track t ON c.track_id = t.id GROUP BY t.id ORDER BY t.id"),
            (Lines{"mem|bytes|2|2048.0", "load|NULL|1|0.5", "cpu_time|ns|1|7.0"}));
  EXPECT_EQ(
      Rows(tp.get(), "SELECT ts, value FROM counter WHERE track_id = 3 ORDER BY ts DESC"),
      (Lines{"200|2048.0", "100|1024.0"}));
}

TEST(TraceProcessorTest, TrackTypesAndSubtables) {
  auto tp = Sample();
  EXPECT_EQ(Rows(tp.get(), "SELECT id, type, name, parent_id FROM track"),
            (Lines{"0|thread_execution|NULL|NULL", "1|thread_execution|NULL|NULL",
                   "2|process_track_event|async|NULL",
                   "3|process_counter_track_event|mem|NULL",
                   "4|global_counter_track_event|load|NULL", "5|global_track_event|custom|2",
                   "6|thread_counter_track_event|cpu_time|NULL"}));
  // Upstream v58's columns, in its order.
  EXPECT_EQ(Rows(tp.get(), "SELECT * FROM track WHERE id = 5"),
            (Lines{"5|custom|global_track_event|NULL|2|NULL|0|NULL"}));  // machine 0: the host
  EXPECT_EQ(Rows(tp.get(), "SELECT id, utid FROM thread_track"), (Lines{"0|1", "1|2"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT id, name, upid FROM process_track"), (Lines{"2|async|1"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT id FROM counter_track"), (Lines{"3", "4", "6"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT id, utid FROM thread_counter_track"), (Lines{"6|2"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT id, upid FROM process_counter_track"), (Lines{"3|1"}));
}

TEST(TraceProcessorTest, ThreadsAndProcesses) {
  auto tp = Sample();
  EXPECT_EQ(Rows(tp.get(), "SELECT utid, id, tid, name, upid, is_main_thread FROM thread"),
            (Lines{"0|0|0|NULL|NULL|NULL", "1|1|100|main|1|1", "2|2|101|worker|1|0",
                   "3|3|200|NULL|NULL|NULL"}));
  EXPECT_EQ(
      Rows(tp.get(), "SELECT upid, pid, name, cmdline, start_ts, parent_upid FROM process"),
      (Lines{"0|0|NULL|NULL|NULL|NULL", "1|100|browser|/usr/bin/browser --x|5|NULL"}));
  EXPECT_EQ(Rows(tp.get(),
                 "SELECT p.name, COUNT(*) FROM thread t JOIN process p USING(upid) "
                 "GROUP BY p.upid"),
            (Lines{"browser|2"}));
}

TEST(TraceProcessorTest, ArgsByArgSetId) {
  auto tp = Sample();
  EXPECT_EQ(Rows(tp.get(),
                 "SELECT key, int_value, string_value, real_value, value_type FROM args "
                 "WHERE arg_set_id = (SELECT arg_set_id FROM slice WHERE name = 'Outer') "
                 "ORDER BY key"),
            (Lines{"debug.count|3|NULL|NULL|int", "debug.name|NULL|x|NULL|string",
                   "debug.ratio|NULL|NULL|0.25|real"}));
  EXPECT_EQ(
      Rows(tp.get(),
           "SELECT s.name, a.key, a.int_value FROM slice s JOIN args a USING(arg_set_id) "
           "WHERE a.value_type = 'bool'"),
      (Lines{"Work|debug.flag|1"}));
}

TEST(TraceProcessorTest, FlowsJoinSlices) {
  auto tp = Sample();
  EXPECT_EQ(Rows(tp.get(),
                 "SELECT o.name, i.name FROM flow f JOIN slice o ON f.slice_out = o.id "
                 "JOIN slice i ON f.slice_in = i.id"),
            (Lines{"Inner|Work"}));
}

TEST(TraceProcessorTest, NullHandling) {
  auto tp = Sample();
  EXPECT_EQ(Rows(tp.get(), "SELECT COUNT(*) FROM slice WHERE parent_id IS NULL"),
            (Lines{"3"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT COUNT(*) FROM slice WHERE parent_id = NULL"), (Lines{"0"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT COUNT(*) FROM slice WHERE arg_set_id IS NOT NULL"),
            (Lines{"2"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT name FROM slice WHERE category IS NULL"), (Lines{"Async"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT name, dur FROM slice WHERE dur = -1"), (Lines{"Async|-1"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT COUNT(*) FROM slice WHERE id = NULL"), (Lines{"0"}));
}

TEST(TraceProcessorTest, LookupsByIdTsAndTrack) {
  auto tp = Sample();
  EXPECT_EQ(Rows(tp.get(), "SELECT name FROM slice WHERE id = 3"), (Lines{"Work"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT id FROM slice WHERE id > 3"), (Lines{"4", "5"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT id FROM slice WHERE id < 2 ORDER BY id DESC"),
            (Lines{"1", "0"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT id FROM slice WHERE id = 99"), Lines{});
  EXPECT_EQ(Rows(tp.get(), "SELECT id FROM slice WHERE id = -1"), Lines{});
  EXPECT_EQ(Rows(tp.get(), "SELECT id FROM slice WHERE ts BETWEEN 110 AND 160"),
            (Lines{"1", "2", "3"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT id FROM slice WHERE ts > 150.5 AND ts <= 170"),
            (Lines{"3", "4"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT id FROM slice WHERE ts = 150.0"), (Lines{"2"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT id FROM slice WHERE ts = '150'"), (Lines{"2"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT id FROM slice WHERE track_id = 0 AND ts >= 150"),
            (Lines{"2"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT id FROM slice WHERE track_id = 1 ORDER BY ts DESC"),
            (Lines{"4", "3"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT id FROM slice WHERE track_id IN (1, 2) ORDER BY id"),
            (Lines{"3", "4", "5"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT id FROM slice WHERE track_id = 42"), Lines{});
  EXPECT_EQ(Rows(tp.get(), "SELECT id FROM slice WHERE name = 'Inner'"), (Lines{"1", "2"}));
  EXPECT_EQ(Rows(tp.get(), "SELECT id FROM slice WHERE name = 'nope'"), Lines{});
}

TEST(TraceProcessorTest, StatsOneRowPerStatAndIndex) {
  auto tp = Sample();
  EXPECT_EQ(Rows(tp.get(),
                 "SELECT name, idx, severity, source, value FROM stats "
                 "WHERE name IN ('misplaced_end_event', 'traced_buf_bytes_written', "
                 "'traced_buf_buffer_size')"),
            (Lines{"misplaced_end_event|NULL|data_loss|analysis|2",
                   "traced_buf_bytes_written|0|info|trace|100",
                   "traced_buf_bytes_written|1|info|trace|200"}));
  // Every single stat has its row, zero or not.
  EXPECT_EQ(Rows(tp.get(), "SELECT value FROM stats WHERE name = 'packets_malformed'"),
            (Lines{"0"}));
}

TEST(TraceProcessorTest, Metadata) {
  auto tp = Sample();
  EXPECT_EQ(Rows(tp.get(), "SELECT name, key_type, int_value, str_value FROM metadata"),
            (Lines{"trace_size_bytes|single|1234|NULL", "trace_uuid|single|NULL|abc-123"}));
}

TEST(TraceProcessorTest, BadSqlSaysWhy) {
  auto tp = Sample();
  QueryResult r = tp->Query("SELECT nmae FROM slice");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error, "no such column: nmae");
  r = tp->Query("SELECT * FROM slcie");
  EXPECT_EQ(r.error, "no such table: slcie");
  r = tp->Query("SELEC 1");
  EXPECT_NE(r.error.find("syntax error"), std::string::npos) << r.error;
  r = tp->Query("   ");
  EXPECT_EQ(r.error, "empty query");
  // The tables are read-only.
  r = tp->Query("DELETE FROM slice");
  EXPECT_FALSE(r.ok());
  // A failure leaves the processor usable.
  EXPECT_EQ(Rows(tp.get(), "SELECT COUNT(*) FROM slice"), (Lines{"6"}));
}

TEST(TraceProcessorTest, SeveralStatementsAndStreaming) {
  auto tp = Sample();
  const QueryResult r =
      tp->Query("CREATE TEMP TABLE t AS SELECT name FROM slice; SELECT COUNT(*) AS n FROM t");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.columns, Lines{"n"});
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0][0].int_value, 6);

  int seen = 0;
  std::string error;
  EXPECT_TRUE(tp->Query(
      "SELECT id FROM slice",
      [&seen](const std::vector<std::string>& columns, const std::vector<SqlValue>& row) {
        EXPECT_EQ(columns, Lines{"id"});
        EXPECT_EQ(row[0].int_value, seen);
        return ++seen < 2;
      },
      &error));
  EXPECT_EQ(seen, 2);

  const QueryResult empty = tp->Query("SELECT id, name FROM slice WHERE id > 100");
  EXPECT_TRUE(empty.ok());
  EXPECT_EQ(empty.columns, (Lines{"id", "name"}));
  EXPECT_TRUE(empty.rows.empty());
}

TEST(TraceProcessorTest, EmptyTrace) {
  std::string error;
  auto tp = CreateTraceProcessor(std::make_unique<TraceStorage>(), &error);
  ASSERT_TRUE(tp) << error;
  // Every table empty but stats (a row per stat) and trace_bounds (one row,
  // zeros, as upstream's).
  for (const std::string& table : tp->TableNames()) {
    if (table != "stats" && table != "trace_bounds") {
      EXPECT_EQ(Rows(tp.get(), "SELECT COUNT(*) FROM " + table), Lines{"0"}) << table;
    }
  }
  EXPECT_EQ(Rows(tp.get(), "SELECT start_ts, end_ts FROM trace_bounds"), Lines{"0|0"});
  EXPECT_EQ(Rows(tp.get(), "SELECT name, SUM(dur) FROM slice GROUP BY name"), Lines{});
  EXPECT_EQ(Rows(tp.get(), "SELECT * FROM slice WHERE id = 0"), Lines{});
  EXPECT_EQ(Rows(tp.get(), "SELECT * FROM slice WHERE ts BETWEEN 1 AND 2"), Lines{});
  EXPECT_EQ(Rows(tp.get(), "SELECT * FROM slice WHERE track_id = 0"), Lines{});
  EXPECT_NE(Rows(tp.get(), "SELECT COUNT(*) FROM stats")[0], "0");
}

// A Templight trace opens like any other: its instantiations are slices
// on a track per translation unit, with their Templight columns joined.
TEST(TraceProcessorTest, TemplightTraceJoinsSlices) {
  std::string error;
  auto tp = TraceProcessor::Open(std::string(ZT_TEST_DATA_DIR) + "/templight/tiny.memory.trace.pbf",
                                 OpenOptions(), &error);
  ASSERT_TRUE(tp) << error;
  EXPECT_EQ(Rows(tp.get(), "SELECT COUNT(*), COUNT(DISTINCT track_id) FROM slice"),
            Lines{"10|1"});
  EXPECT_EQ(Rows(tp.get(),
                 "SELECT t.name, u.version, u.source_file FROM templight_unit u "
                 "JOIN track t ON t.id = u.track_id"),
            Lines{"/src/app/main.cpp|1|/src/app/main.cpp"});
  EXPECT_EQ(Rows(tp.get(),
                 "SELECT s.ts, s.depth, i.kind, i.file, i.line, i.column, i.origin_file, "
                 "i.origin_line, i.memory_begin FROM slice s "
                 "JOIN templight_instantiation i ON i.slice_id = s.id WHERE s.id = 0"),
            Lines{"612083000|0|0|/src/app/main.cpp|8|35|/usr/include/c++/13/bits/stl_vector.h|"
                  "1044|48955200"});
  EXPECT_EQ(Rows(tp.get(), "SELECT str_value FROM metadata WHERE name = 'trace_type'"),
            Lines{"templight"});
  EXPECT_EQ(Rows(tp.get(), "SELECT value FROM stats WHERE name = 'templight_problems'"),
            Lines{"0"});
}

TEST(TraceProcessorTest, SqlValueToStringAsTheShell) {
  SqlValue v;
  EXPECT_EQ(v.ToString(), "");
  v.type = SqlValue::kReal;
  v.real_value = 2;
  EXPECT_EQ(v.ToString(), "2.0");
  v.real_value = 0.1;
  EXPECT_EQ(v.ToString(), "0.1");
  v.type = SqlValue::kInt;
  v.int_value = -7;
  EXPECT_EQ(v.ToString(), "-7");
}

TEST(TraceProcessorTest, ExportDatabaseRoundTrip) {
  auto tp = Sample();
  char dir[] = "/tmp/zt_export_XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const std::string path = std::string(dir) + "/out.sqlite";
  std::string error;
  ASSERT_TRUE(tp->ExportDatabase(path, &error)) << error;
  // Again over the first: replaced, not appended.
  ASSERT_TRUE(tp->ExportDatabase(path, &error)) << error;

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  auto query = [db](const char* sql) {
    std::vector<std::string> rows;
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db);
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      std::string line;
      for (int i = 0; i < sqlite3_column_count(stmt); i++) {
        if (i)
          line += '|';
        const unsigned char* text = sqlite3_column_text(stmt, i);
        line += text ? reinterpret_cast<const char*>(text) : "NULL";
      }
      rows.push_back(line);
    }
    sqlite3_finalize(stmt);
    return rows;
  };
  // Real tables, no virtual ones, and the indexes.
  EXPECT_EQ(query("SELECT COUNT(*) FROM sqlite_schema WHERE sql LIKE '%VIRTUAL%'"),
            Lines{"0"});
  EXPECT_EQ(query("SELECT COUNT(*) FROM slice"), Lines{"6"});
  EXPECT_EQ(query("SELECT name, SUM(dur) FROM slice GROUP BY name"),
            (Lines{"Async|-1", "Inner|50", "Instant|0", "Outer|100", "Work|40"}));
  EXPECT_EQ(query("SELECT thread.name, COUNT(*) FROM slice JOIN thread_track "
                  "ON slice.track_id = thread_track.id JOIN thread USING(utid) GROUP BY utid"),
            (Lines{"main|3", "worker|2"}));
  EXPECT_EQ(query("SELECT key, real_value FROM args WHERE value_type = 'real'"),
            (Lines{"debug.ratio|0.25"}));
  EXPECT_EQ(query("SELECT typeof(value), typeof(ts) FROM counter LIMIT 1"),
            (Lines{"real|integer"}));
  EXPECT_EQ(query("SELECT COUNT(*) FROM stats WHERE name = 'traced_buf_bytes_written'"),
            Lines{"2"});
  EXPECT_EQ(query("SELECT name FROM sqlite_schema WHERE type = 'index' ORDER BY name"),
            (Lines{"args_arg_set_id", "counter_track_id", "counter_ts", "slice_track_id",
                   "slice_ts"}));
  EXPECT_EQ(query("SELECT sql FROM sqlite_schema WHERE name = 'slice'"),
            (Lines{"CREATE TABLE \"slice\" (\"id\" INTEGER PRIMARY KEY, \"ts\" INTEGER, "
                   "\"dur\" INTEGER, \"track_id\" INTEGER, \"category\" TEXT, \"name\" TEXT, "
                   "\"depth\" INTEGER, \"parent_id\" INTEGER, \"arg_set_id\" INTEGER, "
                   "\"thread_ts\" INTEGER, \"thread_dur\" INTEGER, "
                   "\"thread_instruction_count\" INTEGER, \"thread_instruction_delta\" INTEGER, "
                   "\"cat\" TEXT, \"slice_id\" INTEGER, \"stack_id\" INTEGER, "
                   "\"parent_stack_id\" INTEGER)"}));
  sqlite3_close(db);

  // An unwritable place fails with the path in the message.
  EXPECT_FALSE(tp->ExportDatabase(std::string(dir) + "/no/such/dir/x.sqlite", &error));
  EXPECT_NE(error.find("no/such/dir"), std::string::npos) << error;
  unlink(path.c_str());
  rmdir(dir);
}

// The upstream v14 fixture through Open(): the manifest's figures
// (test/data/perfetto_v14/inprocess_small.manifest.json) answered in SQL.
TEST(TraceProcessorFixtureTest, UpstreamFixtureAnswersAsItsManifest) {
  std::string error;
  auto tp = TraceProcessor::Open(
      std::string(ZT_TEST_DATA_DIR) + "/perfetto_v14/inprocess_small.pftrace", {}, &error);
  ASSERT_TRUE(tp) << error;
  EXPECT_EQ(Rows(tp.get(),
                 "SELECT name, COUNT(*) FROM slice WHERE dur > 0 OR name LIKE 'dyn%' "
                 "GROUP BY name ORDER BY name"),
            (Lines{"ArgsA|45", "FlowIn|45", "FlowOut|45", "Inner|45", "Middle|45",
                   "OnCustomTrack|45", "Outer|45", "WorkerSlice|45", "dyn_0|6", "dyn_1|6",
                   "dyn_2|6", "dyn_3|6", "dyn_4|6", "dyn_5|5", "dyn_6|5", "dyn_7|5"}));
  EXPECT_EQ(Rows(tp.get(),
                 "SELECT name, COUNT(*) FROM slice WHERE dur = 0 AND name NOT LIKE 'dyn%' "
                 "GROUP BY name"),
            (Lines{"ArgsB|45", "Instant|45"}));
  EXPECT_EQ(Rows(tp.get(),
                 "SELECT t.name, COUNT(*), SUM(c.value) FROM counter c "
                 "JOIN counter_track t ON c.track_id = t.id GROUP BY t.name ORDER BY t.name"),
            (Lines{"conf_counter|45|2130.0", "conf_counter_double|45|495.0"}));
  EXPECT_EQ(Rows(tp.get(),
                 "SELECT COUNT(*) FROM flow f JOIN slice o ON o.id = f.slice_out "
                 "JOIN slice i ON i.id = f.slice_in WHERE o.name = 'FlowOut' "
                 "AND i.name = 'FlowIn'"),
            (Lines{"45"}));
  EXPECT_EQ(Rows(tp.get(),
                 "SELECT a.key, SUM(a.int_value) FROM slice s JOIN args a USING(arg_set_id) "
                 "WHERE s.name = 'ArgsA' AND a.value_type = 'int' GROUP BY a.key"),
            (Lines{"debug.int_arg|765"}));
  EXPECT_EQ(Rows(tp.get(),
                 "SELECT a.string_value, COUNT(*) FROM slice s JOIN args a USING(arg_set_id) "
                 "WHERE a.key = 'debug.str_arg' GROUP BY 1 ORDER BY 1"),
            (Lines{"s0|12", "s1|11", "s2|11", "s3|11"}));
  EXPECT_EQ(Rows(tp.get(),
                 "SELECT COUNT(*) FROM slice s JOIN track t ON s.track_id = t.id "
                 "WHERE t.name = 'conf_custom_track'"),
            (Lines{"45"}));
  EXPECT_EQ(Rows(tp.get(),
                 "SELECT COUNT(DISTINCT utid) FROM slice JOIN thread_track "
                 "ON slice.track_id = thread_track.id"),
            (Lines{"2"}));
}

TEST(TraceProcessorFixtureTest, OpenFailsWithThePath) {
  std::string error;
  EXPECT_FALSE(TraceProcessor::Open("/nonexistent/x.pftrace", {}, &error));
  EXPECT_NE(error.find("/nonexistent/x.pftrace"), std::string::npos) << error;
}

}  // namespace
}  // namespace processor
}  // namespace zt
