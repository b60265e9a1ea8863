// The packets the service writes into every trace itself, so that a reader
// has what it needs without asking anyone: the TraceConfig the session ran
// with, a snapshot of the clocks (to relate producers' timestamps across
// clock domains), and at the end the TraceStats (what was lost, and why).
// Each is a complete TracePacket on the service's own sequence.

#ifndef ZT_SRC_TRACING_SERVICE_SERVICE_PACKETS_H_
#define ZT_SRC_TRACING_SERVICE_SERVICE_PACKETS_H_

#include <cstdint>
#include <vector>

#include "zt/common/trace_stats.gen.h"
#include "zt/config/trace_config.gen.h"

namespace zt {

// Each returns the encoded TracePacket, trusted fields included (|uid| is
// the service's own). O(size of the payload).
std::vector<uint8_t> MakeTraceConfigPacket(const protos::gen::TraceConfig& config,
                                           int32_t uid);
// Reads the clocks now: BOOTTIME, MONOTONIC, MONOTONIC_RAW, REALTIME and the
// coarse variants, as close together as the system allows.
std::vector<uint8_t> MakeClockSnapshotPacket(int32_t uid);
std::vector<uint8_t> MakeTraceStatsPacket(const protos::gen::TraceStats& stats,
                                          int32_t uid);

// Appends |packet| to |out| as one `Trace.packet` entry (field 1): the byte
// format of trace files and of ReadTrace results.
void AppendAsTracePacketField(const std::vector<uint8_t>& packet,
                              std::vector<uint8_t>* out);

}  // namespace zt

#endif  // ZT_SRC_TRACING_SERVICE_SERVICE_PACKETS_H_
