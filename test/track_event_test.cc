// Track events end to end through the in-process backend, decoded with
// libprotobuf and read the way upstream's trace processor reads them
// (docs/design/track_event.md, track_event_test_support.h). Golden checks
// on what each macro writes; threads and sessions changing under them are
// in track_event_threads_test.cc.

#include "test/track_event_test_support.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "zt/trace/track_event/track_event.pbzero.h"

ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(0));
ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(5));

namespace zt {
namespace track_event_test {
namespace {

std::vector<std::string> Describe(const std::vector<Event>& events) {
  std::vector<std::string> out;
  for (const Event& e : events) {
    static const char* const kTypes[] = {"?", "B", "E", "I", "C", "S"};
    out.push_back(std::string(kTypes[e.type]) + " " + e.category + " " + e.name);
  }
  return out;
}

TEST_F(TrackEventTest, DisabledWithoutSession) {
  EXPECT_FALSE(TRACE_EVENT_CATEGORY_ENABLED("test"));
  int evaluated = 0;
  TRACE_EVENT_INSTANT("test", "never", "arg", ++evaluated);
  EXPECT_EQ(evaluated, 0);  // Arguments are not evaluated when disabled.
}

TEST_F(TrackEventTest, SlicesInstantsAndNames) {
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [] {
    EXPECT_TRUE(TRACE_EVENT_CATEGORY_ENABLED("test"));
    TRACE_EVENT("test", "outer");
    {
      TRACE_EVENT("gfx", "inner");
      TRACE_EVENT_INSTANT("net", "ping");
    }
    TRACE_EVENT("test", "a"); TRACE_EVENT("test", "b");  // One line, two scopes.
    TRACE_EVENT_BEGIN("test", "manual");
    TRACE_EVENT_END("test");
    TRACE_EVENT_INSTANT("test", DynamicString(std::string("dyn") + "amic"));
    TRACE_EVENT_INSTANT(DynamicCategory("runtime.cat"), "dynamic category");
  });
  EXPECT_EQ(Describe(read.events),
            (std::vector<std::string>{"B test outer", "B gfx inner", "I net ping",
                                      "E  ", "B test a", "B test b", "B test manual", "E  ",
                                      "I test dynamic", "I runtime.cat dynamic category",
                                      "E  ", "E  ", "E  "}));
  // Literal names are interned; only the DynamicString is inline.
  for (const Event& e : read.events)
    EXPECT_EQ(e.name_inline, e.name == "dynamic") << e.name;
  // Timestamps never go back on a sequence.
  for (size_t i = 1; i < read.events.size(); i++)
    EXPECT_GE(read.events[i].ts, read.events[i - 1].ts) << i;
  // All on this thread's track, described with pid and tid, under the
  // process's track.
  const uint64_t thread_uuid = read.events[0].track_uuid;
  ASSERT_TRUE(read.tracks.count(thread_uuid));
  const auto& thread = read.tracks[thread_uuid];
  EXPECT_EQ(thread.thread().pid(), getpid());
  EXPECT_EQ(thread.thread().tid(), syscall(SYS_gettid));
  ASSERT_TRUE(read.tracks.count(thread.parent_uuid()));
  EXPECT_EQ(read.tracks[thread.parent_uuid()].process().pid(), getpid());
  EXPECT_FALSE(read.tracks[thread.parent_uuid()].process().process_name().empty());
}

// The second and later uses of a name on a sequence take the fast path
// (bytes cached from the first): they must read exactly like the first.
TEST_F(TrackEventTest, RepeatedEventsReadTheSame) {
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [] {
    for (int i = 0; i < 3; i++) {
      TRACE_EVENT("test", "slice");
      TRACE_EVENT_INSTANT("gfx", "instant");
      TRACE_EVENT_INSTANT("test", "slice");  // Same name, other type.
      TRACE_EVENT_INSTANT("net", "slice");   // Same name, other category.
      TRACE_EVENT_INSTANT("test", "slice", "n", i * 1000 - 1);  // Other form.
      TRACE_EVENT_INSTANT("test", "slice", "k", i * 1000u);     // Other key, unsigned.
      TRACE_EVENT_INSTANT("test", "slice", "s", "text");        // A string, inline.
      TRACE_EVENT_INSTANT("test", "slice", "s", "other text");  // Same key, other value.
      static const char kPadded[16] = "short";                  // Its string, not the array.
      TRACE_EVENT("test", "slice", "s", kPadded);
      TRACE_COUNTER("test", "slice", i * 100000);               // A counter.
      TRACE_COUNTER("test", "slice", i + 0.5);                  // A double one.
    }
  });
  std::vector<std::string> expected;
  for (int i = 0; i < 3; i++) {
    for (const char* e : {"B test slice", "I gfx instant", "I test slice", "I net slice",
                          "I test slice", "I test slice", "I test slice", "I test slice",
                          "B test slice", "C test ", "C test ", "E  ", "E  "})
      expected.push_back(e);
  }
  EXPECT_EQ(Describe(read.events), expected);
  ASSERT_EQ(read.events.size(), expected.size());
  for (int i = 0; i < 3; i++) {
    const Event* e = &read.events[static_cast<size_t>(i) * 13];
    EXPECT_EQ(e[4].args, (std::map<std::string, std::string>{
                             {"n", "int:" + std::to_string(i * 1000 - 1)}}));
    EXPECT_EQ(e[5].args, (std::map<std::string, std::string>{
                             {"k", "uint:" + std::to_string(i * 1000)}}));
    EXPECT_EQ(e[6].args, (std::map<std::string, std::string>{{"s", "string:text"}}));
    EXPECT_EQ(e[7].args, (std::map<std::string, std::string>{{"s", "string:other text"}}));
    EXPECT_EQ(e[8].args, (std::map<std::string, std::string>{{"s", "string:short"}}));
    EXPECT_EQ(e[9].counter, i * 100000);
    EXPECT_EQ(e[10].counter, i + 0.5);
    EXPECT_EQ(e[9].track_uuid, e[10].track_uuid);  // One track: the name's.
  }
  uint64_t last_ts = 0;
  for (const Event& e : read.events) {
    EXPECT_GE(e.ts, last_ts);
    last_ts = e.ts;
  }
}

// DynamicString names are written inline, on a fast path up to 64 bytes
// and the general one past it: every length reads back, as instants and
// as slices.
TEST_F(TrackEventTest, DynamicNamesOfEveryLengthReadBack) {
  std::vector<std::string> names;
  for (size_t size : {0, 1, 7, 8, 15, 16, 17, 63, 64, 65, 127, 300})
    names.push_back(std::string(size, static_cast<char>('a' + size % 26)));
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [&] {
    for (int round = 0; round < 2; round++) {
      for (const std::string& name : names) {
        TRACE_EVENT_INSTANT("test", DynamicString(name));
        TRACE_EVENT("gfx", DynamicString(name));
      }
    }
  });
  ASSERT_EQ(read.events.size(), names.size() * 2 * 3);
  size_t e = 0;
  for (int round = 0; round < 2; round++) {
    for (const std::string& name : names) {
      EXPECT_EQ(read.events[e].name, name) << name.size();
      EXPECT_TRUE(read.events[e].name_inline);
      EXPECT_EQ(read.events[e].category, "test");
      EXPECT_EQ(read.events[e + 1].name, name) << name.size();
      EXPECT_EQ(read.events[e + 1].category, "gfx");
      EXPECT_EQ(read.events[e + 2].type, 2);
      e += 3;
    }
  }
}

// Dynamic names over many chunks: at each chunk's end the event the fast
// path refuses opens the next chunk through the simple path (which writes
// the same bytes), the category's first use among them. Every name reads
// back, in order, inline, with times that never go back.
TEST_F(TrackEventTest, DynamicNamesAcrossManyChunksReadBack) {
  constexpr size_t kEvents = 20000;
  std::vector<std::string> names;
  for (size_t i = 0; i < kEvents; i++) {
    std::string name = "d" + std::to_string(i) + ":";
    name.resize(i % 65 < name.size() ? name.size() : i % 65, 'x');
    names.push_back(name);
  }
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [&] {
    for (const std::string& name : names)
      TRACE_EVENT_INSTANT("test", DynamicString(name));
  });
  ASSERT_EQ(read.events.size(), kEvents);
  for (size_t i = 0; i < kEvents; i++) {
    const Event& e = read.events[i];
    ASSERT_EQ(e.name, names[i]) << i;
    ASSERT_TRUE(e.name_inline) << i;
    ASSERT_EQ(e.category, "test") << i;
    if (i > 0) {
      ASSERT_GE(e.ts, read.events[i - 1].ts) << i;
    }
  }
}

// A null StaticString names nothing: the events are written without a
// name, on every path (the fast path's miss once found a free intern slot
// for it and wrote a name_iid field without its value).
TEST_F(TrackEventTest, NullStaticStringNamesNothing) {
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [] {
    TRACE_EVENT_INSTANT("test", "first");  // The category interned.
    for (int i = 0; i < 3; i++) {
      TRACE_EVENT_INSTANT("test", StaticString{nullptr});
      TRACE_EVENT("test", StaticString{nullptr});
    }
  });
  ASSERT_EQ(read.events.size(), 1u + 3 * 3);
  for (size_t i = 1; i < read.events.size(); i++) {
    EXPECT_EQ(read.events[i].name, "") << i;
    EXPECT_EQ(read.events[i].category, i % 3 == 0 ? "" : "test") << i;
  }
}

TEST_F(TrackEventTest, ConfigSelectsCategories) {
  ReadTrace read = Record(SerializeTrackEventConfig({"gfx*"}, {"*"}), [] {
    TRACE_EVENT_INSTANT("test", "no");
    TRACE_EVENT_INSTANT("gfx", "yes");
    // A "debug" tag beats a pattern (upstream's rule): exact names only.
    TRACE_EVENT_INSTANT("gfx.debug", "no");
    TRACE_EVENT_INSTANT("net", "no");
    TRACE_EVENT_INSTANT(DynamicCategory("gfx.runtime"), "yes");
    TRACE_EVENT_INSTANT(DynamicCategory("other"), "no");
  });
  EXPECT_EQ(Describe(read.events),
            (std::vector<std::string>{"I gfx yes", "I gfx.runtime yes"}));
  read = Record(SerializeTrackEventConfig({"gfx.debug"}, {"*"}), [] {
    TRACE_EVENT_INSTANT("gfx.debug", "yes");
    TRACE_EVENT_INSTANT("gfx", "no");
  });
  EXPECT_EQ(Describe(read.events), (std::vector<std::string>{"I gfx.debug yes"}));
  // Default config: everything but "slow" and "debug" tags.
  read = Record("", [] {
    TRACE_EVENT_INSTANT("gfx", "yes");
    TRACE_EVENT_INSTANT("gfx.debug", "no");
    TRACE_EVENT_INSTANT("slow.thing", "no");
  });
  EXPECT_EQ(Describe(read.events), (std::vector<std::string>{"I gfx yes"}));
  EXPECT_FALSE(TRACE_EVENT_CATEGORY_ENABLED("gfx"));  // Off after the stop.
}

TEST_F(TrackEventTest, DebugAnnotations) {
  enum Color { kRed = 3 };
  int value = 7;
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [&] {
    TRACE_EVENT_INSTANT("test", "args", "int", -5, "uint", 5u, "bool", true,
                        "double", 1.5, "cstr", "text", "string", std::string("std"),
                        "pointer", reinterpret_cast<void*>(0x1234), "enum", kRed,
                        DynamicString("dynamic key"), value);
  });
  ASSERT_EQ(read.events.size(), 1u);
  EXPECT_EQ(read.events[0].args,
            (std::map<std::string, std::string>{{"int", "int:-5"},
                                                {"uint", "uint:5"},
                                                {"bool", "bool:1"},
                                                {"double", "double:1.500000"},
                                                {"cstr", "string:text"},
                                                {"string", "string:std"},
                                                {"pointer", "pointer:4660"},
                                                {"enum", "int:3"},
                                                {"dynamic key", "int:7"}}));
}

TEST_F(TrackEventTest, NestedDictionariesAndArrays) {
  const std::vector<int> sizes = {1, 22, 333};
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [&] {
    TRACE_EVENT_INSTANT("test", "nested", "request", [&](TracedValue value) {
      TracedDictionary dict = value.WriteDictionary();
      dict.Add("url", "https://example.org");
      dict.Add("retries", 2u);
      dict.Add(DynamicString(std::string("dynamic")), false);
      TracedArray array = dict.AddItem("sizes").WriteArray();
      for (int size : sizes)
        array.Append(size);
      array.Append([](TracedValue inner) {
        TracedDictionary d = inner.WriteDictionary();
        d.Add("deep", 1.5);
      });
      array.AppendItem().WriteArray();  // Empty.
      dict.Add("after", "the array");
    }, "scalar", [](TracedValue value) {
      value.WriteInt64(-3);
      value.WriteString("ignored: one value per TracedValue");
    });
  });
  ASSERT_TRUE(read.problems.empty()) << read.problems[0];
  ASSERT_EQ(read.events.size(), 1u);
  EXPECT_EQ(read.events[0].args,
            (std::map<std::string, std::string>{
                {"request",
                 "{url=string:https://example.org,retries=uint:2,dynamic=bool:0,"
                 "sizes=[int:1,int:22,int:333,{deep=double:1.500000},none],"
                 "after=string:the array}"},
                {"scalar", "int:-3"}}));
}

// A scoped slice open while its session stops and another takes the same
// instance slot: the new session gets no end without a begin.
TEST_F(TrackEventTest, ScopedSliceEndStaysInItsSession) {
  auto start = [] {
    protos::gen::TraceConfig config;
    config.add_buffers()->set_size_kb(1024);
    auto* ds = config.add_data_sources()->mutable_config();
    ds->set_name("track_event");
    ds->set_track_event_config_raw(SerializeTrackEventConfig({"*"}));
    auto session = Tracing::NewTrace();
    session->Setup(config);
    session->StartBlocking();
    return session;
  };
  auto first = start();
  std::unique_ptr<TracingSession> second;
  {
    TRACE_EVENT("test", "outer");
    first->StopBlocking();
    second = start();
    TRACE_EVENT_INSTANT("test", "inner");
    TRACE_EVENT("test", "in the second");
  }
  second->StopBlocking();
  ReadTrace one = Read(first->ReadTraceBlocking());
  ReadTrace two = Read(second->ReadTraceBlocking());
  EXPECT_EQ(one.problems, std::vector<std::string>());
  EXPECT_EQ(two.problems, std::vector<std::string>());
  EXPECT_EQ(Describe(one.events), (std::vector<std::string>{"B test outer"}));
  EXPECT_EQ(Describe(two.events), (std::vector<std::string>{
                                      "I test inner", "B test in the second", "E  "}));
}

// TrackEventConfig's timestamp settings: absolute BOOTTIME times, and
// deltas in units of 1000 ns; either way the times read back are BOOTTIME,
// in order, within the recording.
TEST_F(TrackEventTest, TimestampSettings) {
  for (const bool absolute : {true, false}) {
    protos::TrackEventConfig config;
    config.add_enabled_categories("*");
    if (absolute)
      config.set_disable_incremental_timestamps(true);
    else
      config.set_timestamp_unit_multiplier(1000);
    timespec before_ts, after_ts;
    uint64_t before = 0;
    ReadTrace read = Record(config.SerializeAsString(), [&] {
      clock_gettime(CLOCK_BOOTTIME, &before_ts);
      before = static_cast<uint64_t>(before_ts.tv_sec) * 1000000000u +
               static_cast<uint64_t>(before_ts.tv_nsec);
      for (int i = 0; i < 100; i++)
        TRACE_EVENT("test", "tick");
    });
    clock_gettime(CLOCK_BOOTTIME, &after_ts);
    const uint64_t after = static_cast<uint64_t>(after_ts.tv_sec) * 1000000000u +
                           static_cast<uint64_t>(after_ts.tv_nsec);
    ASSERT_EQ(read.events.size(), 200u) << absolute;
    const uint64_t slack = absolute ? 0 : 1000;  // Truncation to the unit.
    uint64_t last = 0;
    for (const Event& e : read.events) {
      EXPECT_GE(e.ts + slack, before) << absolute;
      EXPECT_LE(e.ts, after) << absolute;
      EXPECT_GE(e.ts, last) << absolute;
      last = e.ts;
      EXPECT_EQ(e.clock, absolute ? 0u : 64u);
      if (!absolute) {
        EXPECT_EQ(e.clock_unit_ns, 1000u);
      }
    }
  }
}

// A counter is its name: two call sites (two addresses of the name) and
// two threads write to one track, described once per sequence.
TEST_F(TrackEventTest, CountersAreTheirNames) {
  static const char kOtherCopy[] = "depth";
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [] {
    TRACE_COUNTER("test", "depth", 1);
    TRACE_COUNTER("test", CounterTrack(kOtherCopy), 2);
    TRACE_COUNTER("test", "depth", 3);
    std::thread([] { TRACE_COUNTER("test", "depth", 4); }).join();
    TRACE_COUNTER("test", "width", 5);
  });
  ASSERT_EQ(read.events.size(), 5u);  // In file order: threads may interleave.
  std::map<double, uint64_t> track_of_value;
  for (const Event& e : read.events)
    track_of_value[e.counter] = e.track_uuid;
  ASSERT_EQ(track_of_value.size(), 5u);
  const uint64_t depth = track_of_value[1];
  for (double value : {2.0, 3.0, 4.0})
    EXPECT_EQ(track_of_value[value], depth) << value;
  EXPECT_NE(track_of_value[5], depth);
  EXPECT_EQ(read.tracks[depth].name(), "depth");
  EXPECT_EQ(read.tracks[track_of_value[5]].name(), "width");
}

TEST_F(TrackEventTest, StateTracks) {
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [] {
    TRACE_STATE("test", "connection", "connecting");
    TRACE_STATE("test", StateTrack("connection"), "open", "peer", 7);
    TRACE_STATE("test", "connection", DynamicString(std::string("closing")));
    TRACE_STATE("test", "connection", nullptr);
    TRACE_STATE("test", StateTrack("connection", 2), "open");
  });
  ASSERT_TRUE(read.problems.empty()) << read.problems[0];
  ASSERT_EQ(read.events.size(), 5u);
  const uint64_t uuid = read.events[0].track_uuid;
  ASSERT_TRUE(read.tracks.count(uuid));
  EXPECT_TRUE(read.tracks[uuid].has_state());
  EXPECT_FALSE(read.tracks[uuid].has_counter());
  EXPECT_EQ(read.tracks[uuid].name(), "connection");
  const std::vector<std::string> states = {"connecting", "open", "closing", "", "open"};
  for (size_t i = 0; i < states.size(); i++) {
    EXPECT_EQ(read.events[i].type, protos::TrackEvent::TYPE_STATE) << i;
    EXPECT_EQ(read.events[i].name, states[i]) << i;
    EXPECT_EQ(read.events[i].category, "test") << i;
  }
  for (size_t i = 1; i < 4; i++)
    EXPECT_EQ(read.events[i].track_uuid, uuid) << i;
  EXPECT_EQ(read.events[1].args["peer"], "int:7");
  // Another id: another track of the same name.
  EXPECT_NE(read.events[4].track_uuid, uuid);
  EXPECT_TRUE(read.tracks[read.events[4].track_uuid].has_state());
}

TEST_F(TrackEventTest, CountersTracksFlowsAndTimestamps) {
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [] {
    TRACE_COUNTER("test", CounterTrack("queue", "items"), 3);
    TRACE_COUNTER("test", "ratio", 0.25);
    TRACE_EVENT_BEGIN("net", "request", Track(42, "requests"));
    TRACE_EVENT_END("net", Track(42, "requests"));
    TRACE_EVENT_INSTANT("test", "process-wide", ProcessTrack());
    TRACE_EVENT_INSTANT("test", "at 1000", TraceTimestamp{1000});
    TRACE_EVENT_INSTANT("test", "out", Flow::ProcessScoped(9));
    TRACE_EVENT_INSTANT("test", "in", TerminatingFlow::ProcessScoped(9));
    TRACE_EVENT_INSTANT("test", "typed", [](EventContext& ctx) {
      ctx.event()->add_flow_ids(77);  // A typed field, through the writer.
      ctx.AddDebugAnnotation("from", "callback");
    });
  });
  ASSERT_EQ(read.events.size(), 9u);
  const Event& queue = read.events[0];
  EXPECT_TRUE(queue.has_counter);
  EXPECT_EQ(queue.counter, 3);
  ASSERT_TRUE(read.tracks.count(queue.track_uuid));
  EXPECT_TRUE(read.tracks[queue.track_uuid].has_counter());
  EXPECT_EQ(read.tracks[queue.track_uuid].name(), "queue");
  EXPECT_EQ(read.tracks[queue.track_uuid].counter().unit_name(), "items");
  EXPECT_EQ(read.events[1].counter, 0.25);
  EXPECT_EQ(read.tracks[read.events[1].track_uuid].name(), "ratio");

  const Event& begin = read.events[2];
  const Event& end = read.events[3];
  EXPECT_EQ(begin.track_uuid, end.track_uuid);
  EXPECT_EQ(read.tracks[begin.track_uuid].name(), "requests");
  EXPECT_EQ(read.tracks[read.events[4].track_uuid].process().pid(), getpid());
  EXPECT_EQ(read.events[5].ts, 1000u);
  ASSERT_EQ(read.events[6].flows.size(), 1u);
  EXPECT_EQ(read.events[7].terminating_flows, read.events[6].flows);
  EXPECT_EQ(read.events[8].name, "typed");
  EXPECT_EQ(read.events[8].flows, std::vector<uint64_t>{77});
  EXPECT_EQ(read.events[8].args["from"], "string:callback");
}

void TracedFunction() { TRACE_FUNCTION("test"); }
template <typename T>
void TracedTemplate() {
  TRACE_FUNCTION_SIGNATURE("test");
}

TEST_F(TrackEventTest, FunctionNames) {
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [] {
    TracedFunction();
    TracedTemplate<int>();
  });
  ASSERT_EQ(read.events.size(), 4u);
  EXPECT_EQ(read.events[0].name, "TracedFunction");
  EXPECT_NE(read.events[2].name.find("TracedTemplate"), std::string::npos);
  EXPECT_NE(read.events[2].name.find("int"), std::string::npos);  // The signature.
}

TEST_F(TrackEventTest, ScopedSliceOnATrackEndsThere) {
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [] {
    TRACE_EVENT("test", "async", Track(7));
  });
  ASSERT_EQ(read.events.size(), 2u);
  EXPECT_NE(read.events[0].track_uuid, 0u);
  EXPECT_EQ(read.events[1].type, 2);
  EXPECT_EQ(read.events[1].track_uuid, read.events[0].track_uuid);
}

TEST_F(TrackEventTest, IncrementalStateIsWrittenAgainAfterAClear) {
  ReadTrace read = Record(
      SerializeTrackEventConfig({"*"}),
      [] {
        // Keep emitting until the service has asked for a few clears
        // (every 5 ms); bounded by a deadline.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        for (int i = 0; std::chrono::steady_clock::now() < deadline; i++) {
          TRACE_EVENT("test", "tick");
          if (i % 1000 == 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            if (i >= 20000)
              break;
          }
        }
      },
      /*clear_period_ms=*/5);
  EXPECT_GT(read.cleared_packets, 1u);
  for (const Event& e : read.events) {
    if (e.type == 1) {
      ASSERT_EQ(e.name, "tick");
    }
  }
}

// A thread writes one packet at a time: events emitted while another
// event's packet is open (from its callback or an annotation's) are not
// recorded. They are counted and marked where they happened, and what
// follows still reads (Record() checks that every name resolves).
TEST_F(TrackEventTest, EventsInsideAnEventsCallbackAreMarkedLost) {
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [] {
    TRACE_EVENT_INSTANT("test", "before");
    TRACE_EVENT("test", "outer", "x", 1, [](EventContext& ctx) {
      TRACE_EVENT("test", "inner");                    // Simple path.
      TRACE_EVENT_INSTANT("test", "inner2", "k", 2.5);  // General path.
      TRACE_COUNTER("test", "inner counter", 3);
      ctx.AddDebugAnnotation("y", [](TracedValue value) {
        TRACE_EVENT_INSTANT("gfx", "in a value");
        std::move(value).WriteInt64(7);
      });
    });
    TRACE_EVENT_INSTANT("test", "after");
    TRACE_EVENT_INSTANT("test", "before");  // Interned again after the reset.
    TRACE_EVENT("net", "after2");
  });
  EXPECT_EQ(Describe(read.events),
            (std::vector<std::string>{"I test before", "B test outer", "I test after",
                                      "I test before", "B net after2", "E  ", "E  "}));
  EXPECT_EQ(read.loss_marks, 1u);
  ASSERT_GE(read.events.size(), 2u);
  EXPECT_EQ(read.events[1].args.at("y"), "int:7");
}

TEST_F(TrackEventTest, ThreadsGetTheirOwnNamedTracks) {
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [] {
    std::thread worker([] {
      pthread_setname_np(pthread_self(), "zt-worker");
      TRACE_EVENT("test", "on worker");
    });
    worker.join();
    TRACE_EVENT("test", "on main");
  });
  ASSERT_EQ(read.events.size(), 4u);
  EXPECT_NE(read.events[0].sequence, read.events[2].sequence);
  EXPECT_EQ(read.tracks[read.events[0].track_uuid].thread().thread_name(), "zt-worker");
}

}  // namespace
}  // namespace track_event_test
}  // namespace zt
