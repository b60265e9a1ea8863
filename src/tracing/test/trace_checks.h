// Checks of a whole trace against what upstream's readers rely on
// (docs/wire.md, "What readers rely on"): the service's own packets, their
// header, order and contents, and the loss marks on producer sequences.
// Each check returns the problems it found, one line each; a test asserts
// the list is empty, so a failure says exactly what is wrong.

#ifndef ZT_SRC_TRACING_TEST_TRACE_CHECKS_H_
#define ZT_SRC_TRACING_TEST_TRACE_CHECKS_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace zt {
namespace test {

// What a trace holds, packet by packet (TracePacket bytes).
using Packets = std::vector<std::vector<uint8_t>>;

struct ServicePacketCounts {
  size_t clock_snapshots = 0;
  size_t sync_markers = 0;
  size_t configs = 0;
  size_t uuids = 0;
  size_t system_infos = 0;
  size_t stats = 0;
  // TracingServiceEvent field number -> how many.
  std::map<uint32_t, size_t> events;
  size_t producer_packets = 0;
};

ServicePacketCounts CountServicePackets(const Packets& packets);

// The rules for the complete trace of a session that ran and stopped (read
// to the end, or its whole file):
//  * every service packet (sequence 1) has trusted_uid and, but for the
//    sync marker, timestamp_clock_id BOOTTIME;
//  * the first packet is a clock snapshot; every snapshot has
//    primary_trace_clock, BOOTTIME, no clock twice, and BOOTTIME never
//    goes back from one snapshot to the next;
//  * exactly one TraceConfig, TraceUuid and SystemInfo, before the first
//    producer packet; the SystemInfo's version parses as "Perfetto vNN"
//    with NN >= 54;
//  * tracing_started comes before the first producer packet, and
//    tracing_disabled is there once, followed by no service packet but
//    read_tracing_buffers_completed and TraceStats;
//  * sync markers are the 16 marker bytes;
//  * TraceStats come right after read_tracing_buffers_completed, and the
//    trace ends with one.
std::vector<std::string> CheckServicePackets(const Packets& packets);

}  // namespace test
}  // namespace zt

#endif  // ZT_SRC_TRACING_TEST_TRACE_CHECKS_H_
