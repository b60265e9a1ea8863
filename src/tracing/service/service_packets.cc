#include "src/tracing/service/service_packets.h"

#include <time.h>

#include <string>

#include "zt/ext/tracing/core/tracing_service.h"
#include "zt/protozero/proto_utils.h"
#include "zt/protozero/scattered_heap_buffer.h"
#include "zt/trace/clock_snapshot.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {

namespace {

using protos::pbzero::TracePacket;

constexpr uint32_t kTraceConfigField = 33;
constexpr uint32_t kTraceStatsField = 35;

void SetServiceFields(TracePacket* packet, int32_t uid) {
  packet->set_trusted_uid(uid);
  packet->set_trusted_packet_sequence_id(kServicePacketSequenceId);
}

uint64_t ReadClockNs(clockid_t clock) {
  struct timespec ts = {};
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

std::vector<uint8_t> MakeTraceConfigPacket(const protos::gen::TraceConfig& config,
                                           int32_t uid) {
  protozero::HeapBuffered<TracePacket> packet;
  const std::string bytes = config.SerializeAsString();
  packet->AppendBytes(kTraceConfigField, bytes.data(), bytes.size());
  SetServiceFields(packet.get(), uid);
  return packet.SerializeAsArray();
}

std::vector<uint8_t> MakeClockSnapshotPacket(int32_t uid) {
  // Values of zt.protos.BuiltinClock.
  struct {
    clockid_t clock;
    uint32_t id;
  } const kClocks[] = {
      {CLOCK_BOOTTIME, 6},       {CLOCK_MONOTONIC, 3},
      {CLOCK_MONOTONIC_RAW, 5},  {CLOCK_MONOTONIC_COARSE, 4},
      {CLOCK_REALTIME, 1},       {CLOCK_REALTIME_COARSE, 2},
  };
  uint64_t values[sizeof(kClocks) / sizeof(kClocks[0])];
  for (size_t i = 0; i < sizeof(kClocks) / sizeof(kClocks[0]); i++)
    values[i] = ReadClockNs(kClocks[i].clock);
  protozero::HeapBuffered<TracePacket> packet;
  packet->set_timestamp(values[0]);  // BOOTTIME, the trace's default clock.
  auto* snapshot = packet->set_clock_snapshot();
  for (size_t i = 0; i < sizeof(kClocks) / sizeof(kClocks[0]); i++) {
    auto* clock = snapshot->add_clocks();
    clock->set_clock_id(kClocks[i].id);
    clock->set_timestamp(values[i]);
  }
  SetServiceFields(packet.get(), uid);
  return packet.SerializeAsArray();
}

std::vector<uint8_t> MakeTraceStatsPacket(const protos::gen::TraceStats& stats,
                                          int32_t uid) {
  protozero::HeapBuffered<TracePacket> packet;
  const std::string bytes = stats.SerializeAsString();
  packet->AppendBytes(kTraceStatsField, bytes.data(), bytes.size());
  SetServiceFields(packet.get(), uid);
  return packet.SerializeAsArray();
}

void AppendAsTracePacketField(const std::vector<uint8_t>& packet,
                              std::vector<uint8_t>* out) {
  namespace pu = protozero::proto_utils;
  uint8_t header[pu::kMaxSimpleFieldEncodedSize];
  uint8_t* p = pu::WriteVarInt(pu::MakeTagLengthDelimited(1), header);
  p = pu::WriteVarInt(packet.size(), p);
  out->insert(out->end(), header, p);
  out->insert(out->end(), packet.begin(), packet.end());
}

}  // namespace zt
