#include "src/processor/exporters/templight_writer.h"

#include <cstring>
#include <unordered_map>
#include <vector>

#include <zlib.h>

#include "zt/processor/name_dictionary.h"

namespace zt {
namespace processor {

namespace {

// Protobuf's wire format, appended to a string: Templight's messages are
// small and nested a few levels, so each is built whole and then wrapped.
void PutVarint(std::string* out, uint64_t value) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

void PutVarintField(std::string* out, uint32_t field, uint64_t value) {
  PutVarint(out, uint64_t{field} << 3);
  PutVarint(out, value);
}

void PutBytesField(std::string* out, uint32_t field, std::string_view bytes) {
  PutVarint(out, uint64_t{field} << 3 | 2);
  PutVarint(out, bytes.size());
  out->append(bytes.data(), bytes.size());
}

void PutDoubleField(std::string* out, uint32_t field, double value) {
  PutVarint(out, uint64_t{field} << 3 | 1);
  uint64_t bits;
  memcpy(&bits, &value, sizeof(bits));
  for (int i = 0; i < 8; i++)
    out->push_back(static_cast<char>(bits >> (8 * i)));
}

double Seconds(int64_t ns) { return static_cast<double>(ns) / 1e9; }

class UnitWriter {
 public:
  UnitWriter(const TemplightProfile& profile, TemplightNameMode mode)
      : profile_(profile),
        mode_(mode),
        compressor_([this](const DictionaryEntry& entry) {
          std::string message;
          PutBytesField(&message, 1, entry.marked_name);  // marked_name
          for (uint32_t id : entry.marker_ids)
            PutVarintField(&message, 2, id);  // marker_ids
          PutBytesField(&trace_, 3, message);  // TemplightTrace.names
        },
        // The profile's names outlive the writer: viewed, not copied.
                    NameCompressor::Names::kOutliveCompressor) {}

  std::string Write(const TemplightUnit& unit) {
    std::string header;
    PutVarintField(&header, 1, unit.version != 0 ? unit.version : 1);  // version
    if (!unit.source_file.empty())
      PutBytesField(&header, 2, unit.source_file);  // source_file
    PutBytesField(&trace_, 1, header);

    const size_t end = unit.first_instantiation + unit.instantiation_count;
    for (size_t i = unit.first_instantiation; i < end; i++) {
      const TemplightInstantiation& instantiation = profile_.instantiations[i];
      // Everything at this depth or deeper has ended before this begin.
      while (open_.size() > instantiation.depth)
        CloseInnermost();
      WriteBegin(instantiation);
      open_.push_back(i);
    }
    // Ends that were written; a begin left open stays open, and with it
    // every begin around it.
    while (!open_.empty() && profile_.instantiations[open_.back()].end_ns != -1)
      CloseInnermost();
    return std::move(trace_);
  }

 private:
  void CloseInnermost() {
    const TemplightInstantiation& instantiation = profile_.instantiations[open_.back()];
    open_.pop_back();
    if (instantiation.end_ns == -1)
      return;  // Open in the input: nothing closed it there either.
    std::string end;
    PutDoubleField(&end, 1, Seconds(instantiation.end_ns));  // time_stamp
    if (instantiation.memory_end > 0)
      PutVarintField(&end, 2, instantiation.memory_end);  // memory_usage
    std::string entry;
    PutBytesField(&entry, 2, end);  // TemplightEntry.end
    PutBytesField(&trace_, 2, entry);
  }

  void WriteBegin(const TemplightInstantiation& instantiation) {
    // The name first: its new dictionary entries go before the entry.
    std::string name;
    if (instantiation.name != TemplightInstantiation::kNoName) {
      const std::string_view text = profile_.names[instantiation.name];
      const uint32_t id = mode_ == TemplightNameMode::kDictionary
                              ? compressor_.Compress(text)
                              : NameCompressor::kNoId;
      if (id != NameCompressor::kNoId)
        PutVarintField(&name, 3, id);  // dict_id
      else if (mode_ == TemplightNameMode::kZlib && Deflate(text, &deflated_))
        PutBytesField(&name, 2, deflated_);  // compressed_name
      else
        PutBytesField(&name, 1, text);  // name
    }
    std::string begin;
    PutVarintField(&begin, 1, instantiation.kind);  // kind
    PutBytesField(&begin, 2, name);                 // name
    if (instantiation.location.file != TemplightLocation::kNoFile)
      PutBytesField(&begin, 3, Location(instantiation.location));  // location
    PutDoubleField(&begin, 4, Seconds(instantiation.begin_ns));  // time_stamp
    if (instantiation.memory_begin > 0)
      PutVarintField(&begin, 5, instantiation.memory_begin);  // memory_usage
    if (instantiation.origin.file != TemplightLocation::kNoFile)
      PutBytesField(&begin, 6, Location(instantiation.origin));  // template_origin
    std::string entry;
    PutBytesField(&entry, 1, begin);  // TemplightEntry.begin
    PutBytesField(&trace_, 2, entry);
  }

  // A file's name goes with a new id the first time, its id alone after.
  std::string Location(const TemplightLocation& location) {
    std::string message;
    auto found = file_ids_.find(location.file);
    if (found == file_ids_.end()) {
      const uint32_t id = static_cast<uint32_t>(file_ids_.size());
      file_ids_.emplace(location.file, id);
      PutBytesField(&message, 1, profile_.files[location.file]);  // file_name
      PutVarintField(&message, 2, id);                            // file_id
    } else {
      PutVarintField(&message, 2, found->second);
    }
    PutVarintField(&message, 3, location.line);    // line
    PutVarintField(&message, 4, location.column);  // column
    return message;
  }

  static bool Deflate(std::string_view text, std::string* out) {
    uLongf size = compressBound(static_cast<uLong>(text.size()));
    out->resize(size);
    if (compress(reinterpret_cast<Bytef*>(&(*out)[0]), &size,
                 reinterpret_cast<const Bytef*>(text.data()),
                 static_cast<uLong>(text.size())) != Z_OK)
      return false;
    out->resize(size);
    return true;
  }

  const TemplightProfile& profile_;
  const TemplightNameMode mode_;
  std::string deflated_;  // Scratch for kZlib.
  std::string trace_;
  NameCompressor compressor_;
  std::unordered_map<uint32_t, uint32_t> file_ids_;  // Profile file -> unit file id.
  std::vector<size_t> open_;
};

}  // namespace

bool WriteTemplight(const TemplightProfile& profile, TemplightNameMode mode,
                    const std::function<bool(std::string_view)>& write) {
  for (const TemplightUnit& unit : profile.units) {
    const std::string trace = UnitWriter(profile, mode).Write(unit);
    std::string key_and_length;
    PutVarint(&key_and_length, (1 << 3) | 2);  // TemplightTraceCollection.traces
    PutVarint(&key_and_length, trace.size());
    if (!write(key_and_length) || !write(trace))
      return false;
  }
  return true;
}

std::string WriteTemplight(const TemplightProfile& profile, TemplightNameMode mode) {
  std::string out;
  WriteTemplight(profile, mode, [&out](std::string_view piece) {
    out.append(piece.data(), piece.size());
    return true;
  });
  return out;
}

}  // namespace processor
}  // namespace zt
