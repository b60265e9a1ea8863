#include "src/processor/exporters/export_json.h"

#include <errno.h>
#include <string.h>

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>

#include "src/processor/storage/arg_set_index.h"
#include "src/processor/exporters/arg_tree.h"
#include "src/processor/exporters/export_notes.h"
#include "src/processor/exporters/templight_args.h"

namespace zt {
namespace processor {

namespace {

// Linux never hands out a pid or tid above PID_MAX_LIMIT (2^22); synthetic
// ids start above it and above any id in the trace.
constexpr int64_t kPidMaxLimit = int64_t{1} << 22;

struct Place {
  int64_t pid = 0;
  int64_t tid = 0;
};

class Exporter {
 public:
  Exporter(const TraceStorage& storage, JsonSink* sink, const JsonExportOptions& options)
      : s_(storage), sink_(sink), options_(options) {}

  JsonExportResult Run();

 private:
  // Output.
  void MaybeFlush() {
    if (buf_.size() >= (64u << 10)) Flush();
  }
  void Flush();
  void BeginEvent() {
    buf_ += first_event_ ? "\n" : ",\n";
    first_event_ = false;
    ++result_.events;
  }
  void Str(StringId id) { AppendJsonString(s_.strings.Get(id), &buf_); }

  // Preparation.
  void PlaceThreads();
  void PlaceTracks();
  void IndexFlows();

  // Events.
  void WriteNames();
  void WriteSlices();
  void WriteV1Flows();
  void WriteCounters();
  void WriteMetadata();
  void WriteArgs(uint32_t arg_set_id, uint32_t templight_row);
  void WriteArgValue(uint32_t row);
  void AddStatsNote();

  int64_t NewSyntheticId() { return next_synthetic_++; }
  void CheckTs(int64_t ts, int64_t dur) {
    constexpr int64_t kExact = int64_t{1} << 53;
    if (ts >= kExact || ts <= -kExact || dur >= kExact) notes_big_ts_.Add(std::to_string(ts));
  }
  std::string SliceExample(uint32_t row) const {
    return "slice " + std::to_string(row) + " \"" +
           std::string(s_.strings.Get(s_.slice.name[row])) + "\"";
  }

  const TraceStorage& s_;
  JsonSink* sink_;
  const JsonExportOptions& options_;
  JsonExportResult result_;
  std::string buf_;
  bool first_event_ = true;
  bool failed_ = false;

  int64_t next_synthetic_ = kPidMaxLimit + 1;
  std::vector<Place> thread_place_;  // By utid.
  std::vector<int64_t> process_pid_;  // By upid.
  std::vector<Place> track_place_;   // By track id.
  std::vector<uint8_t> track_synthetic_;  // Track has a thread of its own.
  int64_t global_pid_ = -1;          // Synthetic "Global tracks" process.

  // Args: rows of each set (CSR).
  ArgSetIndex arg_sets_;

  // Flows per slice: the bind id of its exported incoming and outgoing flow.
  struct SliceFlows {
    uint64_t in_id = 0;  // 0: none.
    uint64_t out_id = 0;
  };
  // A flow written as v1 events, with the points that bind its ends.
  struct V1Flow {
    uint32_t slice_out;
    uint32_t slice_in;
    int64_t ts_out;
    int64_t ts_in;
  };
  std::vector<V1Flow> v1_flows_;
  std::unordered_map<uint32_t, SliceFlows> slice_flows_;

  NoteCounter notes_flows_dropped_{
      "flows not exported (beyond one in and one out per slice, which go on "
      "the slice's event, a flow needs a point 1 ns into each slice before "
      "its first child, where v1 flow events bind; or a slice is missing)"};
  NoteCounter notes_bad_slices_{"slices skipped: track id out of range"};
  NoteCounter notes_too_deep_{
      "slices nested 512 or more deep (written; Perfetto's UI drops them, its importer "
      "keeping stacks 512 deep)"};
  NoteCounter notes_bad_dur_{"slices with a negative duration other than -1, "
                             "written as unterminated (\"B\")"};
  NoteCounter notes_after_open_{
      "slices that start after an unterminated slice of their track at the "
      "same or a lower depth (JSON readers nest them inside it)"};
  NoteCounter notes_non_finite_{
      "values JSON has no number for (NaN, infinities), written as strings"};
  NoteCounter notes_json_args_{"JSON-typed args written as strings"};
  NoteCounter notes_arg_conflicts_{
      "args whose key clashes with another arg of the set once nested "
      "(kept the first)"};
  NoteCounter notes_metadata_clashes_{
      "metadata names equal to an earlier one once invalid UTF-8 is replaced "
      "(kept the first)"};
  NoteCounter notes_counter_units_{"counter units (JSON counters have none)"};
  NoteCounter notes_thread_counters_{
      "thread-scoped counter tracks written as counters of the thread's "
      "process (JSON counters are per process)"};
  NoteCounter notes_counter_names_{
      "counter tracks sharing a name in one process (JSON readers merge them)"};
  NoteCounter notes_big_ts_{
      "timestamps at or past 2^53 ns (~104 days): exact in the text, but readers "
      "that parse JSON numbers as doubles round them"};
  NoteCounter notes_huge_ids_{
      "pids or tids at or past 2^62: synthetic tids may collide with them"};
  NoteCounter notes_tid_reuse_{
      "threads whose (pid, tid) an earlier thread had; given a synthetic tid"};
};

void Exporter::Flush() {
  FlushToSink(sink_, &buf_, &failed_, &result_.error, &result_.bytes);
}

void Exporter::PlaceThreads() {
  int64_t max_id = 0;
  for (int64_t pid : s_.process.pid) max_id = std::max(max_id, pid);
  for (int64_t tid : s_.thread.tid) max_id = std::max(max_id, tid);
  // Ids past 2^62 are nothing a kernel hands out; above them synthetic ids
  // could overflow, so they may collide there instead (noted).
  constexpr int64_t kSyntheticCeiling = int64_t{1} << 62;
  if (max_id >= kSyntheticCeiling) {
    notes_huge_ids_.Add(std::to_string(max_id));
    max_id = kSyntheticCeiling;
  }
  next_synthetic_ = std::max(kPidMaxLimit, max_id) + 1;

  process_pid_ = s_.process.pid;
  thread_place_.resize(s_.thread.size());
  std::set<std::pair<int64_t, int64_t>> seen;
  for (uint32_t utid = 0; utid < s_.thread.size(); ++utid) {
    const uint32_t upid = s_.thread.upid[utid];
    Place place;
    place.pid = upid < process_pid_.size() ? process_pid_[upid] : 0;
    place.tid = s_.thread.tid[utid];
    if (!seen.insert({place.pid, place.tid}).second) {
      notes_tid_reuse_.Add("tid " + std::to_string(place.tid) + " in pid " +
                           std::to_string(place.pid));
      place.tid = NewSyntheticId();
    }
    thread_place_[utid] = place;
  }
}

void Exporter::PlaceTracks() {
  const size_t n = s_.track.size();
  std::vector<uint8_t> has_slices(n, 0);
  for (uint32_t track : s_.slice.track_id) {
    if (track < n) has_slices[track] = 1;
  }
  // Each thread's own row goes to its first unnamed thread track (the one
  // the importer makes for plain thread events), else its first track.
  std::vector<uint32_t> primary(s_.thread.size(), kNullId);
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t t = 0; t < n; ++t) {
      const uint32_t utid = s_.track.utid[t];
      if (s_.track.kind[t] != TrackKind::kThread || utid >= primary.size()) continue;
      if (primary[utid] != kNullId) continue;
      if (pass == 0 && !s_.strings.IsNull(s_.track.name[t])) continue;
      primary[utid] = t;
    }
  }
  track_place_.resize(n);
  track_synthetic_.assign(n, 0);
  for (uint32_t t = 0; t < n; ++t) {
    const TrackKind kind = s_.track.kind[t];
    const uint32_t utid = s_.track.utid[t];
    const uint32_t upid = s_.track.upid[t];
    Place place;
    if (kind == TrackKind::kThread && utid < thread_place_.size() && primary[utid] == t) {
      place = thread_place_[utid];
    } else if (kind == TrackKind::kCounter) {
      if (upid < process_pid_.size()) {
        place.pid = process_pid_[upid];
      } else if (utid < thread_place_.size()) {
        place.pid = thread_place_[utid].pid;
        notes_thread_counters_.Add(std::string(s_.strings.Get(s_.track.name[t])));
      } else {
        if (global_pid_ < 0) global_pid_ = NewSyntheticId();
        place.pid = global_pid_;
      }
      place.tid = place.pid;
    } else {
      if (!has_slices[t]) continue;  // No row to name.
      if (kind == TrackKind::kThread && utid < thread_place_.size()) {
        place.pid = thread_place_[utid].pid;
      } else if (upid < process_pid_.size()) {
        place.pid = process_pid_[upid];
      } else if (utid < thread_place_.size()) {
        place.pid = thread_place_[utid].pid;
      } else {
        if (global_pid_ < 0) global_pid_ = NewSyntheticId();
        place.pid = global_pid_;
      }
      place.tid = NewSyntheticId();
      track_synthetic_[t] = 1;
    }
    track_place_[t] = place;
  }
}

void Exporter::IndexFlows() {
  const size_t n = s_.flow.size();
  if (n == 0) return;
  // A flow is exported when it is the first outgoing flow of its source and
  // the first incoming flow of its destination.
  std::unordered_map<uint32_t, uint32_t> first_out, first_in;  // slice -> flow
  for (uint32_t f = 0; f < n; ++f) {
    first_out.emplace(s_.flow.slice_out[f], f);
    first_in.emplace(s_.flow.slice_in[f], f);
  }
  std::vector<uint32_t> parent(n);
  std::vector<uint8_t> exported(n, 0);
  std::vector<uint32_t> extra;  // Flows a v2 field cannot carry.
  for (uint32_t f = 0; f < n; ++f) {
    parent[f] = f;
    const uint32_t out = s_.flow.slice_out[f];
    const uint32_t in = s_.flow.slice_in[f];
    if (out >= s_.slice.size() || in >= s_.slice.size()) {
      notes_flows_dropped_.Add("flow " + std::to_string(f) + ": no such slice");
      continue;
    }
    if (first_out[out] != f || first_in[in] != f) {
      extra.push_back(f);
      continue;
    }
    exported[f] = 1;
  }
  // The others as v1 "s" and "f" (bp "e") events, which bind to the slice
  // enclosing their timestamp on their thread: placed 1 ns into each slice,
  // before its first child, where both readers find that slice innermost
  // (Perfetto takes the top of its stack, which it pops only when the next
  // slice begins, so a point after a child would bind to the child).
  if (!extra.empty()) {
    std::unordered_map<uint32_t, int64_t> first_child;  // slice -> child ts
    for (uint32_t f : extra) {
      first_child.emplace(s_.flow.slice_out[f], std::numeric_limits<int64_t>::max());
      first_child.emplace(s_.flow.slice_in[f], std::numeric_limits<int64_t>::max());
    }
    for (uint32_t i = 0; i < s_.slice.size(); ++i) {
      auto it = first_child.find(s_.slice.parent_id[i]);
      if (it != first_child.end()) it->second = std::min(it->second, s_.slice.ts[i]);
    }
    auto bind_point = [&](uint32_t slice, int64_t* ts) {
      const int64_t start = s_.slice.ts[slice], dur = s_.slice.dur[slice];
      if (s_.slice.track_id[slice] >= s_.track.size() || dur == 0 || dur < -1) return false;
      int64_t end = std::numeric_limits<int64_t>::max();  // dur -1: open.
      if (dur != -1 && __builtin_add_overflow(start, dur, &end)) return false;
      if (__builtin_add_overflow(start, 1, ts)) return false;
      return *ts < end && *ts < first_child[slice];
    };
    for (uint32_t f : extra) {
      V1Flow v1;
      v1.slice_out = s_.flow.slice_out[f];
      v1.slice_in = s_.flow.slice_in[f];
      if (!bind_point(v1.slice_out, &v1.ts_out) || !bind_point(v1.slice_in, &v1.ts_in)) {
        notes_flows_dropped_.Add("flow " + std::to_string(f) + " from " + SliceExample(v1.slice_out));
        continue;
      }
      v1_flows_.push_back(v1);
    }
  }
  // A slice with one flow in and one out continues a chain: both share an
  // id, which readers take as a step (flow_in and flow_out on one event).
  auto find = [&](uint32_t f) {
    while (parent[f] != f) {
      parent[f] = parent[parent[f]];
      f = parent[f];
    }
    return f;
  };
  for (uint32_t f = 0; f < n; ++f) {
    if (!exported[f]) continue;
    auto it = first_in.find(s_.flow.slice_out[f]);
    if (it == first_in.end() || !exported[it->second]) continue;
    const uint32_t a = find(it->second), b = find(f);
    if (a != b) parent[b] = a;
  }
  // Perfetto numbers v1 flows 0, 1, ... in the id space of v2 bind ids:
  // v2 ids start past them.
  const uint64_t base = v1_flows_.size() + 1;
  for (uint32_t f = 0; f < n; ++f) {
    if (!exported[f]) continue;
    const uint64_t id = base + find(f);
    slice_flows_[s_.flow.slice_out[f]].out_id = id;
    slice_flows_[s_.flow.slice_in[f]].in_id = id;
  }
}

void Exporter::WriteV1Flows() {
  uint64_t id = 0;
  for (const V1Flow& flow : v1_flows_) {
    ++id;
    for (int end = 0; end < 2 && !failed_; ++end) {
      const uint32_t slice = end ? flow.slice_in : flow.slice_out;
      const Place& place = track_place_[s_.slice.track_id[slice]];
      BeginEvent();
      buf_ += end ? "{\"ph\":\"f\",\"bp\":\"e\",\"pid\":" : "{\"ph\":\"s\",\"pid\":";
      AppendJsonInt(place.pid, &buf_);
      buf_ += ",\"tid\":";
      AppendJsonInt(place.tid, &buf_);
      buf_ += ",\"ts\":";
      AppendMicros(end ? flow.ts_in : flow.ts_out, &buf_);
      buf_ += ",\"id\":";
      AppendJsonInt(id, &buf_);
      // Both ends named as the source: readers key v1 flows by id, name
      // and category.
      if (!s_.strings.IsNull(s_.slice.name[flow.slice_out])) {
        buf_ += ",\"name\":";
        Str(s_.slice.name[flow.slice_out]);
      }
      if (!s_.strings.IsNull(s_.slice.category[flow.slice_out])) {
        buf_ += ",\"cat\":";
        Str(s_.slice.category[flow.slice_out]);
      }
      buf_ += '}';
      MaybeFlush();
    }
  }
}

void Exporter::WriteNames() {
  auto name_event = [&](const char* what, int64_t pid, int64_t tid, std::string_view name) {
    BeginEvent();
    buf_ += "{\"ph\":\"M\",\"pid\":";
    AppendJsonInt(pid, &buf_);
    buf_ += ",\"tid\":";
    AppendJsonInt(tid, &buf_);
    buf_ += ",\"name\":\"";
    buf_ += what;
    buf_ += "\",\"args\":{\"name\":";
    AppendJsonString(name, &buf_);
    buf_ += "}}";
    MaybeFlush();
  };
  for (uint32_t upid = 0; upid < s_.process.size(); ++upid) {
    if (s_.strings.IsNull(s_.process.name[upid])) continue;
    name_event("process_name", process_pid_[upid], 0, s_.strings.Get(s_.process.name[upid]));
  }
  if (global_pid_ >= 0) name_event("process_name", global_pid_, 0, "Global tracks");
  for (uint32_t utid = 0; utid < s_.thread.size(); ++utid) {
    if (s_.strings.IsNull(s_.thread.name[utid])) continue;
    name_event("thread_name", thread_place_[utid].pid, thread_place_[utid].tid,
               s_.strings.Get(s_.thread.name[utid]));
  }
  for (uint32_t t = 0; t < s_.track.size(); ++t) {
    if (!track_synthetic_[t]) continue;
    const StringId name = s_.track.name[t];
    std::string text = s_.strings.IsNull(name) ? "track " + std::to_string(t)
                                               : std::string(s_.strings.Get(name));
    name_event("thread_name", track_place_[t].pid, track_place_[t].tid, text);
  }
}

void Exporter::WriteArgValue(uint32_t row) {
  const ArgTable& a = s_.args;
  switch (a.value_type[row]) {
    case ArgType::kInt:
      AppendJsonInt(a.int_value[row], &buf_);
      break;
    case ArgType::kUint:
      AppendJsonInt(static_cast<uint64_t>(a.int_value[row]), &buf_);
      break;
    case ArgType::kPointer: {
      char tmp[24];
      snprintf(tmp, sizeof(tmp), "\"0x%" PRIx64 "\"", static_cast<uint64_t>(a.int_value[row]));
      buf_ += tmp;
      break;
    }
    case ArgType::kBool:
      buf_ += a.int_value[row] ? "true" : "false";
      break;
    case ArgType::kString:
      Str(a.string_value[row]);
      break;
    case ArgType::kJson:
      notes_json_args_.Add(std::string(s_.strings.Get(a.key[row])));
      Str(a.string_value[row]);
      break;
    case ArgType::kReal:
      if (!AppendJsonDouble(a.real_value[row], &buf_)) {
        notes_non_finite_.Add("arg " + std::string(s_.strings.Get(a.key[row])));
        buf_ += JsonNonFiniteName(a.real_value[row]);
      }
      break;
    case ArgType::kNull:
      buf_ += "null";
      break;
  }
}

// One arg set (kNullId: none) as a JSON object: keys split at '.' and "[i]"
// into nested objects and arrays, "debug." dropped; then the slice's
// templight_instantiation row (kNullId: none) as more members.
void Exporter::WriteArgs(uint32_t arg_set_id, uint32_t templight_row) {
  // Leaves are arg rows; member names are kept as their JSON literals.
  using Node = ArgTreeNode<uint32_t>;
  Node root;
  auto json_literal = [](std::string_view name) {
    std::string text;
    AppendJsonString(name, &text);
    return text;
  };
  for (const uint32_t row : arg_sets_.Get(arg_set_id)) {
    std::string_view key = s_.strings.Get(s_.args.key[row]);
    if (key.substr(0, 6) == "debug.") key.remove_prefix(6);
    if (!AddToArgTree(&root, key, row, /*root_may_be_array=*/true, json_literal))
      notes_arg_conflicts_.Add(std::string(s_.strings.Get(s_.args.key[row])));
  }
  // Write depth first.
  auto write = [&](const Node& node, auto&& self) -> void {
    if (node.is_leaf) {
      WriteArgValue(node.leaf);
      return;
    }
    if (node.is_array) {
      std::vector<const Node*> order;
      for (const Node& c : node.children) order.push_back(&c);
      std::sort(order.begin(), order.end(),
                [](const Node* x, const Node* y) { return x->index < y->index; });
      buf_ += '[';
      for (size_t i = 0; i < order.size(); ++i) {
        if (i) buf_ += ',';
        self(*order[i], self);
      }
      buf_ += ']';
      return;
    }
    buf_ += '{';
    for (size_t i = 0; i < node.children.size(); ++i) {
      if (i) buf_ += ',';
      buf_ += node.children[i].name;
      buf_ += ':';
      self(node.children[i], self);
    }
    buf_ += '}';
  };
  write(root, write);
  if (templight_row == kNullId) return;
  if (root.is_array) {
    notes_arg_conflicts_.Add("templight args of slice with an array of args");
    return;
  }
  buf_.pop_back();  // The object's '}': the Templight args go in it.
  bool first = root.children.empty();
  ForEachTemplightArg(s_, templight_row, [&](const TemplightArg& arg) {
    std::string literal;
    AppendJsonString(arg.key, &literal);
    for (const Node& c : root.children) {
      if (c.name == literal) {
        notes_arg_conflicts_.Add(std::string(arg.key));
        return;
      }
    }
    buf_ += first ? "" : ",";
    first = false;
    buf_ += literal;
    buf_ += ':';
    if (arg.type == ArgType::kString) {
      Str(arg.string_value);
    } else if (arg.type == ArgType::kUint) {
      AppendJsonInt(static_cast<uint64_t>(arg.int_value), &buf_);
    } else {
      AppendJsonInt(arg.int_value, &buf_);
    }
  });
  buf_ += '}';
}

void Exporter::WriteSlices() {
  const SliceTable& sl = s_.slice;
  const uint64_t total = sl.size() + s_.counter.size();
  // Per track: depth of its outermost unterminated slice seen so far.
  std::vector<uint32_t> open_depth(s_.track.size(), kNullId);
  for (uint32_t i = 0; i < sl.size() && !failed_; ++i) {
    const uint32_t track = sl.track_id[i];
    if (track >= s_.track.size()) {
      notes_bad_slices_.Add(SliceExample(i));
      continue;
    }
    // Written (chrome://tracing and speedscope show them), but said.
    if (sl.depth[i] >= 512)
      notes_too_deep_.Add(SliceExample(i));
    if (open_depth[track] != kNullId && sl.depth[i] <= open_depth[track]) {
      notes_after_open_.Add(SliceExample(i));
    }
    const int64_t dur = sl.dur[i];
    const SliceFlows* flows = nullptr;
    if (!slice_flows_.empty()) {
      auto it = slice_flows_.find(i);
      if (it != slice_flows_.end()) flows = &it->second;
    }
    const char* ph;
    if (dur > 0 || (dur == 0 && flows)) {
      ph = "X";
    } else if (dur == 0) {
      ph = "i";
    } else {
      ph = "B";
      if (dur != -1) notes_bad_dur_.Add(SliceExample(i));
      open_depth[track] = std::min(open_depth[track], sl.depth[i]);
    }
    const Place& place = track_place_[track];
    CheckTs(sl.ts[i], dur);
    BeginEvent();
    buf_ += "{\"ph\":\"";
    buf_ += ph;
    buf_ += "\",\"pid\":";
    AppendJsonInt(place.pid, &buf_);
    buf_ += ",\"tid\":";
    AppendJsonInt(place.tid, &buf_);
    buf_ += ",\"ts\":";
    AppendMicros(sl.ts[i], &buf_);
    if (ph[0] == 'X') {
      buf_ += ",\"dur\":";
      AppendMicros(dur, &buf_);
    } else if (ph[0] == 'i') {
      buf_ += ",\"s\":\"t\"";
    }
    if (!s_.strings.IsNull(sl.name[i])) {
      buf_ += ",\"name\":";
      Str(sl.name[i]);
    }
    if (!s_.strings.IsNull(sl.category[i])) {
      buf_ += ",\"cat\":";
      Str(sl.category[i]);
    }
    const uint32_t set = sl.arg_set_id[i];
    const bool has_args = !arg_sets_.Get(set).empty();
    const uint32_t templight_row =
        s_.templight.size() == 0 ? kNullId : FindTemplightRow(s_.templight, i);
    if (has_args || templight_row != kNullId) {
      buf_ += ",\"args\":";
      WriteArgs(has_args ? set : kNullId, templight_row);
    }
    if (flows) {
      buf_ += ",\"bind_id\":";
      AppendJsonInt(flows->in_id ? flows->in_id : flows->out_id, &buf_);
      if (flows->in_id) buf_ += ",\"flow_in\":true";
      if (flows->out_id) buf_ += ",\"flow_out\":true";
    }
    buf_ += '}';
    MaybeFlush();
    if (options_.progress && ((i + 1) & ((1u << 20) - 1)) == 0) options_.progress(i + 1, total);
  }
}

void Exporter::WriteCounters() {
  const CounterTable& c = s_.counter;
  const uint64_t total = s_.slice.size() + c.size();
  // Names of the counter tracks written, per process.
  std::set<std::pair<int64_t, std::string_view>> names;
  std::vector<uint8_t> seen(s_.track.size(), 0);
  for (uint32_t i = 0; i < c.size() && !failed_; ++i) {
    const uint32_t track = c.track_id[i];
    if (track >= s_.track.size()) {
      notes_bad_slices_.Add("counter " + std::to_string(i));
      continue;
    }
    const Place& place = track_place_[track];
    const std::string_view name = s_.strings.Get(s_.track.name[track]);
    if (!seen[track]) {
      seen[track] = 1;
      if (!s_.strings.IsNull(s_.track.unit[track])) {
        notes_counter_units_.Add(std::string(name) + ": " +
                                 std::string(s_.strings.Get(s_.track.unit[track])));
      }
      if (!names.insert({place.pid, name}).second) notes_counter_names_.Add(std::string(name));
    }
    CheckTs(c.ts[i], 0);
    BeginEvent();
    buf_ += "{\"ph\":\"C\",\"pid\":";
    AppendJsonInt(place.pid, &buf_);
    buf_ += ",\"tid\":";
    AppendJsonInt(place.tid, &buf_);
    buf_ += ",\"ts\":";
    AppendMicros(c.ts[i], &buf_);
    buf_ += ",\"name\":";
    AppendJsonString(name, &buf_);
    buf_ += ",\"args\":{\"value\":";
    if (!AppendJsonDouble(c.value[i], &buf_)) {
      notes_non_finite_.Add("counter " + std::string(name));
      buf_ += JsonNonFiniteName(c.value[i]);
    }
    buf_ += "}}";
    MaybeFlush();
    const uint64_t done = s_.slice.size() + i + 1;
    if (options_.progress && (done & ((1u << 20) - 1)) == 0) options_.progress(done, total);
  }
}

void Exporter::WriteMetadata() {
  buf_ += "\n],\n\"metadata\":{";
  const MetadataTable& m = s_.metadata;
  std::set<std::string> keys;  // As JSON literals (see WriteArgs).
  bool first = true;
  for (uint32_t i = 0; i < m.size(); ++i) {
    std::string key;
    AppendJsonString(s_.strings.Get(m.name[i]), &key);
    if (!keys.insert(key).second) {
      notes_metadata_clashes_.Add(key);
      continue;
    }
    if (!first) buf_ += ',';
    first = false;
    buf_ += key;
    buf_ += ':';
    if (!s_.strings.IsNull(m.str_value[i])) {
      Str(m.str_value[i]);
    } else if (m.int_value[i] != kNullInt) {
      AppendJsonInt(m.int_value[i], &buf_);
    } else {
      buf_ += "null";
    }
  }
  buf_ += "}}\n";
}

// One note for the stats table: the data-loss and error stats by name (what
// a reader of the JSON alone would not know was lost), the info ones counted.
void Exporter::AddStatsNote() {
  std::string note = StatsNote(s_.stats);
  if (!note.empty()) result_.notes.push_back(std::move(note));
}

JsonExportResult Exporter::Run() {
  PlaceThreads();
  PlaceTracks();
  arg_sets_ = ArgSetIndex(s_);
  IndexFlows();
  buf_.reserve(128u << 10);
  // No "displayTimeUnit": Perfetto's trace processors v14 to ~v21 read
  // every timestamp as nanoseconds when they saw it (ours are us).
  buf_ += "{\"traceEvents\":[";
  WriteNames();
  WriteSlices();
  WriteV1Flows();
  WriteCounters();
  WriteMetadata();
  Flush();
  if (!failed_ && !sink_->Finish(&result_.error)) failed_ = true;
  result_.ok = !failed_;
  if (options_.progress && !failed_) {
    const uint64_t total = s_.slice.size() + s_.counter.size();
    options_.progress(total, total);
  }
  for (const NoteCounter* n :
       {&notes_bad_slices_, &notes_bad_dur_, &notes_after_open_, &notes_flows_dropped_,
        &notes_arg_conflicts_, &notes_metadata_clashes_, &notes_json_args_, &notes_non_finite_, &notes_counter_units_,
        &notes_thread_counters_, &notes_counter_names_, &notes_big_ts_, &notes_huge_ids_, &notes_tid_reuse_, &notes_too_deep_}) {
    n->AddTo(&result_.notes);
  }
  AddStatsNote();
  return std::move(result_);
}

}  // namespace

JsonExportResult ExportJson(const TraceStorage& storage, JsonSink* sink,
                            const JsonExportOptions& options) {
  return Exporter(storage, sink, options).Run();
}

}  // namespace processor
}  // namespace zt
