// Helpers of the SDK-trace tests of the processor
// (processor_sdk_trace_test.cc, processor_sdk_sequences_test.cc): record a
// session in-process with our SDK, read the raw trace with libprotobuf (what
// the writer did), import it with ImportTrace and read the tables (what the
// importer made of it). Issue 12, "Tests and proof".
//
// Explicit timestamps (zt::TraceTimestamp, BOOTTIME, the trace clock) make
// ts and dur exact; events at "now" are checked against what the raw
// packets say and against BOOTTIME read around them. Every wait is bounded
// and says what it waited for.

#ifndef ZT_TEST_PROCESSOR_SDK_TRACE_UTIL_H_
#define ZT_TEST_PROCESSOR_SDK_TRACE_UTIL_H_

#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "src/processor/importers/trace_importer.h"
#include "src/processor/storage/trace_storage.h"
#include "zt/config/trace_config.gen.h"
#include "zt/config/track_event/track_event_config.pb.h"
#include "zt/trace/trace.pb.h"
#include "zt/tracing/tracing.h"
#include "zt/tracing/track_event.h"

// Defined in processor_sdk_trace_test.cc.
ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(0),
                      zt::Category{"test"},
                      zt::Category{"gfx"},
                      zt::Category{"net"});

namespace zt {
namespace sdk_trace_test {

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

inline int64_t Tid() { return static_cast<int64_t>(syscall(SYS_gettid)); }

inline uint64_t BootTimeNs() {
  timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

inline std::string CategoriesConfig(const std::vector<std::string>& enabled) {
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

inline RawFacts ReadRaw(const std::vector<char>& bytes) {
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

inline std::vector<RawEvent> RawEvents(const std::vector<char>& bytes) {
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

inline std::vector<int64_t> RawEventTimes(const std::vector<char>& bytes) {
  std::vector<int64_t> out;
  for (const RawEvent& e : RawEvents(bytes))
    out.push_back(e.ts);
  return out;
}

// Every table, stat and string of two models, compared: the importer's
// one-thread and two-thread pass 2 must build the same model.
inline void ExpectSameModel(const TraceStorage& a, const TraceStorage& b) {
  ASSERT_EQ(a.strings.size(), b.strings.size());
  for (StringId id = 1; id < a.strings.size(); id++)
    ASSERT_EQ(a.strings.Get(id), b.strings.Get(id)) << id;
  EXPECT_EQ(a.process.pid, b.process.pid);
  EXPECT_EQ(a.process.name, b.process.name);
  EXPECT_EQ(a.thread.tid, b.thread.tid);
  EXPECT_EQ(a.thread.upid, b.thread.upid);
  EXPECT_EQ(a.thread.name, b.thread.name);
  EXPECT_EQ(a.track.name, b.track.name);
  EXPECT_EQ(a.track.kind, b.track.kind);
  EXPECT_EQ(a.track.utid, b.track.utid);
  EXPECT_EQ(a.track.upid, b.track.upid);
  EXPECT_EQ(a.track.parent_id, b.track.parent_id);
  EXPECT_EQ(a.track.uuid, b.track.uuid);
  EXPECT_EQ(a.slice.ts, b.slice.ts);
  EXPECT_EQ(a.slice.dur, b.slice.dur);
  EXPECT_EQ(a.slice.track_id, b.slice.track_id);
  EXPECT_EQ(a.slice.category, b.slice.category);
  EXPECT_EQ(a.slice.name, b.slice.name);
  EXPECT_EQ(a.slice.depth, b.slice.depth);
  EXPECT_EQ(a.slice.parent_id, b.slice.parent_id);
  EXPECT_EQ(a.slice.arg_set_id, b.slice.arg_set_id);
  EXPECT_EQ(a.counter.ts, b.counter.ts);
  EXPECT_EQ(a.counter.value, b.counter.value);
  EXPECT_EQ(a.counter.track_id, b.counter.track_id);
  EXPECT_EQ(a.flow.slice_out, b.flow.slice_out);
  EXPECT_EQ(a.flow.slice_in, b.flow.slice_in);
  EXPECT_EQ(a.args.arg_set_id, b.args.arg_set_id);
  EXPECT_EQ(a.args.key, b.args.key);
  EXPECT_EQ(a.args.value_type, b.args.value_type);
  EXPECT_EQ(a.args.int_value, b.args.int_value);
  EXPECT_EQ(a.args.string_value, b.args.string_value);
  EXPECT_EQ(a.metadata.name, b.metadata.name);
  EXPECT_EQ(a.metadata.int_value, b.metadata.int_value);
  for (int key = 0; key < processor::stats::kNumKeys; key++) {
    const auto k = static_cast<processor::stats::Key>(key);
    EXPECT_EQ(a.stats.Get(k), b.stats.Get(k)) << processor::stats::Describe(k).name;
    EXPECT_EQ(a.stats.GetIndexed(k), b.stats.GetIndexed(k)) << processor::stats::Describe(k).name;
  }
  ASSERT_EQ(a.data_losses.size(), b.data_losses.size());
  for (size_t i = 0; i < a.data_losses.size(); i++) {
    EXPECT_EQ(a.data_losses[i].sequence_id, b.data_losses[i].sequence_id);
    EXPECT_EQ(a.data_losses[i].offset, b.data_losses[i].offset);
    EXPECT_EQ(a.data_losses[i].ts, b.data_losses[i].ts);
  }
}

// Read access to an imported trace. Every trace is imported twice, with
// pass 2 on one thread and on two, and the models must be the same.
class Imported {
 public:
  explicit Imported(const std::vector<char>& trace) {
    result_ = processor::ImportTrace(trace.data(), trace.size(), &s_);
    processor::ImportOptions two_threads;
    two_threads.two_threads_min_bytes = 0;
    TraceStorage other;
    const ImportResult other_result =
        processor::ImportTrace(trace.data(), trace.size(), &other, two_threads);
    EXPECT_EQ(result_.packets_parsed, other_result.packets_parsed);
    EXPECT_EQ(result_.first_ts, other_result.first_ts);
    EXPECT_EQ(result_.last_ts, other_result.last_ts);
    ExpectSameModel(s_, other);
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

}  // namespace sdk_trace_test
}  // namespace zt

#endif  // ZT_TEST_PROCESSOR_SDK_TRACE_UTIL_H_
