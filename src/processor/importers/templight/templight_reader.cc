#include "src/processor/importers/templight/templight_reader.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <utility>

#include <zlib.h>

#include "src/processor/storage/open_index.h"
#include "zt/protozero/proto_decoder.h"

namespace zt {
namespace processor {

namespace {

// Field numbers (docs/wire.md, "Templight traces").
constexpr uint32_t kCollectionTrace = 1;
constexpr uint32_t kTraceHeader = 1;
constexpr uint32_t kTraceEntry = 2;
constexpr uint32_t kTraceName = 3;
constexpr uint32_t kHeaderVersion = 1;
constexpr uint32_t kHeaderSourceFile = 2;
constexpr uint32_t kEntryBegin = 1;
constexpr uint32_t kEntryEnd = 2;
constexpr uint32_t kBeginKind = 1;
constexpr uint32_t kBeginName = 2;
constexpr uint32_t kBeginLocation = 3;
constexpr uint32_t kBeginTimeStamp = 4;
constexpr uint32_t kBeginMemory = 5;
constexpr uint32_t kBeginOrigin = 6;
constexpr uint32_t kEndTimeStamp = 1;
constexpr uint32_t kEndMemory = 2;
constexpr uint32_t kNamePlain = 1;
constexpr uint32_t kNameCompressed = 2;
constexpr uint32_t kNameDictId = 3;
constexpr uint32_t kLocationFileName = 1;
constexpr uint32_t kLocationFileId = 2;
constexpr uint32_t kLocationLine = 3;
constexpr uint32_t kLocationColumn = 4;
constexpr uint32_t kDictionaryMarkedName = 1;
constexpr uint32_t kDictionaryMarkerIds = 2;

using protozero::ConstBytes;
using protozero::Field;
using protozero::ProtoDecoder;
using WireType = protozero::proto_utils::ProtoWireType;

std::string Describe(const char* format, uint64_t a, uint64_t b = 0) {
  char buf[200];
  snprintf(buf, sizeof(buf), format, a, b);
  return buf;
}

}  // namespace

bool InflateTemplightName(const void* data, size_t size, size_t max_bytes, std::string* out,
                          std::string* why) {
  const ConstBytes in{static_cast<const uint8_t*>(data), size};
  z_stream stream{};
  if (inflateInit(&stream) != Z_OK) {
    *why = "zlib could not start";
    return false;
  }
  stream.next_in = const_cast<Bytef*>(in.data);
  stream.avail_in = static_cast<uInt>(in.size);
  out->clear();
  // inflate() returns Z_OK only when it made progress (input read or output
  // written): the loop ends, by the input's end or by the limit.
  int result;
  char chunk[16 << 10];
  do {
    stream.next_out = reinterpret_cast<Bytef*>(chunk);
    stream.avail_out = sizeof(chunk);
    result = inflate(&stream, Z_NO_FLUSH);
    const size_t produced = sizeof(chunk) - stream.avail_out;
    if (out->size() + produced > max_bytes) {
      *why = Describe("a zlib-compressed name longer than %" PRIu64 " bytes", max_bytes);
      inflateEnd(&stream);
      return false;
    }
    out->append(chunk, produced);
  } while (result == Z_OK);
  inflateEnd(&stream);
  if (result != Z_STREAM_END) {
    *why = "a zlib-compressed name that is truncated or corrupt";
    return false;
  }
  return true;
}

namespace {

// Hands the input behind the reader back to the caller, every 8 MiB.
class InputReleaser {
 public:
  InputReleaser(const uint8_t* base, const TemplightReadOptions& options)
      : base_(base), release_(options.release_input) {}
  // Nothing before `p` will be read again.
  void Behind(const uint8_t* p) {
    const uint64_t offset = static_cast<uint64_t>(p - base_);
    if (release_ && offset >= released_ + kInterval) {
      release_(released_, offset - released_);
      released_ = offset;
    }
  }

 private:
  static constexpr uint64_t kInterval = 8u << 20;
  const uint8_t* const base_;
  const std::function<void(uint64_t, uint64_t)>& release_;
  uint64_t released_ = 0;
};

// Where instantiations go: the profile's vector, or the caller's sink.
class InstantiationList {
 public:
  InstantiationList(TemplightProfile* profile, TemplightInstantiationSink* sink)
      : profile_(profile), sink_(sink), size_(profile->instantiations.size()) {}
  size_t size() const { return size_; }
  void Add(const TemplightInstantiation& instantiation) {
    size_++;
    if (sink_)
      sink_->OnBegin(instantiation);
    else
      profile_->instantiations.push_back(instantiation);
  }
  void SetEnd(size_t index, int64_t end_ns, uint64_t memory_end) {
    if (sink_) {
      sink_->OnEnd(index, end_ns, memory_end);
    } else {
      profile_->instantiations[index].end_ns = end_ns;
      profile_->instantiations[index].memory_end = memory_end;
    }
  }
  void SetName(size_t index, uint32_t name) {
    if (sink_)
      sink_->OnName(index, name);
    else
      profile_->instantiations[index].name = name;
  }
  void UnitEnd(uint32_t unit) {
    if (sink_)
      sink_->OnUnitEnd(unit);
  }
  void ExpectMore(size_t rows) {
    std::vector<TemplightInstantiation>& list = profile_->instantiations;
    if (sink_) {
      sink_->OnRowsExpected(rows);
    } else if (list.size() + rows > list.capacity()) {
      // Doubling: an exact reserve per unit would copy the list once per unit.
      list.reserve(std::max(list.size() + rows, 2 * list.capacity()));
    }
  }

 private:
  TemplightProfile* const profile_;
  TemplightInstantiationSink* const sink_;
  size_t size_;
};

// Reads one TemplightTrace: one translation unit.
class UnitReader {
 public:
  UnitReader(const uint8_t* file_base, const TemplightReadOptions& options,
             TemplightProfile* profile, InstantiationList* instantiations,
             InputReleaser* releaser,
             std::unordered_map<std::string, uint32_t>* file_index,
             OpenIndex* name_index)
      : base_(file_base),
        options_(options),
        profile_(profile),
        instantiations_(instantiations),
        releaser_(releaser),
        file_index_(file_index),
        name_index_(name_index) {}

  void Read(ConstBytes trace) {
    unit_ = static_cast<uint32_t>(profile_->units.size());
    profile_->units.emplace_back();
    profile_->units.back().first_instantiation = instantiations_->size();
    profile_->expanders.emplace_back(new NameExpander(options_.method, options_.max_name_bytes));
    expander_ = profile_->expanders.back().get();

    // Counted first, so that the unit's dictionary and pending names are
    // allocated once, without doubling slack (a few percent of the time).
    size_t entries = 0, begins = 0;
    ProtoDecoder count(trace);
    for (Field f = count.ReadField(); f.valid(); f = count.ReadField()) {
      entries += f.id() == kTraceName;
      // An entry whose first byte is the tag of `begin` (field 1, bytes).
      begins += f.id() == kTraceEntry && f.size() > 0 && f.data()[0] == ((kEntryBegin << 3) | 2);
    }
    expander_->Reserve(entries);
    // (An optimization only: capped, so that a hostile count costs no more.)
    name_index_->Reserve(name_index_->size() + std::min({entries, begins, size_t{1} << 22}));
    if (options_.method == NameExpander::Method::kBatch)
      pending_names_.reserve(begins);
    instantiations_->ExpectMore(begins);

    ProtoDecoder decoder(trace);
    size_t at = 0;  // Where the next field starts.
    for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
      if (f.id() == kTraceHeader && f.type() == WireType::kLengthDelimited) {
        ReadHeader(f.as_bytes());
      } else if (f.id() == kTraceEntry && f.type() == WireType::kLengthDelimited) {
        ReadEntry(f.as_bytes());
      } else if (f.id() == kTraceName && f.type() == WireType::kLengthDelimited) {
        ReadDictionaryEntry(f.as_bytes());
      } else {
        profile_->unknown_fields++;
      }
      at = decoder.read_offset();
      releaser_->Behind(trace.data + at);
    }
    if (decoder.parse_error()) {
      Problem(trace.data + at,
              Describe("translation unit %" PRIu64
                       ": the trace is truncated or corrupt here (%" PRIu64 " bytes not read)",
                       unit_, trace.size - at));
    }
    if (times_went_back_) {
      Problem(trace.data,
              Describe("translation unit %" PRIu64 ": %" PRIu64
                       " time stamps went back in time; each was taken as the time before it",
                       unit_, times_went_back_));
    }
    // Batch: names are expanded once every entry of the unit is known.
    const size_t first = profile_->units[unit_].first_instantiation;
    for (const PendingName& pending : pending_names_)
      ResolveDictName(pending, first + pending.instantiation);
    TemplightUnit& unit = profile_->units[unit_];
    unit.instantiation_count = instantiations_->size() - unit.first_instantiation;
    unit.dictionary_entries = expander_->size();
    instantiations_->UnitEnd(unit_);
  }

 private:
  // 16 bytes: a large unit has a million.
  struct PendingName {
    uint64_t offset;         // Of the name in the file, for a problem's report.
    uint32_t instantiation;  // Counted from the unit's first.
    uint32_t dict_id;
  };

  void Problem(const uint8_t* where, std::string what) {
    profile_->AddProblem(static_cast<uint64_t>(where - base_), std::move(what));
  }

  // A nested message that did not decode to its end: what came before
  // its damage is kept, the damage is reported.
  void ReportIfCorrupt(const ProtoDecoder& decoder, ConstBytes bytes, const char* what) {
    if (decoder.parse_error())
      Problem(bytes.data, Describe("translation unit %" PRIu64 ": a corrupt ", unit_) + what);
  }

  void ReadHeader(ConstBytes bytes) {
    TemplightUnit& unit = profile_->units[unit_];
    ProtoDecoder decoder(bytes);
    for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
      if (f.id() == kHeaderVersion)
        unit.version = f.as_uint32();
      else if (f.id() == kHeaderSourceFile)
        unit.source_file = f.as_std_string();
    }
    ReportIfCorrupt(decoder, bytes, "header");
  }

  void ReadDictionaryEntry(ConstBytes bytes) {
    std::string_view marked_name;
    std::vector<uint32_t>& markers = markers_;  // Reused: an allocation per entry cost 8%.
    markers.clear();
    ProtoDecoder decoder(bytes);
    for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
      if (f.id() == kDictionaryMarkedName) {
        marked_name = f.as_string();
      } else if (f.id() == kDictionaryMarkerIds && f.type() == WireType::kVarInt) {
        markers.push_back(f.as_uint32());
      } else if (f.id() == kDictionaryMarkerIds && f.type() == WireType::kLengthDelimited) {
        // Packed, as a proto3 writer would put it.
        const uint8_t* p = f.data();
        const uint8_t* const end = p + f.size();
        while (p < end) {
          uint64_t value = 0;
          const uint8_t* next = protozero::proto_utils::ParseVarInt(p, end, &value);
          if (next == p)
            break;
          markers.push_back(static_cast<uint32_t>(value));
          p = next;
        }
      }
    }
    std::string error;
    if (decoder.parse_error()) {
      error = Describe("dictionary entry %" PRIu64 " is corrupt", expander_->size());
      markers.clear();
      marked_name = {};
    }
    if (!expander_->Add(marked_name, markers, &error) || !error.empty())
      Problem(bytes.data, Describe("translation unit %" PRIu64 ": ", unit_) + error);
  }

  void ReadEntry(ConstBytes bytes) {
    ProtoDecoder decoder(bytes);
    for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
      if (f.id() == kEntryBegin && f.type() == WireType::kLengthDelimited)
        ReadBegin(f.as_bytes());
      else if (f.id() == kEntryEnd && f.type() == WireType::kLengthDelimited)
        ReadEnd(f.as_bytes());
    }
    ReportIfCorrupt(decoder, bytes, "entry");
  }

  bool TimeNs(double seconds, const uint8_t* where, int64_t* ns) {
    // Seconds since the compiler started: never negative; and below 146
    // years, so that an end minus a begin fits 64 bits of nanoseconds.
    if (!std::isfinite(seconds) || seconds < 0 || seconds > 4.6e9) {
      Problem(where, Describe("translation unit %" PRIu64 ": a time stamp out of range", unit_));
      return false;
    }
    *ns = std::llround(seconds * 1e9);
    return true;
  }

  void ReadBegin(ConstBytes bytes) {
    TemplightInstantiation instantiation;
    NameField name;
    instantiation.unit = unit_;
    instantiation.begin_ns = -1;  // Until a valid time is read.
    instantiation.depth = static_cast<uint32_t>(open_.size());
    instantiation.parent = open_.empty() ? -1 : static_cast<int64_t>(open_.back().index);
    const size_t index = instantiations_->size();
    ProtoDecoder decoder(bytes);
    for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
      switch (f.id()) {
        case kBeginKind:
          instantiation.kind = f.as_uint32();
          break;
        case kBeginName:
          ReadName(f.as_bytes(), &name);
          break;
        case kBeginLocation:
          ReadLocation(f.as_bytes(), &instantiation.location);
          break;
        case kBeginTimeStamp:
          TimeNs(f.as_double(), bytes.data, &instantiation.begin_ns);
          break;
        case kBeginMemory:
          instantiation.memory_begin = f.as_uint64();
          break;
        case kBeginOrigin:
          ReadLocation(f.as_bytes(), &instantiation.origin);
          break;
        default:
          break;
      }
    }
    ReportIfCorrupt(decoder, bytes, "begin");
    // A begin without a (valid) time begins when the last thing before it
    // did.
    instantiation.begin_ns = instantiation.begin_ns < 0 ? std::max<int64_t>(0, last_ns_)
                                                        : Monotonic(instantiation.begin_ns);
    last_ns_ = std::max(last_ns_, instantiation.begin_ns);
    // The last name given wins, as for any protobuf field read twice.
    if (name.kind == NameField::kPlain) {
      instantiation.name = InternCopy(name.plain);
    } else if (name.kind == NameField::kCompressed) {
      std::string why;
      if (InflateTemplightName(name.compressed.data, name.compressed.size, options_.max_name_bytes,
                               &inflated_, &why))
        instantiation.name = InternCopy(inflated_);
      else
        Problem(name.where, Describe("translation unit %" PRIu64 ": ", unit_) + why);
    }
    instantiations_->Add(instantiation);
    open_.push_back(Open{index, instantiation.begin_ns});
    if (name.kind == NameField::kDictId) {
      const size_t in_unit = index - profile_->units[unit_].first_instantiation;
      const PendingName pending{static_cast<uint64_t>(name.where - base_),
                                static_cast<uint32_t>(in_unit), name.dict_id};
      if (options_.method == NameExpander::Method::kSequential || in_unit > UINT32_MAX)
        ResolveDictName(pending, index);
      else
        pending_names_.push_back(pending);  // Once the unit's entries are all read.
    }
  }

  void ReadEnd(ConstBytes bytes) {
    if (open_.empty()) {
      Problem(bytes.data,
              Describe("translation unit %" PRIu64 ": an end without a begin", unit_));
      return;
    }
    const Open ended = open_.back();
    open_.pop_back();
    int64_t end_ns = -1;
    uint64_t memory_end = 0;
    ProtoDecoder decoder(bytes);
    for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
      if (f.id() == kEndTimeStamp)
        TimeNs(f.as_double(), bytes.data, &end_ns);
      else if (f.id() == kEndMemory)
        memory_end = f.as_uint64();
    }
    ReportIfCorrupt(decoder, bytes, "end");
    // An end without a (valid) time ends when the last thing before it did:
    // no time went back.
    end_ns = end_ns < 0 ? std::max(ended.begin_ns, last_ns_) : Monotonic(end_ns);
    last_ns_ = std::max(last_ns_, end_ns);
    instantiations_->SetEnd(ended.index, end_ns, memory_end);
  }

  // What a begin's TemplateName said last.
  struct NameField {
    enum Kind { kNone, kPlain, kCompressed, kDictId } kind = kNone;
    std::string_view plain;
    ConstBytes compressed{nullptr, 0};
    uint32_t dict_id = 0;
    const uint8_t* where = nullptr;
  };

  void ReadName(ConstBytes bytes, NameField* name) {
    ProtoDecoder decoder(bytes);
    for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
      if (f.id() == kNamePlain && f.type() == WireType::kLengthDelimited) {
        name->kind = NameField::kPlain;
        name->plain = f.as_string();
      } else if (f.id() == kNameDictId && f.type() == WireType::kVarInt) {
        name->kind = NameField::kDictId;
        name->dict_id = f.as_uint32();
      } else if (f.id() == kNameCompressed && f.type() == WireType::kLengthDelimited) {
        name->kind = NameField::kCompressed;
        name->compressed = f.as_bytes();
      } else {
        continue;
      }
      name->where = bytes.data;
    }
    ReportIfCorrupt(decoder, bytes, "template name");
  }

  void ResolveDictName(const PendingName& pending, size_t instantiation) {
    // A unit names most instantiations by a few entries (each begin, its
    // memoizations): an entry's name is looked up by its text once.
    if (pending.dict_id < name_of_entry_.size() && name_of_entry_[pending.dict_id] != kNoName) {
      instantiations_->SetName(instantiation, name_of_entry_[pending.dict_id]);
      return;
    }
    std::string_view name;
    std::string error;
    if (!expander_->Expand(pending.dict_id, &name, &error)) {
      Problem(base_ + pending.offset, Describe("translation unit %" PRIu64 ": ", unit_) + error);
      return;
    }
    // Expanded names live in the expander: indexed, not copied.
    const uint32_t id = IndexName(name, [] {});
    // Entries are ids below the dictionary's size: the cache is as big as
    // the dictionary read so far, not as a hostile id.
    if (pending.dict_id < expander_->size()) {
      if (name_of_entry_.size() <= pending.dict_id)
        name_of_entry_.resize(expander_->size(), kNoName);
      name_of_entry_[pending.dict_id] = id;
    }
    instantiations_->SetName(instantiation, id);
  }

  uint32_t InternCopy(std::string_view name) {
    return IndexName(name, [&] {
      profile_->name_storage.emplace_back(new std::string(name));
      profile_->names.back() = *profile_->name_storage.back();
    });
  }

  // The id of `name` in profile_->names, added if new (then `store` may
  // replace the view with one of a copy).
  template <typename Store>
  uint32_t IndexName(std::string_view name, Store store) {
    const uint32_t hash = OpenIndex::HashText(name);
    const std::vector<std::string_view>& names = profile_->names;
    uint32_t id = name_index_->Find(hash, [&](uint32_t row) { return names[row] == name; });
    if (id == OpenIndex::kNoRow) {
      id = static_cast<uint32_t>(profile_->names.size());
      profile_->names.push_back(name);
      profile_->name_hashes.push_back(hash);
      store();
      name_index_->Add(hash, id);
    }
    return id;
  }

  void ReadLocation(ConstBytes bytes, TemplightLocation* location) {
    std::string_view file_name;
    bool has_name = false;
    bool has_id = false;
    uint32_t file_id = 0;
    ProtoDecoder decoder(bytes);
    for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
      switch (f.id()) {
        case kLocationFileName:
          file_name = f.as_string();
          has_name = true;
          break;
        case kLocationFileId:
          file_id = f.as_uint32();
          has_id = true;
          break;
        case kLocationLine:
          location->line = f.as_uint32();
          break;
        case kLocationColumn:
          location->column = f.as_uint32();
          break;
        default:
          break;
      }
    }
    ReportIfCorrupt(decoder, bytes, "location");
    if (has_name) {
      auto found = file_index_->find(std::string(file_name));
      if (found != file_index_->end()) {
        location->file = found->second;
      } else {
        location->file = static_cast<uint32_t>(profile_->files.size());
        profile_->files.emplace_back(file_name);
        file_index_->emplace(std::string(file_name), location->file);
      }
      if (has_id)
        SetUnitFile(file_id, location->file);
    } else if (has_id) {
      const uint32_t file = UnitFile(file_id);
      if (file != TemplightLocation::kNoFile) {
        location->file = file;
      } else {
        Problem(bytes.data, Describe("translation unit %" PRIu64
                                     ": file id %" PRIu64 " used before it was named",
                                     unit_, file_id));
      }
    }
  }

  const uint8_t* const base_;
  const TemplightReadOptions& options_;
  TemplightProfile* const profile_;
  InstantiationList* const instantiations_;
  InputReleaser* const releaser_;
  std::unordered_map<std::string, uint32_t>* const file_index_;  // Path -> files index.
  OpenIndex* const name_index_;  // Over profile_->names.
  uint32_t unit_ = 0;
  NameExpander* expander_ = nullptr;
  struct Open {
    size_t index;
    int64_t begin_ns;
  };
  std::vector<Open> open_;  // Begins not yet ended, innermost last.
  // file_id -> files index. Templight numbers a unit's files from 0, so
  // ids are dense: a vector, with a map for ids past a bound (a hostile
  // file's) so that one large id costs no large vector.
  static constexpr uint32_t kDenseFileIds = 1u << 16;
  std::vector<uint32_t> dense_unit_files_;
  std::unordered_map<uint32_t, uint32_t> sparse_unit_files_;
  void SetUnitFile(uint32_t file_id, uint32_t file) {
    if (file_id >= kDenseFileIds) {
      sparse_unit_files_[file_id] = file;
      return;
    }
    if (file_id >= dense_unit_files_.size())
      dense_unit_files_.resize(file_id + 1, TemplightLocation::kNoFile);
    dense_unit_files_[file_id] = file;
  }
  uint32_t UnitFile(uint32_t file_id) const {
    if (file_id < dense_unit_files_.size())
      return dense_unit_files_[file_id];
    auto found = sparse_unit_files_.find(file_id);
    return found != sparse_unit_files_.end() ? found->second : TemplightLocation::kNoFile;
  }
  std::vector<PendingName> pending_names_;
  static constexpr uint32_t kNoName = UINT32_MAX;
  std::vector<uint32_t> name_of_entry_;  // Dictionary id -> profile name, once resolved.
  std::vector<uint32_t> markers_;        // Scratch for a dictionary entry's marker ids.
  std::string inflated_;  // Scratch for zlib names.
  // Begins and ends come in time order, or the nesting they describe is
  // impossible (a child before its parent, siblings overlapping): a time
  // that goes back (a damaged file) is taken as the one before it.
  int64_t Monotonic(int64_t ns) {
    if (ns < last_ns_) {
      times_went_back_++;
      return last_ns_;
    }
    last_ns_ = ns;
    return ns;
  }
  int64_t last_ns_ = INT64_MIN;
  uint64_t times_went_back_ = 0;
};

// templight++ given several sources writes each unit's file (one trace
// record: tag, length, TemplightTrace) followed by a '\n' into one output.
// That byte is also the record tag, so read as one message the second unit
// would start one byte early. True when `data` is exactly such a chain
// (every record followed by '\n', the last one included, each record's
// contents well-formed fields), with each record's contents in *traces.
// A file Templight's own writer made cannot pass: its records are not
// separated, so a chain would need every record's length to read as a tag.
bool SplitDriverMergedBytes(const uint8_t* data, size_t size, std::vector<ConstBytes>* traces) {
  const uint8_t* p = data;
  const uint8_t* const end = data + size;
  std::vector<ConstBytes> found;
  while (p < end) {
    if (*p != ((kCollectionTrace << 3) | 2))
      return false;
    uint64_t length = 0;
    const uint8_t* content = protozero::proto_utils::ParseVarInt(p + 1, end, &length);
    if (content == p + 1 || length >= static_cast<uint64_t>(end - content))
      return false;  // No room for the record and its '\n'.
    const uint8_t* const newline = content + length;
    if (*newline != '\n')
      return false;
    ProtoDecoder fields(content, static_cast<size_t>(length));
    while (fields.ReadField().valid()) {
    }
    if (fields.parse_error())
      return false;
    found.push_back(ConstBytes{content, static_cast<size_t>(length)});
    p = newline + 1;
  }
  if (found.empty())
    return false;
  *traces = std::move(found);
  return true;
}

}  // namespace

TemplightInstantiationSink::~TemplightInstantiationSink() = default;
void TemplightInstantiationSink::OnRowsExpected(size_t) {}

bool SplitTemplightDriverOutput(const void* data, size_t size,
                                std::vector<std::string_view>* traces) {
  std::vector<ConstBytes> found;
  if (!SplitDriverMergedBytes(static_cast<const uint8_t*>(data), size, &found))
    return false;
  traces->clear();
  for (const ConstBytes& trace : found)
    traces->emplace_back(reinterpret_cast<const char*>(trace.data), trace.size);
  return true;
}

bool ReadTemplight(const void* data, size_t size, const TemplightReadOptions& options,
                   TemplightProfile* profile) {
  const uint8_t* const base = static_cast<const uint8_t*>(data);
  std::unordered_map<std::string, uint32_t> file_index;
  for (size_t i = 0; i < profile->files.size(); i++)
    file_index.emplace(profile->files[i], static_cast<uint32_t>(i));
  // Names already in the profile (a second file read into it) are found
  // again; their hashes are made if the profile came without them.
  OpenIndex name_index;
  profile->name_hashes.resize(profile->names.size());
  for (size_t i = 0; i < profile->names.size(); i++) {
    profile->name_hashes[i] = OpenIndex::HashText(profile->names[i]);
    name_index.Add(profile->name_hashes[i], static_cast<uint32_t>(i));
  }
  bool any_trace = false;
  InstantiationList instantiations(profile, options.sink);
  InputReleaser releaser(base, options);
  std::vector<ConstBytes> merged;
  if (SplitDriverMergedBytes(base, size, &merged)) {
    for (const ConstBytes& trace : merged) {
      UnitReader(base, options, profile, &instantiations, &releaser, &file_index, &name_index)
          .Read(trace);
    }
    return true;
  }
  ProtoDecoder collection(base, size);
  size_t at = 0;  // Where the next record starts (the decoder skips to the end on damage).
  for (Field f = collection.ReadField(); f.valid(); f = collection.ReadField()) {
    if (f.id() == kCollectionTrace && f.type() == WireType::kLengthDelimited) {
      any_trace = true;
      UnitReader(base, options, profile, &instantiations, &releaser, &file_index, &name_index)
          .Read(f.as_bytes());
    } else {
      profile->unknown_fields++;
    }
    at = collection.read_offset();
  }
  if (collection.parse_error()) {
    // A file cut inside its last trace (one translation unit per file is
    // the usual case) still holds that trace's first entries: read them.
    const uint8_t* p = base + at;
    const uint8_t* const end = base + size;
    uint64_t tag = 0;
    uint64_t length = 0;
    const uint8_t* after_tag = protozero::proto_utils::ParseVarInt(p, end, &tag);
    const uint8_t* content =
        after_tag == p ? p : protozero::proto_utils::ParseVarInt(after_tag, end, &length);
    if (after_tag != p && content != after_tag && tag == ((kCollectionTrace << 3) | 2) &&
        length > static_cast<uint64_t>(end - content)) {
      any_trace = true;
      UnitReader(base, options, profile, &instantiations, &releaser, &file_index, &name_index)
          .Read(ConstBytes{content, static_cast<size_t>(end - content)});
      profile->AddProblem(at, Describe("the file ends %" PRIu64 " bytes into a trace of %" PRIu64
                                       " bytes: it is cut, its last entries are lost",
                                       static_cast<uint64_t>(end - content), length));
    } else {
      profile->AddProblem(at, Describe("the file is truncated or corrupt here (%" PRIu64
                                       " bytes not read)",
                                       static_cast<uint64_t>(size - at)));
    }
  }
  return any_trace;
}

}  // namespace processor
}  // namespace zt
