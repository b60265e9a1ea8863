#include "src/processor/importers/json/json_trace_importer.h"

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "src/processor/exporters/export_json.h"
#include "src/processor/importers/trace_importer.h"
#include "src/processor/test/gzip_for_testing.h"

namespace zt {
namespace processor {
namespace {

std::unique_ptr<TraceStorage> Import(const std::string& json) {
  std::unique_ptr<TraceStorage> s(new TraceStorage());
  ImportTrace(json.data(), json.size(), s.get());
  return s;
}

std::string Str(const TraceStorage& s, StringId id) {
  return id == kNullStringId ? "NULL" : std::string(s.strings.Get(id));
}

// "name ts dur depth" per slice, in row order.
std::vector<std::string> Slices(const TraceStorage& s) {
  std::vector<std::string> rows;
  for (size_t i = 0; i < s.slice.size(); ++i) {
    rows.push_back(Str(s, s.slice.name[i]) + " " + std::to_string(s.slice.ts[i]) + " " +
                   std::to_string(s.slice.dur[i]) + " " + std::to_string(s.slice.depth[i]));
  }
  return rows;
}

// "key=value" for the args of a slice.
std::vector<std::string> ArgsOf(const TraceStorage& s, uint32_t slice) {
  std::vector<std::string> out;
  const uint32_t set = s.slice.arg_set_id[slice];
  for (size_t i = 0; i < s.args.size(); ++i) {
    if (s.args.arg_set_id[i] != set || set == kNullId)
      continue;
    std::string value;
    switch (s.args.value_type[i]) {
      case ArgType::kString:
        value = "'" + Str(s, s.args.string_value[i]) + "'";
        break;
      case ArgType::kReal:
        value = std::to_string(s.args.real_value[i]);
        break;
      case ArgType::kBool:
        value = s.args.int_value[i] ? "true" : "false";
        break;
      default:
        value = std::to_string(s.args.int_value[i]);
    }
    out.push_back(Str(s, s.args.key[i]) + "(" + Str(s, s.args.flat_key[i]) + ")=" + value);
  }
  return out;
}

int64_t Stat(const TraceStorage& s, stats::Key key) { return s.stats.Get(key); }

using Rows = std::vector<std::string>;

TEST(JsonTraceImporterTest, BeginAndEndNestAndMergeArgs) {
  const auto s = Import(R"({"traceEvents": [
    {"ph": "B", "name": "a", "ts": 1, "pid": 1, "tid": 2, "args": {"x": 1, "keep": "k"}},
    {"ph": "B", "name": "b", "ts": 2, "pid": 1, "tid": 2},
    {"ph": "E", "ts": 3, "pid": 1, "tid": 2},
    {"ph": "E", "ts": 5.5, "pid": 1, "tid": 2, "args": {"x": 2, "y": true}}
  ]})");
  EXPECT_EQ(Slices(*s), (Rows{"a 1000 4500 0", "b 2000 1000 1"}));
  EXPECT_EQ(s->slice.parent_id[1], 0u);
  EXPECT_EQ(ArgsOf(*s, 0),
            (Rows{"args.x(args.x)=2", "args.keep(args.keep)='k'", "args.y(args.y)=true"}));
  EXPECT_EQ(Str(*s, s->metadata.str_value.back()), "json");
}

TEST(JsonTraceImporterTest, EndClosesTheInnermostMatchingSlice) {
  const auto s = Import(R"([
    {"ph": "B", "name": "outer", "cat": "c", "ts": 1, "tid": 1},
    {"ph": "B", "name": "inner", "cat": "c", "ts": 2, "tid": 1},
    {"ph": "E", "name": "outer", "ts": 3, "tid": 1},
    {"ph": "i", "name": "later", "ts": 4, "tid": 1},
    {"ph": "B", "name": "BeginEvent", "ts": 5, "tid": 1},
    {"ph": "E", "name": "EndEvent", "ts": 6, "tid": 1},
    {"ph": "B", "name": "catless", "ts": 7, "tid": 3},
    {"ph": "E", "cat": "c", "ts": 8, "tid": 3}
  ])");
  // outer closes past inner; the next event truncates inner to outer's
  // end. An end naming nothing open is ignored, as upstream does; so is
  // an end whose category the open slice lacks.
  EXPECT_EQ(Slices(*s), (Rows{"outer 1000 2000 0", "inner 2000 1000 1", "later 4000 0 0",
                              "BeginEvent 5000 -1 0", "catless 7000 -1 0"}));
  EXPECT_EQ(Stat(*s, stats::misplaced_end_event), 1);
  EXPECT_EQ(Stat(*s, stats::slices_unterminated), 2);
}

TEST(JsonTraceImporterTest, CompleteEventsNestLongestFirstAtOneTime) {
  const auto s = Import(R"([
    {"ph": "X", "name": "child", "ts": 10, "dur": 5, "tid": 1},
    {"ph": "X", "name": "parent", "ts": 10, "dur": 10, "tid": 1},
    {"ph": "X", "name": "zero", "ts": 30, "dur": 0, "tid": 1},
    {"ph": "X", "name": "hundred", "ts": 30, "dur": 100, "tid": 1},
    {"ph": "X", "name": "next", "ts": 20, "dur": 1, "tid": 1}
  ])");
  EXPECT_EQ(Slices(*s), (Rows{"parent 10000 10000 0", "child 10000 5000 1", "next 20000 1000 0",
                              "hundred 30000 100000 0", "zero 30000 0 1"}));
}

TEST(JsonTraceImporterTest, OverlappingCompleteEventsMoveToAnOverflowTrack) {
  const auto s = Import(R"([
    {"ph": "X", "name": "a", "ts": 0, "dur": 10, "tid": 1},
    {"ph": "X", "name": "b", "ts": 5, "dur": 10, "tid": 1},
    {"ph": "X", "name": "c", "ts": 6, "dur": 2, "tid": 1},
    {"ph": "X", "name": "neg", "ts": 7, "dur": -1, "tid": 1},
    {"ph": "X", "name": "nodur", "ts": 7, "tid": 1}
  ])");
  EXPECT_EQ(Slices(*s), (Rows{"a 0 10000 0", "b 5000 10000 0", "c 6000 2000 1"}));
  EXPECT_NE(s->slice.track_id[0], s->slice.track_id[1]);
  EXPECT_EQ(s->slice.track_id[0], s->slice.track_id[2]);
  EXPECT_EQ(s->track.utid[s->slice.track_id[1]], s->track.utid[s->slice.track_id[0]]);
  EXPECT_EQ(Str(*s, s->track.type[s->slice.track_id[1]]), "thread_overlapping_slice");
  EXPECT_EQ(Stat(*s, stats::slice_spill_overlapping_complete_event), 1);
  EXPECT_EQ(Stat(*s, stats::slice_negative_duration), 1);
  EXPECT_EQ(Stat(*s, stats::json_parser_failure), 1);
}

TEST(JsonTraceImporterTest, InstantsGoWhereTheirScopeSays) {
  const auto s = Import(R"([
    {"ph": "i", "name": "g", "s": "g", "ts": 1},
    {"ph": "I", "name": "p", "s": "p", "ts": 1, "pid": 7},
    {"ph": "i", "name": "t1", "ts": 1, "pid": 7, "tid": 8},
    {"ph": "R", "name": "t2", "ts": 1, "pid": 7, "tid": 8},
    {"ph": "i", "name": "no_tid", "ts": 1, "pid": 7},
    {"ph": "i", "name": "no_pid", "s": "p", "ts": 1}
  ])");
  EXPECT_EQ(Slices(*s), (Rows{"g 1000 0 0", "p 1000 0 0", "t1 1000 0 0", "t2 1000 0 1"}));
  const TrackTable& t = s->track;
  EXPECT_EQ(t.kind[s->slice.track_id[0]], TrackKind::kGlobal);
  EXPECT_EQ(t.kind[s->slice.track_id[1]], TrackKind::kProcess);
  EXPECT_EQ(t.kind[s->slice.track_id[2]], TrackKind::kThread);
  EXPECT_EQ(Str(*s, t.type[s->slice.track_id[0]]), "legacy_chrome_global_instants");
  EXPECT_EQ(Str(*s, t.type[s->slice.track_id[1]]), "chrome_process_instant");
  EXPECT_EQ(Str(*s, t.type[s->slice.track_id[2]]), "thread_execution");
  EXPECT_EQ(s->process.pid[t.upid[s->slice.track_id[1]]], 7);
  EXPECT_EQ(Stat(*s, stats::json_parser_failure), 2);
}

TEST(JsonTraceImporterTest, CountersAreOneTrackPerArg) {
  const auto s = Import(R"([
    {"ph": "C", "name": "ctr", "ts": 1, "pid": 3, "args": {"cats": 1, "dogs": "2.5"}},
    {"ph": "C", "name": "ctr", "ts": 2, "pid": 3, "args": {"cats": 4.25, "bad": "x"}},
    {"ph": "C", "name": "ctr", "id": "7", "ts": 3, "pid": 3, "args": {"cats": 0}},
    {"ph": "C", "name": "noargs", "ts": 3, "pid": 3}
  ])");
  std::vector<std::string> rows;
  for (size_t i = 0; i < s->counter.size(); ++i) {
    const uint32_t track = s->counter.track_id[i];
    std::ostringstream row;
    row << Str(*s, s->track.name[track]) << " " << s->counter.ts[i] << " " << s->counter.value[i]
        << " pid " << s->process.pid[s->track.upid[track]];
    rows.push_back(row.str());
  }
  EXPECT_EQ(rows, (Rows{"ctr cats 1000 1 pid 3", "ctr dogs 1000 2.5 pid 3",
                        "ctr cats 2000 4.25 pid 3", "ctr id: 7 cats 3000 0 pid 3"}));
  EXPECT_EQ(Str(*s, s->track.type[s->counter.track_id[0]]), "json_counter");
  EXPECT_EQ(Stat(*s, stats::json_parser_failure), 2);
}

TEST(JsonTraceImporterTest, AsyncSlicesShareATrackUntilTheyOverlap) {
  const auto s = Import(R"([
    {"ph": "b", "name": "load", "cat": "net", "id": 1, "ts": 1, "pid": 1},
    {"ph": "e", "name": "load", "cat": "net", "id": 1, "ts": 3, "pid": 1},
    {"ph": "b", "name": "load", "cat": "net", "id": 2, "ts": 4, "pid": 2},
    {"ph": "b", "name": "load", "cat": "net", "id": 3, "ts": 5, "pid": 1},
    {"ph": "n", "name": "mark", "cat": "net", "id": 3, "ts": 6, "pid": 1},
    {"ph": "e", "name": "load", "cat": "net", "id": 3, "ts": 7, "pid": 1},
    {"ph": "e", "name": "load", "cat": "net", "id": 2, "ts": 8, "pid": 2},
    {"ph": "b", "name": "local", "cat": "net", "id2": {"local": "0x1"}, "ts": 9, "pid": 1},
    {"ph": "b", "name": "noid", "ts": 9, "pid": 1}
  ])");
  EXPECT_EQ(Slices(*s), (Rows{"load 1000 2000 0", "load 4000 4000 0", "load 5000 2000 0",
                              "mark 6000 0 1", "local 9000 -1 0"}));
  const std::vector<uint32_t>& track = s->slice.track_id;
  // Ids 1 and 2 do not overlap: one track. Id 3 overlaps id 2: another.
  EXPECT_EQ(track[0], track[1]);
  EXPECT_NE(track[2], track[1]);
  EXPECT_EQ(track[3], track[2]);
  EXPECT_EQ(s->track.kind[track[0]], TrackKind::kGlobal);
  EXPECT_EQ(Str(*s, s->track.name[track[0]]), "load");
  EXPECT_EQ(s->track.kind[track[4]], TrackKind::kProcess);
  EXPECT_EQ(Stat(*s, stats::json_parser_failure), 1);
  // Upstream v58's blueprints, and the dimensions that key them.
  EXPECT_EQ(Str(*s, s->track.type[track[0]]), "legacy_async_global_slice");
  EXPECT_EQ(Str(*s, s->track.type[track[4]]), "legacy_async_process_slice");
  std::vector<std::string> dimensions;
  const uint32_t set = s->track.dimension_arg_set_id[track[4]];
  for (size_t i = 0; i < s->args.size(); ++i)
    if (s->args.arg_set_id[i] == set)
      dimensions.push_back(Str(*s, s->args.key[i]));
  EXPECT_EQ(dimensions, (Rows{"upid", "name"}));
}

TEST(JsonTraceImporterTest, FlowsBindToSlices) {
  const auto s = Import(R"([
    {"ph": "X", "name": "send", "ts": 1, "dur": 5, "tid": 1},
    {"ph": "s", "name": "f", "cat": "c", "id": "0x10", "ts": 2, "tid": 1},
    {"ph": "X", "name": "recv", "ts": 10, "dur": 5, "tid": 2},
    {"ph": "f", "bp": "e", "name": "f", "cat": "c", "id": 16, "ts": 11, "tid": 2},
    {"ph": "s", "name": "g", "id": 1, "ts": 3, "tid": 1},
    {"ph": "f", "name": "g", "id": 1, "ts": 20, "tid": 2},
    {"ph": "X", "name": "next", "ts": 21, "dur": 1, "tid": 2},
    {"ph": "X", "name": "v2a", "ts": 30, "dur": 1, "tid": 3, "bind_id": "0xab", "flow_out": true},
    {"ph": "X", "name": "v2b", "ts": 40, "dur": 1, "tid": 4, "bind_id": 171, "flow_in": true},
    {"ph": "X", "name": "v2d", "ts": 45, "dur": 1, "tid": 5, "bind_id": 171, "flow_in": true},
    {"ph": "X", "name": "v2c", "ts": 50, "dur": 1, "tid": 4, "bind_id": 5},
    {"ph": "t", "name": "h", "id": 9, "ts": 2, "tid": 1},
    {"ph": "s", "name": "none", "id": "zz", "ts": 2, "tid": 1}
  ])");
  std::vector<std::string> flows;
  for (size_t i = 0; i < s->flow.size(); ++i)
    flows.push_back(Str(*s, s->slice.name[s->flow.slice_out[i]]) + "->" +
                    Str(*s, s->slice.name[s->flow.slice_in[i]]));
  // A v2 flow_out reaches every later flow_in of its id (upstream's fan-out).
  EXPECT_EQ(flows, (Rows{"send->recv", "send->next", "v2a->v2b", "v2a->v2d"}));
  EXPECT_EQ(Stat(*s, stats::flow_without_direction), 1);
  EXPECT_EQ(Stat(*s, stats::flow_step_without_start), 1);
  EXPECT_EQ(Stat(*s, stats::flow_invalid_id), 1);
}

TEST(JsonTraceImporterTest, ProcessesAndThreadsAsUpstreamMakesThem) {
  const auto s = Import(R"([
    {"ph": "M", "name": "process_name", "pid": 10, "args": {"name": "browser"}},
    {"ph": "M", "name": "thread_name", "pid": 10, "tid": 11, "ts": "invalid", "args": {"name": "io"}},
    {"ph": "i", "name": "main", "ts": 1, "pid": 10},
    {"ph": "i", "name": "str", "ts": 1, "pid": "foo", "tid": "bar"},
    {"ph": "M", "name": "thread_name", "pid": 10, "tid": 12, "args": {"name": ""}}
  ])");
  std::vector<std::string> threads;
  for (size_t i = 1; i < s->thread.size(); ++i) {
    const uint32_t upid = s->thread.upid[i];
    threads.push_back(Str(*s, s->thread.name[i]) + " main=" +
                      std::to_string(s->thread.is_main_thread[i]) + " in " +
                      Str(*s, s->process.name[upid]));
  }
  // In time order (metadata events without ts come first): a process
  // comes with its main thread; a missing tid is the pid; a string pid or
  // tid names its process or thread.
  EXPECT_EQ(threads, (Rows{"NULL main=1 in browser", "io main=0 in browser",
                           "NULL main=0 in browser", "NULL main=1 in foo",
                           "bar main=0 in foo"}));
  // An empty thread name, and a thread instant without a tid field (its
  // thread, the main one, is still made), fail as upstream's do.
  EXPECT_EQ(Stat(*s, stats::json_parser_failure), 2);
  EXPECT_EQ(Slices(*s), (Rows{"str 1000 0 0"}));
}

// Sort-index metadata become the process's and thread's args, as upstream
// keeps them (a float is truncated; the last value wins).
TEST(JsonTraceImporterTest, SortIndexesAreProcessAndThreadArgs) {
  const auto s = Import(R"([
    {"ph": "M", "name": "process_sort_index", "pid": 30, "args": {"sort_index": -2}},
    {"ph": "M", "name": "thread_sort_index", "pid": 30, "tid": 31, "args": {"sort_index": 5.7}},
    {"ph": "M", "name": "process_sort_index", "pid": 40, "args": {"sort_index": 3}},
    {"ph": "M", "name": "process_sort_index", "pid": 40, "args": {"sort_index": 10}},
    {"ph": "M", "name": "thread_sort_index", "pid": 40, "args": {"sort_index": "x"}}
  ])");
  auto hint = [&](const std::vector<uint32_t>& sets, uint32_t row) -> std::string {
    if (sets.empty() || sets[row] == kNullId)
      return "NULL";
    for (size_t i = 0; i < s->args.size(); ++i)
      if (s->args.arg_set_id[i] == sets[row])
        return Str(*s, s->args.key[i]) + "=" + std::to_string(s->args.int_value[i]);
    return "none";
  };
  std::vector<std::string> rows;
  for (uint32_t utid = 0; utid < s->thread.size(); ++utid) {
    const uint32_t upid = s->thread.upid[utid];
    rows.push_back(std::to_string(s->process.pid[upid]) + "/" +
                   std::to_string(s->thread.tid[utid]) + " " + hint(s->process.arg_set_id, upid) +
                   " " + hint(s->thread.arg_set_id, utid));
  }
  EXPECT_EQ(rows, (Rows{"0/0 NULL NULL", "30/30 process_sort_index_hint=-2 NULL",
                        "30/31 process_sort_index_hint=-2 thread_sort_index_hint=5",
                        "40/40 process_sort_index_hint=10 NULL"}));
  EXPECT_EQ(Stat(*s, stats::json_parser_failure), 1);
}

TEST(JsonTraceImporterTest, ArgsFlattenAsUpstreamKeysThem) {
  const auto s = Import(R"([{"ph": "i", "name": "a", "ts": 1, "tid": 1, "args": {
    "n": {"d": 1.5, "big": 18446744073709551616},
    "arr": [5, {"y": "s"}], "nul": null, "f": false, "empty": {}
  }}])");
  EXPECT_EQ(ArgsOf(*s, 0), (Rows{"args.n.d(args.n.d)=1.500000",
                                 "args.n.big(args.n.big)=18446744073709551616.000000",
                                 "args.arr[0](args.arr)=5", "args.arr[1].y(args.arr.y)='s'",
                                 "args.f(args.f)=false"}));
}

// Upstream's args_ordered diff test writes a comma before each closing brace.
TEST(JsonTraceImporterTest, ArgsWithTrailingCommasKeepTheirOrder) {
  const auto s = Import(R"([{"ph": "i", "name": "a", "ts": 1, "tid": 1,
      "args": {"02.step2": 2, "01.step1": 1, "list": [1,],}}])");
  EXPECT_EQ(ArgsOf(*s, 0), (Rows{"args.02.step2(args.02.step2)=2",
                                 "args.01.step1(args.01.step1)=1", "args.list[0](args.list)=1"}));
}

TEST(JsonTraceImporterTest, ThreadTimeFillsThreadColumns) {
  const auto s = Import(R"([
    {"ph": "X", "name": "x", "ts": 1, "dur": 5, "tts": 2, "tdur": 3, "tid": 1},
    {"ph": "B", "name": "b", "ts": 10, "tts": 20, "tid": 1},
    {"ph": "E", "ts": 12, "tts": 21.5, "tid": 1},
    {"ph": "X", "name": "none", "ts": 30, "dur": 1, "tid": 1}
  ])");
  ASSERT_EQ(s->slice.thread_ts.size(), 3u);
  EXPECT_EQ(s->slice.thread_ts, (std::vector<int64_t>{2000, 20000, kNullInt}));
  EXPECT_EQ(s->slice.thread_dur, (std::vector<int64_t>{3000, 1500, kNullInt}));
  // Without any thread time the columns stay empty (NULL in SQL).
  EXPECT_TRUE(Import(R"([{"ph": "X", "name": "x", "ts": 1, "dur": 5}])")->slice.thread_ts.empty());
}

TEST(JsonTraceImporterTest, BadEventsAreCountedAndListedWithOffsets) {
  const std::string text = R"([
    {"ph": "X", "name": "ok", "ts": 1, "dur": 1},
    {"name": "no phase", "ts": 1},
    {"ph": "X", "name": "bad ts", "ts": "soon", "dur": 1},
    {"ph": "X", "name": "bad dur", "ts": 1, "dur": true},
    {"ph": "X", "name": "negative", "ts": -5, "dur": 1},
    {"ph": "X", "name": "broken", "ts": 1, "dur": 1 "x": 2},
    {},
    7,
    {"ph": "X", "name": "ok2", "ts": "2", "dur": "1.5"}
  ])";
  const auto s = Import(text);
  EXPECT_EQ(Slices(*s), (Rows{"ok 1000 1000 0", "ok2 2000 1500 0"}));
  EXPECT_EQ(Stat(*s, stats::json_tokenizer_failure), 5);
  EXPECT_EQ(Stat(*s, stats::trace_sorter_negative_timestamp_dropped), 1);
  ASSERT_EQ(s->import_problems.size(), 5u);
  EXPECT_EQ(s->import_problems[0].offset, text.find("{\"name\": \"no phase\""));
  EXPECT_EQ(s->import_problems[0].what, "a trace event with no ph, skipped");
  EXPECT_EQ(s->import_problems[1].what, "a trace event with a bad ts, skipped");
  EXPECT_EQ(s->import_problems[2].what, "a trace event with a bad dur, skipped");
  EXPECT_EQ(s->import_problems[3].what,
            "a trace event with expected ',' or '}' at byte 48, skipped");
  EXPECT_EQ(s->import_problems[4].what,
            "a trace event with an element of traceEvents that is not an object, skipped");
}

TEST(JsonTraceImporterTest, TopLevelKeysAsUpstreamReadsThem) {
  const auto s = Import(R"({"displayTimeUnit": "ns", "traceEvents": [
      {"ph": "X", "name": "a", "ts": 1597071955492308, "dur": 1}],
    "metadata": {"b": true, "i": 42, "f": 2.5, "s": "x", "o": {"k": [1]}, "n": null}})");
  // displayTimeUnit is a display hint: ts stays microseconds.
  EXPECT_EQ(s->slice.ts[0], 1597071955492308000);
  EXPECT_EQ(Stat(*s, stats::json_display_time_unit), 1);
  std::vector<std::string> metadata;
  for (size_t i = 0; i < s->metadata.size(); ++i) {
    metadata.push_back(Str(*s, s->metadata.name[i]) + "=" +
                       (s->metadata.str_value[i] == kNullStringId
                            ? std::to_string(s->metadata.int_value[i])
                            : Str(*s, s->metadata.str_value[i])));
  }
  EXPECT_EQ(metadata, (Rows{"json_metadata.b=1", "json_metadata.i=42", "json_metadata.f=2.5",
                            "json_metadata.s=x", "json_metadata.o={\"k\": [1]}",
                            "trace_size_bytes=" + std::to_string(s->metadata.int_value[5]),
                            "trace_type=json"}));
}

// A malformed metadata value ends the metadata there (a fuzzer found the
// bad number read as an empty one).
TEST(JsonTraceImporterTest, MalformedMetadataKeepsWhatCameBefore) {
  const auto s = Import(R"({"traceEvents": [], "metadata": {"a": 1, "b": -x, "c": 2}})");
  ASSERT_GE(s->metadata.size(), 1u);
  EXPECT_EQ(Str(*s, s->metadata.name[0]), "json_metadata.a");
  EXPECT_EQ(Str(*s, s->metadata.name[1]), "trace_size_bytes");
}

TEST(JsonTraceImporterTest, ACutTraceKeepsItsEventsAndSaysWhere) {
  const std::string text = R"([{"ph": "X", "name": "a", "ts": 1, "dur": 1},
    {"ph": "X", "name": "b", "ts": 2, "dur": 1}, {"ph": "X", "na)";
  const auto s = Import(text);
  EXPECT_EQ(Slices(*s), (Rows{"a 1000 1000 0", "b 2000 1000 0"}));
  EXPECT_EQ(Stat(*s, stats::json_trace_truncated), 15);
  ASSERT_EQ(s->data_losses.size(), 1u);
  EXPECT_EQ(s->data_losses[0].offset, text.rfind('{'));
}

TEST(JsonTraceImporterTest, TextThatIsNotATraceIsUnreadable) {
  TraceStorage s;
  const std::string text = "[section]\nkey = value\n";
  ImportOptions options;
  const ImportResult result = ImportTrace(text.data(), text.size(), &s, options);
  EXPECT_EQ(result.unreadable,
            "not a JSON trace (unexpected 's' in the events array at byte 1)");
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// What the SDK fixture holds, as "name ts dur depth" sorted.
Rows SortedSlices(const TraceStorage& s) {
  Rows rows = Slices(s);
  std::sort(rows.begin(), rows.end());
  return rows;
}

TEST(JsonTraceImporterTest, GzipIsUndoneForEveryFormat) {
  const std::string proto = ReadFile(ZT_TEST_DATA_DIR "/perfetto_v14/inprocess_small.pftrace");
  ASSERT_FALSE(proto.empty());
  TraceStorage plain;
  ImportTrace(proto.data(), proto.size(), &plain);
  const std::string compressed = GzipForTesting(proto);
  TraceStorage from_gzip;
  const ImportResult result = ImportTrace(compressed.data(), compressed.size(), &from_gzip);
  EXPECT_TRUE(result.unreadable.empty());
  ASSERT_GT(plain.slice.size(), 0u);
  EXPECT_EQ(Slices(from_gzip), Slices(plain));
  EXPECT_EQ(result.input_bytes, compressed.size());

  const std::string json = R"([{"ph": "X", "name": "a", "ts": 1, "dur": 1}])";
  const std::string json_gz = GzipForTesting(json);
  const auto s = Import(json_gz);
  EXPECT_EQ(Slices(*s), (Rows{"a 1000 1000 0"}));
  EXPECT_EQ(Stat(*s, stats::gzip_stream_damaged), 0);
}

TEST(JsonTraceImporterTest, ACutGzipKeepsWhatDecompressed) {
  std::string json = "[";
  for (int i = 0; i < 20000; ++i)
    json += "{\"ph\": \"X\", \"name\": \"e" + std::to_string(i % 97) + "\", \"ts\": " +
            std::to_string(i) + ", \"dur\": 1},\n";
  const std::string compressed = GzipForTesting(json);
  const auto s = Import(compressed.substr(0, compressed.size() / 2));
  EXPECT_GT(s->slice.size(), 1000u);
  EXPECT_LT(s->slice.size(), 20000u);
  EXPECT_EQ(Stat(*s, stats::gzip_stream_damaged), 1);
  EXPECT_EQ(Stat(*s, stats::json_trace_truncated) > 0, true);
}

// --to json and back: the same slices, flows and names.
TEST(JsonTraceImporterTest, ExportedJsonImportsIntoTheSameSlices) {
  const std::string proto = ReadFile(ZT_TEST_DATA_DIR "/perfetto_v14/inprocess_small.pftrace");
  TraceStorage original;
  ImportTrace(proto.data(), proto.size(), &original);
  std::string exported;
  StringJsonSink sink(&exported);
  ASSERT_TRUE(ExportJson(original, &sink).ok);
  const auto round_trip = Import(exported);
  EXPECT_EQ(SortedSlices(*round_trip), SortedSlices(original));
  EXPECT_EQ(round_trip->flow.size(), original.flow.size());
  EXPECT_EQ(Stat(*round_trip, stats::json_tokenizer_failure), 0);
  EXPECT_EQ(Stat(*round_trip, stats::json_parser_failure), 0);
}

}  // namespace
}  // namespace processor
}  // namespace zt
