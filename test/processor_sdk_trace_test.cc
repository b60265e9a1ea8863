// Traces recorded in-process by our SDK, imported by the trace processor
// and checked for exact contents: nesting, thread and process rows,
// instants, timestamps on every clock setting, counters, custom tracks,
// flows, debug annotations of every type, names, a trace written into a
// file (helpers: processor_sdk_trace_util.h; resets, threads and losses:
// processor_sdk_sequences_test.cc).

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "test/processor_sdk_trace_util.h"

ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(0));

namespace zt {
namespace sdk_trace_test {
namespace {

// Slices begun and ended with explicit times nest four deep on the thread's
// track; an instant is a zero-length child; the thread and process rows
// carry the tid, pid and names the SDK wrote.
TEST_F(ProcessorSdkTraceTest, NestingOnTheThreadTrack) {
  int64_t tid = 0;
  const std::vector<char> trace = RecordSimple([&] {
    tid = OnNamedThread("zt-nesting", [] {
      TRACE_EVENT_BEGIN("test", "A", TraceTimestamp{kBase + 100});
      TRACE_EVENT_BEGIN("gfx", "B", TraceTimestamp{kBase + 200});
      TRACE_EVENT_BEGIN("net", "C", TraceTimestamp{kBase + 300});
      TRACE_EVENT_BEGIN("test", "D", TraceTimestamp{kBase + 400});
      TRACE_EVENT_INSTANT("test", "I", TraceTimestamp{kBase + 450});
      TRACE_EVENT_END("test", TraceTimestamp{kBase + 500});  // D
      TRACE_EVENT_BEGIN("test", "D2", TraceTimestamp{kBase + 600});
      TRACE_EVENT_END("test", TraceTimestamp{kBase + 700});  // D2
      TRACE_EVENT_END("net", TraceTimestamp{kBase + 800});   // C
      TRACE_EVENT_END("gfx", TraceTimestamp{kBase + 900});   // B
      TRACE_EVENT_INSTANT("gfx", "I2", TraceTimestamp{kBase + 950});
      TRACE_EVENT_END("test", TraceTimestamp{kBase + 1000});  // A
      TRACE_EVENT_INSTANT("test", "top", TraceTimestamp{kBase + 1100});
    });
  });
  Imported imp(trace);
  EXPECT_EQ(imp.Problems(), (std::map<std::string, int64_t>{}));
  EXPECT_EQ(imp.s().stats.Get(pstats::slices_unterminated), 0);

  const std::string b = std::to_string(kBase);
  std::vector<std::string> rows;
  for (uint32_t i = 0; i < imp.s().slice.size(); i++)
    rows.push_back(imp.Row(i));
  auto at = [&](int offset) { return std::to_string(kBase + offset); };
  EXPECT_EQ(rows, (std::vector<std::string>{
                      "A test ts=" + at(100) + " dur=900 depth=0 parent=-",
                      "B gfx ts=" + at(200) + " dur=700 depth=1 parent=A",
                      "C net ts=" + at(300) + " dur=500 depth=2 parent=B",
                      "D test ts=" + at(400) + " dur=100 depth=3 parent=C",
                      "I test ts=" + at(450) + " dur=0 depth=4 parent=D",
                      "D2 test ts=" + at(600) + " dur=100 depth=3 parent=C",
                      "I2 gfx ts=" + at(950) + " dur=0 depth=1 parent=A",
                      "top test ts=" + at(1100) + " dur=0 depth=0 parent=-",
                  }));
  imp.CheckConsistent();

  // All on the thread's own track, tied to the thread and the process.
  const uint32_t track = imp.ThreadTrackOf(tid);
  ASSERT_NE(track, kNullId);
  for (uint32_t i = 0; i < imp.s().slice.size(); i++)
    EXPECT_EQ(imp.s().slice.track_id[i], track) << imp.Row(i);
  const uint32_t utid = imp.UtidOf(tid);
  const uint32_t upid = imp.UpidOf(getpid());
  ASSERT_NE(utid, kNullId);
  ASSERT_NE(upid, kNullId);
  EXPECT_EQ(imp.Str(imp.s().thread.name[utid]), "zt-nesting");
  EXPECT_EQ(imp.s().thread.upid[utid], upid);
  EXPECT_EQ(imp.s().thread.is_main_thread[utid], 0);
  EXPECT_EQ(imp.s().track.upid[track], upid);
  EXPECT_EQ(imp.s().track.utid[track], utid);
  // The process: its pid, and argv[0] as its name and command line.
  FILE* f = fopen("/proc/self/cmdline", "rb");
  ASSERT_TRUE(f);
  char cmdline[4096] = {};
  fread(cmdline, 1, sizeof(cmdline) - 1, f);
  fclose(f);
  EXPECT_EQ(imp.Str(imp.s().process.name[upid]), std::string(cmdline));
  EXPECT_EQ(imp.Str(imp.s().process.cmdline[upid]), std::string(cmdline));
  // Only rows something is on, and the placeholders: no stray thread.
  EXPECT_EQ(imp.s().thread.tid[0], 0);
  EXPECT_EQ(imp.s().process.pid[0], 0);
  // The import's summary: 13 track events, their span; the trace's facts.
  EXPECT_EQ(imp.result().packets_parsed, 13u);
  EXPECT_EQ(imp.result().first_ts, static_cast<int64_t>(kBase + 100));
  EXPECT_EQ(imp.result().last_ts, static_cast<int64_t>(kBase + 1100));
  EXPECT_EQ(imp.result().tokenizer.damage, processor::TraceDamage::kNone);
  std::map<std::string, std::string> metadata;
  const auto& m = imp.s().metadata;
  for (size_t i = 0; i < m.size(); i++) {
    metadata[imp.Str(m.name[i])] = m.int_value[i] != processor::kNullInt
                                       ? std::to_string(m.int_value[i])
                                       : imp.Str(m.str_value[i]);
  }
  EXPECT_EQ(metadata["trace_size_bytes"], std::to_string(trace.size()));
  EXPECT_EQ(metadata["trace_type"], "proto");
  EXPECT_EQ(metadata["trace_uuid"].size(), 36u) << metadata["trace_uuid"];
}

// Events at "now": the sequence's incremental clock 64 (deltas in ns, or in
// units of 1000 ns) and absolute BOOTTIME times convert to the trace clock
// between the BOOTTIME readings around each event.
TEST_F(ProcessorSdkTraceTest, TimestampsOnEveryClockSetting) {
  struct Setting {
    const char* label;
    bool absolute;
    uint64_t unit;
  };
  for (const Setting& setting : {Setting{"ns deltas", false, 1},
                                 Setting{"1000 ns deltas", false, 1000},
                                 Setting{"absolute", true, 0}}) {
    SCOPED_TRACE(setting.label);
    protos::TrackEventConfig te;
    te.add_enabled_categories("*");
    if (setting.absolute)
      te.set_disable_incremental_timestamps(true);
    else if (setting.unit != 1)
      te.set_timestamp_unit_multiplier(setting.unit);
    RecordOptions options;
    options.track_event_config = te.SerializeAsString();
    constexpr int kEvents = 200;
    std::vector<uint64_t> before(kEvents), after(kEvents);
    const std::vector<char> trace =
        Record(options, [&](TracingSession*, std::vector<char>*) {
          for (int i = 0; i < kEvents; i++) {
            before[i] = BootTimeNs();
            TRACE_EVENT_INSTANT("test", "tick", "i", i);
            after[i] = BootTimeNs();
          }
        });
    Imported imp(trace);
    EXPECT_EQ(imp.Problems(), (std::map<std::string, int64_t>{}));
    const std::vector<uint32_t> ticks = imp.Slices("tick");
    ASSERT_EQ(ticks.size(), static_cast<size_t>(kEvents));
    // Exactly the times the packets say, as a reader works them out.
    const std::vector<int64_t> raw_times = RawEventTimes(trace);
    ASSERT_EQ(raw_times.size(), static_cast<size_t>(kEvents));
    // And close to the truth: a unit truncates (the reader's time is the
    // unit's floor plus the anchor's remainder, within one unit); the SDK's
    // counter-based clock (src/tracing/sdk/track_event_clock.h) estimates
    // BOOTTIME from a rate measured since the process's first event: early
    // in a process it was seen up to ~1 us ahead of a clock_gettime read
    // after the event.
    const int64_t slack = static_cast<int64_t>(setting.unit > 1 ? setting.unit : 0) + 20000;
    for (int i = 0; i < kEvents; i++) {
      const uint32_t id = ticks[static_cast<size_t>(i)];
      EXPECT_EQ(imp.Args(imp.s().slice.arg_set_id[id]),
                std::vector<std::string>{"debug.i debug.i int " + std::to_string(i)});
      EXPECT_EQ(imp.s().slice.ts[id], raw_times[static_cast<size_t>(i)]) << i;
      EXPECT_GE(imp.s().slice.ts[id] + slack, static_cast<int64_t>(before[i])) << i;
      EXPECT_LE(imp.s().slice.ts[id], static_cast<int64_t>(after[i]) + slack) << i;
      EXPECT_EQ(imp.s().slice.dur[id], 0);
    }
    imp.CheckConsistent();
  }
}

// Counters: int and double values on named counter tracks, exact values
// and times, one track per name with its unit, bound to the process.
TEST_F(ProcessorSdkTraceTest, CountersExactValuesAndTracks) {
  const std::vector<char> trace = RecordSimple([] {
    TRACE_COUNTER("test", CounterTrack("queue", "items"), 3, TraceTimestamp{kBase + 10});
    TRACE_COUNTER("test", CounterTrack("queue", "items"), -7, TraceTimestamp{kBase + 20});
    TRACE_COUNTER("test", CounterTrack("queue", "items"), int64_t{1} << 40,
                  TraceTimestamp{kBase + 30});
    TRACE_COUNTER("gfx", "ratio", 0.25, TraceTimestamp{kBase + 15});
    TRACE_COUNTER("gfx", "ratio", -1.5e-3, TraceTimestamp{kBase + 25});
    std::thread([] {
      TRACE_COUNTER("test", CounterTrack("queue", "items"), 99, TraceTimestamp{kBase + 40});
    }).join();
  });
  Imported imp(trace);
  EXPECT_EQ(imp.Problems(), (std::map<std::string, int64_t>{}));
  const uint32_t queue = imp.TrackNamed("queue");
  const uint32_t ratio = imp.TrackNamed("ratio");
  ASSERT_NE(queue, kNullId);
  ASSERT_NE(ratio, kNullId);
  const auto& track = imp.s().track;
  const uint32_t upid = imp.UpidOf(getpid());
  for (uint32_t t : {queue, ratio}) {
    EXPECT_EQ(track.kind[t], TrackKind::kCounter);
    EXPECT_EQ(track.upid[t], upid);
    EXPECT_EQ(track.utid[t], kNullId);
  }
  EXPECT_EQ(imp.Str(track.unit[queue]), "items");
  EXPECT_EQ(track.unit[ratio], kNullStringId);

  std::vector<std::string> rows;
  const auto& c = imp.s().counter;
  for (size_t i = 0; i < c.size(); i++) {
    char value[64];
    snprintf(value, sizeof(value), "%.17g", c.value[i]);
    rows.push_back(std::to_string(c.ts[i] - static_cast<int64_t>(kBase)) + " " +
                   imp.Str(track.name[c.track_id[i]]) + " " + value);
  }
  EXPECT_EQ(rows, (std::vector<std::string>{"10 queue 3", "15 ratio 0.25", "20 queue -7",
                                            "25 ratio -0.0015", "30 queue 1099511627776",
                                            "40 queue 99"}));
  EXPECT_EQ(imp.s().slice.size(), 0u);
}

// TRACE_STATE on a zt::StateTrack: each state a slice on the state track
// until the next change; nullptr ends it; the last one stays open.
TEST_F(ProcessorSdkTraceTest, StatesOnAStateTrack) {
  const std::vector<char> trace = RecordSimple([] {
    StateTrack link("link");
    TRACE_STATE("test", link, "idle", TraceTimestamp{kBase + 10});
    TRACE_STATE("test", link, "busy", TraceTimestamp{kBase + 25});
    TRACE_STATE("test", link, nullptr, TraceTimestamp{kBase + 40});
    TRACE_STATE("test", link, "idle", TraceTimestamp{kBase + 70});
  });
  Imported imp(trace);
  EXPECT_EQ(imp.Problems(), (std::map<std::string, int64_t>{}));
  EXPECT_EQ(imp.s().stats.Get(processor::stats::track_event_parser_errors), 0);
  const uint32_t link = imp.TrackNamed("link");
  ASSERT_NE(link, kNullId);
  std::vector<std::string> rows;
  const auto& slice = imp.s().slice;
  for (size_t i = 0; i < slice.size(); i++) {
    EXPECT_EQ(slice.track_id[i], link);
    rows.push_back(std::to_string(slice.ts[i] - static_cast<int64_t>(kBase)) + " " +
                   imp.Str(slice.name[i]) + " " + std::to_string(slice.dur[i]));
  }
  EXPECT_EQ(rows, (std::vector<std::string>{"10 idle 15", "25 busy 15", "70 idle -1"}));
}

// Custom tracks (a track, its child, the process's track), slices on them
// nested per track, and flows across threads and tracks: slice_out and
// slice_in exactly as the Flow / TerminatingFlow arguments say.
TEST_F(ProcessorSdkTraceTest, CustomTracksAndFlows) {
  int64_t worker_tid = 0;
  const int64_t main_tid = Tid();
  const std::vector<char> trace = RecordSimple([&] {
    const Track requests(42, "requests");
    const Track child(43, "request 43", requests);
    TRACE_EVENT_BEGIN("net", "request", requests, TraceTimestamp{kBase + 100},
                      Flow::ProcessScoped(1));
    TRACE_EVENT_BEGIN("net", "parse", requests, TraceTimestamp{kBase + 150});
    TRACE_EVENT_END("net", requests, TraceTimestamp{kBase + 250});
    TRACE_EVENT_BEGIN("net", "sub", child, TraceTimestamp{kBase + 200});
    TRACE_EVENT_END("net", child, TraceTimestamp{kBase + 300});
    TRACE_EVENT_END("net", requests, TraceTimestamp{kBase + 400});
    TRACE_EVENT_INSTANT("test", "process-wide", ProcessTrack(), TraceTimestamp{kBase + 500});
    worker_tid = OnNamedThread("zt-flow", [] {
      TRACE_EVENT_BEGIN("test", "handle", TraceTimestamp{kBase + 600},
                        Flow::ProcessScoped(1), Flow::Global(7));
      TRACE_EVENT_END("test", TraceTimestamp{kBase + 700});
    });
    TRACE_EVENT_INSTANT("test", "done", TraceTimestamp{kBase + 800},
                        TerminatingFlow::ProcessScoped(1));
    TRACE_EVENT_INSTANT("test", "global end", TraceTimestamp{kBase + 900},
                        TerminatingFlow::Global(7));
    // The same id after its flow ended starts a new flow.
    TRACE_EVENT_INSTANT("test", "again 1", TraceTimestamp{kBase + 1000},
                        Flow::ProcessScoped(1));
    TRACE_EVENT_INSTANT("test", "again 2", TraceTimestamp{kBase + 1100},
                        TerminatingFlow::ProcessScoped(1));
  });
  Imported imp(trace);
  EXPECT_EQ(imp.Problems(), (std::map<std::string, int64_t>{}));
  imp.CheckConsistent();
  const auto& track = imp.s().track;
  const auto& slice = imp.s().slice;
  const uint32_t upid = imp.UpidOf(getpid());

  const uint32_t requests = imp.TrackNamed("requests");
  const uint32_t child = imp.TrackNamed("request 43");
  ASSERT_NE(requests, kNullId);
  ASSERT_NE(child, kNullId);
  EXPECT_EQ(track.parent_id[child], requests);
  EXPECT_EQ(track.upid[requests], upid);
  EXPECT_EQ(track.upid[child], upid);
  EXPECT_EQ(track.utid[requests], kNullId);
  // The process's track: the parent of the custom track.
  const uint32_t process_track = track.parent_id[requests];
  ASSERT_NE(process_track, kNullId);
  EXPECT_EQ(track.kind[process_track], TrackKind::kProcess);
  EXPECT_EQ(track.upid[process_track], upid);

  const uint32_t request = imp.Slice("request");
  const uint32_t parse = imp.Slice("parse");
  const uint32_t sub = imp.Slice("sub");
  const uint32_t process_wide = imp.Slice("process-wide");
  const uint32_t handle = imp.Slice("handle");
  const uint32_t done = imp.Slice("done");
  const uint32_t global_end = imp.Slice("global end");
  const uint32_t again1 = imp.Slice("again 1");
  const uint32_t again2 = imp.Slice("again 2");
  ASSERT_NE(again2, kNullId);
  EXPECT_EQ(slice.track_id[request], requests);
  EXPECT_EQ(slice.track_id[parse], requests);
  EXPECT_EQ(slice.parent_id[parse], request);
  EXPECT_EQ(slice.dur[parse], 100);
  EXPECT_EQ(slice.dur[request], 300);
  // A child track is a timeline of its own: "sub" nests under nothing.
  EXPECT_EQ(slice.track_id[sub], child);
  EXPECT_EQ(slice.depth[sub], 0u);
  EXPECT_EQ(slice.dur[sub], 100);
  EXPECT_EQ(slice.track_id[process_wide], process_track);
  EXPECT_EQ(slice.track_id[handle], imp.ThreadTrackOf(worker_tid));
  EXPECT_EQ(slice.track_id[done], imp.ThreadTrackOf(main_tid));

  std::vector<std::pair<uint32_t, uint32_t>> flows;
  for (size_t i = 0; i < imp.s().flow.size(); i++)
    flows.emplace_back(imp.s().flow.slice_out[i], imp.s().flow.slice_in[i]);
  EXPECT_EQ(flows, (std::vector<std::pair<uint32_t, uint32_t>>{
                       {request, handle}, {handle, done}, {handle, global_end},
                       {again1, again2}}));
}

// Debug annotations of every type, from the fast path (one literal int)
// and the general one, with nested dictionaries and arrays: upstream's keys,
// flat keys and value types, exact values.
TEST_F(ProcessorSdkTraceTest, DebugAnnotationsOfEveryType) {
  enum Color { kRed = 3 };
  const std::vector<char> trace = RecordSimple([] {
    TRACE_EVENT_INSTANT("test", "fast", "n", -42);
    TRACE_EVENT_INSTANT("test", "fast", "n", 43);  // The cached bytes.
    TRACE_EVENT_INSTANT("test", "fast unsigned", "u", 7u);
    TRACE_EVENT_INSTANT(
        "test", "all", "int", -5, "uint", uint64_t{1} << 40, "bool", true, "false", false,
        "double", 1.5, "cstr", "text", "string", std::string("std"), "pointer",
        reinterpret_cast<void*>(0x1234), "enum", kRed, DynamicString("dynamic key"), 8,
        "dict",
        [](TracedValue value) {
          TracedDictionary dict = value.WriteDictionary();
          dict.Add("k", 1);
          TracedDictionary nested = dict.AddDictionary("nested");
          nested.Add("x", "y");
          TracedArray arr = dict.AddArray("arr");
          arr.Append(1);
          arr.Append(2.5);
          arr.Append("s");
          dict.Add("after", false);
        },
        "a",
        [](TracedValue value) {
          TracedArray arr = value.WriteArray();
          arr.Append(true);
          TracedDictionary d = arr.AppendDictionary();
          d.Add("a", 1u);
          TracedArray inner = arr.AppendArray();
          inner.Append(3);
        });
  });
  Imported imp(trace);
  EXPECT_EQ(imp.Problems(), (std::map<std::string, int64_t>{}));
  const std::vector<uint32_t> fast = imp.Slices("fast");
  ASSERT_EQ(fast.size(), 2u);
  EXPECT_EQ(imp.Args(imp.s().slice.arg_set_id[fast[0]]),
            std::vector<std::string>{"debug.n debug.n int -42"});
  EXPECT_EQ(imp.Args(imp.s().slice.arg_set_id[fast[1]]),
            std::vector<std::string>{"debug.n debug.n int 43"});
  EXPECT_EQ(imp.Args(imp.s().slice.arg_set_id[imp.Slice("fast unsigned")]),
            std::vector<std::string>{"debug.u debug.u uint 7"});
  const uint32_t all = imp.Slice("all");
  ASSERT_NE(all, kNullId);
  EXPECT_EQ(imp.Args(imp.s().slice.arg_set_id[all]),
            (std::vector<std::string>{
                "debug.int debug.int int -5",
                "debug.uint debug.uint uint 1099511627776",
                "debug.bool debug.bool bool 1",
                "debug.false debug.false bool 0",
                "debug.double debug.double real 1.5",
                "debug.cstr debug.cstr string text",
                "debug.string debug.string string std",
                "debug.pointer debug.pointer pointer 4660",
                "debug.enum debug.enum int 3",
                "debug.dynamic key debug.dynamic key int 8",
                "debug.dict.k debug.dict.k int 1",
                "debug.dict.nested.x debug.dict.nested.x string y",
                "debug.dict.arr[0] debug.dict.arr int 1",
                "debug.dict.arr[1] debug.dict.arr real 2.5",
                "debug.dict.arr[2] debug.dict.arr string s",
                "debug.dict.after debug.dict.after bool 0",
                "debug.a[0] debug.a bool 1",
                "debug.a[1].a debug.a.a uint 1",
                "debug.a[2][0] debug.a int 3",
            }));
  // Arg sets are distinct per slice.
  EXPECT_NE(imp.s().slice.arg_set_id[fast[0]], imp.s().slice.arg_set_id[fast[1]]);
}

void TracedFunction() { TRACE_FUNCTION("test"); }

// Every way of naming an event and its category, scoped slices ended at
// "now", a callback writing typed fields, and flows on slice ends.
TEST_F(ProcessorSdkTraceTest, NamesCategoriesAndScopedSlices) {
  static const char kStatic[] = "static name";
  const std::string dynamic = std::string("dyn") + "amic";
  const std::vector<char> trace = RecordSimple([&] {
    {
      TRACE_EVENT("test", "scoped outer");
      TRACE_EVENT("gfx", StaticString{kStatic});
      TRACE_EVENT_INSTANT("test", DynamicString(dynamic));
      TRACE_EVENT_INSTANT(DynamicCategory("runtime.cat"), "dynamic category");
      TracedFunction();
    }
    TRACE_EVENT_BEGIN("net", "flow out", TraceTimestamp{kBase + 10});
    TRACE_EVENT_END("net", TraceTimestamp{kBase + 20}, Flow::Global(5));  // On the end.
    TRACE_EVENT_INSTANT("net", "typed", TraceTimestamp{kBase + 30}, [](EventContext& ctx) {
      ctx.AddTerminatingFlow(TerminatingFlow::Global(5));
      ctx.AddDebugAnnotation("from", "callback");
    });
  });
  Imported imp(trace);
  EXPECT_EQ(imp.Problems(), (std::map<std::string, int64_t>{}));
  imp.CheckConsistent();
  const auto& slice = imp.s().slice;
  std::vector<std::string> rows;
  for (uint32_t i = 0; i < slice.size(); i++) {
    rows.push_back(imp.Str(slice.name[i]) + " " + imp.Str(slice.category[i]) + " " +
                   std::to_string(slice.depth[i]) + (slice.dur[i] >= 0 ? "" : " open"));
  }
  // The explicit times (1 s of BOOTTIME) come before "now".
  EXPECT_EQ(rows, (std::vector<std::string>{
                      "flow out net 0", "typed net 0", "scoped outer test 0",
                      "static name gfx 1", "dynamic test 2",
                      "dynamic category runtime.cat 2", "TracedFunction test 2"}));
  ASSERT_EQ(imp.s().flow.size(), 1u);
  EXPECT_EQ(imp.s().flow.slice_out[0], imp.Slice("flow out"));
  EXPECT_EQ(imp.s().flow.slice_in[0], imp.Slice("typed"));
  EXPECT_EQ(imp.Args(slice.arg_set_id[imp.Slice("typed")]),
            std::vector<std::string>{"debug.from debug.from string callback"});
}

// A trace the service writes into a file (periodically and at the end),
// imported from the file with ImportTraceFile: exact contents, nothing
// lost or damaged.
TEST_F(ProcessorSdkTraceTest, TraceWrittenIntoAFile) {
  char path[] = "/tmp/zt_processor_sdk_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0) << "mkstemp";
  protos::gen::TraceConfig config;
  auto* buffer = config.add_buffers();
  buffer->set_size_kb(4096);
  buffer->set_fill_policy(protos::gen::TraceConfig_BufferConfig_FillPolicy_RING_BUFFER);
  config.set_file_write_period_ms(20);
  auto* ds = config.add_data_sources()->mutable_config();
  ds->set_name("track_event");
  ds->set_track_event_config_raw(CategoriesConfig({"*"}));
  constexpr int kPhases = 5;
  constexpr int kPerPhase = 200;
  {
    std::unique_ptr<TracingSession> session = Tracing::NewTrace();
    ASSERT_TRUE(session);
    session->Setup(config, fd);
    close(fd);  // The session writes into its own duplicate.
    session->StartBlocking();
    for (int phase = 0; phase < kPhases; phase++) {
      for (int i = 0; i < kPerPhase; i++) {
        const int n = phase * kPerPhase + i;
        const uint64_t ts = kBase + static_cast<uint64_t>(n) * 10;
        TRACE_EVENT_BEGIN("test", "phase", TraceTimestamp{ts}, "n", n);
        TRACE_EVENT_END("test", TraceTimestamp{ts + 5});
      }
      // Each phase's events committed; the periodic writes take them out.
      ASSERT_TRUE(session->FlushBlocking(5000)) << "flush timed out";
    }
    session->StopBlocking();
  }
  std::string error;
  processor::ImportResult result;
  std::unique_ptr<TraceStorage> storage =
      processor::ImportTraceFile(path, processor::ImportOptions(), &result, &error);
  // Again with both passes on two threads, the file's pages dropped behind
  // them as for a large trace: the same model.
  processor::ImportOptions two_threads;
  two_threads.two_threads_min_bytes = 0;
  std::unique_ptr<TraceStorage> other =
      processor::ImportTraceFile(path, two_threads, nullptr, &error);
  unlink(path);
  ASSERT_TRUE(storage) << error;
  ASSERT_TRUE(other) << error;
  ExpectSameModel(*storage, *other);
  EXPECT_EQ(result.tokenizer.damage, processor::TraceDamage::kNone);
  const auto& slice = storage->slice;
  ASSERT_EQ(slice.size(), static_cast<size_t>(kPhases * kPerPhase));
  for (uint32_t id = 0; id < slice.size(); id++) {
    ASSERT_EQ(slice.ts[id], static_cast<int64_t>(kBase + id * 10)) << id;
    ASSERT_EQ(slice.dur[id], 5) << id;
    ASSERT_EQ(storage->strings.Get(slice.name[id]), "phase");
  }
  EXPECT_EQ(storage->stats.Get(pstats::interned_data_missing_iid), 0);
  EXPECT_TRUE(storage->data_losses.empty());
  // One debug annotation per slice (the other rows are tracks' dimensions).
  size_t slice_args = 0;
  for (size_t i = 0; i < storage->args.size(); i++)
    slice_args += storage->strings.Get(storage->args.key[i]).substr(0, 6) == "debug.";
  EXPECT_EQ(slice_args, static_cast<size_t>(kPhases * kPerPhase));
}

}  // namespace
}  // namespace sdk_trace_test
}  // namespace zt
