#include "src/processor/exporters/templight_text_dump.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "src/processor/importers/templight/templight_kinds.h"
#include "src/processor/importers/templight/templight_reader.h"
#include "zt/protozero/proto_decoder.h"

namespace zt {
namespace processor {
namespace {

using protozero::Field;
using protozero::ProtoDecoder;
using WireType = protozero::proto_utils::ProtoWireType;

// Templight's schema, as much of it as the text needs: each field's name,
// how its value prints, and what its comment says.
enum class Value : uint8_t { kMessage, kUint, kDouble, kString };
enum class Note : uint8_t { kNone, kKind, kDictId, kInflated, kFileId };

struct MessageSpec;
struct FieldSpec {
  uint32_t number;
  const char* name;
  Value value;
  const MessageSpec* message;  // For kMessage.
  Note note;
};
struct MessageSpec {
  const char* name;
  const FieldSpec* fields;
  size_t count;
  const FieldSpec* Find(uint32_t number) const {
    for (size_t i = 0; i < count; i++) {
      if (fields[i].number == number)
        return &fields[i];
    }
    return nullptr;
  }
};

#define ZT_SPEC(var, name, fields) \
  const MessageSpec var = {name, fields, sizeof(fields) / sizeof(fields[0])}

const FieldSpec kLocationFields[] = {
    {1, "file_name", Value::kString, nullptr, Note::kNone},
    {2, "file_id", Value::kUint, nullptr, Note::kFileId},
    {3, "line", Value::kUint, nullptr, Note::kNone},
    {4, "column", Value::kUint, nullptr, Note::kNone},
};
ZT_SPEC(kLocation, "SourceLocation", kLocationFields);
const FieldSpec kTemplateNameFields[] = {
    {1, "name", Value::kString, nullptr, Note::kNone},
    {2, "compressed_name", Value::kString, nullptr, Note::kInflated},
    {3, "dict_id", Value::kUint, nullptr, Note::kDictId},
};
ZT_SPEC(kTemplateName, "TemplateName", kTemplateNameFields);
const FieldSpec kBeginFields[] = {
    {1, "kind", Value::kUint, nullptr, Note::kKind},
    {2, "name", Value::kMessage, &kTemplateName, Note::kNone},
    {3, "location", Value::kMessage, &kLocation, Note::kNone},
    {4, "time_stamp", Value::kDouble, nullptr, Note::kNone},
    {5, "memory_usage", Value::kUint, nullptr, Note::kNone},
    {6, "template_origin", Value::kMessage, &kLocation, Note::kNone},
};
ZT_SPEC(kBegin, "Begin", kBeginFields);
const FieldSpec kEndFields[] = {
    {1, "time_stamp", Value::kDouble, nullptr, Note::kNone},
    {2, "memory_usage", Value::kUint, nullptr, Note::kNone},
};
ZT_SPEC(kEnd, "End", kEndFields);
const FieldSpec kEntryFields[] = {
    {1, "begin", Value::kMessage, &kBegin, Note::kNone},
    {2, "end", Value::kMessage, &kEnd, Note::kNone},
};
ZT_SPEC(kEntry, "TemplightEntry", kEntryFields);
const FieldSpec kHeaderFields[] = {
    {1, "version", Value::kUint, nullptr, Note::kNone},
    {2, "source_file", Value::kString, nullptr, Note::kNone},
};
ZT_SPEC(kHeader, "TemplightHeader", kHeaderFields);
const FieldSpec kDictionaryEntryFields[] = {
    {1, "marked_name", Value::kString, nullptr, Note::kNone},
    {2, "marker_ids", Value::kUint, nullptr, Note::kNone},
};
ZT_SPEC(kDictionaryEntry, "DictionaryEntry", kDictionaryEntryFields);
const FieldSpec kTraceFields[] = {
    {1, "header", Value::kMessage, &kHeader, Note::kNone},
    {2, "entries", Value::kMessage, &kEntry, Note::kNone},
    {3, "names", Value::kMessage, &kDictionaryEntry, Note::kNone},
};
ZT_SPEC(kTrace, "TemplightTrace", kTraceFields);

#undef ZT_SPEC

constexpr int kMaxTemplightDepth = 16;  // Deeper than Templight's schema ever nests.

bool TemplightDecodesCleanly(const uint8_t* data, size_t size) {
  ProtoDecoder decoder(data, size);
  while (decoder.ReadField().valid()) {
  }
  return !decoder.parse_error();
}

// The shortest decimal that reads back as the same double.
std::string DoubleText(double value) {
  char text[40];
  for (int precision = 6; precision <= 17; precision++) {
    snprintf(text, sizeof(text), "%.*g", precision, value);
    if (strtod(text, nullptr) == value)
      break;
  }
  return text;
}

class TemplightPrinter {
 public:
  // Expanded names in comments: at most 64x the input, plus 64 MiB.
  void SetInputSize(size_t size) { name_budget_ = uint64_t{64} * size + (uint64_t{64} << 20); }
  // Bounds of a name shown in a comment (expanded or inflated).
  static constexpr size_t kMaxShownBytes = 64 << 10;
  static constexpr size_t kMaxSteps = 64 << 10;

  explicit TemplightPrinter(const TextSink& sink) : out_(sink) {}

  TextWriter& out() { return out_; }

  // One TemplightTrace (a translation unit) at `offset` in the file.
  void Trace(const uint8_t* data, size_t size, uint64_t offset, uint64_t unit) {
    entries_.clear();
    markers_.clear();
    files_.clear();
    kind_table_ = PickTemplightKindTable(KindEvidence(data, size));
    char header[160];
    snprintf(header, sizeof(header), "traces {  # byte %" PRIu64 ": translation unit %" PRIu64
             ", kinds numbered as %s\n", offset, unit, TemplightKindTableLabel(kind_table_));
    out_.Append(header);
    Message(kTrace, data, size, 1);
    out_.Append("}\n");
  }

  // Fields of a top-level message other than a trace, by number.
  void Unknown(const Field& f, int depth) {
    char number[16];
    snprintf(number, sizeof(number), "%u", f.id());
    PrintRaw(number, f, depth);
  }

 private:
  static TemplightKindEvidence KindEvidence(const uint8_t* data, size_t size) {
    TemplightKindEvidence evidence;
    ProtoDecoder trace(data, size);
    for (Field e = trace.ReadField(); e.valid(); e = trace.ReadField()) {
      if (e.id() != 2 || e.type() != WireType::kLengthDelimited)
        continue;
      ProtoDecoder entry(e.as_bytes());
      for (Field b = entry.ReadField(); b.valid(); b = entry.ReadField()) {
        if (b.id() != 1 || b.type() != WireType::kLengthDelimited)
          continue;
        ProtoDecoder begin(b.as_bytes());
        for (Field k = begin.ReadField(); k.valid(); k = begin.ReadField()) {
          if (k.id() == 1 && k.type() == WireType::kVarInt)
            evidence.Add(k.as_uint32());
        }
      }
    }
    return evidence;
  }

  void Message(const MessageSpec& spec, const uint8_t* data, size_t size, int depth) {
    if (&spec == &kLocation)
      NoteFileName(data, size);
    ProtoDecoder decoder(data, size);
    for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
      const FieldSpec* field = spec.Find(f.id());
      if (!field) {
        Unknown(f, depth);
        continue;
      }
      if (field->value == Value::kMessage && f.type() == WireType::kLengthDelimited &&
          depth < kMaxTemplightDepth && TemplightDecodesCleanly(f.data(), f.size())) {
        out_.Indent(depth);
        out_.Append(field->name);
        out_.Append(" {");
        if (field->message == &kDictionaryEntry)
          DictionaryEntryComment(f.data(), f.size());
        out_.Append("\n");
        Message(*field->message, f.data(), f.size(), depth + 1);
        out_.Indent(depth);
        out_.Append("}\n");
        continue;
      }
      if (field->value == Value::kMessage && f.type() == WireType::kLengthDelimited) {
        PrintRaw(field->name, f, depth);
        out_.Indent(depth);
        out_.Append("# (does not decode as a ");
        out_.Append(field->message->name);
        out_.Append(")\n");
        continue;
      }
      if (field->value == Value::kUint && f.type() == WireType::kLengthDelimited &&
          DecodesAsPackedVarints(f.data(), f.size())) {
        PackedVarints(*field, f, depth);
        continue;
      }
      const bool right_wire =
          (field->value == Value::kString && f.type() == WireType::kLengthDelimited) ||
          (field->value == Value::kUint && f.type() == WireType::kVarInt) ||
          (field->value == Value::kDouble && f.type() == WireType::kFixed64);
      if (!right_wire) {
        PrintRaw(field->name, f, depth);
        continue;
      }
      out_.Indent(depth);
      out_.Append(field->name);
      out_.Append(": ");
      if (field->value == Value::kString) {
        out_.Quoted(f.data(), f.size());
      } else if (field->value == Value::kDouble) {
        out_.Append(DoubleText(f.as_double()));
      } else {
        out_.Append(std::to_string(f.as_uint64()));
      }
      Comment(field->note, f);
      out_.Append("\n");
    }
    if (decoder.parse_error()) {
      out_.Indent(depth);
      out_.Append("# (the rest of this message does not decode)\n");
    }
  }

  // A field whose wire type is not the schema's: as protobuf would keep it.
  void PrintRaw(const char* name, const Field& f, int depth) {
    out_.Indent(depth);
    out_.Append(name);
    out_.Append(": ");
    switch (f.type()) {
      case WireType::kLengthDelimited:
        out_.Quoted(f.data(), f.size());
        break;
      case WireType::kFixed32:
        out_.Append(std::to_string(f.as_uint32()));
        break;
      default:
        out_.Append(std::to_string(f.as_uint64()));
        break;
    }
    out_.Append("\n");
  }

  static bool DecodesAsPackedVarints(const uint8_t* p, size_t size) {
    const uint8_t* const end = p + size;
    while (p < end) {
      uint64_t value;
      const uint8_t* next = protozero::proto_utils::ParseVarInt(p, end, &value);
      if (next == p)
        return false;
      p = next;
    }
    return true;
  }

  void PackedVarints(const FieldSpec& field, const Field& f, int depth) {
    const uint8_t* p = f.data();
    const uint8_t* const end = p + f.size();
    while (p < end) {
      uint64_t value = 0;
      p = protozero::proto_utils::ParseVarInt(p, end, &value);
      out_.Indent(depth);
      out_.Append(field.name);
      out_.Append(": " + std::to_string(value) + "\n");
    }
  }

  void Comment(Note note, const Field& f) {
    switch (note) {
      case Note::kNone:
        return;
      case Note::kKind: {
        const char* name = TemplightKindName(f.as_uint32(), kind_table_);
        if (name) {
          out_.Append("  # ");
          out_.Append(name);
        }
        return;
      }
      case Note::kDictId: {
        out_.Append("  # ");
        if (f.as_uint64() >= entries_.size())
          out_.Append("(no dictionary entry " + std::to_string(f.as_uint64()) + " before this)");
        else
          ExpandQuoted(static_cast<uint32_t>(f.as_uint64()));
        return;
      }
      case Note::kInflated: {
        std::string name;
        std::string why;
        out_.Append("  # ");
        if (InflateTemplightName(f.data(), f.size(), kMaxShownBytes, &name,
                                 &why)) {
          out_.Quoted(name.data(), name.size());
        } else {
          out_.Append("(" + why + ")");
        }
        return;
      }
      case Note::kFileId: {
        if (location_has_name_)
          return;  // The path is on the line above.
        auto it = files_.find(f.as_uint64());
        out_.Append("  # ");
        if (it == files_.end())
          out_.Append("(not named before in this unit)");
        else
          out_.Quoted(it->second.data(), it->second.size());
        return;
      }
    }
  }

  // A location that names its file gives the id its path for later ones.
  void NoteFileName(const uint8_t* data, size_t size) {
    std::string_view name;
    bool has_name = false;
    bool has_id = false;
    uint64_t id = 0;
    ProtoDecoder decoder(data, size);
    for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
      if (f.id() == 1 && f.type() == WireType::kLengthDelimited) {
        name = std::string_view(reinterpret_cast<const char*>(f.data()), f.size());
        has_name = true;
      } else if (f.id() == 2 && f.type() == WireType::kVarInt) {
        id = f.as_uint64();
        has_id = true;
      }
    }
    location_has_name_ = has_name;
    if (has_name && has_id)
      files_[id] = std::string(name);
  }

  // "  # entry N: "name"", and the entry added to the unit's dictionary.
  void DictionaryEntryComment(const uint8_t* data, size_t size) {
    std::string_view marked;
    std::vector<uint32_t> markers;
    ProtoDecoder decoder(data, size);
    for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
      if (f.id() == 1 && f.type() == WireType::kLengthDelimited) {
        marked = std::string_view(reinterpret_cast<const char*>(f.data()), f.size());
      } else if (f.id() == 2 && f.type() == WireType::kVarInt) {
        markers.push_back(static_cast<uint32_t>(std::min<uint64_t>(f.as_uint64(), UINT32_MAX)));
      } else if (f.id() == 2 && f.type() == WireType::kLengthDelimited) {
        const uint8_t* p = f.data();
        const uint8_t* const end = p + f.size();
        uint64_t value = 0;
        for (const uint8_t* next; p < end && (next = protozero::proto_utils::ParseVarInt(
                                                  p, end, &value)) != p;
             p = next) {
          markers.push_back(static_cast<uint32_t>(std::min<uint64_t>(value, UINT32_MAX)));
        }
      }
    }
    const uint32_t id = static_cast<uint32_t>(entries_.size());
    entries_.push_back(Entry{marked, static_cast<uint32_t>(markers_.size()),
                             static_cast<uint32_t>(markers.size())});
    markers_.insert(markers_.end(), markers.begin(), markers.end());
    char prefix[48];
    snprintf(prefix, sizeof(prefix), "  # entry %u: ", id);
    out_.Append(prefix);
    ExpandQuoted(id);
  }

  // The name entry `id` stands for, quoted, as far as the bounds allow: a
  // comment, so a hostile dictionary (names doubling at each entry, long
  // chains) costs at most kMaxShownBytes of text and kMaxSteps of walking
  // per comment, and nothing is kept. Markers refer to earlier entries
  // only, as Templight's writer makes them, so there is no cycle.
  void ExpandQuoted(uint32_t id) {
    // The whole dump's names have a budget too, a multiple of the input:
    // a dictionary whose every entry doubles the one before would
    // otherwise print 64 KiB per entry of a few bytes.
    if (shown_bytes_ > name_budget_) {
      out_.Append("(not expanded: the dump's budget for names is spent)");
      return;
    }
    std::string name;
    std::string problem;
    struct Frame {
      uint32_t entry;
      size_t at;      // Next byte of its marked name.
      uint32_t next;  // Next of its markers.
    };
    std::vector<Frame> stack{{id, 0, 0}};
    size_t steps = 0;
    while (!stack.empty() && problem.empty()) {
      Frame& frame = stack.back();
      const Entry& entry = entries_[frame.entry];
      if (frame.at == entry.marked.size()) {
        stack.pop_back();
        continue;
      }
      if (++steps > kMaxSteps || name.size() >= kMaxShownBytes) {
        problem = "... (cut here)";
        break;
      }
      // Only as far as the comment has room: a 50 MB entry without a
      // placeholder is not scanned whole for each comment that shows it.
      const size_t room = kMaxShownBytes - name.size();
      const std::string_view window = entry.marked.substr(frame.at, room);
      const size_t found = window.find('\0');
      name.append(window.data(), found == std::string_view::npos ? window.size() : found);
      if (found == std::string_view::npos) {
        frame.at += window.size();
        if (frame.at < entry.marked.size())
          problem = "... (cut here)";
        continue;
      }
      const size_t placeholder = frame.at + found;
      frame.at = placeholder;
      frame.at++;
      if (frame.next == entry.marker_count) {
        problem = "(entry " + std::to_string(frame.entry) + " has more placeholders than markers)";
        break;
      }
      const uint32_t child = markers_[entry.first_marker + frame.next++];
      if (child >= frame.entry) {
        problem = "(entry " + std::to_string(frame.entry) + " refers to entry " +
                  std::to_string(child) + ", not an earlier one)";
        break;
      }
      stack.push_back(Frame{child, 0, 0});
    }
    out_.Quoted(name.data(), name.size());
    shown_bytes_ += name.size();
    if (!problem.empty())
      out_.Append(" " + problem);
  }

  struct Entry {
    std::string_view marked;  // In the file.
    uint32_t first_marker;    // In markers_.
    uint32_t marker_count;
  };

  TextWriter out_;
  uint64_t shown_bytes_ = 0;
  uint64_t name_budget_ = 0;
  std::vector<Entry> entries_;     // This unit's dictionary so far.
  std::vector<uint32_t> markers_;
  std::unordered_map<uint64_t, std::string> files_;  // file_id -> path, this unit.
  bool location_has_name_ = false;
  TemplightKindTable kind_table_ = TemplightKindTable::kUnknown;
};

}  // namespace

TemplightTextResult DumpTemplightAsText(const void* data, size_t size, const TextSink& sink) {
  TemplightTextResult result;
  TemplightPrinter printer(sink);
  printer.SetInputSize(size);
  const uint8_t* const base = static_cast<const uint8_t*>(data);
  std::vector<std::string_view> merged;
  if (SplitTemplightDriverOutput(data, size, &merged)) {
    printer.out().Append(
        "# templight++'s output of several units: each unit's file, then a '\\n'\n");
    for (std::string_view trace : merged) {
      const uint8_t* bytes = reinterpret_cast<const uint8_t*>(trace.data());
      printer.Trace(bytes, trace.size(), static_cast<uint64_t>(bytes - base), result.units++);
    }
  } else {
    ProtoDecoder collection(base, size);
    size_t at = 0;  // After the last whole field (the decoder skips to the end on damage).
    for (Field f = collection.ReadField(); f.valid(); f = collection.ReadField()) {
      if (f.id() == 1 && f.type() == WireType::kLengthDelimited) {
        printer.Trace(f.data(), f.size(), static_cast<uint64_t>(f.data() - base),
                      result.units++);
      } else {
        printer.Unknown(f, 0);
      }
      at = collection.read_offset();
      if (printer.out().failed())
        break;
    }
    if (collection.parse_error()) {
      result.damage = "the file is truncated or corrupt at byte " + std::to_string(at) + " (" +
                      std::to_string(size - at) + " bytes not read)";
      printer.out().Append("# " + result.damage + "\n");
    }
  }
  printer.out().Flush();
  result.sink_failed = printer.out().failed();
  return result;
}

}  // namespace processor
}  // namespace zt
