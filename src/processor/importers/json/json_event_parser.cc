#include "src/processor/importers/json/json_event_parser.h"

#include <cmath>
#include <cstdlib>
#include <string>

namespace zt {
namespace processor {
namespace {

constexpr uint64_t kStringBit = uint64_t{1} << 63;

// A counter value written as a string: a whole decimal number, leniently
// (".75", "246.", "+1.5"), as strtod reads it.
bool ParseCounterString(std::string_view text, double* value) {
  if (text.empty() || text.size() > 64)
    return false;
  const std::string copy(text);
  char* end = nullptr;
  const double v = strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size())
    return false;
  // strtod also takes "inf", "nan" and hex floats; a counter string is decimal.
  for (char c : copy)
    if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
      return false;
  *value = v;
  return true;
}

}  // namespace

JsonEventParser::JsonEventParser(TraceStorage* storage, const std::vector<JsonArg>* args)
    : storage_(storage),
      args_(args),
      tracks_(storage),
      slices_(storage),
      no_name_(storage->strings.Intern("[No name]")),
      name_key_(storage->strings.Intern("args.name")),
      sort_index_key_(storage->strings.Intern("args.sort_index")) {}

uint32_t JsonEventParser::NewProcess(int64_t pid, bool is_string) {
  const uint32_t upid = tracks_.AddProcessRow(pid);
  if (is_string)
    storage_->process.name[upid] = static_cast<StringId>(pid);
  // As upstream: a process comes with its main thread.
  const uint32_t main_utid = tracks_.AddThreadRow(pid, upid, 1);
  utid_by_thread_[std::make_tuple(upid, is_string, pid)] = main_utid;
  return upid;
}

uint32_t JsonEventParser::ProcessOf(const JsonEvent& event) {
  const bool is_string = event.has(JsonEvent::kPidIsString);
  const uint64_t key = static_cast<uint64_t>(event.pid) | (is_string ? kStringBit : 0);
  auto it = upid_by_pid_.find(key);
  if (it != upid_by_pid_.end())
    return it->second;
  const uint32_t upid = NewProcess(event.pid, is_string);
  upid_by_pid_[key] = upid;
  return upid;
}

uint32_t JsonEventParser::ThreadOf(const JsonEvent& event) {
  const uint32_t upid = ProcessOf(event);
  int64_t tid = event.tid;
  bool tid_is_string = event.has(JsonEvent::kTidIsString);
  // No tid (or 0): the process's main thread, as upstream reads it.
  if (!tid_is_string && tid == 0 && event.pid != 0) {
    tid = event.pid;
    tid_is_string = event.has(JsonEvent::kPidIsString);
  }
  const auto key = std::make_tuple(upid, tid_is_string, tid);
  auto it = utid_by_thread_.find(key);
  if (it != utid_by_thread_.end())
    return it->second;
  const bool is_main = tid == event.pid && tid_is_string == event.has(JsonEvent::kPidIsString);
  const uint32_t utid = tracks_.AddThreadRow(tid, upid, is_main ? 1 : 0);
  if (tid_is_string)
    storage_->thread.name[utid] = static_cast<StringId>(tid);
  utid_by_thread_[key] = utid;
  return utid;
}

void JsonEventParser::Parse(const JsonEvent& event) {
  // Every event makes its process and thread, whatever its phase.
  const uint32_t utid = ThreadOf(event);
  switch (event.phase) {
    case 'B':
      ParseBegin(event, utid);
      return;
    case 'E':
      ParseEnd(event, utid);
      return;
    case 'X':
      ParseComplete(event, utid);
      return;
    case 'i':
    case 'I':
    case 'R':
      ParseInstant(event, utid);
      return;
    case 'C':
      ParseCounter(event, utid);
      return;
    case 'b':
    case 'e':
    case 'n':
      ParseAsync(event, utid);
      return;
    case 's':
    case 't':
    case 'f':
      ParseFlowV1(event, utid);
      return;
    case 'M':
      ParseMetadata(event, utid);
      return;
    default:
      // Upstream ignores the other phases (legacy async S/T/F, object
      // snapshots O/N/D, samples P, ...) without a stat; so do we, and the
      // design note lists them.
      return;
  }
}

uint32_t JsonEventParser::AddArgs(const JsonEvent& event) {
  if (event.args_count == 0)
    return kNullId;
  ArgTable& table = storage_->args;
  const uint32_t set = storage_->next_arg_set_id++;
  const uint32_t first = static_cast<uint32_t>(table.size());
  for (uint32_t i = 0; i < event.args_count; ++i) {
    const JsonArg& arg = (*args_)[event.args_begin + i];
    table.arg_set_id.push_back(set);
    table.flat_key.push_back(arg.flat_key);
    table.key.push_back(arg.key);
    table.value_type.push_back(arg.type);
    table.int_value.push_back(arg.int_value);
    table.string_value.push_back(arg.string_value);
    table.real_value.push_back(arg.real_value);
  }
  arg_set_rows_[set] = {first, event.args_count};
  return set;
}

// An end event's args join its begin's: the same key takes the end's value.
void JsonEventParser::MergeArgs(const JsonEvent& event, uint32_t slice_id) {
  if (event.args_count == 0)
    return;
  uint32_t& set = storage_->slice.arg_set_id[slice_id];
  if (set == kNullId) {
    set = AddArgs(event);
    return;
  }
  ArgTable& table = storage_->args;
  const std::pair<uint32_t, uint32_t> rows = arg_set_rows_[set];
  for (uint32_t i = 0; i < event.args_count; ++i) {
    const JsonArg& arg = (*args_)[event.args_begin + i];
    uint32_t row = kNullId;
    for (uint32_t r = rows.first; r < rows.first + rows.second; ++r) {
      if (table.key[r] == arg.key) {
        row = r;
        break;
      }
    }
    if (row == kNullId) {
      row = static_cast<uint32_t>(table.size());
      table.arg_set_id.push_back(set);
      table.flat_key.push_back(arg.flat_key);
      table.key.push_back(arg.key);
      table.value_type.push_back(arg.type);
      table.int_value.push_back(arg.int_value);
      table.string_value.push_back(arg.string_value);
      table.real_value.push_back(arg.real_value);
    } else {
      table.value_type[row] = arg.type;
      table.int_value[row] = arg.int_value;
      table.string_value[row] = arg.string_value;
      table.real_value[row] = arg.real_value;
    }
  }
}

const JsonArg* JsonEventParser::FindArg(const JsonEvent& event, StringId id) const {
  for (uint32_t i = 0; i < event.args_count; ++i) {
    const JsonArg& arg = (*args_)[event.args_begin + i];
    if (arg.key == id)
      return &arg;
  }
  return nullptr;
}

void JsonEventParser::AddFlow(uint32_t from_slice, uint32_t to_slice) {
  // The earlier slice is the flow's source, whichever event came first.
  if (storage_->slice.ts[to_slice] < storage_->slice.ts[from_slice])
    std::swap(from_slice, to_slice);
  storage_->flow.slice_out.push_back(from_slice);
  storage_->flow.slice_in.push_back(to_slice);
}

void JsonEventParser::OnSliceAdded(const JsonEvent& event, uint32_t slice_id,
                                   uint32_t track_id, bool v2_flows) {
  // v1 flow ends ("f" without "bp": "e") wait for the next slice.
  auto pending = pending_flow_ends_.find(track_id);
  if (pending != pending_flow_ends_.end()) {
    for (uint32_t source : pending->second)
      AddFlow(source, slice_id);
    pending_flow_ends_.erase(pending);
  }
  if (!v2_flows || !event.has(JsonEvent::kHasBindId))
    return;
  if (!event.has(JsonEvent::kBindIdValid))
    return;  // Upstream makes no flow of an id it cannot read, silently.
  const bool in = event.has(JsonEvent::kFlowIn);
  const bool out = event.has(JsonEvent::kFlowOut);
  if (!in && !out) {
    storage_->stats.Increment(stats::flow_without_direction);
    return;
  }
  if (in) {
    // An end leaves the flow open: one flow_out may reach several
    // flow_in slices, as upstream binds them.
    auto it = v2_flows_.find(event.bind_id);
    if (it == v2_flows_.end()) {
      storage_->stats.Increment(out ? stats::flow_step_without_start
                                    : stats::flow_end_without_start);
    } else {
      AddFlow(it->second, slice_id);
    }
  }
  if (out)
    v2_flows_[event.bind_id] = slice_id;
}

void JsonEventParser::ParseBegin(const JsonEvent& event, uint32_t utid) {
  const uint32_t track = tracks_.ThreadTrack(utid);
  const uint32_t id = slices_.Begin(event.ts, track, event.cat, NameOrPlaceholder(event.name),
                                    AddArgs(event), event.tts);
  if (id != kNullId)
    OnSliceAdded(event, id, track, /*v2_flows=*/true);
}

void JsonEventParser::ParseEnd(const JsonEvent& event, uint32_t utid) {
  const uint32_t track = tracks_.ThreadTrack(utid);
  const uint32_t id = slices_.End(event.ts, track, event.cat, event.name);
  if (id == kNullId)
    return;  // Nothing open matches: ignored, as upstream does.
  MergeArgs(event, id);
  SliceTable& slice = storage_->slice;
  if (event.tts != JsonEvent::kUnset && !slice.thread_ts.empty() && id < slice.thread_ts.size() &&
      slice.thread_ts[id] != kNullInt)
    slice.thread_dur[id] = event.tts - slice.thread_ts[id];
}

void JsonEventParser::ParseComplete(const JsonEvent& event, uint32_t utid) {
  if (event.dur == JsonEvent::kUnset) {
    storage_->stats.Increment(stats::json_parser_failure);
    return;
  }
  if (event.dur < 0) {
    storage_->stats.Increment(stats::slice_negative_duration);
    return;
  }
  const StringId name = NameOrPlaceholder(event.name);
  uint32_t track = tracks_.ThreadTrack(utid);
  bool overlaps = false;
  uint32_t id = slices_.Complete(event.ts, event.dur, track, event.cat, name, kNullId,
                                 event.tts, event.tdur, &overlaps);
  if (overlaps) {
    // It cannot nest on its thread's track: the first overflow track of
    // the thread where it does, or a new one.
    storage_->stats.Increment(stats::slice_spill_overlapping_complete_event);
    std::vector<uint32_t>& overflow = overflow_tracks_[utid];
    for (size_t i = 0; overlaps; ++i) {
      if (i == overflow.size())
        overflow.push_back(tracks_.AddTrack(kNullStringId, TrackKind::kThread, utid,
                                            storage_->thread.upid[utid],
                                            "thread_overlapping_slice"));
      track = overflow[i];
      id = slices_.Complete(event.ts, event.dur, track, event.cat, name, kNullId, event.tts,
                            event.tdur, &overlaps);
    }
  }
  if (id == kNullId)
    return;
  storage_->slice.arg_set_id[id] = AddArgs(event);
  OnSliceAdded(event, id, track, /*v2_flows=*/true);
}

void JsonEventParser::ParseInstant(const JsonEvent& event, uint32_t utid) {
  uint32_t track;
  StringId name = event.name;
  if (event.scope == 'g') {
    if (global_instant_track_ == kNullId)
      global_instant_track_ = tracks_.AddTrack(kNullStringId, TrackKind::kGlobal, kNullId,
                                               kNullId, "legacy_chrome_global_instants");
    track = global_instant_track_;
  } else if (event.scope == 'p') {
    if (!event.has(JsonEvent::kPidPresent)) {
      storage_->stats.Increment(stats::json_parser_failure);
      return;
    }
    const uint32_t upid = storage_->thread.upid[utid];
    auto it = process_instant_track_.find(upid);
    if (it == process_instant_track_.end())
      it = process_instant_track_
               .emplace(upid, tracks_.AddTrack(kNullStringId, TrackKind::kProcess, kNullId, upid,
                                               "chrome_process_instant"))
               .first;
    track = it->second;
  } else {
    if (!event.has(JsonEvent::kTidPresent)) {
      storage_->stats.Increment(stats::json_parser_failure);
      return;
    }
    track = tracks_.ThreadTrack(utid);
    name = NameOrPlaceholder(name);
  }
  bool overlaps = false;
  const uint32_t id = slices_.Complete(event.ts, 0, track, event.cat, name, AddArgs(event),
                                       event.tts, JsonEvent::kUnset, &overlaps);
  if (id != kNullId)
    OnSliceAdded(event, id, track, /*v2_flows=*/false);
}

void JsonEventParser::ParseCounter(const JsonEvent& event, uint32_t utid) {
  if (!event.has(JsonEvent::kHasArgs)) {
    storage_->stats.Increment(stats::json_parser_failure);
    return;
  }
  const uint32_t upid = storage_->thread.upid[utid];
  std::string prefix(storage_->strings.Get(event.name));
  if (event.has(JsonEvent::kIdIsString)) {
    prefix += " id: ";
    prefix += storage_->strings.Get(event.id_string);
  }
  prefix += ' ';
  for (uint32_t i = 0; i < event.args_count; ++i) {
    const JsonArg& arg = (*args_)[event.args_begin + i];
    double value;
    switch (arg.type) {
      case ArgType::kInt:
        value = static_cast<double>(arg.int_value);
        break;
      case ArgType::kReal:
        value = arg.real_value;
        break;
      case ArgType::kString:
        if (ParseCounterString(storage_->strings.Get(arg.string_value), &value))
          break;
        storage_->stats.Increment(stats::json_parser_failure);
        continue;
      default:
        storage_->stats.Increment(stats::json_parser_failure);
        continue;
    }
    // "args.<key>" names the track "<event name> <key>".
    std::string_view key = storage_->strings.Get(arg.key);
    key.remove_prefix(5);
    const StringId track_name = storage_->strings.Intern(prefix + std::string(key));
    auto it = counter_track_.find({upid, track_name});
    if (it == counter_track_.end())
      it = counter_track_
               .emplace(std::make_pair(upid, track_name),
                        tracks_.AddTrack(track_name, TrackKind::kCounter, kNullId, upid,
                                         "json_counter", track_name))
               .first;
    storage_->counter.ts.push_back(event.ts);
    storage_->counter.value.push_back(value);
    storage_->counter.track_id.push_back(it->second);
  }
}

// Async slices of one name share a track while they do not overlap;
// overlapping ones get more tracks of that name (upstream's lanes).
uint32_t JsonEventParser::AsyncTrack(const JsonEvent& event, uint32_t upid, bool begin,
                                     bool end) {
  const bool local = event.has(JsonEvent::kIdIsLocal);
  const bool id_is_string = event.has(JsonEvent::kIdIsString);
  const auto cookie_key = std::make_tuple(local ? upid : kNullId, event.cat, id_is_string,
                                          id_is_string ? uint64_t{event.id_string} : event.id);
  auto cookie_it = cookie_index_.find(cookie_key);
  if (cookie_it == cookie_index_.end()) {
    if (end)
      return kNullId;  // Nothing began with this id.
    // The first event of an id names its group.
    const auto group_key = std::make_pair(local ? upid : kNullId, event.name);
    auto group_it = group_index_.find(group_key);
    if (group_it == group_index_.end()) {
      group_it = group_index_.emplace(group_key, groups_.size()).first;
      groups_.push_back(AsyncGroup{event.name, {}});
    }
    AsyncCookie cookie;
    cookie.group = group_it->second;
    cookie_it = cookie_index_.emplace(cookie_key, cookies_.size()).first;
    cookies_.push_back(cookie);
  }
  const uint64_t cookie_id = cookie_it->second;
  AsyncCookie& cookie = cookies_[cookie_id];
  AsyncGroup& group = groups_[cookie.group];
  std::vector<AsyncLane>& lanes = group.lanes;
  const bool holds_lane = cookie.lane != SIZE_MAX && lanes[cookie.lane].cookie_index == cookie_id;
  if (!holds_lane) {
    if (end)
      return kNullId;
    size_t free_lane = SIZE_MAX;
    for (size_t i = 0; i < lanes.size(); ++i) {
      if (lanes[i].nesting == 0) {
        free_lane = i;
        break;
      }
    }
    if (free_lane == SIZE_MAX) {
      AsyncLane lane;
      lane.track_id = tracks_.AddTrack(
          group.name, local ? TrackKind::kProcess : TrackKind::kGlobal, kNullId,
          local ? upid : kNullId,
          local ? "legacy_async_process_slice" : "legacy_async_global_slice", group.name);
      lane.nesting = 0;
      free_lane = lanes.size();
      lanes.push_back(lane);
    }
    lanes[free_lane].cookie_index = cookie_id;
    cookie.lane = free_lane;
  }
  AsyncLane& lane = lanes[cookie.lane];
  if (begin)
    lane.nesting++;
  if (end && lane.nesting > 0)
    lane.nesting--;
  return lane.track_id;
}

void JsonEventParser::ParseAsync(const JsonEvent& event, uint32_t utid) {
  if (!event.has(JsonEvent::kPidPresent) || !event.has(JsonEvent::kHasId)) {
    storage_->stats.Increment(stats::json_parser_failure);
    return;
  }
  const uint32_t upid = storage_->thread.upid[utid];
  const uint32_t track = AsyncTrack(event, upid, event.phase == 'b', event.phase == 'e');
  if (track == kNullId)
    return;
  if (event.phase == 'e') {
    const uint32_t id = slices_.End(event.ts, track, event.cat, event.name);
    if (id != kNullId)
      MergeArgs(event, id);
    return;
  }
  uint32_t id;
  if (event.phase == 'b') {
    id = slices_.Begin(event.ts, track, event.cat, NameOrPlaceholder(event.name), AddArgs(event),
                       JsonEvent::kUnset);
  } else {
    bool overlaps = false;
    id = slices_.Complete(event.ts, 0, track, event.cat, event.name, AddArgs(event),
                          JsonEvent::kUnset, JsonEvent::kUnset, &overlaps);
  }
  if (id != kNullId)
    OnSliceAdded(event, id, track, /*v2_flows=*/true);
}

void JsonEventParser::ParseFlowV1(const JsonEvent& event, uint32_t utid) {
  uint64_t flow_id = 0;
  bool valid = event.has(JsonEvent::kHasId);
  if (valid) {
    if (event.has(JsonEvent::kIdIsString))
      valid = ParseHexId(storage_->strings.Get(event.id_string), &flow_id);
    else
      flow_id = event.id;
  }
  if (!valid) {
    storage_->stats.Increment(stats::flow_invalid_id);
    return;
  }
  const uint32_t track = tracks_.ThreadTrack(utid);
  const auto key = std::make_tuple(flow_id, event.cat, event.name);
  auto flow = v1_flows_.find(key);
  if (event.phase == 'f' && !event.has(JsonEvent::kBindsEnclosing)) {
    // Binds to the next slice that begins on this thread.
    if (flow == v1_flows_.end())
      storage_->stats.Increment(stats::flow_end_without_start);
    else
      pending_flow_ends_[track].push_back(flow->second);
    return;
  }
  const uint32_t slice = slices_.Innermost(track);
  if (slice == kNullId) {
    storage_->stats.Increment(stats::flow_no_enclosing_slice);
    return;
  }
  switch (event.phase) {
    case 's':
      if (flow != v1_flows_.end()) {
        storage_->stats.Increment(stats::flow_duplicate_id);
        return;
      }
      v1_flows_.emplace(key, slice);
      return;
    case 't':
      if (flow == v1_flows_.end()) {
        storage_->stats.Increment(stats::flow_step_without_start);
        return;
      }
      AddFlow(flow->second, slice);
      flow->second = slice;
      return;
    default:  // 'f' bound to the enclosing slice.
      if (flow == v1_flows_.end()) {
        storage_->stats.Increment(stats::flow_end_without_start);
        return;
      }
      AddFlow(flow->second, slice);
      return;
  }
}

void JsonEventParser::ParseMetadata(const JsonEvent& event, uint32_t utid) {
  const std::string_view name =
      event.name == kNullStringId ? std::string_view() : storage_->strings.Get(event.name);
  const bool process_name = name == "process_name";
  const bool thread_name = name == "thread_name";
  if (process_name || thread_name) {
    const JsonArg* arg = FindArg(event, name_key_);
    if (!arg || arg->type != ArgType::kString || storage_->strings.Get(arg->string_value).empty()) {
      storage_->stats.Increment(stats::json_parser_failure);
      return;
    }
    if (process_name)
      storage_->process.name[storage_->thread.upid[utid]] = arg->string_value;
    else
      storage_->thread.name[utid] = arg->string_value;
    return;
  }
  if (name == "process_sort_index" || name == "thread_sort_index") {
    // Hints for a viewer's order of processes and threads: kept as their
    // args (process_sort_index_hint, thread_sort_index_hint), as upstream.
    const JsonArg* arg = FindArg(event, sort_index_key_);
    if (!arg || (arg->type != ArgType::kInt && arg->type != ArgType::kReal)) {
      storage_->stats.Increment(stats::json_parser_failure);
      return;
    }
    const int64_t hint = arg->type == ArgType::kInt
                             ? arg->int_value
                             : (std::fabs(arg->real_value) < 9.2e18
                                    ? static_cast<int64_t>(arg->real_value)
                                    : 0);
    if (name == "process_sort_index")
      process_sort_hint_[storage_->thread.upid[utid]] = hint;
    else
      thread_sort_hint_[utid] = hint;
  }
}

void JsonEventParser::StoreSortHints(const std::map<uint32_t, int64_t>& hints, const char* key,
                                     std::vector<uint32_t>* arg_set_ids, size_t rows) {
  if (hints.empty())
    return;
  arg_set_ids->resize(rows, kNullId);
  const StringId key_id = storage_->strings.Intern(key);
  ArgTable& args = storage_->args;
  for (const auto& hint : hints) {
    const uint32_t set = storage_->next_arg_set_id++;
    args.arg_set_id.push_back(set);
    args.flat_key.push_back(key_id);
    args.key.push_back(key_id);
    args.value_type.push_back(ArgType::kInt);
    args.int_value.push_back(hint.second);
    args.string_value.push_back(kNullStringId);
    args.real_value.push_back(0);
    (*arg_set_ids)[hint.first] = set;
  }
}

void JsonEventParser::Finish() {
  slices_.Finish();
  StoreSortHints(process_sort_hint_, "process_sort_index_hint", &storage_->process.arg_set_id,
                 storage_->process.size());
  StoreSortHints(thread_sort_hint_, "thread_sort_index_hint", &storage_->thread.arg_set_id,
                 storage_->thread.size());
}

}  // namespace processor
}  // namespace zt
