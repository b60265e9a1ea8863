#include "src/tracing/service/service_packets.h"

#include <sys/random.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "zt/common/system_info.pbzero.h"
#include "zt/ext/tracing/core/tracing_service.h"
#include "zt/protozero/proto_utils.h"
#include "zt/protozero/scattered_heap_buffer.h"
#include "zt/trace/clock_snapshot.pbzero.h"
#include "zt/trace/perfetto/tracing_service_event.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/trace/trace_uuid.pbzero.h"

#ifndef ZT_VERSION
#define ZT_VERSION "unknown"
#endif

namespace zt {

namespace {

using protos::pbzero::TracePacket;

constexpr uint32_t kTraceConfigField = 33;
constexpr uint32_t kTraceStatsField = 35;
constexpr uint32_t kSyncMarkerField = 36;

// The 16 bytes of every synchronization marker (a wire fact: readers
// search damaged files for them).
constexpr uint8_t kSyncMarker[16] = {0x82, 0x47, 0x7a, 0x76, 0xb2, 0x8d, 0x42, 0xba,
                                     0x81, 0xdc, 0x33, 0x32, 0x6d, 0x57, 0xa0, 0x79};

void SetServiceHeader(TracePacket* packet, int32_t uid) {
  packet->set_trusted_uid(uid);
  packet->set_trusted_packet_sequence_id(kServicePacketSequenceId);
  packet->set_timestamp_clock_id(kClockBoottime);
}

uint64_t ReadClockNs(clockid_t clock) {
  struct timespec ts = {};
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

ClockReadings ReadClocks() {
  // The order upstream's service uses.
  struct {
    clockid_t clock;
    uint32_t id;
  } const kClocks[] = {
      {CLOCK_BOOTTIME, kClockBoottime},     {CLOCK_REALTIME_COARSE, kClockRealtimeCoarse},
      {CLOCK_MONOTONIC_COARSE, kClockMonotonicCoarse}, {CLOCK_REALTIME, kClockRealtime},
      {CLOCK_MONOTONIC, kClockMonotonic},   {CLOCK_MONOTONIC_RAW, kClockMonotonicRaw},
  };
  ClockReadings readings;
  for (size_t i = 0; i < readings.size(); i++)
    readings[i] = {kClocks[i].id, ReadClockNs(kClocks[i].clock)};
  return readings;
}

bool ClocksDrifted(const ClockReadings& older, const ClockReadings& newer,
                   uint64_t threshold_ns) {
  // Offsets against BOOTTIME (element 0), compared as signed differences.
  for (size_t i = 1; i < older.size(); i++) {
    const int64_t before = static_cast<int64_t>(older[i].second - older[0].second);
    const int64_t after = static_cast<int64_t>(newer[i].second - newer[0].second);
    const int64_t drift = after - before;
    if (static_cast<uint64_t>(drift < 0 ? -drift : drift) >= threshold_ns)
      return true;
  }
  return false;
}

uint64_t BoottimeNs() { return ReadClockNs(CLOCK_BOOTTIME); }

std::vector<uint8_t> MakeTraceConfigPacket(const protos::gen::TraceConfig& config,
                                           int32_t uid) {
  protozero::HeapBuffered<TracePacket> packet;
  const std::string bytes = config.SerializeAsString();
  packet->AppendBytes(kTraceConfigField, bytes.data(), bytes.size());
  SetServiceHeader(packet.get(), uid);
  return packet.SerializeAsArray();
}

std::vector<uint8_t> MakeClockSnapshotPacket(const ClockReadings& clocks,
                                             uint32_t primary_trace_clock,
                                             int32_t uid) {
  protozero::HeapBuffered<TracePacket> packet;
  auto* snapshot = packet->set_clock_snapshot();
  for (const auto& clock : clocks) {
    auto* c = snapshot->add_clocks();
    c->set_clock_id(clock.first);
    c->set_timestamp(clock.second);
  }
  snapshot->set_primary_trace_clock(
      static_cast<protos::pbzero::BuiltinClock>(primary_trace_clock));
  SetServiceHeader(packet.get(), uid);
  return packet.SerializeAsArray();
}

std::vector<uint8_t> MakeSyncMarkerPacket(int32_t uid) {
  // A fixed layout: uid, sequence id, marker (no clock id).
  protozero::HeapBuffered<TracePacket> packet;
  packet->set_trusted_uid(uid);
  packet->set_trusted_packet_sequence_id(kServicePacketSequenceId);
  packet->AppendBytes(kSyncMarkerField, kSyncMarker, sizeof(kSyncMarker));
  return packet.SerializeAsArray();
}

std::vector<uint8_t> MakeTraceUuidPacket(int64_t msb, int64_t lsb, int32_t uid) {
  protozero::HeapBuffered<TracePacket> packet;
  auto* uuid = packet->set_trace_uuid();
  uuid->set_msb(msb);
  uuid->set_lsb(lsb);
  SetServiceHeader(packet.get(), uid);
  return packet.SerializeAsArray();
}

std::vector<uint8_t> MakeSystemInfoPacket(int32_t uid) {
  protozero::HeapBuffered<TracePacket> packet;
  auto* info = packet->set_system_info();
  struct utsname names = {};
  if (uname(&names) == 0) {
    auto* u = info->set_utsname();
    u->set_sysname(names.sysname);
    u->set_version(names.version);
    u->set_release(names.release);
    u->set_machine(names.machine);
  }
  info->set_tracing_service_version(TracingServiceVersion());
  const long page_size = sysconf(_SC_PAGESIZE);
  if (page_size > 0)
    info->set_page_size(static_cast<uint32_t>(page_size));
  // No timezone_off_mins: finding it (localtime_r) pulls glibc's time-zone
  // database parser, ~140 KB, into every static program that links the
  // service; readers take a trace without it as UTC.
  const long cpus = sysconf(_SC_NPROCESSORS_CONF);
  if (cpus > 0)
    info->set_num_cpus(static_cast<uint32_t>(cpus));
  struct sysinfo system = {};
  if (sysinfo(&system) == 0)
    info->set_system_ram_bytes(static_cast<uint64_t>(system.totalram) * system.mem_unit);
  SetServiceHeader(packet.get(), uid);
  return packet.SerializeAsArray();
}

std::vector<uint8_t> MakeServiceEventPacket(uint32_t event_field,
                                            uint64_t timestamp_ns, int32_t uid) {
  protozero::HeapBuffered<TracePacket> packet;
  packet->set_timestamp(timestamp_ns);
  packet->set_service_event()->AppendVarInt(event_field, 1);
  SetServiceHeader(packet.get(), uid);
  return packet.SerializeAsArray();
}

std::vector<uint8_t> MakeTraceStatsPacket(const std::vector<uint8_t>& stats,
                                          int32_t uid) {
  protozero::HeapBuffered<TracePacket> packet;
  packet->AppendBytes(kTraceStatsField, stats.data(), stats.size());
  SetServiceHeader(packet.get(), uid);
  return packet.SerializeAsArray();
}

const char* TracingServiceVersion() {
  return "Perfetto v54.0 (zerotrace " ZT_VERSION ")";
}

std::pair<int64_t, int64_t> RandomUuid() {
  uint8_t bytes[16] = {};
  size_t got = 0;
  while (got < sizeof(bytes)) {
    const ssize_t n = getrandom(bytes + got, sizeof(bytes) - got, 0);
    if (n <= 0)
      break;  // No entropy source: the time-derived fallback below.
    got += static_cast<size_t>(n);
  }
  if (got < sizeof(bytes)) {
    const uint64_t now = BoottimeNs() ^ ReadClockNs(CLOCK_REALTIME);
    memcpy(bytes, &now, sizeof(now));
    const uint64_t pid = static_cast<uint64_t>(getpid()) * 0x9E3779B97F4A7C15ull;
    memcpy(bytes + 8, &pid, sizeof(pid));
  }
  bytes[6] = static_cast<uint8_t>((bytes[6] & 0x0F) | 0x40);  // Version 4.
  bytes[8] = static_cast<uint8_t>((bytes[8] & 0x3F) | 0x80);  // RFC 4122.
  uint64_t msb = 0, lsb = 0;
  for (int i = 0; i < 8; i++) {
    msb = (msb << 8) | bytes[i];
    lsb = (lsb << 8) | bytes[8 + i];
  }
  return {static_cast<int64_t>(msb), static_cast<int64_t>(lsb)};
}

void AppendAsTracePacketField(const uint8_t* packet, size_t size,
                              std::vector<uint8_t>* out) {
  namespace pu = protozero::proto_utils;
  uint8_t header[pu::kMaxSimpleFieldEncodedSize];
  uint8_t* p = pu::WriteVarInt(pu::MakeTagLengthDelimited(1), header);
  p = pu::WriteVarInt(size, p);
  out->insert(out->end(), header, p);
  out->insert(out->end(), packet, packet + size);
}

}  // namespace zt
