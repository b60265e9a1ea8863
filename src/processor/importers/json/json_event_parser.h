// Turns sorted JSON trace events into rows: processes and threads from
// pid/tid, slices on thread, async, instant and overflow tracks, counters,
// flows (v1 s/t/f and v2 bind_id), names from metadata events. The second
// pass of the JSON importer (json_trace_importer.h); what each phase means
// follows upstream Perfetto's importer (docs/design/json_import.md).
//
//   JsonEventParser parser(storage, &events_args);
//   for (each event, in timestamp order) parser.Parse(event);
//   parser.Finish();
//
// Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_JSON_JSON_EVENT_PARSER_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_JSON_JSON_EVENT_PARSER_H_

#include <cstdint>
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "src/processor/importers/json/json_event.h"
#include "src/processor/importers/json/json_slice_tracker.h"
#include "src/processor/importers/track_tracker.h"
#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

class JsonEventParser {
 public:
  // `args` is the buffer the events' args_begin/args_count index.
  JsonEventParser(TraceStorage* storage, const std::vector<JsonArg>* args);

  void Parse(const JsonEvent& event);
  // Closes the slices and stores what waits for the end (sort-index hints
  // as the process's and thread's args, as upstream keeps them).
  void Finish();

 private:
  struct AsyncLane {
    uint32_t track_id;
    uint64_t cookie_index;  // Which cookie holds the lane now.
    int nesting;            // Open begins; 0: another cookie may take it.
  };
  struct AsyncGroup {
    StringId name;  // Its first event's name: its tracks' name.
    std::vector<AsyncLane> lanes;
  };
  struct AsyncCookie {
    size_t group;
    size_t lane = SIZE_MAX;  // In the group; SIZE_MAX: none yet.
  };

  uint32_t ThreadOf(const JsonEvent& event);
  uint32_t ProcessOf(const JsonEvent& event);
  uint32_t NewProcess(int64_t pid, bool is_string);

  void ParseBegin(const JsonEvent& event, uint32_t utid);
  void ParseEnd(const JsonEvent& event, uint32_t utid);
  void ParseComplete(const JsonEvent& event, uint32_t utid);
  void ParseInstant(const JsonEvent& event, uint32_t utid);
  void ParseCounter(const JsonEvent& event, uint32_t utid);
  void ParseAsync(const JsonEvent& event, uint32_t utid);
  void ParseFlowV1(const JsonEvent& event, uint32_t utid);
  void ParseMetadata(const JsonEvent& event, uint32_t utid);

  // Called for every new slice: binds pending flow ends of its track and
  // the event's own bind_id flow.
  void OnSliceAdded(const JsonEvent& event, uint32_t slice_id, uint32_t track_id,
                    bool v2_flows);
  void AddFlow(uint32_t from_slice, uint32_t to_slice);

  uint32_t AddArgs(const JsonEvent& event);
  void StoreSortHints(const std::map<uint32_t, int64_t>& hints, const char* key,
                      std::vector<uint32_t>* arg_set_ids, size_t rows);
  void MergeArgs(const JsonEvent& event, uint32_t slice_id);
  const JsonArg* FindArg(const JsonEvent& event, StringId key) const;
  StringId NameOrPlaceholder(StringId name) const {
    return name == kNullStringId ? no_name_ : name;
  }
  uint32_t AsyncTrack(const JsonEvent& event, uint32_t upid, bool begin, bool end);

  TraceStorage* const storage_;
  const std::vector<JsonArg>* const args_;
  TrackTracker tracks_;
  JsonSliceTracker slices_;
  const StringId no_name_;
  const StringId name_key_;
  const StringId sort_index_key_;

  // Processes by (is string, pid); threads by (upid, is string, tid).
  std::unordered_map<uint64_t, uint32_t> upid_by_pid_;
  std::map<std::tuple<uint32_t, bool, int64_t>, uint32_t> utid_by_thread_;

  std::unordered_map<uint32_t, std::vector<uint32_t>> overflow_tracks_;  // By utid.
  uint32_t global_instant_track_ = kNullId;
  std::unordered_map<uint32_t, uint32_t> process_instant_track_;  // By upid.
  std::map<std::pair<uint32_t, StringId>, uint32_t> counter_track_;  // (upid, name).

  // Async: cookie = (local upid or kNullId, category, id or id string).
  std::map<std::tuple<uint32_t, StringId, bool, uint64_t>, uint64_t> cookie_index_;
  std::vector<AsyncCookie> cookies_;
  // Groups share a name (and process, for local ids); their lanes are tracks.
  std::map<std::pair<uint32_t, StringId>, size_t> group_index_;
  std::vector<AsyncGroup> groups_;

  // Flows v1: (id, category, name) -> the slice of the last s or t.
  std::map<std::tuple<uint64_t, StringId, StringId>, uint32_t> v1_flows_;
  // f events waiting for the next slice on their track.
  std::unordered_map<uint32_t, std::vector<uint32_t>> pending_flow_ends_;  // By track.
  // Flows v2: bind_id -> the slice of the last out or step.
  std::unordered_map<uint64_t, uint32_t> v2_flows_;

  // Arg sets made for slices: first row and count (E merges into them).
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> arg_set_rows_;
  // process_sort_index / thread_sort_index metadata: the last value each
  // process or thread was given, stored as args at the end.
  std::map<uint32_t, int64_t> process_sort_hint_;  // By upid.
  std::map<uint32_t, int64_t> thread_sort_hint_;   // By utid.
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_JSON_JSON_EVENT_PARSER_H_
