#include "src/processor/sql/storage_tables.h"

#include "src/processor/sql/functions/functions.h"

namespace zt {
namespace processor {
namespace sql {
namespace {

// args: each value column holds a value only for its types.
const ArgTable* Args(const void* data) {
  return static_cast<const ArgTable*>(data);
}

// A column that is 0 on every row: the host's machine id (one machine per
// session), and what no importer of ours sets.
Cell MachineZeroCell(const void*, uint32_t) {
  Cell cell;
  cell.type = Cell::kInt;
  return cell;
}

Cell ArgIntValue(const void* data, uint32_t row) {
  const ArgTable* args = Args(data);
  Cell cell;
  switch (args->value_type[row]) {
    case ArgType::kInt:
    case ArgType::kUint:
    case ArgType::kPointer:
    case ArgType::kBool:
      cell.type = Cell::kInt;
      cell.i = args->int_value[row];
      break;
    default:
      break;
  }
  return cell;
}

Cell ArgStringValue(const void* data, uint32_t row) {
  const ArgStrings* strings = static_cast<const ArgStrings*>(data);
  Cell cell;
  const ArgType type = strings->args->value_type[row];
  const StringId id = strings->args->string_value[row];
  if ((type == ArgType::kString || type == ArgType::kJson) && id != kNullStringId) {
    cell.type = Cell::kText;
    cell.text = strings->pool->Get(id);
  }
  return cell;
}

Cell ArgRealValue(const void* data, uint32_t row) {
  const ArgTable* args = Args(data);
  Cell cell;
  if (args->value_type[row] == ArgType::kReal) {
    cell.type = Cell::kReal;
    cell.d = args->real_value[row];
  }
  return cell;
}

Cell SliceStackIdCell(const void* data, uint32_t row) {
  Cell cell;
  cell.type = Cell::kInt;
  cell.i = SliceStackId(*static_cast<const TraceStorage*>(data), row);
  return cell;
}

Cell SliceParentStackIdCell(const void* data, uint32_t row) {
  Cell cell;
  cell.type = Cell::kInt;
  cell.i = SliceParentStackId(*static_cast<const TraceStorage*>(data), row);
  return cell;
}

Cell ArgValueType(const void* data, uint32_t row) {
  Cell cell;
  cell.type = Cell::kText;
  cell.text = ArgTypeName(Args(data)->value_type[row]);
  return cell;
}

}  // namespace

const char* FallbackTrackType(TrackKind kind, uint32_t utid, uint32_t upid) {
  switch (kind) {
    case TrackKind::kThread:
      return "thread_execution";
    case TrackKind::kProcess:
      return "process_track_event";
    case TrackKind::kGlobal:
      return "global_track_event";
    case TrackKind::kCounter:
      return utid != kNullId   ? "thread_counter_track_event"
             : upid != kNullId ? "process_counter_track_event"
                               : "global_counter_track_event";
  }
  return "global_track_event";
}

const char* TrackTypeName(TrackKind kind, uint32_t utid, uint32_t upid) {
  switch (kind) {
    case TrackKind::kThread:
      return "thread_track";
    case TrackKind::kProcess:
      return "process_track";
    case TrackKind::kGlobal:
      return "track";
    case TrackKind::kCounter:
      if (utid != kNullId)
        return "thread_counter_track";
      if (upid != kNullId)
        return "process_counter_track";
      return "counter_track";
  }
  return "track";
}

ColumnTable* StorageTables::Add(const std::string& name, size_t rows) {
  tables_.push_back(std::make_unique<ColumnTable>(name, rows));
  return tables_.back().get();
}

StorageTables::StorageTables(const TraceStorage& s) {
  const StringPool* pool = &s.strings;

  ColumnTable* slice = Add("slice", s.slice.size());
  slice->AddRowId("id");
  slice->AddInt64("ts", s.slice.ts.data(), ColumnTable::kSorted);
  slice->AddInt64("dur", s.slice.dur.data());
  slice->AddUint32Id("track_id", s.slice.track_id.data());
  slice->AddStringId("category", s.slice.category.data(), pool);
  slice->AddStringId("name", s.slice.name.data(), pool);
  slice->AddUint32("depth", s.slice.depth.data());
  slice->AddUint32Id("parent_id", s.slice.parent_id.data());
  slice->AddUint32Id("arg_set_id", s.slice.arg_set_id.data());
  // Upstream's thread time (JSON's tts/tdur; NULL, as upstream's, when the
  // trace has none) and instruction columns (no importer fills them), and
  // its two aliases.
  if (!s.slice.thread_ts.empty() && s.slice.thread_ts.size() == s.slice.size()) {
    slice->AddInt64("thread_ts", s.slice.thread_ts.data());
    slice->AddInt64("thread_dur", s.slice.thread_dur.data());
  } else {
    slice->AddNull("thread_ts", "INTEGER");
    slice->AddNull("thread_dur", "INTEGER");
  }
  slice->AddNull("thread_instruction_count", "INTEGER");
  slice->AddNull("thread_instruction_delta", "INTEGER");
  slice->AddStringId("cat", s.slice.category.data(), pool);
  slice->AddRowId("slice_id");
  slice->AddCustom("stack_id", "INTEGER", SliceStackIdCell, &s);
  slice->AddCustom("parent_stack_id", "INTEGER", SliceParentStackIdCell, &s);

  ColumnTable* counter = Add("counter", s.counter.size());
  counter->AddRowId("id");
  counter->AddInt64("ts", s.counter.ts.data(), ColumnTable::kSorted);
  counter->AddUint32Id("track_id", s.counter.track_id.data());
  counter->AddDouble("value", s.counter.value.data());
  counter->AddNull("arg_set_id", "INTEGER");  // Upstream v58's; no counter has args yet.

  // `type` is upstream v58's (the importers name each track's blueprint);
  // `__kind` is the v14-style table name the views select by.
  for (size_t i = 0; i < s.track.size(); i++) {
    track_kind_.push_back(TrackTypeName(s.track.kind[i], s.track.utid[i], s.track.upid[i]));
    const StringId type = i < s.track.type.size() ? s.track.type[i] : kNullStringId;
    // Pool strings are not NUL-terminated: copied (tracks are few).
    track_type_text_.push_back(type != kNullStringId
                                   ? std::string(pool->Get(type))
                                   : FallbackTrackType(s.track.kind[i], s.track.utid[i],
                                                       s.track.upid[i]));
  }
  for (const std::string& type : track_type_text_)
    track_type_.push_back(type.c_str());
  ColumnTable* track = Add("__zt_track", s.track.size());
  track->AddRowId("id");
  track->AddCString("type", track_type_.data());
  track->AddCString("__kind", track_kind_.data());
  track->AddStringId("name", s.track.name.data(), pool);
  if (s.track.dimension_arg_set_id.size() == s.track.size())
    track->AddUint32Id("dimension_arg_set_id", s.track.dimension_arg_set_id.data());
  else
    track->AddNull("dimension_arg_set_id", "INTEGER");
  track->AddUint32Id("parent_id", s.track.parent_id.data());
  track->AddUint32Id("utid", s.track.utid.data());
  track->AddUint32Id("upid", s.track.upid.data());
  track->AddStringId("unit", s.track.unit.data(), pool);

  ColumnTable* thread = Add("thread", s.thread.size());
  thread->AddRowId("utid");
  thread->AddRowId("id");
  thread->AddInt64("tid", s.thread.tid.data());
  thread->AddStringId("name", s.thread.name.data(), pool);
  thread->AddInt64("start_ts", s.thread.start_ts.data());
  thread->AddNull("end_ts", "INTEGER");
  thread->AddUint32Id("upid", s.thread.upid.data());
  thread->AddBool("is_main_thread", s.thread.is_main_thread.data());
  // No importer of ours makes the idle (swapper) thread.
  thread->AddCustom("is_idle", "INTEGER", &MachineZeroCell, nullptr);
  thread->AddCustom("machine_id", "INTEGER", &MachineZeroCell, nullptr);
  if (!s.thread.arg_set_id.empty() && s.thread.arg_set_id.size() == s.thread.size())
    thread->AddUint32Id("arg_set_id", s.thread.arg_set_id.data());
  else
    thread->AddNull("arg_set_id", "INTEGER");

  ColumnTable* process = Add("process", s.process.size());
  process->AddRowId("upid");
  process->AddRowId("id");
  process->AddInt64("pid", s.process.pid.data());
  process->AddStringId("name", s.process.name.data(), pool);
  process->AddInt64("start_ts", s.process.start_ts.data());
  process->AddNull("end_ts", "INTEGER");
  process->AddUint32Id("parent_upid", s.process.parent_upid.data());
  process->AddNull("uid", "INTEGER");
  process->AddStringId("cmdline", s.process.cmdline.data(), pool);
  process->AddCustom("machine_id", "INTEGER", &MachineZeroCell, nullptr);
  if (!s.process.arg_set_id.empty() && s.process.arg_set_id.size() == s.process.size())
    process->AddUint32Id("arg_set_id", s.process.arg_set_id.data());
  else
    process->AddNull("arg_set_id", "INTEGER");

  ColumnTable* flow = Add("flow", s.flow.size());
  flow->AddRowId("id");
  flow->AddUint32Id("slice_out", s.flow.slice_out.data());
  flow->AddUint32Id("slice_in", s.flow.slice_in.data());
  // Upstream v58's; the importer keeps neither yet.
  flow->AddNull("trace_id", "INTEGER");
  flow->AddNull("arg_set_id", "INTEGER");

  ColumnTable* clocks = Add("clock_snapshot", s.clock_snapshot.size());
  clocks->AddRowId("id");
  clocks->AddInt64("ts", s.clock_snapshot.ts.data());
  clocks->AddInt64("clock_id", s.clock_snapshot.clock_id.data());
  clocks->AddCString("clock_name", s.clock_snapshot.clock_name.data());
  clocks->AddInt64("clock_value", s.clock_snapshot.clock_value.data());
  clocks->AddUint32("snapshot_id", s.clock_snapshot.snapshot_id.data());
  clocks->AddCustom("machine_id", "INTEGER", &MachineZeroCell, nullptr);

  arg_strings_ = ArgStrings{&s.args, pool};
  // Served through the args view (ViewsSql), which adds display_value.
  ColumnTable* args = Add("__zt_args", s.args.size());
  args->AddRowId("id");
  args->AddUint32Id("arg_set_id", s.args.arg_set_id.data());
  args->AddStringId("flat_key", s.args.flat_key.data(), pool);
  args->AddStringId("key", s.args.key.data(), pool);
  args->AddCustom("int_value", "INTEGER", ArgIntValue, &s.args);
  args->AddCustom("string_value", "TEXT", ArgStringValue, &arg_strings_);
  args->AddCustom("real_value", "REAL", ArgRealValue, &s.args);
  args->AddCustom("value_type", "TEXT", ArgValueType, &s.args);

  // Templight input only (empty otherwise); memory values as INTEGER (a
  // uint64 above 2^63 would read negative: no compiler uses 8 EiB).
  const TemplightInstantiationTable& t = s.templight;
  ColumnTable* templight = Add("templight_instantiation", t.size());
  templight->AddRowId("id");
  templight->AddUint32Id("slice_id", t.slice_id.data());
  templight->AddUint32("kind", t.kind.data());
  templight->AddStringId("kind_name", t.kind_name.data(), pool);
  templight->AddStringId("file", t.file.data(), pool);
  templight->AddUint32("line", t.line.data());
  templight->AddUint32("column", t.column.data());
  templight->AddStringId("origin_file", t.origin_file.data(), pool);
  templight->AddUint32("origin_line", t.origin_line.data());
  templight->AddUint32("origin_column", t.origin_column.data());
  templight->AddInt64("memory_begin", reinterpret_cast<const int64_t*>(t.memory_begin.data()));
  templight->AddInt64("memory_end", reinterpret_cast<const int64_t*>(t.memory_end.data()));

  for (const TemplightUnitRow& unit : s.templight_units) {
    templight_unit_track_.push_back(unit.track_id);
    templight_unit_version_.push_back(unit.version);
    templight_unit_source_.push_back(unit.source_file);
    templight_unit_numbering_.push_back(unit.kind_numbering);
  }
  ColumnTable* units = Add("templight_unit", s.templight_units.size());
  units->AddRowId("id");
  units->AddUint32Id("track_id", templight_unit_track_.data());
  units->AddUint32("version", templight_unit_version_.data());
  units->AddStringId("source_file", templight_unit_source_.data(), pool);
  units->AddStringId("kind_numbering", templight_unit_numbering_.data(), pool);

  for (int k = 0; k < stats::kNumKeys; k++) {
    const auto key = static_cast<stats::Key>(k);
    const stats::Descriptor& d = stats::Describe(key);
    auto add = [&](int64_t idx, int64_t value) {
      stat_id_.push_back(static_cast<int64_t>(stat_id_.size()));
      stat_key_.push_back(k);
      stat_name_.push_back(d.name);
      stat_idx_.push_back(idx);
      stat_severity_.push_back(stats::SeverityName(d.severity));
      stat_source_.push_back(stats::SourceName(d.source));
      stat_value_.push_back(value);
      stat_description_.push_back(d.description);
    };
    if (d.type == stats::kSingle) {
      add(kNullInt, s.stats.Get(key));
    } else {
      for (const auto& entry : s.stats.GetIndexed(key))
        add(entry.first, entry.second);
    }
  }
  // Upstream v58.2's columns, in its order. `key` is zerotrace's own
  // numbering of the stats; machine_id and trace_id are the one machine's
  // and the one trace's (0), as in the other tables.
  stat_zero_.assign(stat_name_.size(), 0);
  ColumnTable* stats = Add("stats", stat_name_.size());
  stats->AddInt64("id", stat_id_.data());
  stats->AddCString("name", stat_name_.data());
  stats->AddInt64("key", stat_key_.data());
  stats->AddInt64("idx", stat_idx_.data());
  stats->AddCString("severity", stat_severity_.data());
  stats->AddCString("source", stat_source_.data());
  stats->AddInt64("value", stat_value_.data());
  stats->AddCString("description", stat_description_.data());
  stats->AddInt64("machine_id", stat_zero_.data());
  stats->AddInt64("trace_id", stat_zero_.data());

  metadata_key_type_.assign(s.metadata.size(), "single");
  ColumnTable* metadata = Add("metadata", s.metadata.size());
  metadata->AddStringId("name", s.metadata.name.data(), pool);
  metadata->AddCString("key_type", metadata_key_type_.data());
  metadata->AddInt64("int_value", s.metadata.int_value.data());
  metadata->AddStringId("str_value", s.metadata.str_value.data(), pool);
  // One trace of one machine (the host) per session, as upstream numbers
  // them: trace 0, machine NULL.
  metadata_trace_id_.assign(s.metadata.size(), 0);
  metadata->AddNull("machine_id", "INTEGER");
  metadata->AddInt64("trace_id", metadata_trace_id_.data());
}

StorageTables::~StorageTables() = default;

const char* StorageTables::ViewsSql() {
  return R"(
-- One machine, the host, as upstream numbers it: id 0 (the rows of every
-- table say machine_id 0).
CREATE VIEW machine AS
  SELECT 0 AS id, 0 AS raw_id, NULL AS name, NULL AS sysname, NULL AS release,
    NULL AS version, NULL AS arch, NULL AS num_cpus, NULL AS android_build_fingerprint,
    NULL AS android_device_manufacturer, NULL AS android_sdk_version,
    NULL AS system_ram_bytes, NULL AS system_ram_gb, 0 AS label_index;
-- Upstream's kernel ftrace events, which zerotrace does not import (the
-- stat tokenizer_skipped_packets counts them): empty, so that queries that
-- probe for them (Perfetto UI's, as it opens any trace) run.
CREATE VIEW ftrace_event AS
  SELECT NULL AS id, NULL AS ts, NULL AS name, NULL AS utid, NULL AS arg_set_id,
    NULL AS common_flags, NULL AS ucpu
  WHERE 0;
CREATE VIEW track AS
  SELECT id, name, type, dimension_arg_set_id, parent_id, NULL AS source_arg_set_id,
    0 AS machine_id, NULL AS track_group_id
  FROM __zt_track;
CREATE VIEW thread_track AS
  SELECT id, name, type, parent_id, NULL AS source_arg_set_id, 0 AS machine_id, utid
  FROM __zt_track WHERE __kind = 'thread_track';
CREATE VIEW process_track AS
  SELECT id, name, type, parent_id, NULL AS source_arg_set_id, 0 AS machine_id, upid
  FROM __zt_track WHERE __kind = 'process_track';
CREATE VIEW counter_track AS
  SELECT id, name, parent_id, type, dimension_arg_set_id, NULL AS source_arg_set_id,
    0 AS machine_id, unit, NULL AS description
  FROM __zt_track
  WHERE __kind IN ('counter_track', 'thread_counter_track', 'process_counter_track');
CREATE VIEW thread_counter_track AS
  SELECT id, name, type, parent_id, NULL AS source_arg_set_id, 0 AS machine_id, unit,
    NULL AS description, utid
  FROM __zt_track WHERE __kind = 'thread_counter_track';
CREATE VIEW process_counter_track AS
  SELECT id, name, type, parent_id, NULL AS source_arg_set_id, 0 AS machine_id, unit,
    NULL AS description, upid
  FROM __zt_track WHERE __kind = 'process_counter_track';
CREATE VIEW args AS
  SELECT id, arg_set_id, flat_key, key, int_value, string_value, real_value, value_type,
    CASE value_type
      WHEN 'int' THEN CAST(int_value AS TEXT)
      WHEN 'uint' THEN printf('%u', int_value)
      WHEN 'string' THEN string_value
      WHEN 'real' THEN CAST(real_value AS TEXT)
      WHEN 'pointer' THEN printf('0x%x', int_value)
      WHEN 'bool' THEN CASE WHEN int_value != 0 THEN 'true' ELSE 'false' END
      WHEN 'json' THEN string_value
    END AS display_value
  FROM __zt_args;
CREATE VIEW instant AS
  SELECT ts, track_id, name, arg_set_id FROM slice WHERE dur = 0;
CREATE VIEW slices AS
  SELECT * FROM slice;
CREATE VIEW counters AS
  SELECT v.*, t.name, t.unit FROM counter AS v JOIN counter_track AS t ON v.track_id = t.id
  ORDER BY ts;
CREATE VIEW trace_bounds AS
  SELECT trace_start() AS start_ts, trace_end() AS end_ts;
)";
}

std::vector<std::string> StorageTables::PublicNames() {
  return {"args",
          "clock_snapshot",
          "counter",
          "counter_track",
          "counters",
          "flow",
          "instant",
          "metadata",
          "process",
          "process_counter_track",
          "process_track",
          "slice",
          "slices",
          "stats",
          "templight_instantiation",
          "templight_unit",
          "thread",
          "thread_counter_track",
          "thread_track",
          "trace_bounds",
          "track"};
}

std::vector<std::string> StorageTables::ExportedNames() {
  std::vector<std::string> names;
  for (const std::string& name : PublicNames()) {
    if (name != "slices" && name != "counters" && name != "instant")
      names.push_back(name);
  }
  return names;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
