// What the track-event tests share (track_event_test.cc,
// track_event_threads_test.cc): the categories they use, a reader of the
// trace as upstream's processor reads it (per-sequence validity, interned
// names, the incremental clock, track descriptors) and a fixture that
// records through the in-process backend.

#ifndef ZT_TEST_TRACK_EVENT_TEST_SUPPORT_H_
#define ZT_TEST_TRACK_EVENT_TEST_SUPPORT_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/tracing/sdk/track_event_clock.h"
#include "zt/config/data_source_config.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/config/track_event/track_event_config.pb.h"
#include "zt/trace/trace.pb.h"
#include "zt/tracing/tracing.h"
#include "zt/tracing/track_event.h"

// Defined in track_event_test.cc.
ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(0),
                      zt::Category{"test"},
                      zt::Category{"gfx"}.SetDescription("Graphics"),
                      zt::Category{"gfx.debug"}.SetTags("debug"),
                      zt::Category{"slow.thing"}.SetTags("slow"));
ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(5), zt::Category{"net"});

namespace zt {
namespace track_event_test {

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
  // Each annotation's key and its value's exact bytes (the DebugAnnotation
  // serialized without its name), in order.
  std::vector<std::pair<std::string, std::string>> exact_args;
  std::vector<uint64_t> key_iids;  // Each annotation's name_iid (0: inline).
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
inline std::string RenderAnnotationValue(const protos::DebugAnnotation& a) {
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

inline ReadTrace Read(const std::vector<char>& bytes) {
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
      protos::DebugAnnotation value = a;
      value.clear_name();
      value.clear_name_iid();
      event.exact_args.emplace_back(key, value.SerializeAsString());
      event.key_iids.push_back(a.name_iid());
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

inline std::string SerializeTrackEventConfig(const std::vector<std::string>& enabled,
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
  // The fast paths write only when the clock is a conversion of the
  // time-stamp counter; for its first 10 ms a process reads
  // clock_gettime (the counter's rate is being measured), and a test that
  // ran then would test only the simple paths. Bounded: 1 s. Without an
  // invariant counter the clock never is a conversion (nothing to wait
  // for).
  static void WaitForTheClocksConversion() {
    using internal::TrackEventClock;
    if (!TrackEventClock::UsesTimeStampCounter())
      return;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    uint64_t now = 0;
    while (!TrackEventClock::TryNowNs(&now)) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline)
          << "the track event clock never became a conversion";
      TrackEventClock::NowNs();  // Renews the thread's anchor when it may.
    }
  }

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
    WaitForTheClocksConversion();
    body();
    session->StopBlocking();
    ReadTrace read = Read(session->ReadTraceBlocking());
    EXPECT_EQ(read.problems, std::vector<std::string>());
    return read;
  }
};

}  // namespace track_event_test
}  // namespace zt

#endif  // ZT_TEST_TRACK_EVENT_TEST_SUPPORT_H_
