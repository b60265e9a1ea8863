// Processes, threads and tracks: what TrackDescriptors (and the pids and
// tids they carry) say, turned into rows of `process`, `thread` and
// `track`.
//
// Descriptors are collected while the file is read (OnTrackDescriptor, in
// file order; the latest descriptor of a uuid wins, and writers repeat them
// after every clear) and the processes and threads they name get their rows
// at once. A track row is made the first time an event uses its uuid
// (TrackForUuid, after sorting), so `track` holds the tracks that have
// something on them, parents included. Thread descriptors of one thread
// share one thread track, as upstream's. Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_TRACK_TRACKER_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_TRACK_TRACKER_H_

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "src/processor/storage/trace_storage.h"
#include "zt/protozero/field.h"

namespace zt {
namespace processor {

class TrackTracker {
 public:
  explicit TrackTracker(TraceStorage* storage);

  // Returns false (and records nothing) for a descriptor that does not
  // decode or has no uuid.
  bool OnTrackDescriptor(protozero::ConstBytes descriptor);

  // The track of `uuid`, made on first use; kNullId if no descriptor has
  // that uuid.
  uint32_t TrackForUuid(uint64_t uuid) {
    // Runs of events on one track are the rule (a thread's default track).
    if (uuid == last_uuid_ && last_track_ != kNullId)
      return last_track_;
    const uint32_t track = LookUpTrack(uuid);
    last_uuid_ = uuid;
    last_track_ = track;
    return track;
  }
  // The default thread track of a thread (legacy events without uuid).
  uint32_t ThreadTrack(uint32_t utid);

  bool IsCounterTrack(uint32_t track_id) const {
    return storage_->track.kind[track_id] == TrackKind::kCounter;
  }
  // A descriptor with `state` set: its events are TYPE_STATE changes.
  bool IsStateTrack(uint32_t track_id) const {
    return track_id < is_state_track_.size() && is_state_track_[track_id];
  }
  // Counter descriptors may ask for deltas (is_incremental) and a unit
  // multiplier; the parser applies them.
  struct CounterInfo {
    bool is_incremental = false;
    int64_t unit_multiplier = 1;
    double last_value = 0;
  };
  CounterInfo* MutableCounterInfo(uint32_t track_id);

  uint32_t GetOrCreateProcess(int64_t pid);
  uint32_t GetOrCreateThread(int64_t tid, int64_t pid);

  // Rows made unconditionally, for importers that key processes and
  // threads their own way (JSON: a thread is its pid and tid, and either
  // may be a string).
  uint32_t AddProcessRow(int64_t pid);
  // is_main_thread: 0, 1, or 2 for unknown.
  uint32_t AddThreadRow(int64_t tid, uint32_t upid, uint8_t is_main_thread);
  // A track of upstream v58 blueprint `type` ("thread_execution",
  // "json_counter", ...), with its dimensions (utid, else upid; and
  // `name_dimension` when the name keys it) as an arg set.
  uint32_t AddTrack(StringId name, TrackKind kind, uint32_t utid, uint32_t upid,
                    const char* type, StringId name_dimension = kNullStringId);

 private:
  struct Descriptor {
    uint64_t uuid = 0;
    uint64_t parent_uuid = 0;
    StringId name = kNullStringId;
    bool is_process = false;
    bool is_thread = false;
    bool is_counter = false;
    bool is_state = false;
    int64_t pid = 0;
    int64_t tid = 0;
    StringId unit = kNullStringId;
    CounterInfo counter;
    uint32_t track_id = kNullId;  // Once made.
  };

  uint32_t LookUpTrack(uint64_t uuid);
  uint32_t MakeTrack(Descriptor* descriptor, int depth);
  uint32_t AddTrackRow(StringId name, TrackKind kind, uint32_t utid, uint32_t upid,
                       uint32_t parent_id, uint64_t uuid, StringId unit, StringId type,
                       uint32_t dimensions);
  uint32_t AddDimensions(uint32_t utid, uint32_t upid, uint64_t uuid, StringId name);

  TraceStorage* const storage_;
  std::unordered_map<uint64_t, Descriptor> descriptors_;
  std::unordered_map<int64_t, uint32_t> upid_by_pid_;
  std::unordered_map<int64_t, uint32_t> utid_by_tid_;
  std::unordered_map<uint32_t, uint32_t> thread_track_by_utid_;
  std::unordered_map<uint32_t, uint32_t> process_track_by_upid_;
  std::unordered_map<uint32_t, CounterInfo> counter_info_;
  std::vector<bool> is_state_track_;  // Index: track id.
  uint64_t last_uuid_ = 0;
  uint32_t last_track_ = kNullId;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_TRACK_TRACKER_H_
