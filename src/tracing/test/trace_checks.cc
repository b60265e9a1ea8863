#include "src/tracing/test/trace_checks.h"

#include <cstring>
#include <set>

#include "zt/common/system_info.pbzero.h"
#include "zt/protozero/proto_decoder.h"
#include "zt/trace/clock_snapshot.pbzero.h"
#include "zt/trace/perfetto/tracing_service_event.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {
namespace test {

namespace {

using protos::pbzero::TracePacket_Decoder;

constexpr uint32_t kServiceSequence = 1;
constexpr uint32_t kBoottime = 6;
constexpr uint32_t kTracingStarted = 2;
constexpr uint32_t kReadTracingBuffersCompleted = 4;
constexpr uint32_t kTracingDisabled = 5;
constexpr uint8_t kSyncMarker[16] = {0x82, 0x47, 0x7a, 0x76, 0xb2, 0x8d, 0x42, 0xba,
                                     0x81, 0xdc, 0x33, 0x32, 0x6d, 0x57, 0xa0, 0x79};

// The service event's field number, or 0.
uint32_t EventField(const TracePacket_Decoder& packet) {
  if (!packet.has_service_event())
    return 0;
  protozero::ProtoDecoder event(packet.service_event().data, packet.service_event().size);
  const protozero::Field f = event.ReadField();
  return f.valid() ? f.id() : 0;
}

// "Perfetto vNN..." -> NN, or -1.
int ServiceMajorVersion(const std::string& version) {
  const std::string prefix = "Perfetto v";
  if (version.compare(0, prefix.size(), prefix) != 0)
    return -1;
  int major = 0;
  size_t i = prefix.size();
  for (; i < version.size() && version[i] >= '0' && version[i] <= '9'; i++)
    major = major * 10 + (version[i] - '0');
  const bool terminated = i < version.size() && (version[i] == '.' || version[i] == '-');
  return i > prefix.size() && terminated ? major : -1;
}

}  // namespace

ServicePacketCounts CountServicePackets(const Packets& packets) {
  ServicePacketCounts counts;
  for (const auto& bytes : packets) {
    TracePacket_Decoder p(bytes.data(), bytes.size());
    if (p.trusted_packet_sequence_id() != kServiceSequence) {
      counts.producer_packets++;
      continue;
    }
    counts.clock_snapshots += p.has_clock_snapshot();
    counts.sync_markers += p.has_synchronization_marker();
    counts.configs += p.has_trace_config();
    counts.uuids += p.has_trace_uuid();
    counts.system_infos += p.has_system_info();
    counts.stats += p.has_trace_stats();
    if (const uint32_t event = EventField(p))
      counts.events[event]++;
  }
  return counts;
}

std::vector<std::string> CheckServicePackets(const Packets& packets) {
  std::vector<std::string> problems;
  auto problem = [&](size_t index, const std::string& what) {
    problems.push_back("packet " + std::to_string(index) + ": " + what);
  };
  if (packets.empty())
    return {"the trace is empty"};
  bool seen_producer = false;
  bool disabled = false;
  bool have_boottime = false;
  uint64_t last_boottime = 0;
  uint32_t previous_event = 0;
  for (size_t i = 0; i < packets.size(); i++) {
    TracePacket_Decoder p(packets[i].data(), packets[i].size());
    if (p.trusted_packet_sequence_id() != kServiceSequence) {
      seen_producer = true;
      previous_event = 0;
      continue;
    }
    if (!p.has_trusted_uid())
      problem(i, "a service packet without trusted_uid");
    if (p.has_synchronization_marker()) {
      const protozero::ConstBytes marker = p.synchronization_marker();
      if (marker.size != sizeof(kSyncMarker) || memcmp(marker.data, kSyncMarker, marker.size))
        problem(i, "a sync marker that is not the 16 marker bytes");
    } else if (p.timestamp_clock_id() != kBoottime) {
      problem(i, "a service packet without timestamp_clock_id BOOTTIME");
    }
    if (i == 0 && !p.has_clock_snapshot())
      problem(i, "the first packet is not a clock snapshot");
    if (p.has_clock_snapshot()) {
      protos::pbzero::ClockSnapshot_Decoder snapshot(p.clock_snapshot());
      if (!snapshot.has_primary_trace_clock())
        problem(i, "a clock snapshot without primary_trace_clock");
      std::set<uint32_t> ids;
      bool boottime_here = false;
      for (auto it = snapshot.clocks(); it; ++it) {
        protos::pbzero::ClockSnapshot_Clock_Decoder clock(*it);
        if (!ids.insert(clock.clock_id()).second)
          problem(i, "clock " + std::to_string(clock.clock_id()) + " twice in a snapshot");
        if (clock.clock_id() == kBoottime) {
          boottime_here = true;
          if (have_boottime && clock.timestamp() < last_boottime)
            problem(i, "BOOTTIME goes back from one snapshot to the next");
          have_boottime = true;
          last_boottime = clock.timestamp();
        }
      }
      if (!boottime_here)
        problem(i, "a clock snapshot without BOOTTIME");
    }
    if ((p.has_trace_config() || p.has_trace_uuid() || p.has_system_info()) && seen_producer)
      problem(i, "config, uuid or system info after producer data");
    if (p.has_system_info()) {
      protos::pbzero::SystemInfo_Decoder info(p.system_info());
      const std::string version(info.tracing_service_version());
      if (ServiceMajorVersion(version) < 54)
        problem(i, "a tracing_service_version readers do not take as v54 or later: \"" +
                       version + "\"");
    }
    const uint32_t event = EventField(p);
    // After tracing_disabled: the rest of the data, then the end of the
    // read and the stats; nothing else of the service's.
    if (disabled && event != kReadTracingBuffersCompleted && !p.has_trace_stats())
      problem(i, "a service packet after tracing_disabled");
    disabled |= event == kTracingDisabled;
    if (event == kTracingStarted && seen_producer)
      problem(i, "tracing_started after producer data");
    if (p.has_trace_stats() && previous_event != kReadTracingBuffersCompleted)
      problem(i, "TraceStats not right after read_tracing_buffers_completed");
    previous_event = event;
  }
  ServicePacketCounts counts = CountServicePackets(packets);
  if (counts.configs != 1)
    problems.push_back(std::to_string(counts.configs) + " TraceConfig packets, not 1");
  if (counts.uuids != 1)
    problems.push_back(std::to_string(counts.uuids) + " TraceUuid packets, not 1");
  if (counts.system_infos != 1)
    problems.push_back(std::to_string(counts.system_infos) + " SystemInfo packets, not 1");
  if (counts.sync_markers == 0)
    problems.push_back("no sync marker");
  if (counts.events[kTracingStarted] != 1)
    problems.push_back("tracing_started not there once");
  if (counts.events[kTracingDisabled] != 1)
    problems.push_back("tracing_disabled not there once");
  TracePacket_Decoder last(packets.back().data(), packets.back().size());
  if (!last.has_trace_stats())
    problems.push_back("the trace does not end with TraceStats");
  return problems;
}

}  // namespace test
}  // namespace zt
