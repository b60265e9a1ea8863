#include "src/processor/exporters/trace_text_dump.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>

#include "zt/protozero/proto_decoder.h"
#include "zt/protozero/schema.h"

// The generated schema tables (zt_protos_schema); declared here so that
// the processor needs none of the generated classes.
namespace zt {
namespace protos {
namespace gen {
const ::zt::protozero::MessageSchema* TracePacket_Schema();
}  // namespace gen
}  // namespace protos
}  // namespace zt

namespace zt {
namespace processor {
namespace {

using protozero::FieldSchema;
using protozero::FieldType;
using protozero::MessageSchema;
using protozero::ProtoDecoder;
using WireType = protozero::proto_utils::ProtoWireType;

constexpr int kMaxDepth = 64;

// Interned strings of one sequence, as the file has them so far.
struct Interned {
  std::unordered_map<uint64_t, std::string> tables[4];
};
enum InternedKind { kCategories = 0, kEventNames = 1, kAnnotationNames = 2, kAnnotationStrings = 3 };

int KindOfInternedDataField(uint32_t field) {
  switch (field) {
    case 1:
      return kCategories;
    case 2:
      return kEventNames;
    case 3:
      return kAnnotationNames;
    case 29:
      return kAnnotationStrings;
  }
  return -1;
}

// Which (message, field) pairs hold interned ids, and of what.
int KindOfIidField(const MessageSchema& schema, uint32_t field) {
  const std::string_view name = schema.full_name;
  if (name == "zt.protos.TrackEvent") {
    if (field == 10)
      return kEventNames;
    if (field == 3)
      return kCategories;
  } else if (name == "zt.protos.DebugAnnotation") {
    if (field == 1)
      return kAnnotationNames;
    if (field == 17)
      return kAnnotationStrings;
  }
  return -1;
}

class Printer {
 public:
  explicit Printer(const TextSink& sink) : out_(sink) {}

  bool failed() const { return out_.failed(); }
  void Append(std::string_view text) { out_.Append(text); }
  void Flush() { out_.Flush(); }

  void Packet(const PacketView& packet) {
    // The sequence's interned state first: this packet's own interned data
    // may name what it uses.
    uint32_t sequence_id = 0;
    bool cleared = false;
    protozero::ConstBytes interned{};
    ProtoDecoder scan(packet.data, packet.size);
    for (protozero::Field f = scan.ReadField(); f.valid(); f = scan.ReadField()) {
      if (f.id() == 10)
        sequence_id = f.as_uint32();
      else if ((f.id() == 13 && (f.as_uint64() & 1)) || (f.id() == 41 && f.as_bool()))
        cleared = true;
      else if (f.id() == 12 && f.type() == WireType::kLengthDelimited)
        interned = f.as_bytes();
    }
    Interned& state = sequences_[sequence_id];
    if (cleared) {
      for (auto& table : state.tables)
        table.clear();
    }
    if (interned.data)
      AddInterned(&state, interned);
    current_ = &state;

    char header[96];
    snprintf(header, sizeof(header), "packet {  # byte %" PRIu64 ", sequence %u\n",
             packet.offset, sequence_id);
    Append(header);
    Message(*protos::gen::TracePacket_Schema(), packet.data, packet.size, 1);
    Append("}\n");
  }

 private:
  void AddInterned(Interned* state, protozero::ConstBytes bytes) {
    ProtoDecoder decoder(bytes);
    for (protozero::Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
      const int kind = KindOfInternedDataField(f.id());
      if (kind < 0 || f.type() != WireType::kLengthDelimited)
        continue;
      ProtoDecoder entry(f.as_bytes());
      uint64_t iid = 0;
      std::string name;
      for (protozero::Field e = entry.ReadField(); e.valid(); e = entry.ReadField()) {
        if (e.id() == 1)
          iid = e.as_uint64();
        else if (e.id() == 2)
          name = e.as_std_string();
      }
      if (!entry.parse_error())
        state->tables[kind][iid] = name;
    }
  }

  void Indent(int depth) { out_.Indent(depth); }

  static bool IsValidMessage(const uint8_t* data, size_t size) {
    ProtoDecoder decoder(data, size);
    while (decoder.ReadField().valid()) {
    }
    return !decoder.parse_error();
  }

  void Quoted(const uint8_t* data, size_t size) { out_.Quoted(data, size); }

  void Scalar(const FieldSchema* schema, uint64_t raw, WireType wire) {
    char text[64];
    if (!schema) {
      snprintf(text, sizeof(text), "%" PRIu64, raw);
      Append(text);
      return;
    }
    switch (schema->type) {
      case FieldType::kDouble:
      case FieldType::kFloat: {
        double value;
        if (wire == WireType::kFixed32) {
          float f;
          const uint32_t bits = static_cast<uint32_t>(raw);
          memcpy(&f, &bits, sizeof(f));
          value = f;
        } else {
          memcpy(&value, &raw, sizeof(value));
        }
        snprintf(text, sizeof(text), "%.17g", value);
        break;
      }
      case FieldType::kInt64:
      case FieldType::kSfixed64:
        snprintf(text, sizeof(text), "%" PRId64, static_cast<int64_t>(raw));
        break;
      case FieldType::kInt32:
      case FieldType::kSfixed32:
        snprintf(text, sizeof(text), "%" PRId32, static_cast<int32_t>(raw));
        break;
      case FieldType::kSint32:
      case FieldType::kSint64:
        snprintf(text, sizeof(text), "%" PRId64,
                 static_cast<int64_t>((raw >> 1) ^ (~(raw & 1) + 1)));
        break;
      case FieldType::kBool:
        snprintf(text, sizeof(text), "%s", raw ? "true" : "false");
        break;
      case FieldType::kEnum: {
        const protozero::EnumSchema* e = schema->enum_type ? schema->enum_type() : nullptr;
        const int32_t number = static_cast<int32_t>(raw);
        if (e) {
          for (size_t i = 0; i < e->num_values; i++) {
            if (e->values[i].number == number) {
              Append(e->values[i].name);
              return;
            }
          }
        }
        snprintf(text, sizeof(text), "%" PRId32, number);
        break;
      }
      default:
        snprintf(text, sizeof(text), "%" PRIu64, raw);
        break;
    }
    Append(text);
  }

  void IidComment(int kind, uint64_t iid) {
    const auto& table = current_->tables[kind];
    auto it = table.find(iid);
    if (it == table.end()) {
      Append("  # (not interned on this sequence)");
      return;
    }
    Append("  # ");
    Quoted(reinterpret_cast<const uint8_t*>(it->second.data()), it->second.size());
  }

  void Message(const MessageSchema& schema, const uint8_t* data, size_t size, int depth) {
    ProtoDecoder decoder(data, size);
    for (protozero::Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
      const FieldSchema* field = schema.FindFieldByNumber(f.id());
      char number[16];
      snprintf(number, sizeof(number), "%u", f.id());
      const std::string name = field ? field->name : number;
      const int iid_kind = KindOfIidField(schema, f.id());
      if (f.type() == WireType::kLengthDelimited) {
        const bool is_message = field && field->type == FieldType::kMessage &&
                                field->message_type && depth < kMaxDepth &&
                                IsValidMessage(f.data(), f.size());
        const bool is_text = field && (field->type == FieldType::kString ||
                                       field->type == FieldType::kBytes);
        if (is_message) {
          Indent(depth);
          Append(name + " {\n");
          Message(*field->message_type(), f.data(), f.size(), depth + 1);
          Indent(depth);
          Append("}\n");
        } else if (!is_text && field && field->repeated) {
          // Packed scalars: one line per value.
          PackedValues(field, name, f.data(), f.size(), depth, iid_kind);
        } else {
          Indent(depth);
          Append(name + ": ");
          Quoted(f.data(), f.size());
          Append("\n");
        }
        continue;
      }
      Indent(depth);
      Append(name + ": ");
      Scalar(field, f.as_uint64(), f.type());
      if (iid_kind >= 0)
        IidComment(iid_kind, f.as_uint64());
      Append("\n");
    }
    if (decoder.parse_error()) {
      Indent(depth);
      Append("# (the rest of this message does not decode)\n");
    }
  }

  void PackedValues(const FieldSchema* field, const std::string& name, const uint8_t* p,
                    size_t size, int depth, int iid_kind) {
    const uint8_t* const end = p + size;
    size_t width = 0;
    switch (field->type) {
      case FieldType::kDouble:
      case FieldType::kFixed64:
      case FieldType::kSfixed64:
        width = 8;
        break;
      case FieldType::kFloat:
      case FieldType::kFixed32:
      case FieldType::kSfixed32:
        width = 4;
        break;
      default:
        break;
    }
    while (p < end) {
      uint64_t value = 0;
      if (width) {
        if (static_cast<size_t>(end - p) < width)
          break;
        memcpy(&value, p, width);
        p += width;
      } else {
        const uint8_t* next = protozero::proto_utils::ParseVarInt(p, end, &value);
        if (next == p)
          break;
        p = next;
      }
      Indent(depth);
      Append(name + ": ");
      Scalar(field, value, width == 4 ? WireType::kFixed32 : WireType::kFixed64);
      if (iid_kind >= 0)
        IidComment(iid_kind, value);
      Append("\n");
    }
    if (p != end) {
      Indent(depth);
      Append("# (a packed " + name + " does not decode)\n");
    }
  }

  TextWriter out_;
  std::unordered_map<uint32_t, Interned> sequences_;
  Interned* current_ = nullptr;
};

}  // namespace

TextDumpResult DumpTraceAsText(const void* data, size_t size, const TextSink& sink,
                               const TextDumpProgress& progress) {
  TextDumpResult result;
  Printer printer(sink);
  TraceTokenizer tokenizer(data, size);
  PacketView packet;
  while (!printer.failed() && tokenizer.Next(&packet)) {
    printer.Packet(packet);
    if (progress)
      progress(packet.offset + packet.size);
  }
  result.tokenizer = tokenizer.stats();
  if (result.tokenizer.damage != TraceDamage::kNone)
    printer.Append("# " + DescribeDamage(result.tokenizer) + "\n");
  printer.Flush();
  result.sink_failed = printer.failed();
  return result;
}

}  // namespace processor
}  // namespace zt
