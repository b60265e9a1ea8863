// What a track event sequence writes besides its events (see
// track_event_descriptors.h), and the identity of tracks and flows.

#include "src/tracing/sdk/track_event_descriptors.h"

#include <pthread.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "src/tracing/sdk/intern_table.h"
#include "src/tracing/sdk/track_event_clock.h"
#include "zt/trace/clock_snapshot.pbzero.h"
#include "zt/trace/trace_packet_defaults.pbzero.h"
#include "zt/trace/track_event/counter_descriptor.pbzero.h"
#include "zt/trace/track_event/process_descriptor.pbzero.h"
#include "zt/trace/track_event/state_descriptor.pbzero.h"
#include "zt/trace/track_event/thread_descriptor.pbzero.h"
#include "zt/trace/track_event/track_descriptor.pbzero.h"
#include "zt/trace/track_event/track_event.pbzero.h"

namespace zt {
namespace internal {
namespace {

// The process name and command line, from /proc/self/cmdline.
struct ProcessInfo {
  std::string name;
  std::vector<std::string> cmdline;
};

const ProcessInfo& GetProcessInfo() {
  static const ProcessInfo* info = [] {
    auto* result = new ProcessInfo();
    FILE* f = fopen("/proc/self/cmdline", "rb");
    if (f) {
      std::string all;
      char buf[4096];
      for (size_t n; (n = fread(buf, 1, sizeof(buf), f)) > 0;)
        all.append(buf, n);
      fclose(f);
      for (size_t pos = 0; pos < all.size();) {
        size_t end = all.find('\0', pos);
        if (end == std::string::npos)
          end = all.size();
        result->cmdline.push_back(all.substr(pos, end - pos));
        pos = end + 1;
      }
    }
    if (!result->cmdline.empty())
      result->name = result->cmdline[0];
    return result;
  }();
  return *info;
}

}  // namespace

uint64_t CurrentTid() { return static_cast<uint64_t>(syscall(SYS_gettid)); }

uint64_t ProcessUuid() {
  static const uint64_t uuid = [] {
    uint64_t value = 0;
    if (getrandom(&value, sizeof(value), 0) != sizeof(value) || value == 0) {
      value = MixUuid(static_cast<uint64_t>(getpid()), BootTimeNs());
    }
    return value;
  }();
  return uuid;
}

namespace {

void WriteThreadDescriptor(TrackEventSequence* seq) {
  auto packet = seq->TakePacket();
  packet->set_sequence_flags(kNeedsStateFlag);
  auto* track = packet->set_track_descriptor();
  track->set_uuid(ThreadTrack().uuid());
  track->set_parent_uuid(ProcessUuid());
  auto* thread = track->set_thread();
  thread->set_pid(static_cast<int32_t>(getpid()));
  thread->set_tid(static_cast<int64_t>(seq->tid));
  char name[64] = {};
  if (pthread_getname_np(pthread_self(), name, sizeof(name)) == 0 && name[0])
    thread->set_thread_name(name);
}

void WriteProcessDescriptor(TrackEventSequence* seq) {
  auto packet = seq->TakePacket();
  packet->set_sequence_flags(kNeedsStateFlag);
  auto* track = packet->set_track_descriptor();
  track->set_uuid(ProcessUuid());
  auto* process = track->set_process();
  process->set_pid(static_cast<int32_t>(getpid()));
  const ProcessInfo& info = GetProcessInfo();
  for (const std::string& arg : info.cmdline)
    process->add_cmdline(arg);
  if (!info.name.empty())
    process->set_process_name(info.name);
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
  auto packet = seq->TakePacket();
  packet->set_sequence_flags(kNeedsStateFlag);
  auto* desc = packet->set_track_descriptor();
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

}  // namespace internal

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
