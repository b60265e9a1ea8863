// What a track event sequence writes besides its events (see
// track_event_descriptors.h), and the identity of tracks and flows.

#include "src/tracing/sdk/track_event_descriptors.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "src/tracing/sdk/intern_table.h"
#include "src/tracing/sdk/track_event_clock.h"
#include "zt/protozero/scattered_heap_buffer.h"
#include "zt/trace/clock_snapshot.pbzero.h"
#include "zt/trace/trace_packet_defaults.pbzero.h"
#include "zt/trace/track_event/counter_descriptor.pbzero.h"
#include "zt/trace/track_event/process_descriptor.pbzero.h"
#include "zt/trace/track_event/state_descriptor.pbzero.h"
#include "zt/trace/track_event/thread_descriptor.pbzero.h"
#include "zt/trace/track_event/track_descriptor.pbzero.h"
#include "zt/trace/track_event/track_event.pbzero.h"
#include "zt/tracing/track_event_control.h"

namespace zt {
namespace internal {
namespace {

// Descriptors set by SetTrackDescriptor(), sorted by track uuid (a
// binary search: a program describes a few tracks; a sorted vector keeps
// <unordered_map> out of this per-event unit's compile). Looked up only
// where a descriptor is written (a sequence's reset, a track's first use
// on a sequence), and not at all until one is set.
struct TrackDescriptorOverrides {
  std::mutex mutex;
  std::vector<std::pair<uint64_t, std::string>> by_uuid;

  std::vector<std::pair<uint64_t, std::string>>::iterator LowerBound(uint64_t uuid) {
    return std::lower_bound(
        by_uuid.begin(), by_uuid.end(), uuid,
        [](const std::pair<uint64_t, std::string>& entry, uint64_t key) {
          return entry.first < key;
        });
  }
};
std::atomic<bool> g_any_descriptor_override{false};

TrackDescriptorOverrides& Overrides() {
  static TrackDescriptorOverrides* overrides = new TrackDescriptorOverrides();  // Leaked:
  return *overrides;  // threads may describe tracks while the process exits.
}

bool FindOverride(uint64_t uuid, std::string* serialized) {
  if (!g_any_descriptor_override.load(std::memory_order_acquire))
    return false;
  TrackDescriptorOverrides& overrides = Overrides();
  std::lock_guard<std::mutex> lock(overrides.mutex);
  auto it = overrides.LowerBound(uuid);
  if (it == overrides.by_uuid.end() || it->first != uuid)
    return false;
  *serialized = it->second;
  return true;
}

// A packet whose track_descriptor is |uuid|'s override, if it has one.
bool WriteOverride(TrackEventSequence* seq, uint64_t uuid) {
  std::string serialized;
  if (!FindOverride(uuid, &serialized))
    return false;
  auto packet = seq->TakePacket();
  packet->set_sequence_flags(kNeedsStateFlag);
  packet->AppendBytes(protos::pbzero::TracePacket::kTrackDescriptorFieldNumber,
                      serialized.data(), serialized.size());
  return true;
}

void FillThreadDescriptor(protos::pbzero::TrackDescriptor* track, uint64_t tid) {
  track->set_uuid(ThreadTrack().uuid());
  track->set_parent_uuid(ProcessUuid());
  auto* thread = track->set_thread();
  thread->set_pid(static_cast<int32_t>(getpid()));
  thread->set_tid(static_cast<int64_t>(tid));
  char name[64] = {};
  if (pthread_getname_np(pthread_self(), name, sizeof(name)) == 0 && name[0])
    thread->set_thread_name(name);
}


void FillTrackDescriptor(protos::pbzero::TrackDescriptor* desc, const Track& track,
                         uint64_t uuid) {
  desc->set_uuid(uuid);
  desc->set_parent_uuid(track.parent_uuid() ? track.parent_uuid() : ProcessUuid());
  if (track.name())
    desc->set_name(track.name());
  if (track.kind() == Track::Kind::kCounter) {
    auto* counter = desc->set_counter();
    const char* unit = static_cast<const CounterTrack&>(track).unit();
    if (unit)
      counter->set_unit_name(unit);
  } else if (track.kind() == Track::Kind::kState) {
    desc->set_state();  // Present and empty: what marks a state track.
  }
}

void WriteThreadDescriptor(TrackEventSequence* seq) {
  if (WriteOverride(seq, ThreadTrack().uuid()))
    return;
  auto packet = seq->TakePacket();
  packet->set_sequence_flags(kNeedsStateFlag);
  FillThreadDescriptor(packet->set_track_descriptor(), seq->tid);
}

void WriteProcessDescriptor(TrackEventSequence* seq) {
  if (WriteOverride(seq, ProcessUuid()))
    return;
  auto packet = seq->TakePacket();
  packet->set_sequence_flags(kNeedsStateFlag);
  FillProcessDescriptor(packet->set_track_descriptor());
}

}  // namespace

// The packets that start (or restart) a sequence's incremental state: the
// defaults (timestamps on clock 64 as deltas, events on the thread's
// track), the clock snapshot tying clock 64 to BOOTTIME, and the thread
// and process descriptors.
void ResetSequence(TrackEventSequence* seq, uint64_t now) {
  TrackEventIncrementalState* incremental = seq->incremental;
  if (seq->tid == 0)
    seq->tid = CurrentTid();
  const uint64_t unit = seq->timestamp_unit;
  {
    auto packet = seq->TakePacket();
    packet->set_sequence_flags(kClearedFlag);
    packet->set_timestamp(now);
    packet->set_timestamp_clock_id(kBootTimeClockId);
    auto* defaults = packet->set_trace_packet_defaults();
    // Absolute times (unit 0) are on the trace clock, BOOTTIME: no default.
    if (unit != 0)
      defaults->set_timestamp_clock_id(kIncrementalClockId);
    defaults->set_track_event_defaults()->set_track_uuid(ThreadTrack().uuid());
    if (unit != 0) {
      auto* snapshot = packet->set_clock_snapshot();
      auto* boottime = snapshot->add_clocks();
      boottime->set_clock_id(kBootTimeClockId);
      boottime->set_timestamp(now);
      auto* incremental_clock = snapshot->add_clocks();
      incremental_clock->set_clock_id(kIncrementalClockId);
      incremental_clock->set_timestamp(now / unit);
      incremental_clock->set_is_incremental(true);
      incremental_clock->set_unit_multiplier_ns(unit);
    }
  }
  WriteThreadDescriptor(seq);
  WriteProcessDescriptor(seq);
  incremental->was_cleared = false;
  incremental->last_timestamp = unit != 0 ? now / unit : now;
}

void WriteTrackDescriptor(TrackEventSequence* seq, const Track& track,
                          uint64_t uuid) {
  if (WriteOverride(seq, uuid))
    return;
  auto packet = seq->TakePacket();
  packet->set_sequence_flags(kNeedsStateFlag);
  FillTrackDescriptor(packet->set_track_descriptor(), track, uuid);
}

void RewriteDescriptor(TrackEventSequence* seq, const Track& track, bool sequence_was_current) {
  switch (track.kind()) {
    case Track::Kind::kProcess:
      // A sequence made current just now wrote it in its reset.
      if (sequence_was_current)
        WriteProcessDescriptor(seq);
      return;
    case Track::Kind::kThread:
      if (sequence_was_current)
        WriteThreadDescriptor(seq);
      return;
    case Track::Kind::kCustom:
    case Track::Kind::kCounter:
    case Track::Kind::kState:
      break;
  }
  const uint64_t uuid = track.uuid();
  bool is_new = false;
  seq->incremental->described_tracks.Intern(uuid, &is_new);
  WriteTrackDescriptor(seq, track, uuid);
}

// The uuid of |spec|'s track (0: the thread's, the default), writing its
// descriptor first if this sequence has not described it yet.
uint64_t ResolveTrack(TrackEventSequence* seq, const EventSpec& spec) {
  if (!spec.track)
    return spec.track_uuid;
  switch (spec.track->kind()) {
    case Track::Kind::kThread:
      return 0;
    case Track::Kind::kProcess:
      return ProcessUuid();  // Described at every reset.
    case Track::Kind::kCustom:
    case Track::Kind::kCounter:
    case Track::Kind::kState:
      break;
  }
  const uint64_t uuid = spec.track->uuid();
  bool is_new = false;
  seq->incremental->described_tracks.Intern(uuid, &is_new);
  if (is_new)
    WriteTrackDescriptor(seq, *spec.track, uuid);
  return uuid;
}

// The SDK's own descriptor of |track|, encoded.
std::string EncodeDefaultTrackDescriptor(const Track& track) {
  protozero::HeapBuffered<protos::pbzero::TrackDescriptor> desc;
  switch (track.kind()) {
    case Track::Kind::kProcess:
      FillProcessDescriptor(desc.get());
      break;
    case Track::Kind::kThread:
      FillThreadDescriptor(desc.get(), CurrentTid());
      break;
    case Track::Kind::kCustom:
    case Track::Kind::kCounter:
    case Track::Kind::kState:
      FillTrackDescriptor(desc.get(), track, track.uuid());
      break;
  }
  return desc.SerializeAsString();
}

void StoreTrackDescriptorOverride(uint64_t uuid, std::string serialized) {
  TrackDescriptorOverrides& overrides = Overrides();
  std::lock_guard<std::mutex> lock(overrides.mutex);
  auto it = overrides.LowerBound(uuid);
  const bool found = it != overrides.by_uuid.end() && it->first == uuid;
  if (serialized.empty()) {
    if (found)
      overrides.by_uuid.erase(it);
  } else if (found) {
    it->second = std::move(serialized);
  } else {
    overrides.by_uuid.emplace(it, uuid, std::move(serialized));
  }
  g_any_descriptor_override.store(!overrides.by_uuid.empty(), std::memory_order_release);
}

}  // namespace internal

std::string DefaultTrackDescriptor(const Track& track) {
  return internal::EncodeDefaultTrackDescriptor(track);
}

// Public value types.
uint64_t Track::uuid() const {
  switch (kind_) {
    case Kind::kProcess:
      return internal::ProcessUuid();
    case Kind::kThread:
      return internal::CurrentTid() ^ internal::ProcessUuid();
    case Kind::kCustom:
      return internal::MixUuid(id_, parent_uuid_ ? parent_uuid_ : internal::ProcessUuid());
    case Kind::kCounter:  // Named: the same name is the same track.
      return internal::MixUuid(
          (name_ ? internal::HashName(name_) : 0) ^ 0x636f756e746572ull,  // "counter"
          internal::ProcessUuid());
    case Kind::kState:
      return internal::MixUuid(id_ ^ 0x7374617465ull,  // "state"
                               internal::ProcessUuid());
  }
  return 0;
}

namespace internal {
size_t StringLength(const char* str) { return str ? strlen(str) : 0; }
}  // namespace internal

DynamicString::DynamicString(const char* str)
    : value(str), length(str ? strlen(str) : 0) {}

Flow Flow::ProcessScoped(uint64_t id) {
  return Flow{internal::MixUuid(id, internal::ProcessUuid())};
}
TerminatingFlow TerminatingFlow::ProcessScoped(uint64_t id) {
  return TerminatingFlow{internal::MixUuid(id, internal::ProcessUuid())};
}

}  // namespace zt
