#include "src/processor/export_pftrace.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <queue>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "src/processor/arg_key.h"
#include "src/processor/arg_set_index.h"
#include "src/processor/export_notes.h"
#include "src/processor/templight_args.h"
#include "zt/protozero/proto_utils.h"
#include "zt/protozero/scattered_heap_buffer.h"
#include "zt/trace/interned_data/interned_data.pbzero.h"
#include "zt/trace/profiling/profile_common.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/trace/track_event/counter_descriptor.pbzero.h"
#include "zt/trace/track_event/debug_annotation.pbzero.h"
#include "zt/trace/track_event/process_descriptor.pbzero.h"
#include "zt/trace/track_event/thread_descriptor.pbzero.h"
#include "zt/trace/track_event/track_descriptor.pbzero.h"
#include "zt/trace/track_event/track_event.pbzero.h"

namespace zt {
namespace processor {

// Named inside the anonymous namespace: the library builds as one unit,
// where export_json.cc has an Exporter too.
namespace {
namespace pftrace {

using protos::pbzero::DebugAnnotation;
using protos::pbzero::InternedData;
using protos::pbzero::TracePacket;
using protos::pbzero::TrackDescriptor;
using protos::pbzero::TrackEvent;

constexpr uint32_t kSequenceId = 1;
// Upstream's slice tracker keeps stacks 512 deep: a begin deeper is dropped
// (and counted as a warning).
constexpr uint32_t kMaxReaderDepth = 512;
constexpr int64_t kOpen = std::numeric_limits<int64_t>::max();  // A dur -1 slice's end.

// One arg of a slice as written: an arg row's value or a Templight column.
struct ArgValue {
  ArgType type = ArgType::kNull;
  int64_t int_value = 0;
  StringId string_value = kNullStringId;
  double real_value = 0;
};

// An arg set rebuilt as a tree: keys split at '.' and "[i]".
struct ArgNode {
  std::string_view name;  // Dictionary member name.
  int64_t index = -1;     // Array element index.
  bool is_leaf = false;
  bool is_array = false;
  ArgValue value;
  std::vector<ArgNode> children;
};

// A slice on its track's stack of open slices.
struct Open {
  uint32_t slice;
  int64_t end;  // kOpen for dur -1.
};

// A pending end: the earliest first, the deeper first at the same time.
struct PendingEnd {
  int64_t end;
  uint32_t depth;
  uint32_t track;
  uint32_t slice;
  bool operator>(const PendingEnd& o) const {
    if (end != o.end) return end > o.end;
    if (depth != o.depth) return depth < o.depth;
    return slice > o.slice;
  }
};

class Exporter {
 public:
  Exporter(const TraceStorage& storage, JsonSink* sink, const PftraceExportOptions& options)
      : s_(storage), sink_(sink), options_(options) {}

  PftraceExportResult Run();

 private:
  // Output.
  void BeginPacket(bool needs_state);
  void EndPacket();
  void Flush();

  // Preparation.
  void ChooseTracks();
  void IndexFlows();

  // Packets.
  void WriteDescriptors();
  void WriteDescriptor(uint32_t track);
  void WriteProcessDescriptor(uint32_t upid, TrackDescriptor* d);
  void WriteEvents();
  void WriteSlice(uint32_t slice);
  void WriteCounter(uint32_t row);
  void WriteEnd(int64_t ts, uint32_t track);
  void EndSlicesBefore(int64_t ts);
  void EndOn(uint32_t track, uint32_t slice, int64_t end);

  // Args.
  void AddArgToTree(ArgNode* root, std::string_view key, const ArgValue& value,
                    const std::string& example);
  void WriteAnnotations(uint32_t slice, TrackEvent* event);
  void WriteAnnotationValue(const ArgNode& node, DebugAnnotation* annotation);

  // Interning: names, categories and string values by StringId (iids are
  // StringIds, which are never 0); annotation names by text.
  enum InternKind : uint8_t { kName = 1, kCategory = 2, kString = 4 };
  uint64_t Intern(StringId id, InternKind kind);
  uint64_t InternAnnotationName(std::string_view name);

  uint64_t TrackUuid(uint32_t track) const { return uint64_t{track} + 1; }
  uint64_t ProcessUuid(uint32_t upid) const {
    return process_track_[upid] != kNullId ? TrackUuid(process_track_[upid])
                                           : uint64_t{s_.track.size()} + 1 + upid;
  }
  std::string SliceExample(uint32_t row) const {
    return "slice " + std::to_string(row) + " \"" +
           std::string(s_.strings.Get(s_.slice.name[row])) + "\"";
  }
  void Progress(uint64_t done) {
    if (options_.progress && (done & ((1u << 20) - 1)) == 0) options_.progress(done, total_rows_);
  }

  const TraceStorage& s_;
  JsonSink* sink_;
  const PftraceExportOptions& options_;
  PftraceExportResult result_;
  std::string buf_;
  bool failed_ = false;
  bool first_packet_ = true;
  uint64_t total_rows_ = 0;

  protozero::HeapBuffered<TracePacket> packet_;
  InternedData* interned_ = nullptr;  // This packet's, once it needs one.
  // What the packet interns, written after its event.
  std::vector<std::pair<InternKind, StringId>> new_strings_;
  std::vector<std::pair<uint64_t, std::string_view>> new_annotation_names_;

  // Tracks.
  std::vector<uint8_t> track_written_;   // Has a descriptor.
  std::vector<uint32_t> thread_track_;   // By utid: the track with its ThreadDescriptor.
  std::vector<uint32_t> process_track_;  // By upid: the track with its ProcessDescriptor.
  std::vector<uint8_t> process_needed_;  // By upid: a bare ProcessDescriptor is written.
  std::vector<uint64_t> parent_uuid_;    // By track; 0: none.

  // Args: rows of each set (CSR).
  ArgSetIndex arg_sets_;

  // Flows by slice: ids it starts and ids it ends.
  struct SliceFlows {
    std::vector<uint64_t> out;
    std::vector<uint64_t> in;
  };
  std::unordered_map<uint32_t, SliceFlows> slice_flows_;

  // Interning state.
  std::vector<uint8_t> interned_kinds_;  // By StringId.
  std::unordered_map<std::string, uint64_t> annotation_names_;

  // Open slices.
  std::vector<std::vector<Open>> stacks_;  // By track.
  std::priority_queue<PendingEnd, std::vector<PendingEnd>, std::greater<PendingEnd>> ends_;
  int64_t last_ts_ = std::numeric_limits<int64_t>::min();

  NoteCounter notes_bad_slices_{"slices skipped: track id out of range"};
  NoteCounter notes_too_deep_{
      "slices nested 512 or more deep skipped (Perfetto's trace processor drops them; a "
      "template recursion can nest deeper)"};
  NoteCounter notes_negative_ts_{
      "slices and counter values before time 0 skipped (packet timestamps are unsigned)"};
  NoteCounter notes_bad_dur_{"slices with a negative duration other than -1, "
                             "written as unterminated (a begin without an end)"};
  NoteCounter notes_nesting_{
      "slices whose depth the begin/end events cannot reproduce (they overlap an open "
      "slice of their track, or their parent was not written): readers nest them "
      "differently"};
  NoteCounter notes_ended_early_{
      "slices ended early because an enclosing slice ended first (a slice end "
      "closes the innermost open slice)"};
  NoteCounter notes_unsorted_{"slices or counter values out of time order"};
  NoteCounter notes_flows_dropped_{
      "flows not written (a slice is missing or skipped, or the flow goes backwards in "
      "the slices' order)"};
  NoteCounter notes_counter_tracks_{"counter values skipped: not on a counter track"};
  NoteCounter notes_arg_conflicts_{
      "args whose key clashes with another arg of the set once nested (kept the first)"};
  NoteCounter notes_null_args_{
      "null args (written without a value; upstream's trace processor drops them)"};
  NoteCounter notes_non_debug_args_{
      "args not keyed \"debug.*\", written as debug annotations (readers key them "
      "\"debug.<key>\")"};
  NoteCounter notes_array_gaps_{"arrays with missing indices (readers number them 0, 1, ...)"};
  NoteCounter notes_big_ids_{"pids or tids beyond 32 bits (descriptors hold int32)"};
  NoteCounter notes_unplaced_counters_{
      "thread counter tracks of a thread with no track, scoped to its process instead"};
  NoteCounter notes_not_written_{
      "threads and processes with no slices or counters: not written"};
  NoteCounter notes_metadata_{"metadata rows (not in the trace)"};
  NoteCounter notes_templight_units_{
      "Templight unit headers (version, source file) not in the trace; each unit's track "
      "is named after its source file"};
};

void Exporter::Flush() {
  FlushToSink(sink_, &buf_, &failed_, &result_.error, &result_.bytes);
}

void Exporter::BeginPacket(bool needs_state) {
  packet_.Reset();
  interned_ = nullptr;
  new_strings_.clear();
  new_annotation_names_.clear();
  packet_->set_trusted_packet_sequence_id(kSequenceId);
  if (first_packet_) {
    packet_->set_first_packet_on_sequence(true);
    packet_->set_sequence_flags(TracePacket::SEQ_INCREMENTAL_STATE_CLEARED);
    first_packet_ = false;
  } else if (needs_state) {
    packet_->set_sequence_flags(TracePacket::SEQ_NEEDS_INCREMENTAL_STATE);
  }
}

void Exporter::EndPacket() {
  if (!new_strings_.empty() || !new_annotation_names_.empty()) {
    InternedData* data = packet_->set_interned_data();
    for (const auto& entry : new_strings_) {
      const std::string_view text = s_.strings.Get(entry.second);
      if (entry.first == kName) {
        auto* name = data->add_event_names();
        name->set_iid(entry.second);
        name->set_name(text);
      } else if (entry.first == kCategory) {
        auto* category = data->add_event_categories();
        category->set_iid(entry.second);
        category->set_name(text);
      } else {
        auto* value = data->add_debug_annotation_string_values();
        value->set_iid(entry.second);
        value->set_str(text);
      }
    }
    for (const auto& entry : new_annotation_names_) {
      auto* name = data->add_debug_annotation_names();
      name->set_iid(entry.first);
      name->set_name(entry.second);
    }
  }
  const std::vector<protozero::ContiguousMemoryRange> ranges = packet_.GetRanges();
  size_t size = 0;
  for (const auto& range : ranges) size += range.size();
  uint8_t header[16];
  header[0] = static_cast<uint8_t>(protozero::proto_utils::MakeTagLengthDelimited(1));
  uint8_t* end = protozero::proto_utils::WriteVarInt(static_cast<uint64_t>(size), header + 1);
  buf_.append(reinterpret_cast<const char*>(header), static_cast<size_t>(end - header));
  for (const auto& range : ranges) {
    buf_.append(reinterpret_cast<const char*>(range.begin), range.size());
  }
  ++result_.packets;
  if (buf_.size() >= (64u << 10)) Flush();
}

uint64_t Exporter::Intern(StringId id, InternKind kind) {
  if (id >= interned_kinds_.size()) interned_kinds_.resize(s_.strings.size(), 0);
  if (!(interned_kinds_[id] & kind)) {
    interned_kinds_[id] |= kind;
    new_strings_.emplace_back(kind, id);
  }
  return id;
}

uint64_t Exporter::InternAnnotationName(std::string_view name) {
  auto it = annotation_names_.find(std::string(name));
  if (it != annotation_names_.end()) return it->second;
  const uint64_t iid = annotation_names_.size() + 1;
  auto inserted = annotation_names_.emplace(std::string(name), iid).first;
  new_annotation_names_.emplace_back(iid, inserted->first);
  return iid;
}

void Exporter::ChooseTracks() {
  const TrackTable& tr = s_.track;
  const size_t n = tr.size();
  auto valid_utid = [&](uint32_t utid) { return utid < s_.thread.size(); };
  auto valid_upid = [&](uint32_t upid) { return upid < s_.process.size(); };
  std::vector<uint8_t> needed(n, 0);
  for (uint32_t i = 0; i < s_.slice.size(); ++i) {
    if (s_.slice.track_id[i] < n) needed[s_.slice.track_id[i]] = 1;
  }
  for (uint32_t i = 0; i < s_.counter.size(); ++i) {
    const uint32_t t = s_.counter.track_id[i];
    if (t < n && tr.kind[t] == TrackKind::kCounter) needed[t] = 1;
  }
  // Each thread's ThreadDescriptor goes on one track: its first unnamed
  // parentless thread track (the one the importer makes), else its first
  // parentless one, else its first.
  thread_track_.assign(s_.thread.size(), kNullId);
  for (int pass = 0; pass < 3; ++pass) {
    for (uint32_t t = 0; t < n; ++t) {
      const uint32_t utid = tr.utid[t];
      if (tr.kind[t] != TrackKind::kThread || !valid_utid(utid)) continue;
      if (thread_track_[utid] != kNullId) continue;
      if (pass < 2 && tr.parent_id[t] < n) continue;
      if (pass == 0 && !s_.strings.IsNull(tr.name[t])) continue;
      thread_track_[utid] = t;
    }
  }
  // A process's ProcessDescriptor goes on its first parentless process
  // track, else on a descriptor of its own.
  process_track_.assign(s_.process.size(), kNullId);
  for (uint32_t t = 0; t < n; ++t) {
    const uint32_t upid = tr.upid[t];
    if (tr.kind[t] == TrackKind::kProcess && valid_upid(upid) && tr.parent_id[t] >= n &&
        process_track_[upid] == kNullId) {
      process_track_[upid] = t;
    }
  }
  // Parents, and what each needs, until nothing changes (parents come
  // before children in the track table only by convention).
  parent_uuid_.assign(n, 0);
  std::vector<uint32_t> parent(n, kNullId);
  process_needed_.assign(s_.process.size(), 0);
  auto process_of = [&](uint32_t t) -> uint32_t {
    uint32_t upid = tr.upid[t];
    if (!valid_upid(upid) && valid_utid(tr.utid[t])) upid = s_.thread.upid[tr.utid[t]];
    // Row 0 is the "no process" placeholder (pid 0).
    if (!valid_upid(upid) || (upid == 0 && s_.process.pid[0] == 0)) return kNullId;
    return upid;
  };
  for (uint32_t t = 0; t < n; ++t) {
    const uint32_t utid = tr.utid[t];
    if (tr.parent_id[t] < n && tr.parent_id[t] != t) {
      parent[t] = tr.parent_id[t];
      continue;
    }
    switch (tr.kind[t]) {
      case TrackKind::kThread:
        if (valid_utid(utid) && thread_track_[utid] != t) parent[t] = thread_track_[utid];
        break;
      case TrackKind::kProcess:
        if (valid_upid(tr.upid[t]) && process_track_[tr.upid[t]] != t &&
            process_track_[tr.upid[t]] != kNullId) {
          parent[t] = process_track_[tr.upid[t]];
        }
        break;
      case TrackKind::kCounter:
        if (valid_utid(utid) && thread_track_[utid] != kNullId) {
          parent[t] = thread_track_[utid];
        } else if (valid_utid(utid) && needed[t]) {
          notes_unplaced_counters_.Add(std::string(s_.strings.Get(tr.name[t])));
        }
        break;
      case TrackKind::kGlobal:
        break;
    }
  }
  // Mark what is needed through parent chains (bounded: a cycle stops).
  for (uint32_t t = 0; t < n; ++t) {
    if (!needed[t]) continue;
    uint32_t cur = t;
    for (size_t steps = 0; steps <= n && parent[cur] != kNullId; ++steps) {
      cur = parent[cur];
      if (needed[cur]) break;
      needed[cur] = 1;
    }
  }
  track_written_ = needed;
  auto mark_process = [&](uint32_t upid) {
    process_needed_[upid] = 1;
    // Its track carries the ProcessDescriptor: written even without events.
    if (process_track_[upid] != kNullId) track_written_[process_track_[upid]] = 1;
  };
  for (uint32_t t = 0; t < n; ++t) {
    if (!needed[t]) continue;
    if (parent[t] != kNullId) {
      parent_uuid_[t] = TrackUuid(parent[t]);
      continue;
    }
    // Parentless: under its process's descriptor, unless it is that
    // descriptor's track or a thread's own track (which names its pid).
    const uint32_t upid = process_of(t);
    if (upid == kNullId) continue;
    mark_process(upid);
    if (process_track_[upid] == t) continue;
    const bool is_thread_track =
        tr.kind[t] == TrackKind::kThread && valid_utid(tr.utid[t]) && thread_track_[tr.utid[t]] == t;
    // Thread tracks hang from their process too, as our SDK writes them.
    if (is_thread_track || tr.kind[t] != TrackKind::kGlobal) parent_uuid_[t] = ProcessUuid(upid);
  }
  // Threads and processes left out.
  std::vector<uint8_t> thread_seen(s_.thread.size(), 0);
  for (uint32_t t = 0; t < n; ++t) {
    if (needed[t] && valid_utid(tr.utid[t])) thread_seen[tr.utid[t]] = 1;
  }
  for (uint32_t utid = 1; utid < s_.thread.size(); ++utid) {
    if (!thread_seen[utid]) notes_not_written_.Add("tid " + std::to_string(s_.thread.tid[utid]));
  }
  for (uint32_t upid = 1; upid < s_.process.size(); ++upid) {
    if (!process_needed_[upid]) {
      notes_not_written_.Add("pid " + std::to_string(s_.process.pid[upid]));
    }
  }
}

void Exporter::IndexFlows() {
  const size_t slices = s_.slice.size();
  auto written = [&](uint32_t slice) {
    return slice < slices && s_.slice.track_id[slice] < s_.track.size() &&
           s_.slice.ts[slice] >= 0 && s_.slice.depth[slice] < kMaxReaderDepth;
  };
  for (uint32_t f = 0; f < s_.flow.size(); ++f) {
    const uint32_t out = s_.flow.slice_out[f];
    const uint32_t in = s_.flow.slice_in[f];
    // Events are written in slice order: the flow's start must come first.
    if (!written(out) || !written(in) || out >= in) {
      notes_flows_dropped_.Add("flow " + std::to_string(f));
      continue;
    }
    slice_flows_[out].out.push_back(uint64_t{f} + 1);
    slice_flows_[in].in.push_back(uint64_t{f} + 1);
  }
}

void Exporter::WriteProcessDescriptor(uint32_t upid, TrackDescriptor* d) {
  const int64_t pid = s_.process.pid[upid];
  if (pid > std::numeric_limits<int32_t>::max() || pid < std::numeric_limits<int32_t>::min()) {
    notes_big_ids_.Add("pid " + std::to_string(pid));
  }
  auto* process = d->set_process();
  process->set_pid(static_cast<int32_t>(pid));
  if (!s_.strings.IsNull(s_.process.cmdline[upid])) {
    process->add_cmdline(s_.strings.Get(s_.process.cmdline[upid]));
  }
  if (!s_.strings.IsNull(s_.process.name[upid])) {
    process->set_process_name(s_.strings.Get(s_.process.name[upid]));
  }
}

void Exporter::WriteDescriptor(uint32_t t) {
  const TrackTable& tr = s_.track;
  BeginPacket(/*needs_state=*/false);
  TrackDescriptor* d = packet_->set_track_descriptor();
  d->set_uuid(TrackUuid(t));
  if (!s_.strings.IsNull(tr.name[t])) d->set_name(s_.strings.Get(tr.name[t]));
  if (parent_uuid_[t] != 0) d->set_parent_uuid(parent_uuid_[t]);
  const uint32_t utid = tr.utid[t];
  const uint32_t upid = tr.upid[t];
  if (tr.kind[t] == TrackKind::kThread && utid < thread_track_.size() &&
      thread_track_[utid] == t) {
    const uint32_t thread_upid = s_.thread.upid[utid];
    const int64_t pid = thread_upid < s_.process.size() ? s_.process.pid[thread_upid] : 0;
    const int64_t tid = s_.thread.tid[utid];
    for (int64_t id : {pid, tid}) {
      if (id > std::numeric_limits<int32_t>::max() || id < std::numeric_limits<int32_t>::min()) {
        notes_big_ids_.Add(std::to_string(id));
      }
    }
    auto* thread = d->set_thread();
    thread->set_pid(static_cast<int32_t>(pid));
    thread->set_tid(static_cast<int32_t>(tid));
    if (!s_.strings.IsNull(s_.thread.name[utid])) {
      thread->set_thread_name(s_.strings.Get(s_.thread.name[utid]));
    }
  } else if (tr.kind[t] == TrackKind::kProcess && upid < process_track_.size() &&
             process_track_[upid] == t) {
    WriteProcessDescriptor(upid, d);
  } else if (tr.kind[t] == TrackKind::kCounter) {
    auto* counter = d->set_counter();
    if (!s_.strings.IsNull(tr.unit[t])) counter->set_unit_name(s_.strings.Get(tr.unit[t]));
  }
  EndPacket();
}

void Exporter::WriteDescriptors() {
  // Bare process descriptors first: every track of theirs may hang from them.
  for (uint32_t upid = 0; upid < process_needed_.size(); ++upid) {
    if (!process_needed_[upid] || process_track_[upid] != kNullId) continue;
    BeginPacket(/*needs_state=*/false);
    TrackDescriptor* d = packet_->set_track_descriptor();
    d->set_uuid(ProcessUuid(upid));
    WriteProcessDescriptor(upid, d);
    EndPacket();
  }
  // Then tracks, each after its parent.
  const size_t n = s_.track.size();
  std::vector<uint8_t> done(n, 0);
  std::vector<uint32_t> chain;
  for (uint32_t t = 0; t < n; ++t) {
    if (!track_written_[t] || done[t]) continue;
    chain.clear();
    for (uint32_t cur = t; cur < n && !done[cur] && track_written_[cur] && chain.size() <= n;) {
      chain.push_back(cur);
      done[cur] = 1;
      const uint64_t parent_uuid = parent_uuid_[cur];
      if (parent_uuid == 0 || parent_uuid > n) break;
      cur = static_cast<uint32_t>(parent_uuid - 1);
    }
    for (auto it = chain.rbegin(); it != chain.rend() && !failed_; ++it) WriteDescriptor(*it);
  }
}

void Exporter::AddArgToTree(ArgNode* root, std::string_view key, const ArgValue& value,
                            const std::string& example) {
  ArgNode* node = root;
  size_t pos = 0;
  for (;;) {
    const ArgKeySegment segment = NextArgKeySegment(key, &pos);
    const bool is_index = segment.is_index;
    const int64_t index = segment.index;
    const std::string_view name = segment.name;
    if (node->is_leaf || (!node->children.empty() && node->is_array != is_index) ||
        (node == root && is_index)) {
      notes_arg_conflicts_.Add(example);
      return;
    }
    node->is_array = is_index;
    ArgNode* child = nullptr;
    for (ArgNode& c : node->children) {
      if (is_index ? c.index == index : c.name == name) {
        child = &c;
        break;
      }
    }
    if (!child) {
      node->children.emplace_back();
      child = &node->children.back();
      child->name = name;
      child->index = index;
    }
    node = child;
    if (pos >= key.size()) break;
    if (key[pos] == '.') ++pos;  // Else '[': an index follows.
  }
  if (node->is_leaf || !node->children.empty()) {
    notes_arg_conflicts_.Add(example);
    return;
  }
  node->is_leaf = true;
  node->value = value;
}

void Exporter::WriteAnnotationValue(const ArgNode& node, DebugAnnotation* annotation) {
  if (node.is_leaf) {
    const ArgValue& v = node.value;
    switch (v.type) {
      case ArgType::kInt:
        annotation->set_int_value(v.int_value);
        break;
      case ArgType::kUint:
        annotation->set_uint_value(static_cast<uint64_t>(v.int_value));
        break;
      case ArgType::kPointer:
        annotation->set_pointer_value(static_cast<uint64_t>(v.int_value));
        break;
      case ArgType::kBool:
        annotation->set_bool_value(v.int_value != 0);
        break;
      case ArgType::kReal:
        annotation->set_double_value(v.real_value);
        break;
      case ArgType::kString:
        annotation->set_string_value_iid(Intern(v.string_value, kString));
        break;
      case ArgType::kJson:
        annotation->set_legacy_json_value(s_.strings.Get(v.string_value));
        break;
      case ArgType::kNull:
        break;
    }
    return;
  }
  if (node.is_array) {
    std::vector<const ArgNode*> order;
    for (const ArgNode& c : node.children) order.push_back(&c);
    std::sort(order.begin(), order.end(),
              [](const ArgNode* a, const ArgNode* b) { return a->index < b->index; });
    for (size_t i = 0; i < order.size(); ++i) {
      if (order[i]->index != static_cast<int64_t>(i)) {
        notes_array_gaps_.Add(std::string(node.name));
        break;
      }
    }
    for (const ArgNode* c : order) WriteAnnotationValue(*c, annotation->add_array_values());
    return;
  }
  for (const ArgNode& c : node.children) {
    DebugAnnotation* entry = annotation->add_dict_entries();
    entry->set_name(c.name);
    WriteAnnotationValue(c, entry);
  }
}

void Exporter::WriteAnnotations(uint32_t slice, TrackEvent* event) {
  const uint32_t set = s_.slice.arg_set_id[slice];
  const bool has_args = !arg_sets_.Get(set).empty();
  const uint32_t templight_row =
      s_.templight.size() == 0 ? kNullId : FindTemplightRow(s_.templight, slice);
  if (!has_args && templight_row == kNullId) return;
  ArgNode root;
  if (has_args) {
    for (const uint32_t row : arg_sets_.Get(set)) {
      std::string_view key = s_.strings.Get(s_.args.key[row]);
      const std::string example(key);
      if (key.substr(0, 6) == "debug.") {
        key.remove_prefix(6);
      } else {
        notes_non_debug_args_.Add(example);
      }
      ArgValue value;
      value.type = s_.args.value_type[row];
      value.int_value = s_.args.int_value[row];
      value.string_value = s_.args.string_value[row];
      value.real_value = s_.args.real_value[row];
      if (value.type == ArgType::kNull) notes_null_args_.Add(example);
      AddArgToTree(&root, key, value, example);
    }
  }
  if (templight_row != kNullId) {
    ForEachTemplightArg(s_, templight_row, [&](const TemplightArg& arg) {
      ArgValue value;
      value.type = arg.type;
      value.int_value = arg.int_value;
      value.string_value = arg.string_value;
      // A single segment: keys with '.' or '[' would nest.
      for (const ArgNode& c : root.children) {
        if (c.name == arg.key) {
          notes_arg_conflicts_.Add(std::string(arg.key));
          return;
        }
      }
      root.children.emplace_back();
      root.children.back().name = arg.key;
      root.children.back().is_leaf = true;
      root.children.back().value = value;
    });
  }
  for (const ArgNode& c : root.children) {
    DebugAnnotation* annotation = event->add_debug_annotations();
    annotation->set_name_iid(InternAnnotationName(c.name));
    WriteAnnotationValue(c, annotation);
  }
}

void Exporter::WriteEnd(int64_t ts, uint32_t track) {
  BeginPacket(/*needs_state=*/true);
  packet_->set_timestamp(static_cast<uint64_t>(ts));
  TrackEvent* event = packet_->set_track_event();
  event->set_type(TrackEvent::TYPE_SLICE_END);
  event->set_track_uuid(TrackUuid(track));
  EndPacket();
}

// Writes the end of `slice` on `track` at `end`, if it is still open;
// slices open inside it are ended there first (and noted), since an end
// closes the innermost one.
void Exporter::EndOn(uint32_t track, uint32_t slice, int64_t end) {
  std::vector<Open>& stack = stacks_[track];
  size_t pos = stack.size();
  while (pos > 0 && stack[pos - 1].slice != slice) --pos;
  if (pos == 0) return;  // Already ended.
  while (stack.size() >= pos && !failed_) {
    const Open top = stack.back();
    stack.pop_back();
    WriteEnd(end, track);
    if (top.slice == slice) return;
    notes_ended_early_.Add(SliceExample(top.slice));
  }
}

void Exporter::EndSlicesBefore(int64_t ts) {
  while (!ends_.empty() && ends_.top().end < ts && !failed_) {
    const PendingEnd e = ends_.top();
    ends_.pop();
    EndOn(e.track, e.slice, e.end);
  }
}

void Exporter::WriteSlice(uint32_t i) {
  const SliceTable& sl = s_.slice;
  const uint32_t track = sl.track_id[i];
  const int64_t ts = sl.ts[i];
  int64_t dur = sl.dur[i];
  if (track >= s_.track.size()) {
    notes_bad_slices_.Add(SliceExample(i));
    return;
  }
  if (ts < 0) {
    notes_negative_ts_.Add(SliceExample(i));
    return;
  }
  if (sl.depth[i] >= kMaxReaderDepth) {
    // Perfetto's importer drops such a begin, and its end would then close
    // an enclosing slice: left out, begin and end, and said.
    notes_too_deep_.Add(SliceExample(i));
    return;
  }
  if (ts < last_ts_) notes_unsorted_.Add(SliceExample(i));
  last_ts_ = std::max(last_ts_, ts);
  EndSlicesBefore(ts);
  // Ends at this very time: before the begin, unless the begin is inside.
  std::vector<Open>& stack = stacks_[track];
  while (!stack.empty() && stack.size() > sl.depth[i] && stack.back().end == ts && !failed_) {
    EndOn(track, stack.back().slice, ts);
  }
  if (stack.size() != sl.depth[i]) notes_nesting_.Add(SliceExample(i));
  if (dur < -1) {
    notes_bad_dur_.Add(SliceExample(i));
    dur = -1;
  }
  int64_t end = kOpen;
  if (dur > 0 && (__builtin_add_overflow(ts, dur, &end) || end == kOpen)) {
    notes_bad_dur_.Add(SliceExample(i));
    dur = -1;
    end = kOpen;
  }

  BeginPacket(/*needs_state=*/true);
  packet_->set_timestamp(static_cast<uint64_t>(ts));
  TrackEvent* event = packet_->set_track_event();
  event->set_type(dur == 0 ? TrackEvent::TYPE_INSTANT : TrackEvent::TYPE_SLICE_BEGIN);
  event->set_track_uuid(TrackUuid(track));
  if (!s_.strings.IsNull(sl.category[i])) event->add_category_iids(Intern(sl.category[i], kCategory));
  if (!s_.strings.IsNull(sl.name[i])) event->set_name_iid(Intern(sl.name[i], kName));
  WriteAnnotations(i, event);
  if (!slice_flows_.empty()) {
    auto it = slice_flows_.find(i);
    if (it != slice_flows_.end()) {
      for (uint64_t id : it->second.out) event->add_flow_ids(id);
      for (uint64_t id : it->second.in) event->add_terminating_flow_ids(id);
    }
  }
  EndPacket();
  if (dur != 0) {
    stack.push_back(Open{i, end});
    if (end != kOpen) {
      ends_.push(PendingEnd{end, static_cast<uint32_t>(stack.size()), track, i});
    }
  }
}

void Exporter::WriteCounter(uint32_t row) {
  const CounterTable& c = s_.counter;
  const uint32_t track = c.track_id[row];
  if (track >= s_.track.size() || s_.track.kind[track] != TrackKind::kCounter) {
    notes_counter_tracks_.Add("counter " + std::to_string(row));
    return;
  }
  if (c.ts[row] < 0) {
    notes_negative_ts_.Add("counter " + std::to_string(row));
    return;
  }
  if (c.ts[row] < last_ts_) notes_unsorted_.Add("counter " + std::to_string(row));
  last_ts_ = std::max(last_ts_, c.ts[row]);
  EndSlicesBefore(c.ts[row]);
  BeginPacket(/*needs_state=*/true);
  packet_->set_timestamp(static_cast<uint64_t>(c.ts[row]));
  TrackEvent* event = packet_->set_track_event();
  event->set_type(TrackEvent::TYPE_COUNTER);
  event->set_track_uuid(TrackUuid(track));
  event->set_double_counter_value(c.value[row]);
  EndPacket();
}

void Exporter::WriteEvents() {
  stacks_.resize(s_.track.size());
  const size_t slices = s_.slice.size();
  const size_t counters = s_.counter.size();
  size_t i = 0, j = 0;
  uint64_t done = 0;
  // Slices and counter values merged by time (slices first at a tie).
  while ((i < slices || j < counters) && !failed_) {
    if (j >= counters || (i < slices && s_.slice.ts[i] <= s_.counter.ts[j])) {
      WriteSlice(static_cast<uint32_t>(i++));
    } else {
      WriteCounter(static_cast<uint32_t>(j++));
    }
    Progress(++done);
  }
  EndSlicesBefore(kOpen);
}

PftraceExportResult Exporter::Run() {
  total_rows_ = s_.slice.size() + s_.counter.size();
  ChooseTracks();
  arg_sets_ = ArgSetIndex(s_);
  IndexFlows();
  buf_.reserve(128u << 10);
  WriteDescriptors();
  WriteEvents();
  if (first_packet_ && !failed_) {
    // Nothing to write: still a valid sequence start, so the file is a
    // trace that readers open.
    BeginPacket(false);
    EndPacket();
  }
  Flush();
  if (!failed_ && !sink_->Finish(&result_.error)) failed_ = true;
  result_.ok = !failed_;
  if (options_.progress && !failed_) options_.progress(total_rows_, total_rows_);

  for (uint32_t m = 0; m < s_.metadata.size(); ++m) {
    notes_metadata_.Add(std::string(s_.strings.Get(s_.metadata.name[m])));
  }
  for (const TemplightUnitRow& unit : s_.templight_units) {
    notes_templight_units_.Add(std::string(s_.strings.Get(unit.source_file)));
  }
  for (const NoteCounter* n :
       {&notes_bad_slices_, &notes_too_deep_, &notes_negative_ts_, &notes_bad_dur_, &notes_nesting_,
        &notes_ended_early_, &notes_unsorted_, &notes_flows_dropped_, &notes_counter_tracks_,
        &notes_arg_conflicts_, &notes_null_args_, &notes_non_debug_args_, &notes_array_gaps_,
        &notes_big_ids_, &notes_unplaced_counters_, &notes_not_written_, &notes_metadata_,
        &notes_templight_units_}) {
    n->AddTo(&result_.notes);
  }
  // The stats table: data loss and errors by name, the info ones counted.
  std::string stats_note = StatsNote(s_.stats);
  if (!stats_note.empty()) result_.notes.push_back(std::move(stats_note));
  return std::move(result_);
}

}  // namespace pftrace
}  // namespace

PftraceExportResult ExportPftrace(const TraceStorage& storage, JsonSink* sink,
                                  const PftraceExportOptions& options) {
  return pftrace::Exporter(storage, sink, options).Run();
}

}  // namespace processor
}  // namespace zt
