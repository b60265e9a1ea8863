// Traces recorded in-process by our SDK, imported by the trace processor
// (src/processor/trace_importer.h) and checked for exact contents: nesting,
// thread and process rows, instants, counters, custom tracks, flows, debug
// annotations of every type, interning resets (new sessions, periodic
// clears, the SDK's own resets after a loss), several threads at once,
// clocks, and losses reported where they happened (issue 12, "Tests and
// proof").
//
// Explicit timestamps (zt::TraceTimestamp, BOOTTIME, the trace clock) make
// ts and dur exact; events at "now" are checked against BOOTTIME read
// around them. Every wait is bounded and says what it waited for.

#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "src/processor/trace_importer.h"
#include "src/processor/trace_storage.h"
#include "zt/config/trace_config.gen.h"
#include "zt/config/track_event/track_event_config.pb.h"
#include "zt/trace/trace.pb.h"
#include "zt/tracing/tracing.h"
#include "zt/tracing/track_event.h"

ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(0),
                      zt::Category{"test"},
                      zt::Category{"gfx"},
                      zt::Category{"net"});
ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(0));

namespace zt {
namespace {

using processor::ArgType;
using processor::DataLossMark;
using processor::ImportResult;
using processor::kNullId;
using processor::kNullStringId;
using processor::StringId;
using processor::TraceStorage;
using processor::TrackKind;
namespace pstats = processor::stats;

// Explicit times: far from "now" would also do, but near it keeps every
// packet of a trace in one plausible range.
constexpr uint64_t kBase = 1000000000;  // 1 s of BOOTTIME.

int64_t Tid() { return static_cast<int64_t>(syscall(SYS_gettid)); }

uint64_t BootTimeNs() {
  timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

std::string CategoriesConfig(const std::vector<std::string>& enabled) {
  protos::TrackEventConfig config;
  for (const std::string& c : enabled)
    config.add_enabled_categories(c);
  return config.SerializeAsString();
}

struct RecordOptions {
  uint32_t buffer_kb = 4096;
  bool ring = false;
  uint32_t clear_period_ms = 0;
  std::string track_event_config = CategoriesConfig({"*"});
};

// A session around |body|; the trace's bytes. |body| gets the session (to
// flush or read mid-way).
template <typename Body>
std::vector<char> Record(const RecordOptions& options, Body body) {
  protos::gen::TraceConfig config;
  auto* buffer = config.add_buffers();
  buffer->set_size_kb(options.buffer_kb);
  buffer->set_fill_policy(options.ring
                              ? protos::gen::TraceConfig_BufferConfig_FillPolicy_RING_BUFFER
                              : protos::gen::TraceConfig_BufferConfig_FillPolicy_DISCARD);
  auto* ds = config.add_data_sources()->mutable_config();
  ds->set_name("track_event");
  ds->set_track_event_config_raw(options.track_event_config);
  if (options.clear_period_ms)
    config.mutable_incremental_state_config()->set_clear_period_ms(options.clear_period_ms);
  std::unique_ptr<TracingSession> session = Tracing::NewTrace();
  EXPECT_TRUE(session);
  session->Setup(config);
  session->StartBlocking();
  std::vector<char> trace;
  body(session.get(), &trace);
  session->StopBlocking();
  std::vector<char> rest = session->ReadTraceBlocking();
  trace.insert(trace.end(), rest.begin(), rest.end());
  return trace;
}

template <typename Body>
std::vector<char> RecordSimple(Body body) {
  return Record(RecordOptions(), [&](TracingSession*, std::vector<char>*) { body(); });
}

// Runs |fn| on a thread named |name|; returns the thread's tid.
template <typename Fn>
int64_t OnNamedThread(const char* name, Fn fn) {
  int64_t tid = 0;
  std::thread thread([&] {
    pthread_setname_np(pthread_self(), name);
    tid = Tid();
    fn();
  });
  thread.join();
  return tid;
}

// The raw trace as libprotobuf reads it: what the writer did, to compare
// with what the importer made of it.
struct RawFacts {
  size_t cleared_packets = 0;          // Producer packets with the clear flag.
  size_t loss_marks = 0;               // previous_packet_dropped, not first.
  std::vector<uint32_t> lossy_sequences;
  std::vector<uint64_t> loss_reasons;
  std::set<uint32_t> sequences;        // Producer sequences.
  std::map<int64_t, uint32_t> sequence_of_tid;  // From thread descriptors.
  // On the sequence of the first loss mark, from the marked packet on:
  bool cleared_after_loss = false;      // A packet clearing the state.
  size_t needing_state_after_loss = 0;  // Flagged packets before that.
  bool marked_packet_has_time = false;  // The marked packet's BOOTTIME time.
  uint64_t marked_packet_time = 0;
};

RawFacts ReadRaw(const std::vector<char>& bytes) {
  protos::Trace trace;
  EXPECT_TRUE(trace.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  RawFacts facts;
  std::set<uint32_t> seen;
  uint32_t loss_sequence = 0;  // Of the first mark.
  for (const protos::TracePacket& packet : trace.packet()) {
    const uint32_t seq = packet.trusted_packet_sequence_id();
    if (seq == 1)
      continue;
    facts.sequences.insert(seq);
    const bool first = seen.insert(seq).second;
    if (packet.sequence_flags() & 1)
      facts.cleared_packets++;
    if (packet.has_track_descriptor() && packet.track_descriptor().has_thread())
      facts.sequence_of_tid[packet.track_descriptor().thread().tid()] = seq;
    const bool marked = packet.previous_packet_dropped() && !first;
    if (marked && loss_sequence == 0) {
      loss_sequence = seq;
      facts.marked_packet_has_time =
          packet.has_timestamp() && packet.timestamp_clock_id() == 6;
      facts.marked_packet_time = packet.timestamp();
    }
    if (seq == loss_sequence && !facts.cleared_after_loss) {
      if (packet.sequence_flags() & 1)
        facts.cleared_after_loss = true;
      else if (packet.sequence_flags() & 2)
        facts.needing_state_after_loss++;
    }
    if (marked) {
      facts.loss_marks++;
      facts.lossy_sequences.push_back(seq);
      facts.loss_reasons.push_back(packet.previous_packet_dropped());
    }
  }
  return facts;
}

// The track events of a trace in file order, with their times worked out
// from the raw packets as docs/wire.md says readers do: clock 64 by offset
// from its sequence's latest snapshot, accumulating deltas; clock 6 as is.
struct RawEvent {
  uint32_t sequence;
  int type;
  int64_t ts;
};

std::vector<RawEvent> RawEvents(const std::vector<char>& bytes) {
  protos::Trace trace;
  EXPECT_TRUE(trace.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  struct Clock64 {
    uint64_t value = 0, snapshot_value = 0, snapshot_boottime = 0, unit = 1;
    uint32_t default_clock = 0;
  };
  std::map<uint32_t, Clock64> sequences;
  std::vector<RawEvent> out;
  for (const protos::TracePacket& packet : trace.packet()) {
    if (packet.trusted_packet_sequence_id() == 1)
      continue;
    Clock64& seq = sequences[packet.trusted_packet_sequence_id()];
    if (packet.has_trace_packet_defaults())
      seq.default_clock = packet.trace_packet_defaults().timestamp_clock_id();
    for (const auto& clock : packet.clock_snapshot().clocks()) {
      if (clock.clock_id() == 6)
        seq.snapshot_boottime = clock.timestamp();
      if (clock.clock_id() == 64) {
        seq.value = seq.snapshot_value = clock.timestamp();
        seq.unit = clock.unit_multiplier_ns() ? clock.unit_multiplier_ns() : 1;
      }
    }
    if (!packet.has_track_event())
      continue;
    const uint32_t clock =
        packet.has_timestamp_clock_id() ? packet.timestamp_clock_id() : seq.default_clock;
    int64_t ts;
    if (clock == 64) {
      seq.value += packet.timestamp();
      ts = static_cast<int64_t>(seq.snapshot_boottime +
                                (seq.value - seq.snapshot_value) * seq.unit);
    } else {
      ts = static_cast<int64_t>(packet.timestamp());
    }
    out.push_back(RawEvent{packet.trusted_packet_sequence_id(), packet.track_event().type(), ts});
  }
  return out;
}

std::vector<int64_t> RawEventTimes(const std::vector<char>& bytes) {
  std::vector<int64_t> out;
  for (const RawEvent& e : RawEvents(bytes))
    out.push_back(e.ts);
  return out;
}

// Read access to an imported trace.
class Imported {
 public:
  explicit Imported(const std::vector<char>& trace) {
    result_ = processor::ImportTrace(trace.data(), trace.size(), &s_);
  }

  const TraceStorage& s() const { return s_; }
  const ImportResult& result() const { return result_; }
  std::string Str(StringId id) const {
    return id == kNullStringId ? "<null>" : std::string(s_.strings.Get(id));
  }

  // Slice ids named |name|, in table order.
  std::vector<uint32_t> Slices(const std::string& name) const {
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < s_.slice.size(); i++) {
      if (Str(s_.slice.name[i]) == name)
        out.push_back(i);
    }
    return out;
  }
  // The one slice named |name|; kNullId (and a failure) otherwise.
  uint32_t Slice(const std::string& name) const {
    std::vector<uint32_t> ids = Slices(name);
    EXPECT_EQ(ids.size(), 1u) << name;
    return ids.size() == 1 ? ids[0] : kNullId;
  }

  uint32_t UtidOf(int64_t tid) const {
    for (uint32_t i = 0; i < s_.thread.size(); i++) {
      if (s_.thread.tid[i] == tid)
        return i;
    }
    return kNullId;
  }
  uint32_t UpidOf(int64_t pid) const {
    for (uint32_t i = 0; i < s_.process.size(); i++) {
      if (s_.process.pid[i] == pid)
        return i;
    }
    return kNullId;
  }
  // The thread track of |tid|: exactly one.
  uint32_t ThreadTrackOf(int64_t tid) const {
    const uint32_t utid = UtidOf(tid);
    uint32_t found = kNullId;
    for (uint32_t i = 0; i < s_.track.size(); i++) {
      if (s_.track.kind[i] == TrackKind::kThread && s_.track.utid[i] == utid &&
          s_.track.parent_id[i] == kNullId) {
        EXPECT_EQ(found, kNullId) << "two thread tracks for tid " << tid;
        found = i;
      }
    }
    return found;
  }
  uint32_t TrackNamed(const std::string& name) const {
    uint32_t found = kNullId;
    for (uint32_t i = 0; i < s_.track.size(); i++) {
      if (Str(s_.track.name[i]) == name) {
        EXPECT_EQ(found, kNullId) << "two tracks named " << name;
        found = i;
      }
    }
    return found;
  }

  // A slice as one line: "name cat ts dur depth parent-name".
  std::string Row(uint32_t id) const {
    const auto& t = s_.slice;
    const uint32_t parent = t.parent_id[id];
    return Str(t.name[id]) + " " + Str(t.category[id]) + " ts=" + std::to_string(t.ts[id]) +
           " dur=" + std::to_string(t.dur[id]) + " depth=" + std::to_string(t.depth[id]) +
           " parent=" + (parent == kNullId ? "-" : Str(t.name[parent]));
  }

  // An arg set as "key flat_key type value" lines, in table order.
  std::vector<std::string> Args(uint32_t arg_set_id) const {
    std::vector<std::string> out;
    const auto& a = s_.args;
    for (size_t i = 0; i < a.size(); i++) {
      if (a.arg_set_id[i] != arg_set_id)
        continue;
      std::string value;
      switch (a.value_type[i]) {
        case ArgType::kString:
        case ArgType::kJson:
          value = Str(a.string_value[i]);
          break;
        case ArgType::kReal: {
          char text[64];
          snprintf(text, sizeof(text), "%.17g", a.real_value[i]);
          value = text;
          break;
        }
        case ArgType::kNull:
          value = "null";
          break;
        default:
          value = std::to_string(a.int_value[i]);
          break;
      }
      out.push_back(Str(a.key[i]) + " " + Str(a.flat_key[i]) + " " +
                    processor::ArgTypeName(a.value_type[i]) + " " + value);
    }
    return out;
  }

  // Stats of "error" or "data_loss" severity that are nonzero, by name.
  std::map<std::string, int64_t> Problems() const {
    std::map<std::string, int64_t> out;
    for (int k = 0; k < pstats::kNumKeys; k++) {
      const auto key = static_cast<pstats::Key>(k);
      const pstats::Descriptor& d = pstats::Describe(key);
      if (d.severity == pstats::kInfo)
        continue;
      const int64_t value = d.type == pstats::kIndexed ? s_.stats.GetIndexedTotal(key)
                                                       : s_.stats.Get(key);
      if (value != 0)
        out[d.name] = value;
    }
    return out;
  }

  // Every slice's depth and parent agree with its track's nesting; ts order.
  void CheckConsistent() const {
    const auto& t = s_.slice;
    for (uint32_t i = 0; i < t.size(); i++) {
      if (i > 0) {
        EXPECT_GE(t.ts[i], t.ts[i - 1]) << "slice " << i << " out of ts order";
      }
      const uint32_t parent = t.parent_id[i];
      if (parent == kNullId) {
        EXPECT_EQ(t.depth[i], 0u) << Row(i);
        continue;
      }
      ASSERT_LT(parent, i) << Row(i);
      EXPECT_EQ(t.track_id[parent], t.track_id[i]) << Row(i);
      EXPECT_EQ(t.depth[i], t.depth[parent] + 1) << Row(i);
      EXPECT_LE(t.ts[parent], t.ts[i]) << Row(i);
      if (t.dur[parent] >= 0) {
        EXPECT_GE(t.dur[i], 0) << Row(i);  // An ended parent: its children ended.
        EXPECT_LE(t.ts[i] + t.dur[i], t.ts[parent] + t.dur[parent]) << Row(i);
      }
    }
  }

 private:
  TraceStorage s_;
  ImportResult result_;
};

class ProcessorSdkTraceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    TracingInitArgs args;
    ASSERT_TRUE(Tracing::Initialize(args));
  }
};

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

// Interned names of one sequence across resets: three sessions one after
// another (a new sequence and fresh interning each), read alone and as one
// concatenated file; every name resolves, nothing is missing.
TEST_F(ProcessorSdkTraceTest, InterningAcrossSessions) {
  std::vector<char> all;
  for (int session = 0; session < 3; session++) {
    SCOPED_TRACE(session);
    const std::vector<char> trace = RecordSimple([&] {
      // The same literals each time, so each session interns them afresh
      // with the same small ids; then a name new to this session.
      TRACE_EVENT_BEGIN("test", "outer", TraceTimestamp{kBase * (session + 1) + 1});
      TRACE_EVENT_INSTANT("gfx", "inner", TraceTimestamp{kBase * (session + 1) + 2},
                          "session", session);
      TRACE_EVENT_END("test", TraceTimestamp{kBase * (session + 1) + 3});
      if (session == 1)
        TRACE_EVENT_INSTANT("net", "only in 1", TraceTimestamp{kBase * 2 + 4});
    });
    Imported imp(trace);
    EXPECT_EQ(imp.Problems(), (std::map<std::string, int64_t>{}));
    EXPECT_EQ(imp.s().slice.size(), session == 1 ? 3u : 2u);
    all.insert(all.end(), trace.begin(), trace.end());
  }
  Imported imp(all);
  EXPECT_EQ(imp.Problems(), (std::map<std::string, int64_t>{}));
  imp.CheckConsistent();
  std::vector<std::string> rows;
  for (uint32_t i = 0; i < imp.s().slice.size(); i++) {
    rows.push_back(imp.Row(i) + " " +
                   (imp.s().slice.arg_set_id[i] == kNullId
                        ? ""
                        : imp.Args(imp.s().slice.arg_set_id[i])[0]));
  }
  auto at = [](int session, int offset) { return std::to_string(kBase * session + offset); };
  EXPECT_EQ(rows, (std::vector<std::string>{
                      "outer test ts=" + at(1, 1) + " dur=2 depth=0 parent=- ",
                      "inner gfx ts=" + at(1, 2) +
                          " dur=0 depth=1 parent=outer debug.session debug.session int 0",
                      "outer test ts=" + at(2, 1) + " dur=2 depth=0 parent=- ",
                      "inner gfx ts=" + at(2, 2) +
                          " dur=0 depth=1 parent=outer debug.session debug.session int 1",
                      "only in 1 net ts=" + at(2, 4) + " dur=0 depth=0 parent=- ",
                      "outer test ts=" + at(3, 1) + " dur=2 depth=0 parent=- ",
                      "inner gfx ts=" + at(3, 2) +
                          " dur=0 depth=1 parent=outer debug.session debug.session int 2",
                  }));
}

// The service clears incremental state every 2 ms (clear_period_ms, which
// the SDK honours by writing its reset packets again): across many
// generations, every event keeps its own name, category and argument.
TEST_F(ProcessorSdkTraceTest, PeriodicIncrementalStateClears) {
  RecordOptions options;
  options.clear_period_ms = 2;
  RawFacts raw_before_stop;
  int emitted = 0;
  const std::vector<char> trace = Record(options, [&](TracingSession*, std::vector<char>*) {
    // Emit until at least 5 clears were answered (a reset costs one cleared
    // packet per sequence); bounded by a deadline.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    for (int i = 0; std::chrono::steady_clock::now() < deadline; i++) {
      switch (i % 3) {
        case 0:
          TRACE_EVENT_BEGIN("test", "alpha", "i", i);
          break;
        case 1:
          TRACE_EVENT_INSTANT("gfx", "beta", "i", i);
          break;
        case 2:
          TRACE_EVENT_END("test");
          break;
      }
      emitted = i + 1;
      if (i % 300 == 299) {
        std::this_thread::sleep_for(std::chrono::milliseconds(3));  // Let clears come.
        if (i >= 6000 && emitted % 3 == 0)
          break;
      }
    }
  });
  const RawFacts raw = ReadRaw(trace);
  ASSERT_GE(raw.cleared_packets, 5u) << "the service's clears did not reach the trace";
  ASSERT_EQ(emitted % 3, 0) << "ended within a slice (deadline hit?)";
  Imported imp(trace);
  EXPECT_EQ(imp.Problems(), (std::map<std::string, int64_t>{}));
  EXPECT_EQ(imp.s().stats.Get(pstats::interned_data_missing_iid), 0);
  imp.CheckConsistent();
  const auto& slice = imp.s().slice;
  ASSERT_EQ(slice.size(), static_cast<size_t>(emitted / 3 * 2));
  for (uint32_t id = 0; id < slice.size(); id++) {
    const int i = static_cast<int>(id / 2 * 3 + id % 2);
    const bool is_alpha = id % 2 == 0;
    ASSERT_EQ(imp.Str(slice.name[id]), is_alpha ? "alpha" : "beta") << id;
    ASSERT_EQ(imp.Str(slice.category[id]), is_alpha ? "test" : "gfx") << id;
    ASSERT_EQ(imp.Args(slice.arg_set_id[id]),
              std::vector<std::string>{"debug.i debug.i int " + std::to_string(i)})
        << id;
    ASSERT_EQ(slice.depth[id], is_alpha ? 0u : 1u) << id;
    if (is_alpha) {
      ASSERT_GE(slice.dur[id], 0) << id;
    }
  }
}

// Four threads write nested slices with interleaved explicit times: each
// thread's slices are on its own track with its tid, nested right, and the
// table is in ts order across threads.
TEST_F(ProcessorSdkTraceTest, ThreadsWritingAtOnce) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 500;
  std::vector<int64_t> tids(kThreads);
  const std::vector<char> trace = RecordSimple([&] {
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++) {
      threads.emplace_back([&, t] {
        char name[16];
        snprintf(name, sizeof(name), "zt-writer-%d", t);
        pthread_setname_np(pthread_self(), name);
        tids[static_cast<size_t>(t)] = Tid();
        ready.fetch_add(1);
        // Start together (bounded: the others are already running).
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (ready.load() < kThreads && std::chrono::steady_clock::now() < deadline) {
        }
        for (int r = 0; r < kRounds; r++) {
          const uint64_t base = kBase + static_cast<uint64_t>(r) * 100 + static_cast<uint64_t>(t);
          TRACE_EVENT_BEGIN("test", "outer", TraceTimestamp{base}, "t", t);
          TRACE_EVENT_BEGIN("gfx", "inner", TraceTimestamp{base + 10}, "r", r);
          TRACE_EVENT_END("gfx", TraceTimestamp{base + 20});
          TRACE_EVENT_END("test", TraceTimestamp{base + 50});
        }
      });
    }
    for (auto& thread : threads)
      thread.join();
    ASSERT_EQ(ready.load(), kThreads);
  });
  Imported imp(trace);
  EXPECT_EQ(imp.Problems(), (std::map<std::string, int64_t>{}));
  imp.CheckConsistent();
  const auto& slice = imp.s().slice;
  ASSERT_EQ(slice.size(), static_cast<size_t>(kThreads * kRounds * 2));
  std::map<uint32_t, int> thread_of_track;
  for (int t = 0; t < kThreads; t++) {
    const uint32_t utid = imp.UtidOf(tids[static_cast<size_t>(t)]);
    ASSERT_NE(utid, kNullId);
    EXPECT_EQ(imp.Str(imp.s().thread.name[utid]), "zt-writer-" + std::to_string(t));
    EXPECT_EQ(imp.s().thread.upid[utid], imp.UpidOf(getpid()));
    thread_of_track[imp.ThreadTrackOf(tids[static_cast<size_t>(t)])] = t;
  }
  ASSERT_EQ(thread_of_track.size(), static_cast<size_t>(kThreads));
  // Rows in ts order: round r, thread t's outer at r*100+t, its inner at
  // r*100+t+10; outers of a round first (ts r*100+0..3), then inners.
  for (uint32_t id = 0; id < slice.size(); id++) {
    const int r = static_cast<int>(id / (2 * kThreads));
    const int k = static_cast<int>(id % (2 * kThreads));
    const int t = k % kThreads;
    const bool outer = k < kThreads;
    ASSERT_EQ(thread_of_track.at(slice.track_id[id]), t) << imp.Row(id);
    ASSERT_EQ(imp.Str(slice.name[id]), outer ? "outer" : "inner") << id;
    ASSERT_EQ(slice.ts[id] - static_cast<int64_t>(kBase), r * 100 + t + (outer ? 0 : 10));
    ASSERT_EQ(slice.dur[id], outer ? 50 : 10) << id;
    ASSERT_EQ(slice.depth[id], outer ? 0u : 1u) << id;
    ASSERT_EQ(imp.Args(slice.arg_set_id[id]),
              std::vector<std::string>{outer ? "debug.t debug.t int " + std::to_string(t)
                                             : "debug.r debug.r int " + std::to_string(r)})
        << id;
  }
}

// Two sequences at "now" whose packets are in the file out of time order:
// a worker thread that starts after the main thread and exits first has its
// chunk (and its clock snapshot) stored before the main thread's. Every
// event converts through its own sequence's snapshot, none is dropped.
TEST_F(ProcessorSdkTraceTest, SequencesStoredOutOfTimeOrder) {
  uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0;
  const int64_t main_tid = Tid();
  int64_t worker_tid = 0;
  const std::vector<char> trace = RecordSimple([&] {
    t0 = BootTimeNs();
    TRACE_EVENT_INSTANT("test", "main first");
    t1 = BootTimeNs();
    worker_tid = OnNamedThread("zt-late", [] {
      for (int i = 0; i < 10; i++)
        TRACE_EVENT_INSTANT("test", "worker", "i", i);
    });  // Its chunk goes to the service at its exit.
    t2 = BootTimeNs();
    TRACE_EVENT_INSTANT("test", "main last");
    t3 = BootTimeNs();
  });
  const RawFacts raw = ReadRaw(trace);
  ASSERT_EQ(raw.sequences.size(), 2u);
  Imported imp(trace);
  EXPECT_EQ(imp.Problems(), (std::map<std::string, int64_t>{}));
  EXPECT_EQ(imp.s().stats.Get(pstats::invalid_clock_snapshots), 0);
  imp.CheckConsistent();
  const auto& slice = imp.s().slice;
  ASSERT_EQ(slice.size(), 12u);
  const uint32_t first = imp.Slice("main first");
  const uint32_t last = imp.Slice("main last");
  ASSERT_NE(last, kNullId);
  EXPECT_GE(slice.ts[first], static_cast<int64_t>(t0));
  EXPECT_LE(slice.ts[first], static_cast<int64_t>(t1));
  EXPECT_GE(slice.ts[last], static_cast<int64_t>(t2));
  EXPECT_LE(slice.ts[last], static_cast<int64_t>(t3));
  EXPECT_EQ(slice.track_id[first], imp.ThreadTrackOf(main_tid));
  const std::vector<uint32_t> worker = imp.Slices("worker");
  ASSERT_EQ(worker.size(), 10u);
  for (uint32_t id : worker) {
    EXPECT_GE(slice.ts[id], static_cast<int64_t>(t1));
    EXPECT_LE(slice.ts[id], static_cast<int64_t>(t2));
    EXPECT_EQ(slice.track_id[id], imp.ThreadTrackOf(worker_tid));
  }
}

// An event emitted inside another event's callback is not recorded: the
// SDK marks the loss on the sequence's next packet and starts its
// incremental state again there. The importer reports the mark on that
// sequence, at that packet's time, with the writer's reasons, and reads
// everything around it with the right names.
TEST_F(ProcessorSdkTraceTest, LossMarkedWhereItHappened) {
  uint64_t t0 = 0, t1 = 0, t2 = 0;
  const int64_t tid = Tid();
  const std::vector<char> trace = RecordSimple([&] {
    TRACE_EVENT_INSTANT("test", "before", TraceTimestamp{kBase + 10}, "k", 1);
    t0 = BootTimeNs();
    TRACE_EVENT_BEGIN("test", "outer", TraceTimestamp{kBase + 20}, [](EventContext&) {
      TRACE_EVENT_INSTANT("gfx", "lost");  // Not recorded: marked.
    });
    t1 = BootTimeNs();
    // The sequence's next event starts it again (the reset packet, with the
    // mark, at the time of this event).
    TRACE_EVENT_INSTANT("test", "after", TraceTimestamp{kBase + 30}, "k", 2);
    t2 = BootTimeNs();
    TRACE_EVENT_INSTANT("test", "before", TraceTimestamp{kBase + 35});
    TRACE_EVENT_END("test", TraceTimestamp{kBase + 40});
  });
  const RawFacts raw = ReadRaw(trace);
  ASSERT_EQ(raw.loss_marks, 1u);
  ASSERT_TRUE(raw.sequence_of_tid.count(tid));
  const uint32_t sequence = raw.sequence_of_tid.at(tid);
  EXPECT_EQ(raw.lossy_sequences, std::vector<uint32_t>{sequence});

  Imported imp(trace);
  imp.CheckConsistent();
  std::vector<std::string> rows;
  for (uint32_t i = 0; i < imp.s().slice.size(); i++)
    rows.push_back(imp.Row(i));
  auto at = [](int offset) { return std::to_string(kBase + offset); };
  EXPECT_EQ(rows, (std::vector<std::string>{
                      "before test ts=" + at(10) + " dur=0 depth=0 parent=-",
                      "outer test ts=" + at(20) + " dur=20 depth=0 parent=-",
                      "after test ts=" + at(30) + " dur=0 depth=1 parent=outer",
                      "before test ts=" + at(35) + " dur=0 depth=1 parent=outer",
                  }));
  EXPECT_EQ(imp.Args(imp.s().slice.arg_set_id[2]),
            std::vector<std::string>{"debug.k debug.k int 2"});
  EXPECT_EQ(imp.s().stats.Get(pstats::interned_data_missing_iid), 0);
  EXPECT_EQ(imp.s().stats.Get(pstats::incremental_state_lost_packets), 0);
  // The loss: one mark, on the thread's sequence, at the reset's time
  // (after the lost event, at the next one), with the writer's causes.
  ASSERT_EQ(imp.s().data_losses.size(), 1u);
  const DataLossMark& mark = imp.s().data_losses[0];
  EXPECT_EQ(mark.sequence_id, sequence);
  EXPECT_EQ(mark.reasons, raw.loss_reasons[0]);
  EXPECT_NE(mark.reasons & 1, 0u) << mark.reasons;  // DATA_LOSS_PRESENT.
  EXPECT_GE(mark.ts, static_cast<int64_t>(t1));
  EXPECT_LE(mark.ts, static_cast<int64_t>(t2));
  EXPECT_GE(mark.ts, static_cast<int64_t>(t0));
  EXPECT_GT(mark.offset, 0u);
  EXPECT_LT(mark.offset, trace.size());
  EXPECT_EQ(imp.s().stats.GetIndexed(pstats::traced_buf_sequence_packet_loss),
            (std::map<int, int64_t>{{0, 1}}));
  EXPECT_EQ(imp.Problems(),
            (std::map<std::string, int64_t>{{"traced_buf_sequence_packet_loss", 1}}));
}

// A DISCARD buffer far too small: it keeps a prefix of the sequence and
// refuses the rest. The service's stats say so; what is kept reads exactly
// (names, args, times), nested right, the one slice whose end was refused
// left open.
TEST_F(ProcessorSdkTraceTest, DiscardBufferTooSmall) {
  constexpr int kSlices = 20000;
  RecordOptions options;
  options.buffer_kb = 16;
  const std::vector<char> trace = Record(options, [&](TracingSession*, std::vector<char>*) {
    for (int i = 0; i < kSlices; i++) {
      const uint64_t ts = kBase + static_cast<uint64_t>(i) * 10;
      TRACE_EVENT_BEGIN("test", "work", TraceTimestamp{ts}, "i", i);
      TRACE_EVENT_INSTANT("gfx", "step", TraceTimestamp{ts + 2});
      TRACE_EVENT_END("test", TraceTimestamp{ts + 5});
    }
  });
  Imported imp(trace);
  imp.CheckConsistent();
  EXPECT_GT(imp.s().stats.GetIndexedTotal(pstats::traced_buf_chunks_discarded), 0);
  EXPECT_EQ(imp.s().stats.Get(pstats::interned_data_missing_iid), 0);
  const auto& slice = imp.s().slice;
  ASSERT_GT(slice.size(), 10u);
  ASSERT_LT(slice.size(), static_cast<size_t>(kSlices));
  // A prefix: work i, then its step, in order, nothing skipped.
  for (uint32_t id = 0; id < slice.size(); id++) {
    const int i = static_cast<int>(id / 2);
    const int64_t ts = static_cast<int64_t>(kBase) + i * 10;
    if (id % 2 == 0) {
      ASSERT_EQ(imp.Str(slice.name[id]), "work") << id;
      ASSERT_EQ(slice.ts[id], ts) << id;
      ASSERT_EQ(imp.Args(slice.arg_set_id[id]),
                std::vector<std::string>{"debug.i debug.i int " + std::to_string(i)});
      if (id + 2 < slice.size()) {
        ASSERT_EQ(slice.dur[id], 5) << id;
      }
    } else {
      ASSERT_EQ(imp.Str(slice.name[id]), "step") << id;
      ASSERT_EQ(slice.ts[id], ts + 2) << id;
      ASSERT_EQ(slice.parent_id[id], id - 1) << id;
    }
  }
  // The last kept "work" may have lost its end: then it is open.
  const uint32_t last_work = static_cast<uint32_t>((slice.size() - 1) / 2 * 2);
  EXPECT_EQ(imp.s().stats.Get(pstats::slices_unterminated), slice.dur[last_work] == -1 ? 1 : 0);
  EXPECT_TRUE(slice.dur[last_work] == -1 || slice.dur[last_work] == 5);
  EXPECT_TRUE(imp.s().data_losses.empty());  // Nothing came after the gap.
}

// A ring buffer read mid-way, then overwritten: the second read starts that
// sequence after a gap. The service marks the first packet after it; the
// importer reports the mark there and skips the sequence's later packets
// (their interned names may be in what was lost) instead of guessing; the
// slice open across the gap stays open.
TEST_F(ProcessorSdkTraceTest, RingBufferOverwrittenAfterARead) {
  constexpr int kFirst = 50;
  RecordOptions options;
  options.buffer_kb = 32;
  options.ring = true;
  const int64_t tid = Tid();
  const std::vector<char> trace = Record(options, [&](TracingSession* session,
                                                      std::vector<char>* out) {
    TRACE_EVENT_BEGIN("test", "across the gap", TraceTimestamp{kBase});
    for (int i = 0; i < kFirst; i++)
      TRACE_EVENT_INSTANT("test", "first", TraceTimestamp{kBase + 1 + static_cast<uint64_t>(i)}, "i", i);
    ASSERT_TRUE(session->FlushBlocking(5000)) << "flush timed out";
    *out = session->ReadTraceBlocking();  // The first part, read.
    for (int i = 0; i < 20000; i++)  // Wraps the ring many times.
      TRACE_EVENT_INSTANT("gfx", "second", "i", i);
    TRACE_EVENT_END("test");
  });
  const RawFacts raw = ReadRaw(trace);
  ASSERT_TRUE(raw.sequence_of_tid.count(tid));
  const uint32_t sequence = raw.sequence_of_tid.at(tid);
  ASSERT_EQ(raw.lossy_sequences, std::vector<uint32_t>{sequence});

  Imported imp(trace);
  imp.CheckConsistent();
  EXPECT_EQ(imp.s().stats.Get(pstats::interned_data_missing_iid), 0);
  ASSERT_FALSE(raw.cleared_after_loss);
  EXPECT_GT(raw.needing_state_after_loss, 0u);
  EXPECT_EQ(imp.s().stats.Get(pstats::incremental_state_lost_packets),
            static_cast<int64_t>(raw.needing_state_after_loss));
  EXPECT_GT(imp.s().stats.GetIndexedTotal(pstats::traced_buf_chunks_overwritten), 0);
  EXPECT_EQ(imp.s().stats.GetIndexed(pstats::traced_buf_sequence_packet_loss),
            (std::map<int, int64_t>{{0, 1}}));
  ASSERT_EQ(imp.s().data_losses.size(), 1u);
  const DataLossMark& mark = imp.s().data_losses[0];
  EXPECT_EQ(mark.sequence_id, sequence);
  EXPECT_EQ(mark.reasons, raw.loss_reasons[0]);
  EXPECT_NE(mark.reasons & 1, 0u) << mark.reasons;
  // The packet after the gap has its time as a delta on the sequence's
  // clock 64 from packets that were lost: unknown, and not guessed.
  EXPECT_EQ(mark.ts, processor::kNullInt);
  EXPECT_GT(mark.offset, 0u);
  EXPECT_LT(mark.offset, trace.size());
  // Only the first part: nothing after the gap is guessed.
  const auto& slice = imp.s().slice;
  ASSERT_EQ(slice.size(), static_cast<size_t>(kFirst + 1));
  EXPECT_EQ(imp.Row(0), "across the gap test ts=" + std::to_string(kBase) +
                            " dur=-1 depth=0 parent=-");
  for (uint32_t id = 1; id < slice.size(); id++) {
    ASSERT_EQ(imp.Row(id), "first test ts=" + std::to_string(kBase + id) +
                               " dur=0 depth=1 parent=across the gap");
    ASSERT_EQ(imp.Args(slice.arg_set_id[id]),
              std::vector<std::string>{"debug.i debug.i int " + std::to_string(id - 1)});
  }
  EXPECT_EQ(imp.s().stats.Get(pstats::slices_unterminated), 1);
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

// The shared memory buffer fills while the service cannot take chunks
// (its thread held in a flush callback, bounded): the track event writer
// stalls (up to 1 s, its policy) and then drops. The drop is marked on the
// next packet of the thread's sequence, which also starts its state again.
// Everything before reads exactly, the mark says where and why (SMB full),
// and everything after resolves its names.
TEST_F(ProcessorSdkTraceTest, SharedMemoryFullLossMarked) {
  const int64_t tid = Tid();
  const std::string payload(1000, 'x');
  int written = 0;  // "fill" events emitted before the stalled one.
  uint64_t t_release = 0, t_after = 0;
  const std::vector<char> trace = Record(RecordOptions(), [&](TracingSession* session,
                                                             std::vector<char>*) {
    TRACE_EVENT_INSTANT("test", "before", TraceTimestamp{kBase});
    std::mutex mutex;
    std::condition_variable cv;
    bool held = false, release = false;
    session->Flush([&](bool) {
      // The SDK's (and the in-process service's) thread, held until the
      // test has filled the buffer: bounded, whatever happens.
      std::unique_lock<std::mutex> lock(mutex);
      held = true;
      cv.notify_all();
      cv.wait_for(lock, std::chrono::seconds(20), [&] { return release; });
    });
    {
      std::unique_lock<std::mutex> lock(mutex);
      ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return held; }))
          << "the flush callback never ran";
    }
    // 1 MiB of shared memory: about a thousand of these fill it. The event
    // that finds no free chunk stalls for the policy's second, then drops.
    bool stalled = false;
    for (int i = 0; i < 5000 && !stalled; i++) {
      const auto start = std::chrono::steady_clock::now();
      TRACE_EVENT_INSTANT("test", "fill", TraceTimestamp{kBase + 1 + static_cast<uint64_t>(i)},
                          "i", i, "payload", payload);
      stalled = std::chrono::steady_clock::now() - start > std::chrono::milliseconds(500);
      if (!stalled)
        written = i + 1;
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      release = true;
      cv.notify_all();
    }
    ASSERT_TRUE(stalled) << "the shared memory buffer never filled";
    ASSERT_TRUE(session->FlushBlocking(10000)) << "the service did not come back";
    t_release = BootTimeNs();
    TRACE_EVENT_INSTANT("net", "after", TraceTimestamp{kBase + 10000}, "k", 1);
    t_after = BootTimeNs();
    TRACE_EVENT_INSTANT("test", "fill", TraceTimestamp{kBase + 10001}, "i", -1);
  });
  const RawFacts raw = ReadRaw(trace);
  ASSERT_TRUE(raw.sequence_of_tid.count(tid));
  const uint32_t sequence = raw.sequence_of_tid.at(tid);
  ASSERT_EQ(raw.lossy_sequences, std::vector<uint32_t>{sequence});

  Imported imp(trace);
  imp.CheckConsistent();
  EXPECT_EQ(imp.s().stats.Get(pstats::interned_data_missing_iid), 0);
  // Before the loss: "before", then every "fill" written before the stall.
  const auto& slice = imp.s().slice;
  ASSERT_GE(slice.size(), static_cast<size_t>(written + 1));
  EXPECT_EQ(imp.Str(slice.name[0]), "before");
  for (int i = 0; i < written; i++) {
    const uint32_t id = static_cast<uint32_t>(i + 1);
    ASSERT_EQ(imp.Str(slice.name[id]), "fill") << i;
    ASSERT_EQ(slice.ts[id], static_cast<int64_t>(kBase) + 1 + i);
    ASSERT_EQ(imp.Args(slice.arg_set_id[id]),
              (std::vector<std::string>{"debug.i debug.i int " + std::to_string(i),
                                        "debug.payload debug.payload string " + payload}));
  }
  // The loss: one mark on the thread's sequence, with the writer's causes
  // (present, SMB full), at the marked packet's time if it has one.
  ASSERT_EQ(imp.s().data_losses.size(), 1u);
  const DataLossMark& mark = imp.s().data_losses[0];
  EXPECT_EQ(mark.sequence_id, sequence);
  EXPECT_EQ(mark.reasons, raw.loss_reasons[0]);
  EXPECT_EQ(mark.reasons & 257, 257u) << mark.reasons;
  if (raw.marked_packet_has_time) {
    EXPECT_EQ(mark.ts, static_cast<int64_t>(raw.marked_packet_time));
    EXPECT_GE(mark.ts, static_cast<int64_t>(t_release));
    EXPECT_LE(mark.ts, static_cast<int64_t>(t_after));
  } else {
    EXPECT_EQ(mark.ts, processor::kNullInt);
  }
  EXPECT_EQ(imp.s().stats.GetIndexed(pstats::traced_buf_sequence_packet_loss),
            (std::map<int, int64_t>{{0, 1}}));
  // After it: what the SDK wrote decides. With its state started again
  // after the mark, the names resolve on the new state. Without (the SDK
  // writes its reset into the packet it had begun while dropping, which is
  // lost: the first packet that makes it is the thread descriptor, with the
  // mark but no clear), every later packet of the sequence needs state no
  // reader has: each is counted as lost, none is guessed.
  if (raw.cleared_after_loss) {
    EXPECT_EQ(imp.s().stats.Get(pstats::incremental_state_lost_packets), 0);
    ASSERT_EQ(slice.size(), static_cast<size_t>(written + 3));
    const uint32_t after = static_cast<uint32_t>(written + 1);
    EXPECT_EQ(imp.Row(after), "after net ts=" + std::to_string(kBase + 10000) +
                                  " dur=0 depth=0 parent=-");
    EXPECT_EQ(imp.Args(slice.arg_set_id[after]),
              std::vector<std::string>{"debug.k debug.k int 1"});
    EXPECT_EQ(imp.Args(slice.arg_set_id[after + 1]),
              std::vector<std::string>{"debug.i debug.i int -1"});
  } else {
    EXPECT_EQ(imp.s().stats.Get(pstats::incremental_state_lost_packets),
              static_cast<int64_t>(raw.needing_state_after_loss));
    EXPECT_GE(raw.needing_state_after_loss, 2u);  // At least the two events.
    EXPECT_EQ(slice.size(), static_cast<size_t>(written + 1));
  }
}

// Four threads at "now", scoped slices nested three deep, each thread on
// its own sequence and its own clock 64: per thread track, the slices'
// ts and dur are exactly what that sequence's packets say (begins in
// order; each end closes the innermost open begin), and all is consistent.
TEST_F(ProcessorSdkTraceTest, ThreadsAtNowExactPerSequence) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 2000;
  std::vector<int64_t> tids(kThreads);
  const std::vector<char> trace = RecordSimple([&] {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++) {
      threads.emplace_back([&, t] {
        tids[static_cast<size_t>(t)] = Tid();
        for (int r = 0; r < kRounds; r++) {
          TRACE_EVENT("test", "a");
          TRACE_EVENT("gfx", "b", "r", r);
          { TRACE_EVENT("net", "c"); }
          TRACE_COUNTER("test", "progress", r);
        }
      });
    }
    for (auto& thread : threads)
      thread.join();
  });
  const RawFacts raw = ReadRaw(trace);
  ASSERT_EQ(raw.loss_marks, 0u);
  // Expected (ts, dur) per sequence, in begin order.
  std::map<uint32_t, std::vector<std::pair<int64_t, int64_t>>> expected;
  std::map<uint32_t, std::vector<size_t>> open;
  for (const RawEvent& e : RawEvents(trace)) {
    auto& rows = expected[e.sequence];
    if (e.type == 1) {
      open[e.sequence].push_back(rows.size());
      rows.emplace_back(e.ts, -1);
    } else if (e.type == 2) {
      ASSERT_FALSE(open[e.sequence].empty());
      auto& row = rows[open[e.sequence].back()];
      row.second = e.ts - row.first;
      open[e.sequence].pop_back();
    }
  }
  Imported imp(trace);
  EXPECT_EQ(imp.Problems(), (std::map<std::string, int64_t>{}));
  imp.CheckConsistent();
  const auto& slice = imp.s().slice;
  ASSERT_EQ(slice.size(), static_cast<size_t>(kThreads * kRounds * 3));
  for (int t = 0; t < kThreads; t++) {
    const int64_t tid = tids[static_cast<size_t>(t)];
    ASSERT_TRUE(raw.sequence_of_tid.count(tid));
    const uint32_t track = imp.ThreadTrackOf(tid);
    std::vector<std::pair<int64_t, int64_t>> actual;
    int depth_of[3] = {0, 0, 0};
    for (uint32_t id = 0; id < slice.size(); id++) {
      if (slice.track_id[id] != track)
        continue;
      actual.emplace_back(slice.ts[id], slice.dur[id]);
      depth_of[slice.depth[id]]++;
      const std::string name = imp.Str(slice.name[id]);
      ASSERT_EQ(name, slice.depth[id] == 0 ? "a" : slice.depth[id] == 1 ? "b" : "c") << id;
    }
    EXPECT_EQ(actual, expected[raw.sequence_of_tid.at(tid)]) << "thread " << t;
    EXPECT_EQ(depth_of[0], kRounds);
    EXPECT_EQ(depth_of[1], kRounds);
    EXPECT_EQ(depth_of[2], kRounds);
  }
  // The counter: one track, every value of every thread.
  const uint32_t progress = imp.TrackNamed("progress");
  ASSERT_NE(progress, kNullId);
  EXPECT_EQ(imp.s().counter.size(), static_cast<size_t>(kThreads * kRounds));
  std::map<double, int> values;
  for (size_t i = 0; i < imp.s().counter.size(); i++) {
    EXPECT_EQ(imp.s().counter.track_id[i], progress);
    values[imp.s().counter.value[i]]++;
    if (i > 0) {
      EXPECT_GE(imp.s().counter.ts[i], imp.s().counter.ts[i - 1]);
    }
  }
  ASSERT_EQ(values.size(), static_cast<size_t>(kRounds));
  for (const auto& v : values)
    EXPECT_EQ(v.second, kThreads) << v.first;
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
  unlink(path);
  ASSERT_TRUE(storage) << error;
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
  EXPECT_EQ(storage->args.size(), static_cast<size_t>(kPhases * kPerPhase));
}

}  // namespace
}  // namespace zt
