// The packets the service writes into every trace itself, so that a reader
// has what it needs without asking anyone: the TraceConfig the session ran
// with, snapshots of the clocks (to relate timestamps across clock domains),
// a synchronization marker (to find packet boundaries in a damaged file),
// the trace's UUID, a description of the system, the service's lifecycle
// events and, at the end, the TraceStats (what was lost, and why). Each is a
// complete TracePacket on the service's own sequence, with the header
// upstream's readers expect (docs/wire.md): trusted_uid,
// trusted_packet_sequence_id 1 and timestamp_clock_id BOOTTIME (the sync
// marker has a fixed layout without the clock id). Which of them go into a
// trace, and when: SessionServicePackets (session_service_packets.h).

#ifndef ZT_SRC_TRACING_SERVICE_SERVICE_PACKETS_H_
#define ZT_SRC_TRACING_SERVICE_SERVICE_PACKETS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "zt/config/trace_config.gen.h"

namespace zt {

// BuiltinClock ids (zt/common/builtin_clock.proto).
constexpr uint32_t kClockRealtime = 1;
constexpr uint32_t kClockRealtimeCoarse = 2;
constexpr uint32_t kClockMonotonic = 3;
constexpr uint32_t kClockMonotonicCoarse = 4;
constexpr uint32_t kClockMonotonicRaw = 5;
constexpr uint32_t kClockBoottime = 6;

// One reading of every clock the service snapshots, (clock id, ns), BOOTTIME
// first; read as close together as the system allows.
using ClockReadings = std::array<std::pair<uint32_t, uint64_t>, 6>;
ClockReadings ReadClocks();
// True if some clock moved against BOOTTIME by |threshold_ns| or more
// between |older| and |newer| (a snapshot worth keeping).
bool ClocksDrifted(const ClockReadings& older, const ClockReadings& newer,
                   uint64_t threshold_ns);
uint64_t BoottimeNs();

// Each returns the encoded TracePacket, trusted fields included (|uid| is
// the service's own). O(size of the payload).
std::vector<uint8_t> MakeTraceConfigPacket(const protos::gen::TraceConfig& config,
                                           int32_t uid);
std::vector<uint8_t> MakeClockSnapshotPacket(const ClockReadings& clocks,
                                             uint32_t primary_trace_clock,
                                             int32_t uid);
std::vector<uint8_t> MakeSyncMarkerPacket(int32_t uid);
std::vector<uint8_t> MakeTraceUuidPacket(int64_t msb, int64_t lsb, int32_t uid);
// uname, page size, CPUs, RAM, and the service's version.
std::vector<uint8_t> MakeSystemInfoPacket(int32_t uid);
// A TracingServiceEvent with bool field |event_field| set, at |timestamp_ns|
// (BOOTTIME).
std::vector<uint8_t> MakeServiceEventPacket(uint32_t event_field,
                                            uint64_t timestamp_ns, int32_t uid);
// |stats|: an encoded TraceStats.
std::vector<uint8_t> MakeTraceStatsPacket(const std::vector<uint8_t>& stats,
                                          int32_t uid);

// The version the service reports in SystemInfo. Readers parse
// "Perfetto vNN" from it to know what the service does; zerotrace's service
// behaves as upstream's v54 does where readers look (a flush before every
// periodic file write), and says so (docs/wire.md).
const char* TracingServiceVersion();

// A random (version 4) UUID, as its two 64-bit halves.
std::pair<int64_t, int64_t> RandomUuid();

// Appends |packet| to |out| as one `Trace.packet` entry (field 1): the byte
// format of trace files and of ReadTrace results.
void AppendAsTracePacketField(const uint8_t* packet, size_t size,
                              std::vector<uint8_t>* out);

}  // namespace zt

#endif  // ZT_SRC_TRACING_SERVICE_SERVICE_PACKETS_H_
