// The trace model's tables as SQL sees them: one ColumnTable per table of
// TraceStorage, with upstream Perfetto v14's table and column names, plus
// the views upstream derives from them (thread_track, process_track,
// counter_track, ...) as SQL text.
//
//   slice     id, ts, dur, track_id, category, name, depth, parent_id,
//             arg_set_id, thread_ts, thread_dur, thread_instruction_count,
//             thread_instruction_delta (NULL: not imported yet), cat (=
//             category), slice_id (= id), as upstream v58's
//   counter   id, ts, track_id, value, arg_set_id (NULL)
//   track     id, type, name, parent_id      (view of __zt_track)
//     thread_track (+ utid), process_track (+ upid), counter_track (+ unit),
//     thread_counter_track (+ utid, unit), process_counter_track (+ upid,
//     unit); `type` is the most specific of these names, as upstream's
//   thread    utid, id, tid, name, start_ts, end_ts, upid, is_main_thread
//   process   upid, id, pid, name, start_ts, end_ts, parent_upid, uid,
//             cmdline
//   flow      id, slice_out, slice_in, trace_id and arg_set_id (NULL)
//   args      id, arg_set_id, flat_key, key, int_value, string_value,
//             real_value, value_type, display_value (a view of __zt_args:
//             the value as text, by upstream's rules: uint unsigned,
//             pointer 0x-hex, bool true/false)
//   stats     name, idx, severity, source, value, description (every single
//             stat, one row per index of indexed ones, as upstream's)
//   metadata  name, key_type, int_value, str_value
//   templight_instantiation  id, slice_id, kind, kind_name, file, line,
//             column, origin_file, origin_line, origin_column,
//             memory_begin, memory_end (zerotrace's: Templight input only)
//   templight_unit  id, track_id, version, source_file, kind_numbering
//   instant   ts, track_id, name, arg_set_id (upstream's legacy view: the
//             slices of no duration); slices (= slice); counters (counter
//             with its track's name and unit)
//   trace_bounds  start_ts, end_ts (a view of trace_start(), trace_end():
//             functions/functions.h)
//
// The tables view the storage's vectors: the storage must outlive them and
// not change.

#ifndef ZT_SRC_PROCESSOR_SQL_STORAGE_TABLES_H_
#define ZT_SRC_PROCESSOR_SQL_STORAGE_TABLES_H_

#include <memory>
#include <string>
#include <vector>

#include "src/processor/sql/column_table.h"
#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {
namespace sql {

// What the args string_value column reads.
struct ArgStrings {
  const ArgTable* args;
  const StringPool* pool;
};

class StorageTables {
 public:
  explicit StorageTables(const TraceStorage& storage);
  ~StorageTables();
  StorageTables(const StorageTables&) = delete;
  StorageTables& operator=(const StorageTables&) = delete;

  const std::vector<std::unique_ptr<ColumnTable>>& tables() const { return tables_; }
  // CREATE VIEW statements for the derived tables, run once per connection
  // after the tables are registered.
  static const char* ViewsSql();
  // Every name a query may use (tables and views, not internal ones).
  static std::vector<std::string> PublicNames();
  // What export-db writes: the public names but the views that only
  // rename or filter another (slices, counters, instant), whose rows would
  // be written twice.
  static std::vector<std::string> ExportedNames();

 private:
  ColumnTable* Add(const std::string& name, size_t rows);

  std::vector<std::unique_ptr<ColumnTable>> tables_;
  // Columns computed once here (small tables only).
  std::vector<std::string> track_type_text_;
  std::vector<const char*> track_type_;
  std::vector<const char*> track_kind_;
  std::vector<const char*> stat_name_;
  std::vector<int64_t> stat_idx_;
  std::vector<int64_t> stat_id_;
  std::vector<int64_t> stat_key_;
  std::vector<int64_t> stat_zero_;  // machine_id and trace_id: one of each.
  std::vector<const char*> stat_severity_;
  std::vector<const char*> stat_source_;
  std::vector<int64_t> stat_value_;
  std::vector<const char*> stat_description_;
  std::vector<const char*> metadata_key_type_;
  std::vector<int64_t> metadata_trace_id_;
  std::vector<uint32_t> templight_unit_track_;
  std::vector<uint32_t> templight_unit_version_;
  std::vector<StringId> templight_unit_source_;
  std::vector<StringId> templight_unit_numbering_;
  ArgStrings arg_strings_;
};

// Which of upstream's track tables a row belongs to (the views select by
// it; v14's `type` held these): "thread_track", "process_track", "track",
// "counter_track", "thread_counter_track" or "process_counter_track".
const char* TrackTypeName(TrackKind kind, uint32_t utid, uint32_t upid);

// Upstream v58's `type` for a track no importer named (hand-built test
// storages): the blueprint its kind most often is.
const char* FallbackTrackType(TrackKind kind, uint32_t utid, uint32_t upid);

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_STORAGE_TABLES_H_
