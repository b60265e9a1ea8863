#include "src/processor/importers/track_tracker.h"

#include <string>

#include "zt/protozero/proto_decoder.h"

namespace zt {
namespace processor {
namespace {

// TrackDescriptor fields (docs/wire.md).
constexpr uint32_t kDescUuid = 1;
constexpr uint32_t kDescName = 2;
constexpr uint32_t kDescProcess = 3;
constexpr uint32_t kDescThread = 4;
constexpr uint32_t kDescParentUuid = 5;
constexpr uint32_t kDescCounter = 8;
constexpr uint32_t kDescStaticName = 10;  // The name oneof: name, static_name,
constexpr uint32_t kDescAtraceName = 13;  // atrace_name; a reader takes any.
constexpr uint32_t kDescState = 18;
// ProcessDescriptor.
constexpr uint32_t kDescProcessPid = 1;
constexpr uint32_t kDescProcessCmdline = 2;
constexpr uint32_t kDescProcessName = 6;
// ThreadDescriptor.
constexpr uint32_t kDescThreadPid = 1;
constexpr uint32_t kDescThreadTid = 2;
constexpr uint32_t kDescThreadName = 5;
// CounterDescriptor.
constexpr uint32_t kDescCounterUnit = 3;
constexpr uint32_t kDescCounterUnitMultiplier = 4;
constexpr uint32_t kDescCounterIsIncremental = 5;
constexpr uint32_t kDescCounterUnitName = 6;

// A parent chain longer than this is a cycle or garbage.
constexpr int kDescMaxTrackDepth = 32;

const char* CounterUnitName(uint64_t unit) {
  switch (unit) {
    case 1:
      return "ns";
    case 2:
      return "count";
    case 3:
      return "bytes";
  }
  return nullptr;
}

}  // namespace

TrackTracker::TrackTracker(TraceStorage* storage) : storage_(storage) {
  // Upstream's placeholder rows: upid 0 and utid 0 stand for "none".
  storage_->process.pid.push_back(0);
  storage_->process.name.push_back(kNullStringId);
  storage_->process.cmdline.push_back(kNullStringId);
  storage_->process.start_ts.push_back(kNullInt);
  storage_->process.parent_upid.push_back(kNullId);
  storage_->thread.tid.push_back(0);
  storage_->thread.name.push_back(kNullStringId);
  storage_->thread.upid.push_back(0);
  storage_->thread.start_ts.push_back(kNullInt);
  storage_->thread.is_main_thread.push_back(2);
}

bool TrackTracker::OnTrackDescriptor(protozero::ConstBytes bytes) {
  protozero::ProtoDecoder decoder(bytes);
  uint64_t uuid = 0;
  Descriptor parsed;
  std::string_view name, process_name, cmdline, thread_name, unit_name;
  bool has_name = false;
  uint64_t unit = 0;
  for (protozero::Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
    switch (f.id()) {
      case kDescUuid:
        uuid = f.as_uint64();
        break;
      case kDescName:
      case kDescStaticName:
      case kDescAtraceName:
        name = f.as_string();
        has_name = true;
        break;
      case kDescParentUuid:
        parsed.parent_uuid = f.as_uint64();
        break;
      case kDescProcess: {
        parsed.is_process = true;
        protozero::ProtoDecoder process(f.as_bytes());
        for (protozero::Field p = process.ReadField(); p.valid(); p = process.ReadField()) {
          if (p.id() == kDescProcessPid)
            parsed.pid = p.as_int32();
          else if (p.id() == kDescProcessName)
            process_name = p.as_string();
          else if (p.id() == kDescProcessCmdline && cmdline.empty())
            cmdline = p.as_string();  // The first: argv[0].
        }
        break;
      }
      case kDescThread: {
        parsed.is_thread = true;
        protozero::ProtoDecoder thread(f.as_bytes());
        for (protozero::Field t = thread.ReadField(); t.valid(); t = thread.ReadField()) {
          if (t.id() == kDescThreadPid)
            parsed.pid = t.as_int32();
          else if (t.id() == kDescThreadTid)
            parsed.tid = t.as_int32();
          else if (t.id() == kDescThreadName)
            thread_name = t.as_string();
        }
        break;
      }
      case kDescState:
        parsed.is_state = true;
        break;
      case kDescCounter: {
        parsed.is_counter = true;
        protozero::ProtoDecoder counter(f.as_bytes());
        for (protozero::Field c = counter.ReadField(); c.valid(); c = counter.ReadField()) {
          if (c.id() == kDescCounterUnit)
            unit = c.as_uint64();
          else if (c.id() == kDescCounterUnitName)
            unit_name = c.as_string();
          else if (c.id() == kDescCounterUnitMultiplier)
            parsed.counter.unit_multiplier = c.as_int64();
          else if (c.id() == kDescCounterIsIncremental)
            parsed.counter.is_incremental = c.as_bool();
        }
        break;
      }
      default:
        break;
    }
  }
  if (decoder.parse_error() || uuid == 0)
    return false;
  if (has_name)
    parsed.name = storage_->strings.Intern(name);
  if (!unit_name.empty())
    parsed.unit = storage_->strings.Intern(unit_name);
  else if (const char* builtin = CounterUnitName(unit))
    parsed.unit = storage_->strings.Intern(builtin);
  if (parsed.counter.unit_multiplier == 0)
    parsed.counter.unit_multiplier = 1;

  if (parsed.is_process) {
    const uint32_t upid = GetOrCreateProcess(parsed.pid);
    if (!process_name.empty())
      storage_->process.name[upid] = storage_->strings.Intern(process_name);
    if (!cmdline.empty())
      storage_->process.cmdline[upid] = storage_->strings.Intern(cmdline);
  }
  if (parsed.is_thread) {
    const uint32_t utid = GetOrCreateThread(parsed.tid, parsed.pid);
    if (!thread_name.empty())
      storage_->thread.name[utid] = storage_->strings.Intern(thread_name);
  }

  Descriptor& stored = descriptors_[uuid];
  const uint32_t track_id = stored.track_id;
  stored = parsed;
  stored.uuid = uuid;
  stored.track_id = track_id;
  if (track_id != kNullId && has_name)
    storage_->track.name[track_id] = parsed.name;
  return true;
}

uint32_t TrackTracker::LookUpTrack(uint64_t uuid) {
  auto it = descriptors_.find(uuid);
  if (it == descriptors_.end())
    return kNullId;
  if (it->second.track_id != kNullId)
    return it->second.track_id;
  return MakeTrack(&it->second, 0);
}

uint32_t TrackTracker::MakeTrack(Descriptor* descriptor, int depth) {
  if (descriptor->track_id != kNullId)
    return descriptor->track_id;
  const uint64_t uuid = descriptor->uuid;
  if (descriptor->is_thread && !descriptor->is_counter && !descriptor->is_state) {
    const uint32_t utid = GetOrCreateThread(descriptor->tid, descriptor->pid);
    descriptor->track_id = ThreadTrack(utid);
    return descriptor->track_id;
  }
  // The parent first: its thread or process scopes this track.
  uint32_t parent_id = kNullId;
  uint32_t utid = kNullId;
  uint32_t upid = kNullId;
  if (descriptor->is_process) {
    upid = GetOrCreateProcess(descriptor->pid);
  } else if (descriptor->is_thread) {  // A thread's counter or state track.
    utid = GetOrCreateThread(descriptor->tid, descriptor->pid);
    upid = storage_->thread.upid[utid];
  } else if (descriptor->parent_uuid != 0 && depth < kDescMaxTrackDepth) {
    auto parent = descriptors_.find(descriptor->parent_uuid);
    if (parent != descriptors_.end() && &parent->second != descriptor) {
      parent_id = MakeTrack(&parent->second, depth + 1);
      if (parent_id != kNullId) {
        utid = storage_->track.utid[parent_id];
        upid = storage_->track.upid[parent_id];
      }
    }
  }
  if (descriptor->is_process && !descriptor->is_counter && !descriptor->is_state) {
    auto existing = process_track_by_upid_.find(upid);
    if (existing != process_track_by_upid_.end()) {
      descriptor->track_id = existing->second;
      return existing->second;
    }
  }
  TrackKind kind = TrackKind::kGlobal;
  if (descriptor->is_counter)
    kind = TrackKind::kCounter;
  else if (utid != kNullId)
    kind = TrackKind::kThread;
  else if (upid != kNullId)
    kind = TrackKind::kProcess;
  // Upstream v58's names for these blueprints. Sibling tracks of one name
  // stay separate here (upstream merges them into "*_merged_track_event"
  // tracks by default): the non-merged names say so.
  const char* const scope = utid != kNullId ? "thread" : upid != kNullId ? "process" : "global";
  const std::string type = std::string(scope) +
                           (descriptor->is_counter ? "_counter_track_event"
                            : descriptor->is_state ? "_state_track_event"
                                                   : "_track_event");
  const uint32_t track_id =
      AddTrackRow(descriptor->name, kind, utid, upid, parent_id, uuid, descriptor->unit,
                  storage_->strings.Intern(type), AddDimensions(utid, upid, uuid, kNullStringId));
  descriptor->track_id = track_id;
  if (descriptor->is_process && !descriptor->is_counter && !descriptor->is_state)
    process_track_by_upid_[upid] = track_id;
  if (descriptor->is_counter)
    counter_info_[track_id] = descriptor->counter;
  if (descriptor->is_state) {
    if (track_id >= is_state_track_.size())
      is_state_track_.resize(track_id + 1, false);
    is_state_track_[track_id] = true;
  }
  return track_id;
}

uint32_t TrackTracker::ThreadTrack(uint32_t utid) {
  auto it = thread_track_by_utid_.find(utid);
  if (it != thread_track_by_utid_.end())
    return it->second;
  const uint32_t track_id =
      AddTrackRow(kNullStringId, TrackKind::kThread, utid, storage_->thread.upid[utid], kNullId,
                  0, kNullStringId, storage_->strings.Intern("thread_execution"),
                  AddDimensions(utid, kNullId, 0, kNullStringId));
  thread_track_by_utid_[utid] = track_id;
  return track_id;
}

TrackTracker::CounterInfo* TrackTracker::MutableCounterInfo(uint32_t track_id) {
  auto it = counter_info_.find(track_id);
  return it == counter_info_.end() ? nullptr : &it->second;
}

uint32_t TrackTracker::AddTrackRow(StringId name, TrackKind kind, uint32_t utid,
                                   uint32_t upid, uint32_t parent_id, uint64_t uuid,
                                   StringId unit, StringId type, uint32_t dimensions) {
  return storage_->track.AddRow(name, kind, utid, upid == 0 ? kNullId : upid, parent_id, uuid,
                                unit, type, dimensions);
}

uint32_t TrackTracker::AddTrack(StringId name, TrackKind kind, uint32_t utid, uint32_t upid,
                                const char* type, StringId name_dimension) {
  return AddTrackRow(name, kind, utid, upid, kNullId, 0, kNullStringId,
                     storage_->strings.Intern(type),
                     AddDimensions(utid, utid == kNullId ? upid : kNullId, 0, name_dimension));
}

// The track's dimensions as an arg set, keyed as upstream keys them.
uint32_t TrackTracker::AddDimensions(uint32_t utid, uint32_t upid, uint64_t uuid,
                                     StringId name) {
  if (utid == kNullId && (upid == kNullId || upid == 0) && uuid == 0 && name == kNullStringId)
    return kNullId;
  ArgTable& args = storage_->args;
  const uint32_t set = storage_->next_arg_set_id++;
  auto add = [&](const char* key, ArgType type, int64_t int_value, StringId string_value) {
    const StringId key_id = storage_->strings.Intern(key);
    args.arg_set_id.push_back(set);
    args.flat_key.push_back(key_id);
    args.key.push_back(key_id);
    args.value_type.push_back(type);
    args.int_value.push_back(int_value);
    args.string_value.push_back(string_value);
    args.real_value.push_back(0);
  };
  if (utid != kNullId)
    add("utid", ArgType::kInt, utid, kNullStringId);
  else if (upid != kNullId && upid != 0)
    add("upid", ArgType::kInt, upid, kNullStringId);
  if (uuid != 0)
    add("track_uuid", ArgType::kInt, static_cast<int64_t>(uuid), kNullStringId);
  if (name != kNullStringId)
    add("name", ArgType::kString, 0, name);
  return set;
}

uint32_t TrackTracker::AddProcessRow(int64_t pid) {
  ProcessTable& process = storage_->process;
  const uint32_t upid = static_cast<uint32_t>(process.size());
  process.pid.push_back(pid);
  process.name.push_back(kNullStringId);
  process.cmdline.push_back(kNullStringId);
  process.start_ts.push_back(kNullInt);
  process.parent_upid.push_back(kNullId);
  return upid;
}

uint32_t TrackTracker::AddThreadRow(int64_t tid, uint32_t upid, uint8_t is_main_thread) {
  ThreadTable& thread = storage_->thread;
  const uint32_t utid = static_cast<uint32_t>(thread.size());
  thread.tid.push_back(tid);
  thread.name.push_back(kNullStringId);
  thread.upid.push_back(upid);
  thread.start_ts.push_back(kNullInt);
  thread.is_main_thread.push_back(is_main_thread);
  return utid;
}

uint32_t TrackTracker::GetOrCreateProcess(int64_t pid) {
  auto it = upid_by_pid_.find(pid);
  if (it != upid_by_pid_.end())
    return it->second;
  const uint32_t upid = AddProcessRow(pid);
  upid_by_pid_[pid] = upid;
  return upid;
}

uint32_t TrackTracker::GetOrCreateThread(int64_t tid, int64_t pid) {
  auto it = utid_by_tid_.find(tid);
  ThreadTable& thread = storage_->thread;
  if (it != utid_by_tid_.end()) {
    if (pid != 0 && thread.upid[it->second] == kNullId)
      thread.upid[it->second] = GetOrCreateProcess(pid);
    return it->second;
  }
  const uint32_t upid = pid != 0 ? GetOrCreateProcess(pid) : kNullId;
  const uint32_t utid = AddThreadRow(tid, upid, pid != 0 ? (pid == tid ? 1 : 0) : 2);
  utid_by_tid_[tid] = utid;
  return utid;
}

}  // namespace processor
}  // namespace zt
