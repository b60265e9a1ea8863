#include "src/processor/templight_importer.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/processor/templight_kinds.h"
#include "src/processor/templight_reader.h"
#include "src/processor/track_tracker.h"
#include "zt/protozero/proto_decoder.h"

namespace zt {
namespace processor {

namespace {

using protozero::Field;
using protozero::ProtoDecoder;
using WireType = protozero::proto_utils::ProtoWireType;

bool IsPrintablePath(std::string_view text) {
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f)
      return false;
  }
  return true;
}

// Interns profile strings into the pool once each, on first use.
class LazyInterner {
 public:
  LazyInterner(StringPool* pool, size_t count) : pool_(pool), ids_(count, kNullStringId) {}
  StringId Get(uint32_t index, std::string_view text) {
    StringId& id = ids_[index];
    if (id == kNullStringId)
      id = pool_->Intern(text);
    return id;
  }

 private:
  StringPool* pool_;
  std::vector<StringId> ids_;
};

void SetMetadata(TraceStorage* storage, const char* name, int64_t int_value,
                 const char* str_value) {
  storage->metadata.name.push_back(storage->strings.Intern(name));
  storage->metadata.int_value.push_back(str_value ? kNullInt : int_value);
  storage->metadata.str_value.push_back(str_value ? storage->strings.Intern(str_value)
                                                  : kNullStringId);
}

}  // namespace

bool LooksLikeTemplight(const void* data, size_t size) {
  ProtoDecoder collection(static_cast<const uint8_t*>(data), size);
  const Field first = collection.ReadField();
  if (!first.valid() || first.id() != 1 || first.type() != WireType::kLengthDelimited)
    return false;
  bool has_header = false;
  ProtoDecoder trace(first.as_bytes());
  for (Field f = trace.ReadField(); f.valid(); f = trace.ReadField()) {
    if (f.id() < 1 || f.id() > 3 || f.type() != WireType::kLengthDelimited)
      return false;
    if (f.id() != 1)
      continue;
    has_header = true;
    ProtoDecoder header(f.as_bytes());
    for (Field h = header.ReadField(); h.valid(); h = header.ReadField()) {
      if (h.id() == 1 && h.type() == WireType::kVarInt)
        continue;
      if (h.id() == 2 && h.type() == WireType::kLengthDelimited && IsPrintablePath(h.as_string()))
        continue;
      return false;
    }
    if (header.parse_error())
      return false;
  }
  // A cut first record still counts when what was read of it fits.
  return has_header;
}

ImportResult ImportTemplight(const void* data, size_t size, const ImportOptions& options,
                             TraceStorage* storage) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  ImportResult result;
  result.input_bytes = size;
  TrackTracker placeholders(storage);  // Process and thread 0, as every import has.

  TemplightProfile profile;
  TemplightReadOptions read_options;
  read_options.method = options.templight_method;
  ReadTemplight(data, size, read_options, &profile);
  if (options.progress)
    options.progress(size, size);
  if (options.release_input)
    options.release_input(0, size);
  const Clock::time_point read_end = Clock::now();
  result.pass1_seconds = std::chrono::duration<double>(read_end - start).count();

  StringPool& strings = storage->strings;
  LazyInterner names(&strings, profile.names.size());
  LazyInterner files(&strings, profile.files.size());

  // One global track per unit, named after its source file.
  const uint32_t first_track = static_cast<uint32_t>(storage->track.size());
  const size_t first_unit = storage->templight_units.size();
  for (size_t u = 0; u < profile.units.size(); u++) {
    const TemplightUnit& unit = profile.units[u];
    TrackTable& track = storage->track;
    const std::string name = unit.source_file.empty()
                                 ? "translation unit " + std::to_string(u + 1)
                                 : unit.source_file;
    TemplightUnitRow row;
    row.track_id = static_cast<uint32_t>(track.size());
    row.version = unit.version;
    row.source_file = strings.Intern(unit.source_file);
    storage->templight_units.push_back(row);
    track.name.push_back(strings.Intern(name));
    track.kind.push_back(TrackKind::kGlobal);
    track.utid.push_back(kNullId);
    track.upid.push_back(kNullId);
    track.parent_id.push_back(kNullId);
    track.uuid.push_back(0);
    track.unit.push_back(kNullStringId);
  }

  // Kind names: each unit's numbering is picked from the kinds it used.
  std::vector<TemplightKindEvidence> evidence(profile.units.size());
  for (const TemplightInstantiation& i : profile.instantiations)
    evidence[i.unit].Add(i.kind);
  std::vector<TemplightKindTable> kind_table(profile.units.size());
  for (size_t u = 0; u < profile.units.size(); u++) {
    kind_table[u] = PickTemplightKindTable(evidence[u]);
    storage->templight_units[first_unit + u].kind_numbering =
        strings.Intern(TemplightKindTableLabel(kind_table[u]));
  }
  std::unordered_map<uint64_t, StringId> kind_names;  // (table << 32 | kind) -> name.
  auto kind_name = [&](uint32_t unit, uint32_t kind) {
    const TemplightKindTable table = kind_table[unit];
    const uint64_t key = (uint64_t{static_cast<uint8_t>(table)} << 32) | kind;
    auto found = kind_names.find(key);
    if (found != kind_names.end())
      return found->second;
    const char* name = TemplightKindName(kind, table);
    const StringId id = name ? strings.Intern(name) : kNullStringId;
    kind_names.emplace(key, id);
    return id;
  };

  // Slices are in ts order (ties: begin order). Begins come in time order
  // within a unit; units may overlap, and a damaged file may go back.
  const std::vector<TemplightInstantiation>& in = profile.instantiations;
  const size_t count = in.size();
  std::vector<uint32_t> order;  // Slice row -> instantiation; empty: identity.
  for (size_t i = 1; i < count; i++) {
    if (in[i].begin_ns < in[i - 1].begin_ns) {
      order.resize(count);
      std::iota(order.begin(), order.end(), 0u);
      std::stable_sort(order.begin(), order.end(), [&in](uint32_t a, uint32_t b) {
        return in[a].begin_ns < in[b].begin_ns;
      });
      break;
    }
  }
  std::vector<uint32_t> row_of;  // Instantiation -> slice row, when reordered.
  if (!order.empty()) {
    row_of.resize(count);
    for (size_t row = 0; row < count; row++)
      row_of[order[row]] = static_cast<uint32_t>(row);
  }
  const uint32_t first_slice = static_cast<uint32_t>(storage->slice.size());
  auto slice_of = [&](size_t instantiation) {
    return first_slice +
           (row_of.empty() ? static_cast<uint32_t>(instantiation) : row_of[instantiation]);
  };

  SliceTable& slice = storage->slice;
  TemplightInstantiationTable& table = storage->templight;
  slice.reserve(slice.size() + count);
  auto reserve_table = [&table](size_t rows) {
    table.slice_id.reserve(rows);
    table.kind.reserve(rows);
    table.kind_name.reserve(rows);
    table.file.reserve(rows);
    table.line.reserve(rows);
    table.column.reserve(rows);
    table.origin_file.reserve(rows);
    table.origin_line.reserve(rows);
    table.origin_column.reserve(rows);
    table.memory_begin.reserve(rows);
    table.memory_end.reserve(rows);
  };
  reserve_table(table.size() + count);
  int64_t unterminated = 0;
  for (size_t row = 0; row < count; row++) {
    const size_t index = order.empty() ? row : order[row];
    const TemplightInstantiation& i = in[index];
    slice.ts.push_back(i.begin_ns);
    // An end before its begin (a damaged clock) is kept as an instant.
    slice.dur.push_back(i.end_ns < 0 ? -1 : std::max<int64_t>(0, i.end_ns - i.begin_ns));
    if (i.end_ns < 0)
      unterminated++;
    slice.track_id.push_back(first_track + i.unit);
    const StringId kind = kind_name(i.unit, i.kind);
    slice.category.push_back(kind);
    slice.name.push_back(i.name == TemplightInstantiation::kNoName
                             ? strings.Intern("(unreadable name)")
                             : names.Get(i.name, profile.names[i.name]));
    slice.depth.push_back(i.depth);
    slice.parent_id.push_back(i.parent < 0 ? kNullId : slice_of(static_cast<size_t>(i.parent)));
    slice.arg_set_id.push_back(kNullId);

    table.slice_id.push_back(first_slice + static_cast<uint32_t>(row));
    table.kind.push_back(i.kind);
    table.kind_name.push_back(kind);
    table.file.push_back(i.location.file == TemplightLocation::kNoFile
                             ? kNullStringId
                             : files.Get(i.location.file, profile.files[i.location.file]));
    table.line.push_back(i.location.line);
    table.column.push_back(i.location.column);
    const bool has_origin = i.origin.file != TemplightLocation::kNoFile;
    table.origin_file.push_back(has_origin ? files.Get(i.origin.file, profile.files[i.origin.file])
                                           : kNullStringId);
    table.origin_line.push_back(i.origin.line);
    table.origin_column.push_back(i.origin.column);
    table.memory_begin.push_back(i.memory_begin);
    table.memory_end.push_back(i.memory_end);
  }
  if (count) {
    result.first_ts = slice.ts[first_slice];
    result.last_ts = slice.ts.back();
  }

  StatsTable& stats = storage->stats;
  stats.Increment(stats::slices_unterminated, unterminated);
  stats.Increment(stats::templight_problems, static_cast<int64_t>(profile.problems.size()));
  stats.Increment(stats::templight_unknown_fields, static_cast<int64_t>(profile.unknown_fields));
  for (TemplightProblem& problem : profile.problems) {
    if (storage->import_problems.size() >= kMaxImportProblems)
      break;
    storage->import_problems.push_back(ImportProblem{problem.offset, std::move(problem.what)});
  }
  result.packets_parsed = count;
  result.sequences = profile.units.size();
  SetMetadata(storage, "trace_size_bytes", static_cast<int64_t>(size), nullptr);
  SetMetadata(storage, "trace_type", 0, "templight");
  result.pass2_seconds = std::chrono::duration<double>(Clock::now() - read_end).count();
  return result;
}

}  // namespace processor
}  // namespace zt
