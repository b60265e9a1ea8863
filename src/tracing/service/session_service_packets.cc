#include "src/tracing/service/session_service_packets.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace zt {

namespace {

// TracingServiceEvent fields (zt/trace/perfetto/tracing_service_event.proto).
constexpr uint32_t kAllDataSourcesStarted = 1;
constexpr uint32_t kTracingStarted = 2;
constexpr uint32_t kAllDataSourcesFlushed = 3;
constexpr uint32_t kReadTracingBuffersCompleted = 4;
constexpr uint32_t kTracingDisabled = 5;
constexpr uint32_t kFlushStarted = 9;

}  // namespace

SessionServicePackets::SessionServicePackets(const protos::gen::TraceConfig& config,
                                             int32_t uid)
    : config_(config), uid_(uid) {
  if (config.has_builtin_data_sources()) {
    const auto& builtin = config.builtin_data_sources();
    snapshots_enabled_ = !builtin.disable_clock_snapshotting();
    config_enabled_ = !builtin.disable_trace_config();
    system_info_enabled_ = !builtin.disable_system_info();
    events_enabled_ = !builtin.disable_service_events();
    if (builtin.primary_trace_clock())
      primary_clock_ = static_cast<uint32_t>(builtin.primary_trace_clock());
    if (builtin.snapshot_interval_ms())
      snapshot_interval_ms_ = builtin.snapshot_interval_ms();
  }
  // A UUID the consumer chose (perfetto's command line does) is kept.
  if (config.trace_uuid_msb() || config.trace_uuid_lsb())
    uuid_ = {config.trace_uuid_msb(), config.trace_uuid_lsb()};
  else
    uuid_ = RandomUuid();
}

uint32_t SessionServicePackets::snapshot_interval_ms() const {
  return snapshot_interval_ms_;
}

void SessionServicePackets::TakeSnapshot() {
  if (!snapshots_enabled_)
    return;
  const ClockReadings now = ReadClocks();
  if (!snapshots_.empty() && have_last_kept_ &&
      !ClocksDrifted(last_kept_, now, kSnapshotDriftNs)) {
    return;  // Nothing a reader would learn from it.
  }
  if (snapshots_.size() == kMaxPendingSnapshots)
    snapshots_.erase(snapshots_.begin());
  snapshots_.push_back(now);
  last_kept_ = now;
  have_last_kept_ = true;
}

void SessionServicePackets::RecordEvent(uint32_t event_field, uint64_t timestamp_ns) {
  if (!events_enabled_)
    return;
  if (event_field == kFlushStarted || event_field == kAllDataSourcesFlushed) {
    // The flushes keep their history (bounded); other kinds their latest.
    const size_t count = static_cast<size_t>(
        std::count_if(events_.begin(), events_.end(),
                      [&](const auto& e) { return e.second == event_field; }));
    if (count == kMaxFlushEvents) {
      events_.erase(std::find_if(events_.begin(), events_.end(),
                                 [&](const auto& e) { return e.second == event_field; }));
    }
  } else {
    events_.erase(std::remove_if(events_.begin(), events_.end(),
                                 [&](const auto& e) { return e.second == event_field; }),
                  events_.end());
  }
  // Kept in timestamp order as they come (after any of the same time), so
  // that emitting needs no sort: std::stable_sort's merge machinery was 3 KB
  // of this -Os control-plane unit's code, for a list of a few events.
  auto it = events_.end();
  while (it != events_.begin() && std::prev(it)->first > timestamp_ns)
    --it;
  events_.insert(it, std::make_pair(timestamp_ns, event_field));
}

void SessionServicePackets::OnStarted() {
  if (snapshots_enabled_ && !have_initial_snapshot_) {
    initial_snapshot_ = ReadClocks();
    have_initial_snapshot_ = true;
  }
  RecordEvent(kTracingStarted, BoottimeNs());
}

void SessionServicePackets::OnAllDataSourcesStarted() {
  TakeSnapshot();
  RecordEvent(kAllDataSourcesStarted, BoottimeNs());
}

void SessionServicePackets::OnFlushStarted() { RecordEvent(kFlushStarted, BoottimeNs()); }

void SessionServicePackets::OnFlushed() {
  TakeSnapshot();
  RecordEvent(kAllDataSourcesFlushed, BoottimeNs());
}

void SessionServicePackets::OnDisabled() {
  TakeSnapshot();
  RecordEvent(kTracingDisabled, BoottimeNs());
}

void SessionServicePackets::OnPeriodicTask() {
  TakeSnapshot();
  sync_marker_due_ = true;
  stats_due_ = true;
}

bool SessionServicePackets::EmitBeforeData(const Sink& sink) {
  if (have_initial_snapshot_ && !initial_snapshot_emitted_) {
    if (!sink(MakeClockSnapshotPacket(initial_snapshot_, primary_clock_, uid_)))
      return false;
    initial_snapshot_emitted_ = true;
  }
  while (!snapshots_.empty()) {
    if (!sink(MakeClockSnapshotPacket(snapshots_.front(), primary_clock_, uid_)))
      return false;
    snapshots_.erase(snapshots_.begin());
  }
  if (sync_marker_due_) {
    if (!sink(MakeSyncMarkerPacket(uid_)))
      return false;
    sync_marker_due_ = false;
  }
  // Once each, in this order (each counts as done only once taken).
  if (config_enabled_ && !config_emitted_) {
    if (!sink(MakeTraceConfigPacket(config_, uid_)))
      return false;
    config_emitted_ = true;
  }
  if (!uuid_emitted_) {
    if (!sink(MakeTraceUuidPacket(uuid_.first, uuid_.second, uid_)))
      return false;
    uuid_emitted_ = true;
  }
  if (system_info_enabled_ && !system_info_emitted_) {
    if (!sink(MakeSystemInfoPacket(uid_)))
      return false;
    system_info_emitted_ = true;
  }
  while (!events_.empty()) {  // In timestamp order (RecordEvent).
    if (!sink(MakeServiceEventPacket(events_.front().second, events_.front().first, uid_)))
      return false;
    events_.erase(events_.begin());
  }
  for (; extra_emitted_ < extra_.size(); extra_emitted_++) {
    if (!sink(extra_[extra_emitted_]))
      return false;
  }
  extra_.clear();
  extra_emitted_ = 0;
  return true;
}

bool SessionServicePackets::EmitAfterDrain(const Sink& sink) {
  if (!events_enabled_)
    return true;
  return sink(MakeServiceEventPacket(kReadTracingBuffersCompleted, BoottimeNs(), uid_));
}

bool SessionServicePackets::StatsDue(bool stopped) const {
  return stopped ? !final_stats_emitted_ : stats_due_;
}

void SessionServicePackets::OnStatsEmitted(bool stopped) {
  stats_due_ = false;
  if (stopped)
    final_stats_emitted_ = true;
}

}  // namespace zt
