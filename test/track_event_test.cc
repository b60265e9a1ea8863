// Track events end to end through the in-process backend, decoded with
// libprotobuf and read the way upstream's trace processor reads them
// (docs/design/track_event.md): per-sequence validity, interned names,
// the incremental clock, track descriptors. Golden checks on what each
// macro writes.

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "zt/config/data_source_config.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/config/track_event/track_event_config.pb.h"
#include "zt/trace/trace.pb.h"
#include "zt/trace/track_event/track_event.pbzero.h"
#include "zt/tracing/tracing.h"
#include "zt/tracing/track_event.h"

ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(0),
                      zt::Category{"test"},
                      zt::Category{"gfx"}.SetDescription("Graphics"),
                      zt::Category{"gfx.debug"}.SetTags("debug"),
                      zt::Category{"slow.thing"}.SetTags("slow"));
ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(0));

ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(5), zt::Category{"net"});
ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(5));

namespace zt {
namespace {

// One event as a reader sees it.
struct Event {
  uint32_t sequence = 0;
  uint64_t ts = 0;
  uint32_t clock = 0;         // The timestamp's clock id (0: the trace clock).
  uint64_t clock_unit_ns = 1;  // Of clock 64, when on it.
  int type = 0;
  std::string category;
  std::string name;
  bool name_inline = false;  // Written as a string, not interned.
  uint64_t track_uuid = 0;
  std::map<std::string, std::string> args;  // Values printed as text.
  std::vector<uint64_t> flows;
  std::vector<uint64_t> terminating_flows;
  bool has_counter = false;
  double counter = 0;
};

struct ReadTrace {
  std::vector<Event> events;
  std::map<uint64_t, protos::TrackDescriptor> tracks;  // By uuid.
  std::vector<std::string> problems;  // What a reader would warn about.
  size_t cleared_packets = 0;
  size_t loss_marks = 0;  // Packets with previous_packet_dropped.
};

// Reads the producer sequences like upstream's processor: a sequence is
// usable from its first SEQ_INCREMENTAL_STATE_CLEARED packet; interned
// data and defaults belong to the sequence; clock 64 accumulates deltas.

// "int:5", "string:x", ...; dictionaries as {key=value,...} and arrays as
// [value,...], nested.
std::string RenderAnnotationValue(const protos::DebugAnnotation& a) {
  if (a.has_int_value()) return "int:" + std::to_string(a.int_value());
  if (a.has_uint_value()) return "uint:" + std::to_string(a.uint_value());
  if (a.has_bool_value()) return std::string("bool:") + (a.bool_value() ? "1" : "0");
  if (a.has_double_value()) return "double:" + std::to_string(a.double_value());
  if (a.has_string_value()) return "string:" + a.string_value();
  if (a.has_pointer_value()) return "pointer:" + std::to_string(a.pointer_value());
  std::string out;
  if (a.dict_entries_size() > 0) {
    for (const auto& entry : a.dict_entries())
      out += (out.empty() ? "{" : ",") + entry.name() + "=" + RenderAnnotationValue(entry);
    return out + "}";
  }
  if (a.array_values_size() > 0) {
    for (const auto& element : a.array_values())
      out += (out.empty() ? "[" : ",") + RenderAnnotationValue(element);
    return out + "]";
  }
  return "none";
}

ReadTrace Read(const std::vector<char>& bytes) {
  protos::Trace trace;
  EXPECT_TRUE(trace.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  struct SequenceState {
    bool valid = false;
    uint64_t clock64 = 0;  // In the clock's units.
    bool has_clock64 = false;
    uint64_t clock64_unit_ns = 1;
    uint64_t snapshot_clock64 = 0;  // The last snapshot: clock 64 and BOOTTIME.
    uint64_t snapshot_boottime = 0;
    uint32_t default_clock = 0;
    uint64_t default_track = 0;
    std::map<uint64_t, std::string> categories, names, annotation_names;
  };
  std::map<uint32_t, SequenceState> sequences;
  ReadTrace out;
  for (const protos::TracePacket& packet : trace.packet()) {
    const uint32_t seq_id = packet.trusted_packet_sequence_id();
    if (seq_id == 1)
      continue;  // The service's own packets.
    SequenceState& seq = sequences[seq_id];
    if (packet.previous_packet_dropped())
      out.loss_marks++;
    if (packet.sequence_flags() & 1) {
      seq = SequenceState();
      seq.valid = true;
      out.cleared_packets++;
    } else if (packet.previous_packet_dropped()) {
      seq.valid = false;
    }
    if ((packet.sequence_flags() & 2) && !seq.valid) {
      out.problems.push_back("packet needing state on invalid sequence " +
                             std::to_string(seq_id));
      continue;
    }
    if (packet.has_trace_packet_defaults()) {
      seq.default_clock = packet.trace_packet_defaults().timestamp_clock_id();
      seq.default_track = packet.trace_packet_defaults().track_event_defaults().track_uuid();
    }
    for (const auto& e : packet.interned_data().event_categories())
      seq.categories[e.iid()] = e.name();
    for (const auto& e : packet.interned_data().event_names())
      seq.names[e.iid()] = e.name();
    for (const auto& e : packet.interned_data().debug_annotation_names())
      seq.annotation_names[e.iid()] = e.name();
    if (packet.has_clock_snapshot()) {
      bool has_boottime = false;
      for (const auto& clock : packet.clock_snapshot().clocks()) {
        has_boottime |= clock.clock_id() == 6;
        if (clock.clock_id() == 6)
          seq.snapshot_boottime = clock.timestamp();
        if (clock.clock_id() == 64) {
          seq.clock64_unit_ns = clock.has_unit_multiplier_ns() ? clock.unit_multiplier_ns() : 1;
          seq.snapshot_clock64 = clock.timestamp();
          if (!clock.is_incremental())
            out.problems.push_back("clock 64 not incremental");
          if (seq.has_clock64 && clock.timestamp() < seq.clock64)
            out.problems.push_back("clock 64 snapshot went back");
          seq.clock64 = clock.timestamp();
          seq.has_clock64 = true;
        }
      }
      if (!has_boottime)
        out.problems.push_back("clock snapshot without BOOTTIME");
      continue;  // Readers use nothing else of a snapshot packet.
    }
    if (packet.has_track_descriptor()) {
      const auto& desc = packet.track_descriptor();
      auto it = out.tracks.find(desc.uuid());
      if (it != out.tracks.end() &&
          (it->second.parent_uuid() != desc.parent_uuid() ||
           it->second.has_counter() != desc.has_counter())) {
        out.problems.push_back("conflicting descriptors for a uuid");
      }
      out.tracks[desc.uuid()] = desc;
    }
    if (!packet.has_track_event())
      continue;
    const protos::TrackEvent& te = packet.track_event();
    Event event;
    event.sequence = seq_id;
    const uint32_t clock = packet.has_timestamp_clock_id() ? packet.timestamp_clock_id()
                                                            : seq.default_clock;
    if (clock == 64) {
      if (!seq.has_clock64)
        out.problems.push_back("clock 64 used before its snapshot");
      // Converted as readers do: by offset from the latest snapshot, in ns.
      seq.clock64 += packet.timestamp();
      event.ts = seq.snapshot_boottime +
                 (seq.clock64 - seq.snapshot_clock64) * seq.clock64_unit_ns;
    } else if (clock == 6 || clock == 0) {  // 0: the trace clock, BOOTTIME.
      event.ts = packet.timestamp();
    } else {
      out.problems.push_back("unexpected clock " + std::to_string(clock));
    }
    event.clock = clock;
    event.clock_unit_ns = seq.clock64_unit_ns;
    event.type = te.type();
    for (uint64_t iid : te.category_iids()) {
      auto it = seq.categories.find(iid);
      if (it == seq.categories.end())
        out.problems.push_back("unknown category iid " + std::to_string(iid));
      else
        event.category = it->second;
    }
    for (const std::string& c : te.categories())
      event.category = c;
    if (te.has_name_iid()) {
      auto it = seq.names.find(te.name_iid());
      if (te.name_iid() == 0 || it == seq.names.end())
        out.problems.push_back("unknown name iid " + std::to_string(te.name_iid()));
      else
        event.name = it->second;
    } else if (te.has_name()) {
      event.name = te.name();
      event.name_inline = true;
    }
    event.track_uuid = te.has_track_uuid() ? te.track_uuid() : seq.default_track;
    if (event.track_uuid != 0 && !out.tracks.count(event.track_uuid))
      out.problems.push_back("event on an undescribed track");
    for (const auto& a : te.debug_annotations()) {
      std::string key = a.has_name_iid() ? seq.annotation_names[a.name_iid()] : a.name();
      event.args[key] = RenderAnnotationValue(a);
    }
    event.flows.assign(te.flow_ids().begin(), te.flow_ids().end());
    event.terminating_flows.assign(te.terminating_flow_ids().begin(),
                                   te.terminating_flow_ids().end());
    if (te.has_counter_value()) {
      event.has_counter = true;
      event.counter = static_cast<double>(te.counter_value());
    } else if (te.has_double_counter_value()) {
      event.has_counter = true;
      event.counter = te.double_counter_value();
    }
    out.events.push_back(event);
  }
  return out;
}

std::string SerializeTrackEventConfig(const std::vector<std::string>& enabled,
                                      const std::vector<std::string>& disabled = {}) {
  protos::TrackEventConfig config;
  for (const auto& c : enabled)
    config.add_enabled_categories(c);
  for (const auto& c : disabled)
    config.add_disabled_categories(c);
  return config.SerializeAsString();
}

class TrackEventTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    TracingInitArgs args;
    ASSERT_TRUE(Tracing::Initialize(args));
  }

  // Records what |body| emits with |track_event_config| and reads it.
  template <typename Body>
  ReadTrace Record(const std::string& track_event_config, Body body,
                   uint32_t clear_period_ms = 0) {
    protos::gen::TraceConfig config;
    // DISCARD keeps each writer's first chunk, where its incremental state
    // starts. A ring buffer that wraps under threads writing flat out
    // overwrites it, and every later packet of that sequence is unreadable
    // (marked lost, as upstream); that is ring-buffer behaviour, not the
    // subject of these tests.
    auto* buffer = config.add_buffers();
    buffer->set_size_kb(4096);
    buffer->set_fill_policy(protos::gen::TraceConfig_BufferConfig_FillPolicy_DISCARD);
    auto* ds = config.add_data_sources()->mutable_config();
    ds->set_name("track_event");
    ds->set_track_event_config_raw(track_event_config);
    if (clear_period_ms)
      config.mutable_incremental_state_config()->set_clear_period_ms(clear_period_ms);
    auto session = Tracing::NewTrace();
    session->Setup(config);
    session->StartBlocking();
    body();
    session->StopBlocking();
    ReadTrace read = Read(session->ReadTraceBlocking());
    EXPECT_EQ(read.problems, std::vector<std::string>());
    return read;
  }
};

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
      TRACE_COUNTER("test", "slice", i * 100000);               // A counter.
      TRACE_COUNTER("test", "slice", i + 0.5);                  // A double one.
    }
  });
  std::vector<std::string> expected;
  for (int i = 0; i < 3; i++) {
    for (const char* e : {"B test slice", "I gfx instant", "I test slice", "I net slice",
                          "I test slice", "I test slice", "C test ", "C test ", "E  "})
      expected.push_back(e);
  }
  EXPECT_EQ(Describe(read.events), expected);
  ASSERT_EQ(read.events.size(), expected.size());
  for (int i = 0; i < 3; i++) {
    const Event* e = &read.events[static_cast<size_t>(i) * 9];
    EXPECT_EQ(e[4].args, (std::map<std::string, std::string>{
                             {"n", "int:" + std::to_string(i * 1000 - 1)}}));
    EXPECT_EQ(e[5].args, (std::map<std::string, std::string>{
                             {"k", "uint:" + std::to_string(i * 1000)}}));
    EXPECT_EQ(e[6].counter, i * 100000);
    EXPECT_EQ(e[7].counter, i + 0.5);
    EXPECT_EQ(e[6].track_uuid, e[7].track_uuid);  // One track: the name's.
  }
  uint64_t last_ts = 0;
  for (const Event& e : read.events) {
    EXPECT_GE(e.ts, last_ts);
    last_ts = e.ts;
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

TEST_F(TrackEventTest, EightThreadsEveryEventExactlyOnce) {
  constexpr int kThreads = 8;
  constexpr int kEvents = 5000;
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [] {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++) {
      threads.emplace_back([t] {
        for (int i = 0; i < kEvents; i++) {
          TRACE_EVENT("test", "work", "id", t * kEvents + i);
          TRACE_COUNTER("test", "progress", i);
        }
      });
    }
    for (auto& thread : threads)
      thread.join();
  });
  std::vector<int> seen(kThreads * kEvents, 0);
  size_t ends = 0;
  for (const Event& e : read.events) {
    if (e.type == 2)
      ends++;
    auto it = e.args.find("id");
    if (it == e.args.end())
      continue;
    const int id = std::stoi(it->second.substr(4));  // "int:N"
    ASSERT_GE(id, 0);
    ASSERT_LT(id, kThreads * kEvents);
    seen[static_cast<size_t>(id)]++;
  }
  for (int id = 0; id < kThreads * kEvents; id++)
    ASSERT_EQ(seen[static_cast<size_t>(id)], 1) << "event " << id;
  EXPECT_EQ(ends, static_cast<size_t>(kThreads * kEvents));
}

TEST_F(TrackEventTest, SessionsStartAndStopWhileThreadsEmit) {
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; t++) {
    threads.emplace_back([&stop] {
      while (!stop.load(std::memory_order_relaxed)) {
        TRACE_EVENT("test", "busy");
        TRACE_EVENT_INSTANT("gfx", "frame", "n", 1);
      }
    });
  }
  // What a gfx-only session held that it should not (checked once the
  // threads are joined: an ASSERT here would leave them running, and the
  // process would abort without saying what was wrong).
  std::vector<std::string> misplaced;
  for (int round = 0; round < 6; round++) {
    // Alternate configs so that category states change under the threads.
    ReadTrace read = Record(SerializeTrackEventConfig({round % 2 ? "gfx" : "*"}, {"*"}),
                            [] { std::this_thread::yield(); });
    if (round % 2 == 0)
      continue;
    for (const Event& e : read.events) {
      if (e.type != 2 && e.category != "gfx")
        misplaced.push_back("round " + std::to_string(round) + ": " + e.category + " " + e.name);
    }
  }
  stop = true;
  for (auto& thread : threads)
    thread.join();
  EXPECT_TRUE(misplaced.empty()) << misplaced.size() << " events of other categories, first: "
                                 << misplaced[0];
}

// A thread that found a category recording, then paused before writing
// (here: in an argument's evaluation) while the session stopped and a new
// one that does not record the category took the same instance slot, must
// not write the event into the new session.
class Gate {
 public:
  // Called by the paused thread: says it is in, then waits to be let go.
  int64_t Pass() {
    std::unique_lock<std::mutex> lock(mutex_);
    arrived_ = true;
    changed_.notify_all();
    if (!changed_.wait_for(lock, std::chrono::seconds(20), [this] { return open_; }))
      ADD_FAILURE() << "the gate was never opened";
    return 1;
  }
  bool WaitUntilArrived() {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(20), [this] { return arrived_; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool arrived_ = false;
  bool open_ = false;
};

TEST_F(TrackEventTest, EventOfACategoryTheSlotsNextSessionDoesNotRecordIsNotWritten) {
  auto expect_not_written_into_the_next_session = [this](const char* what, auto emit) {
    SCOPED_TRACE(what);
    Gate gate;
    std::thread writer;
    Record(SerializeTrackEventConfig({"*"}), [&] {
      TRACE_EVENT_INSTANT("test", "warm up");
      writer = std::thread([&] {
        TRACE_EVENT_INSTANT("test", "warm up");  // This thread's sequence is current.
        emit(gate);
      });
      ASSERT_TRUE(gate.WaitUntilArrived()) << "the writer never reached its event";
    });
    // The same slot, taken by a session without "test".
    ReadTrace next = Record(SerializeTrackEventConfig({"gfx"}, {"*"}), [&] {
      gate.Open();
      writer.join();
      TRACE_EVENT_INSTANT("gfx", "after");
    });
    for (const Event& e : next.events)
      EXPECT_EQ(e.category, "gfx") << e.name;
    EXPECT_EQ(next.events.size(), 1u);
  };
  expect_not_written_into_the_next_session(
      "int annotation", [](Gate& g) { TRACE_EVENT_INSTANT("test", "late", "n", g.Pass()); });
  expect_not_written_into_the_next_session("explicit timestamp", [](Gate& g) {
    TRACE_EVENT_INSTANT("test", "late", TraceTimestamp{static_cast<uint64_t>(g.Pass()) * 1000});
  });
  expect_not_written_into_the_next_session(
      "counter", [](Gate& g) { TRACE_COUNTER("test", "late", g.Pass()); });
  expect_not_written_into_the_next_session("dynamic category", [](Gate& g) {
    TRACE_EVENT_INSTANT(DynamicCategory{"dyn"}, "late", "n", g.Pass());
  });
}

}  // namespace
}  // namespace zt
