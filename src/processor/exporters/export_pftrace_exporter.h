// The Perfetto protobuf exporter's state and steps (export_pftrace.h is the
// interface): shared by export_pftrace.cc (packets, interning, events),
// export_pftrace_tracks.cc (which tracks, their descriptors) and
// export_pftrace_args.cc (args as debug annotations). Private to them.

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_EXPORT_PFTRACE_EXPORTER_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_EXPORT_PFTRACE_EXPORTER_H_

#include <cstdint>
#include <limits>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "src/processor/storage/arg_set_index.h"
#include "src/processor/exporters/arg_tree.h"
#include "src/processor/exporters/export_notes.h"
#include "src/processor/exporters/export_pftrace.h"
#include "zt/protozero/scattered_heap_buffer.h"
#include "zt/trace/interned_data/interned_data.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/trace/track_event/debug_annotation.pbzero.h"
#include "zt/trace/track_event/track_descriptor.pbzero.h"
#include "zt/trace/track_event/track_event.pbzero.h"

namespace zt {
namespace processor {
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
// A slice's args as a tree (arg_tree.h), as debug annotations nest.
using ArgNode = ArgTreeNode<ArgValue>;

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
  void WriteAnnotations(uint32_t slice, TrackEvent* event);
  // Annotation names are the keys' segments as they are.
  static std::string Identity(std::string_view name);
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

}  // namespace pftrace
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_EXPORT_PFTRACE_EXPORTER_H_
