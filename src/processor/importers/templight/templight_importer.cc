#include "src/processor/importers/templight/templight_importer.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/processor/importers/templight/templight_kinds.h"
#include "src/processor/importers/templight/templight_reader.h"
#include "src/processor/importers/track_tracker.h"
#include "zt/base/compiler.h"
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

constexpr uint64_t kProgressInterval = 64u << 20;

void SetMetadata(TraceStorage* storage, const char* name, int64_t int_value,
                 const char* str_value) {
  storage->metadata.name.push_back(storage->strings.Intern(name));
  storage->metadata.int_value.push_back(str_value ? kNullInt : int_value);
  storage->metadata.str_value.push_back(str_value ? storage->strings.Intern(str_value)
                                                  : kNullStringId);
}

}  // namespace

bool LooksLikeTemplight(const void* data, size_t size) {
  // The first record by hand: a file cut inside it (one translation unit
  // per file is the usual case) is still told by what it holds.
  const uint8_t* const begin = static_cast<const uint8_t*>(data);
  const uint8_t* const end = begin + size;
  uint64_t tag = 0;
  uint64_t length = 0;
  const uint8_t* p = protozero::proto_utils::ParseVarInt(begin, end, &tag);
  if (p == begin || tag != ((1 << 3) | 2))
    return false;
  const uint8_t* const body = protozero::proto_utils::ParseVarInt(p, end, &length);
  if (body == p)
    return false;
  bool has_header = false;
  // A header and 64 fields of Templight's say it: the rest (often the whole
  // file, and read again by the import) is not looked at.
  size_t fields = 0;
  ProtoDecoder trace(body, std::min<uint64_t>(length, static_cast<uint64_t>(end - body)));
  for (Field f = trace.ReadField(); f.valid(); f = trace.ReadField()) {
    if (f.id() < 1 || f.id() > 3 || f.type() != WireType::kLengthDelimited)
      return false;
    if (has_header && ++fields >= 64)
      return true;
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

namespace {

// Fills the model's columns as the reader meets instantiations: row r of
// the slice and templight tables is instantiation r (in begin order) until
// Finish() sorts them by time, if they are not already.
class ModelSink : public TemplightInstantiationSink {
 public:
  ModelSink(TraceStorage* storage, TemplightProfile* profile, bool details)
      : storage_(storage),
        profile_(profile),
        details_(details),
        strings_(storage->strings),
        first_slice_(static_cast<uint32_t>(storage->slice.size())),
        first_track_(static_cast<uint32_t>(storage->track.size())) {}

  // The columns are written by index (a push_back per column and row was
  // 4% of an import): room is reserved for each unit's counted begins
  // (doubling, so that many units cost no quadratic copying), and rows are
  // sized a few thousand at a time as they come, so that begins counted
  // but never read (a damaged or hostile unit) commit no memory. Finish()
  // cuts the columns to the rows written.
  void OnRowsExpected(size_t rows) override {
    const size_t needed = next_row_ + rows;
    const size_t capacity = storage_->slice.ts.capacity();
    if (needed > capacity) {
      const size_t target = std::max(needed, 2 * capacity);
      storage_->slice.reserve(target);
      if (details_)
        storage_->templight.reserve(target);
    }
  }

  void OnBegin(const TemplightInstantiation& i) override {
    if (ZT_UNLIKELY(next_row_ == storage_->slice.size()))
      SizeMoreRows();
    SliceTable& slice = storage_->slice;
    const uint32_t row = static_cast<uint32_t>(next_row_++);
    slice.ts[row] = i.begin_ns;
    slice.dur[row] = -1;
    slice.track_id[row] = first_track_ + i.unit;
    // The kind's number until the unit ends, then its name (the numbering
    // is decided on the whole unit).
    slice.category[row] = i.kind;
    slice.name[row] = i.name == TemplightInstantiation::kNoName ? kNullStringId : Name(i.name);
    slice.depth[row] = i.depth;
    slice.parent_id[row] = i.parent < 0 ? kNullId : first_slice_ + static_cast<uint32_t>(i.parent);
    slice.arg_set_id[row] = kNullId;
    if (details_) {
      TemplightInstantiationTable& t = storage_->templight;
      t.slice_id[row] = row;
      t.kind[row] = i.kind;
      t.kind_name[row] = kNullStringId;
      t.file[row] = File(i.location.file);
      t.line[row] = i.location.line;
      t.column[row] = i.location.column;
      t.origin_file[row] = File(i.origin.file);
      t.origin_line[row] = i.origin.line;
      t.origin_column[row] = i.origin.column;
      t.memory_begin[row] = i.memory_begin;
      t.memory_end[row] = 0;
    }
    if (i.unit >= evidence_.size())
      evidence_.resize(i.unit + 1);
    evidence_[i.unit].Add(i.kind);
    if (ZT_UNLIKELY(row > first_slice_ && i.begin_ns < slice.ts[row - 1]))
      sorted_ = false;
  }

  void OnEnd(size_t index, int64_t end_ns, uint64_t memory_end) override {
    const size_t row = first_slice_ + index;
    // An end before its begin (a damaged clock) is kept as an instant.
    storage_->slice.dur[row] = std::max<int64_t>(0, end_ns - storage_->slice.ts[row]);
    if (details_)
      storage_->templight.memory_end[row] = memory_end;
  }

  void OnName(size_t index, uint32_t name) override {
    storage_->slice.name[first_slice_ + index] = Name(name);
  }

  void OnUnitEnd(uint32_t unit) override {
    const TemplightUnit& header = profile_->units[unit];
    TrackTable& track = storage_->track;
    TemplightUnitRow row;
    row.track_id = static_cast<uint32_t>(track.size());
    row.version = header.version;
    row.source_file = strings_.Intern(header.source_file);
    const TemplightKindTable table =
        PickTemplightKindTable(unit < evidence_.size() ? evidence_[unit] : TemplightKindEvidence());
    row.kind_numbering = strings_.Intern(TemplightKindTableLabel(table));
    storage_->templight_units.push_back(row);
    // Not an upstream track type: a zerotrace one, named as upstream names
    // its blueprints.
    track.AddRow(header.source_file.empty()
                     ? strings_.Intern("translation unit " + std::to_string(unit + 1))
                     : row.source_file,
                 TrackKind::kGlobal, kNullId, kNullId, kNullId, 0, kNullStringId,
                 strings_.Intern("templight_translation_unit"));

    // What needed the whole unit: kind names, names never given.
    SliceTable& slice = storage_->slice;
    TemplightInstantiationTable& t = storage_->templight;
    StringId names[64] = {};  // Kinds below 64 by number; others looked up.
    const size_t end = first_slice_ + header.first_instantiation + header.instantiation_count;
    for (size_t r = first_slice_ + header.first_instantiation; r < end; r++) {
      const uint32_t kind = slice.category[r];
      StringId name;
      if (kind < 64 && names[kind] != kNullStringId) {
        name = names[kind];
      } else {
        const char* text = TemplightKindName(kind, table);
        name = text ? strings_.Intern(text) : kNullStringId;
        if (kind < 64)
          names[kind] = name;
      }
      if (details_)
        t.kind_name[r] = name;
      slice.category[r] = name;
      if (slice.name[r] == kNullStringId)
        slice.name[r] = strings_.Intern("(unreadable name)");
      unterminated_ += slice.dur[r] < 0;
    }
  }

  // The columns cut to the rows written; rows in ts order (ties: begin
  // order), as the slice table promises.
  void Finish() {
    Resize(next_row_);
    if (sorted_)
      return;
    SliceTable& slice = storage_->slice;
    const size_t rows = slice.size() - first_slice_;
    std::vector<uint32_t> order(rows);  // New row -> old row (relative).
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return slice.ts[first_slice_ + a] < slice.ts[first_slice_ + b];
    });
    std::vector<uint32_t> new_row(rows);
    for (uint32_t r = 0; r < rows; r++)
      new_row[order[r]] = r;
    auto permute = [&](auto& column) {
      auto copy = column;
      for (size_t r = 0; r < rows; r++)
        column[first_slice_ + r] = copy[first_slice_ + order[r]];
    };
    permute(slice.ts);
    permute(slice.dur);
    permute(slice.track_id);
    permute(slice.category);
    permute(slice.name);
    permute(slice.depth);
    permute(slice.parent_id);
    for (size_t r = 0; r < rows; r++) {
      uint32_t& parent = slice.parent_id[first_slice_ + r];
      if (parent != kNullId)
        parent = first_slice_ + new_row[parent - first_slice_];
    }
    if (!details_)
      return;
    TemplightInstantiationTable& t = storage_->templight;
    permute(t.kind);
    permute(t.kind_name);
    permute(t.file);
    permute(t.line);
    permute(t.column);
    permute(t.origin_file);
    permute(t.origin_line);
    permute(t.origin_column);
    permute(t.memory_begin);
    permute(t.memory_end);
  }

  int64_t unterminated() const { return unterminated_; }
  size_t rows() const { return next_row_ - first_slice_; }

 private:
  // Names are viewed where the reader keeps them (the storage takes their
  // owners): a large trace's names are held once.
  StringId Name(uint32_t index) {
    if (index >= name_ids_.size())
      name_ids_.resize(std::max<size_t>(index + 1, name_ids_.size() * 2), kNullStringId);
    StringId& id = name_ids_[index];
    if (id == kNullStringId) {
      // Hashed once, by the reader, when it has the hash.
      id = index < profile_->name_hashes.size()
               ? strings_.InternStable(profile_->names[index], profile_->name_hashes[index])
               : strings_.InternStable(profile_->names[index]);
    }
    return id;
  }
  // The next rows, within the reserved room when there is some left.
  void SizeMoreRows() {
    constexpr size_t kRowsAtATime = 4096;
    const size_t capacity = storage_->slice.ts.capacity();
    Resize(capacity > next_row_ ? std::min(capacity, next_row_ + kRowsAtATime)
                                : std::max(next_row_ + kRowsAtATime, 2 * next_row_));
  }
  void Resize(size_t rows) {
    storage_->slice.resize(rows);
    if (details_)
      storage_->templight.resize(rows);
  }
  StringId File(uint32_t index) {
    if (index == TemplightLocation::kNoFile)
      return kNullStringId;
    return Lazy(&file_ids_, index, profile_->files[index]);
  }
  // Each profile string interned once, on first use.
  StringId Lazy(std::vector<StringId>* ids, uint32_t index, std::string_view text) {
    if (index >= ids->size())
      ids->resize(std::max<size_t>(index + 1, ids->size() * 2), kNullStringId);
    StringId& id = (*ids)[index];
    if (id == kNullStringId)
      id = strings_.Intern(text);
    return id;
  }

  TraceStorage* const storage_;
  TemplightProfile* const profile_;
  const bool details_;
  StringPool& strings_;
  const uint32_t first_slice_;
  const uint32_t first_track_;
  size_t next_row_ = first_slice_;  // Rows past it are sized ahead, not yet written.
  std::vector<StringId> name_ids_;
  std::vector<StringId> file_ids_;
  std::vector<TemplightKindEvidence> evidence_;
  bool sorted_ = true;
  int64_t unterminated_ = 0;
};

}  // namespace

ImportResult ImportTemplight(const void* data, size_t size, const ImportOptions& options,
                             TraceStorage* storage) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  ImportResult result;
  result.format = ImportOptions::Format::kTemplight;
  result.input_bytes = size;
  TrackTracker placeholders(storage);  // Process and thread 0, as every import has.

  TemplightProfile profile;
  ModelSink sink(storage, &profile, options.templight_details);
  // Room for every row at once: growing by doubling would hold the old and
  // new columns together at the peak.
  TemplightReadOptions read_options;
  read_options.method = options.templight_method;
  read_options.sink = &sink;
  uint64_t next_report = kProgressInterval;
  read_options.release_input = [&](uint64_t offset, uint64_t length) {
    if (options.release_input)
      options.release_input(offset, length);
    if (options.progress && offset + length >= next_report) {
      next_report = offset + length + kProgressInterval;
      options.progress(offset + length, size);
    }
  };
  ReadTemplight(data, size, read_options, &profile);
  sink.Finish();
  for (std::unique_ptr<NameExpander>& expander : profile.expanders) {
    expander->ReleaseDictionary();  // The storage keeps the names only.
    storage->string_owners.emplace_back(std::move(expander));
  }
  for (std::unique_ptr<std::string>& name : profile.name_storage)
    storage->string_owners.emplace_back(std::move(name));
  if (options.progress)
    options.progress(size, size);
  if (options.release_input)
    options.release_input(0, size);
  const SliceTable& slice = storage->slice;
  result.packets_parsed = sink.rows();
  result.sequences = profile.units.size();
  if (slice.size()) {
    result.first_ts = slice.ts.front();
    result.last_ts = slice.ts.back();
  }

  StatsTable& stats = storage->stats;
  stats.Increment(stats::slices_unterminated, sink.unterminated());
  stats.Increment(stats::templight_problems, static_cast<int64_t>(profile.problem_count));
  stats.Increment(stats::templight_unknown_fields, static_cast<int64_t>(profile.unknown_fields));
  for (TemplightProblem& problem : profile.problems) {
    if (storage->import_problems.size() >= kMaxImportProblems)
      break;
    storage->import_problems.push_back(ImportProblem{problem.offset, std::move(problem.what)});
  }
  SetMetadata(storage, "trace_size_bytes", static_cast<int64_t>(size), nullptr);
  SetMetadata(storage, "trace_type", 0, "templight");
  result.pass1_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace processor
}  // namespace zt
