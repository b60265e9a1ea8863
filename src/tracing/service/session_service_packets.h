// SessionServicePackets: what the service writes into one session's trace
// by itself, and when, in the order upstream's service writes them (what
// upstream's trace processor reads; docs/wire.md):
//
//   every read:   clock snapshots (the one taken at start, once; then those
//                 kept since the last read), a synchronization marker if
//                 the periodic task ran since the last read;
//   first read:   the TraceConfig, the TraceUuid, the SystemInfo;
//   every read:   the lifecycle events recorded since the last read, by
//                 timestamp (tracing_started, all_data_sources_started,
//                 flush_started, all_data_sources_flushed,
//                 tracing_disabled);
//                 ... the data ...
//   a read that drains the buffers: read_tracing_buffers_completed, then the
//                 TraceStats if the periodic task ran since the last ones,
//                 or, once the session stopped, the final TraceStats.
//
// Clock snapshots are taken at start, by the periodic task (at start, then
// every snapshot_interval_ms, default 10 s), when all data sources started,
// at every completed flush and at stop; one is kept if none is pending or
// some clock drifted 10 ms or more against BOOTTIME since the last kept one
// (at most 16 pending). The config's builtin_data_sources switches each
// kind off, and primary_trace_clock goes into every snapshot.
//
// Threading: the service's task runner, like the service.

#ifndef ZT_SRC_TRACING_SERVICE_SESSION_SERVICE_PACKETS_H_
#define ZT_SRC_TRACING_SERVICE_SESSION_SERVICE_PACKETS_H_

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "src/tracing/service/service_packets.h"
#include "zt/config/trace_config.gen.h"

namespace zt {

class SessionServicePackets {
 public:
  // Receives one encoded TracePacket; false stops the emission (what was
  // not emitted stays due).
  using Sink = std::function<bool(const std::vector<uint8_t>& packet)>;

  static constexpr uint32_t kDefaultSnapshotIntervalMs = 10000;
  static constexpr uint64_t kSnapshotDriftNs = 10 * 1000 * 1000;
  static constexpr size_t kMaxPendingSnapshots = 16;
  static constexpr size_t kMaxFlushEvents = 64;

  SessionServicePackets(const protos::gen::TraceConfig& config, int32_t uid);

  // What happened, as it happens.
  void OnStarted();
  void OnAllDataSourcesStarted();
  void OnFlushStarted();
  void OnFlushed();
  void OnDisabled();
  // The periodic task: a snapshot, a sync marker and stats become due.
  void OnPeriodicTask();
  // An encoded packet made elsewhere (a trigger's), emitted with the next
  // read's service packets.
  void AddPacket(std::vector<uint8_t> packet) { extra_.push_back(std::move(packet)); }
  size_t pending_packets() const { return extra_.size() - extra_emitted_; }
  uint32_t snapshot_interval_ms() const;

  // The packets due before the data of a read, in order. False if |sink|
  // refused one.
  bool EmitBeforeData(const Sink& sink);
  // After a read that drained every buffer: read_tracing_buffers_completed.
  bool EmitAfterDrain(const Sink& sink);
  // Whether a TraceStats packet should end this drained read; |stopped|:
  // the session is stopped (the final stats, once).
  bool StatsDue(bool stopped) const;
  void OnStatsEmitted(bool stopped);

  int64_t uuid_msb() const { return uuid_.first; }
  int64_t uuid_lsb() const { return uuid_.second; }
  // A clone's TraceUuid keeps its source's low half, as upstream's does
  // (readers tie a clone back to what started its source with it).
  void set_uuid_lsb(int64_t lsb) { uuid_.second = lsb; }

 private:
  void TakeSnapshot();
  void RecordEvent(uint32_t event_field, uint64_t timestamp_ns);

  const protos::gen::TraceConfig config_;
  const int32_t uid_;
  bool snapshots_enabled_ = true;
  bool config_enabled_ = true;
  bool system_info_enabled_ = true;
  bool events_enabled_ = true;
  uint32_t primary_clock_ = kClockBoottime;
  uint32_t snapshot_interval_ms_ = kDefaultSnapshotIntervalMs;
  std::pair<int64_t, int64_t> uuid_;

  bool have_initial_snapshot_ = false;
  bool initial_snapshot_emitted_ = false;
  ClockReadings initial_snapshot_{};
  std::vector<ClockReadings> snapshots_;  // Pending, oldest first.
  bool have_last_kept_ = false;
  ClockReadings last_kept_{};
  bool sync_marker_due_ = false;
  bool config_emitted_ = false;
  bool uuid_emitted_ = false;
  bool system_info_emitted_ = false;
  // (timestamp, event field), recorded since the last read, in timestamp
  // order (equal times in the order recorded).
  std::vector<std::pair<uint64_t, uint32_t>> events_;
  std::vector<std::vector<uint8_t>> extra_;  // AddPacket(), oldest first.
  size_t extra_emitted_ = 0;                  // Of extra_, taken by a sink.
  bool stats_due_ = false;
  bool final_stats_emitted_ = false;
};

}  // namespace zt

#endif  // ZT_SRC_TRACING_SERVICE_SESSION_SERVICE_PACKETS_H_
