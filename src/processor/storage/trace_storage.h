// The trace model: columnar tables filled by the importer and read by the
// SQL layer, the exporters and the summaries. Table and column names are
// upstream Perfetto trace processor's, so that its queries work here for the
// common cases (docs/design/trace_processor.md, "Model").
//
// Each table is a struct of equal-length column vectors; a row's id is its
// index. Strings are StringPool ids. Nullable columns hold a sentinel
// (kNullId for ids, kNullStringId for strings, kNullInt for integers) that
// the SQL layer turns into NULL. Rows are appended by the importer only;
// once the import has finished, the storage is read-only and may be read
// from several threads.

#ifndef ZT_SRC_PROCESSOR_STORAGE_TRACE_STORAGE_H_
#define ZT_SRC_PROCESSOR_STORAGE_TRACE_STORAGE_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "src/processor/storage/stats.h"
#include "src/processor/storage/string_pool.h"

namespace zt {
namespace processor {

constexpr uint32_t kNullId = std::numeric_limits<uint32_t>::max();
constexpr int64_t kNullInt = std::numeric_limits<int64_t>::min();

// process: one row per process seen (upid). Row 0 is upstream's
// placeholder for "no process" (pid 0), kept so that ids line up with
// queries written for upstream.
struct ProcessTable {
  std::vector<int64_t> pid;
  std::vector<StringId> name;
  std::vector<StringId> cmdline;
  std::vector<int64_t> start_ts;  // kNullInt when unknown.
  std::vector<uint32_t> parent_upid;  // kNullId when unknown.
  // Either empty (no process has args) or one per row, kNullId without.
  std::vector<uint32_t> arg_set_id;
  size_t size() const { return pid.size(); }
};

// thread: one row per thread seen (utid). Row 0 is the placeholder (tid 0).
struct ThreadTable {
  std::vector<int64_t> tid;
  std::vector<StringId> name;
  std::vector<uint32_t> upid;  // kNullId when the process is unknown.
  std::vector<int64_t> start_ts;
  std::vector<uint8_t> is_main_thread;  // 0, 1, or 2 = unknown (NULL).
  // Either empty (no thread has args) or one per row, kNullId without.
  std::vector<uint32_t> arg_set_id;
  size_t size() const { return tid.size(); }
};

// What a track is for; the SQL layer derives thread_track, process_track and
// counter_track from it (upstream's subtables of `track`).
enum class TrackKind : uint8_t {
  kThread,          // utid set: slices of one thread.
  kProcess,         // upid set: a process-scoped (async) track.
  kGlobal,          // a custom track with neither.
  kCounter,         // counter values; utid or upid may be set.
};

// track: every timeline row (id = track_id).
struct TrackTable {
  std::vector<StringId> name;
  std::vector<TrackKind> kind;
  std::vector<uint32_t> utid;       // kNullId unless bound to a thread.
  std::vector<uint32_t> upid;       // kNullId unless bound to a process.
  std::vector<uint32_t> parent_id;  // Parent track, kNullId if none.
  std::vector<uint64_t> uuid;       // TrackDescriptor.uuid, 0 if none.
  std::vector<StringId> unit;       // Counter tracks: CounterDescriptor unit.
  // Upstream v58's `type`: the kind of data and how the track is keyed
  // ("thread_execution", "process_track_event", "json_counter", ...);
  // kNullStringId: the SQL layer names it from `kind`.
  std::vector<StringId> type;
  // The arg set of the track's dimensions ("utid", "upid", "track_uuid",
  // "name"), as upstream's `dimension_arg_set_id`; kNullId without any.
  std::vector<uint32_t> dimension_arg_set_id;
  size_t size() const { return name.size(); }
  // Appends a row (every column) and returns its id.
  uint32_t AddRow(StringId row_name, TrackKind row_kind, uint32_t row_utid, uint32_t row_upid,
                  uint32_t row_parent_id, uint64_t row_uuid, StringId row_unit,
                  StringId row_type = kNullStringId, uint32_t row_dimensions = kNullId) {
    name.push_back(row_name);
    kind.push_back(row_kind);
    utid.push_back(row_utid);
    upid.push_back(row_upid);
    parent_id.push_back(row_parent_id);
    uuid.push_back(row_uuid);
    unit.push_back(row_unit);
    type.push_back(row_type);
    dimension_arg_set_id.push_back(row_dimensions);
    return static_cast<uint32_t>(name.size() - 1);
  }
};

// slice: begin/end pairs, complete events and instants (dur 0); id = row.
// Rows are in ts order (ties: import order), as upstream's.
struct SliceTable {
  std::vector<int64_t> ts;
  std::vector<int64_t> dur;  // -1: never ended within the trace.
  std::vector<uint32_t> track_id;
  std::vector<StringId> category;
  std::vector<StringId> name;
  std::vector<uint32_t> depth;
  std::vector<uint32_t> parent_id;   // kNullId at depth 0.
  std::vector<uint32_t> arg_set_id;  // kNullId without args.
  // Thread time (JSON's tts/tdur): either empty (no slice has one, the
  // columns are NULL) or one value per row, kNullInt where unknown.
  std::vector<int64_t> thread_ts;
  std::vector<int64_t> thread_dur;
  size_t size() const { return ts.size(); }
  void reserve(size_t rows) {
    ts.reserve(rows);
    dur.reserve(rows);
    track_id.reserve(rows);
    category.reserve(rows);
    name.reserve(rows);
    depth.reserve(rows);
    parent_id.reserve(rows);
    arg_set_id.reserve(rows);
  }
  // The columns reserve() sizes, to `rows` (new rows zero; thread_ts and
  // thread_dur stay as they are): for an importer that writes rows by
  // index, and sets every column of each row it writes.
  void resize(size_t rows) {
    ts.resize(rows);
    dur.resize(rows);
    track_id.resize(rows);
    category.resize(rows);
    name.resize(rows);
    depth.resize(rows);
    parent_id.resize(rows);
    arg_set_id.resize(rows);
  }
};

// counter: one value of a counter track; rows in ts order.
struct CounterTable {
  std::vector<int64_t> ts;
  std::vector<double> value;
  std::vector<uint32_t> track_id;
  size_t size() const { return ts.size(); }
};

// flow: an arrow from one slice to another.
struct FlowTable {
  std::vector<uint32_t> slice_out;
  std::vector<uint32_t> slice_in;
  size_t size() const { return slice_out.size(); }
};

// clock_snapshot: each clock of each accepted ClockSnapshot packet, with
// the snapshot's time on the trace clock (snapshots that do not name the
// trace clock are left out: their trace time is not known when read).
struct ClockSnapshotTable {
  std::vector<int64_t> ts;           // The snapshot's trace-clock time.
  std::vector<int64_t> clock_id;     // As the packet names it (builtin 1..6, or 64+).
  std::vector<const char*> clock_name;  // "REALTIME", ... for builtins; nullptr otherwise.
  std::vector<int64_t> clock_value;  // In ns (unit multiplier applied).
  std::vector<uint32_t> snapshot_id;  // 0, 1, ... per accepted snapshot.
  size_t size() const { return ts.size(); }
};

enum class ArgType : uint8_t { kInt, kUint, kString, kReal, kPointer, kBool, kJson, kNull };
// upstream's value_type strings: "int", "uint", "string", "real",
// "pointer", "bool", "json", "null".
const char* ArgTypeName(ArgType type);

// args: key/value pairs grouped in sets (arg_set_id) that slices point to.
// Debug annotations are keyed "debug.<name>" as upstream keys them; nested
// dictionaries add ".<key>", arrays "[<index>]" (key) / "" (flat_key).
struct ArgTable {
  std::vector<uint32_t> arg_set_id;
  std::vector<StringId> flat_key;
  std::vector<StringId> key;
  std::vector<ArgType> value_type;
  std::vector<int64_t> int_value;      // kInt, kUint (as int64), kPointer, kBool.
  std::vector<StringId> string_value;  // kString, kJson.
  std::vector<double> real_value;      // kReal.
  size_t size() const { return arg_set_id.size(); }
};

// metadata: facts about the whole trace (trace_uuid, trace_size_bytes,
// tracing_started_ns, ...), one row per name.
struct MetadataTable {
  std::vector<StringId> name;
  std::vector<int64_t> int_value;   // kNullInt when a string.
  std::vector<StringId> str_value;  // kNullStringId when an int.
  size_t size() const { return name.size(); }
  void AddInt(StringId key, int64_t value) {
    name.push_back(key);
    int_value.push_back(value);
    str_value.push_back(kNullStringId);
  }
  void AddString(StringId key, StringId value) {
    name.push_back(key);
    int_value.push_back(kNullInt);
    str_value.push_back(value);
  }
};

// Where the trace says packets were lost: a previous_packet_dropped mark
// (the first packet after the gap) or the file's own damage. Not an
// upstream table; `ztrace stats` lists them, with where.
struct DataLossMark {
  uint32_t sequence_id = 0;  // 0 for the file's damage.
  uint64_t offset = 0;       // Byte offset in the file.
  // Trace time of the packet after the gap: kNullInt when it has none that
  // can be trusted (a time relative to the lost state).
  int64_t ts = kNullInt;
  // Trace time of the sequence's last packet before the gap; kNullInt if
  // none had a time. The loss happened between the two.
  int64_t ts_before = kNullInt;
  uint64_t reasons = 0;      // DataLossReason bits as written (1: unknown).
};

// templight_instantiation: what a Templight trace (clang's template
// instantiation profile, docs/design/templight.md) says of each
// instantiation beyond its slice: one row per slice of a Templight track,
// joined by slice_id. Not an upstream table.
struct TemplightInstantiationTable {
  std::vector<uint32_t> slice_id;
  std::vector<uint32_t> kind;        // As recorded; its meaning depends on clang's version.
  std::vector<StringId> kind_name;   // kNullStringId when the number is not known.
  std::vector<StringId> file;        // kNullStringId when not recorded.
  std::vector<uint32_t> line;
  std::vector<uint32_t> column;
  std::vector<StringId> origin_file;  // kNullStringId: no origin recorded.
  std::vector<uint32_t> origin_line;
  std::vector<uint32_t> origin_column;
  std::vector<uint64_t> memory_begin;  // Bytes in use at the begin; 0: not recorded.
  std::vector<uint64_t> memory_end;    // At the end; 0: not recorded (or still open).
  size_t size() const { return slice_id.size(); }
  void reserve(size_t rows) {
    for (std::vector<uint32_t>* c : {&slice_id, &kind, &kind_name, &file, &line, &column,
                                     &origin_file, &origin_line, &origin_column})
      c->reserve(rows);
    memory_begin.reserve(rows);
    memory_end.reserve(rows);
  }
  // Every column to `rows` (new rows zero): for an importer that writes
  // rows by index.
  void resize(size_t rows) {
    for (std::vector<uint32_t>* c : {&slice_id, &kind, &kind_name, &file, &line, &column,
                                     &origin_file, &origin_line, &origin_column})
      c->resize(rows);
    memory_begin.resize(rows);
    memory_end.resize(rows);
  }
};

// One Templight translation unit: its track (named after source_file) and
// its header, kept so that the unit is written back as it came.
struct TemplightUnitRow {
  uint32_t track_id = kNullId;
  uint32_t version = 0;
  StringId source_file = kNullStringId;
  // Which clang numbering names its kinds ("clang 16", "unknown": see
  // templight_kinds.h), picked from the kinds the unit used.
  StringId kind_numbering = kNullStringId;
};

// Something the importer could not read, with where (kept for the first
// kMaxImportProblems; the stats table counts them all).
struct ImportProblem {
  uint64_t offset = 0;  // Byte offset in the file.
  std::string what;
};
constexpr size_t kMaxImportProblems = 1000;

struct TraceStorage {
  // Owners of bytes the string pool views without a copy
  // (StringPool::InternStable): kept, unread, as long as the storage.
  std::vector<std::shared_ptr<void>> string_owners;
  StringPool strings;
  ProcessTable process;
  ThreadTable thread;
  TrackTable track;
  SliceTable slice;
  CounterTable counter;
  FlowTable flow;
  ClockSnapshotTable clock_snapshot;
  ArgTable args;
  MetadataTable metadata;
  StatsTable stats;
  std::vector<DataLossMark> data_losses;
  TemplightInstantiationTable templight;  // Empty unless the input was Templight.
  std::vector<TemplightUnitRow> templight_units;
  std::vector<ImportProblem> import_problems;
  uint32_t next_arg_set_id = 0;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_STORAGE_TRACE_STORAGE_H_
