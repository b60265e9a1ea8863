// libFuzzer target for the text-format parser, over a small recursive
// hand-written schema that has a field of most types (singular, repeated,
// packed, nested, enum).
//
// Besides "no crash, no sanitizer report, no stack overflow", it checks
// invariants that can fail:
//  * on failure: *out is untouched and the error has a short message (it
//    quotes at most 40 bytes of any token) and a line:column that lies
//    inside the input (or just past its end);
//  * on success: the input has no NUL byte (refused everywhere, as by
//    libprotobuf), and the bytes appended after the untouched prefix decode
//    cleanly with ProtoDecoder, field by field, against the schema (known
//    ids, wire type of the field's type, packed blobs iterate without
//    error, enum values defined, bools 0/1, int32s sign-extended, nested
//    messages valid recursively);
//  * round trip: printing the decoded message back as text and parsing that
//    gives exactly the same bytes.

#include <cinttypes>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "zt/protozero/field.h"
#include "zt/protozero/proto_decoder.h"
#include "zt/protozero/proto_utils.h"
#include "zt/protozero/schema.h"
#include "zt/protozero/text_format.h"

namespace zt {
namespace protozero {
namespace {

#define FUZZ_CHECK(cond)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      abort();                                                                 \
    }                                                                          \
  } while (0)

const MessageSchema* NodeSchema();
const EnumSchema* KindSchema();

constexpr EnumValueSchema kKindValues[] = {
    {"KIND_NONE", 0}, {"KIND_A", 1}, {"KIND_B", 2}, {"KIND_NEG", -3}};
constexpr EnumSchema kKind{"fuzz.Kind", kKindValues, 4};
const EnumSchema* KindSchema() { return &kKind; }

constexpr FieldSchema kNodeFields[] = {
    {"i", 1, FieldType::kInt32, false, false, nullptr, nullptr},
    {"s", 2, FieldType::kSint64, false, false, nullptr, nullptr},
    {"name", 3, FieldType::kString, false, false, nullptr, nullptr},
    {"child", 4, FieldType::kMessage, false, false, &NodeSchema, nullptr},
    {"children", 5, FieldType::kMessage, true, false, &NodeSchema, nullptr},
    {"kind", 6, FieldType::kEnum, false, false, nullptr, &KindSchema},
    {"p", 7, FieldType::kFixed32, true, true, nullptr, nullptr},
    {"d", 8, FieldType::kDouble, false, false, nullptr, nullptr},
    {"b", 9, FieldType::kBool, false, false, nullptr, nullptr},
    {"raw", 10, FieldType::kBytes, true, false, nullptr, nullptr},
    {"u", 11, FieldType::kUint64, true, false, nullptr, nullptr},
    {"fl", 12, FieldType::kFloat, false, false, nullptr, nullptr},
    {"ps", 13, FieldType::kSint32, true, true, nullptr, nullptr},
    {"kinds", 14, FieldType::kEnum, true, true, nullptr, &KindSchema},
    {"sf", 15, FieldType::kSfixed64, false, false, nullptr, nullptr},
    {"big", 536870911, FieldType::kUint32, false, false, nullptr, nullptr},
};
constexpr MessageSchema kNode{"fuzz.Node", kNodeFields,
                              sizeof(kNodeFields) / sizeof(kNodeFields[0])};
const MessageSchema* NodeSchema() { return &kNode; }

using proto_utils::ProtoWireType;

ProtoWireType WireTypeOf(FieldType t) {
  switch (t) {
    case FieldType::kDouble:
    case FieldType::kFixed64:
    case FieldType::kSfixed64:
      return ProtoWireType::kFixed64;
    case FieldType::kFloat:
    case FieldType::kFixed32:
    case FieldType::kSfixed32:
      return ProtoWireType::kFixed32;
    case FieldType::kString:
    case FieldType::kBytes:
    case FieldType::kMessage:
      return ProtoWireType::kLengthDelimited;
    default:
      return ProtoWireType::kVarInt;
  }
}

bool EnumDefined(const EnumSchema& e, int64_t v) {
  for (size_t i = 0; i < e.num_values; i++) {
    if (e.values[i].number == v)
      return true;
  }
  return false;
}

std::string QuoteBytes(std::string_view s) {
  std::string out = "\"";
  char buf[8];
  for (char c : s) {
    snprintf(buf, sizeof(buf), "\\x%02x", static_cast<unsigned char>(c));
    out += buf;
  }
  return out + "\"";
}

std::string FormatDouble(double d, int precision) {
  if (std::isnan(d))
    return std::signbit(d) ? "-nan" : "nan";
  if (std::isinf(d))
    return d < 0 ? "-inf" : "inf";
  char buf[64];
  snprintf(buf, sizeof(buf), "%.*g", precision, d);
  return buf;
}

// Checks one scalar value |raw| of |field| and prints it as text.
std::string CheckAndPrintScalar(const FieldSchema& field, uint64_t raw) {
  char buf[64];
  switch (field.type) {
    case FieldType::kInt32: {
      const int64_t v = static_cast<int64_t>(raw);
      FUZZ_CHECK(v >= INT32_MIN && v <= INT32_MAX);
      snprintf(buf, sizeof(buf), "%" PRId64, v);
      return buf;
    }
    case FieldType::kEnum: {
      const int64_t v = static_cast<int64_t>(raw);
      FUZZ_CHECK(EnumDefined(*field.enum_type(), v));
      snprintf(buf, sizeof(buf), "%" PRId64, v);
      return buf;
    }
    case FieldType::kSint32: {
      FUZZ_CHECK(raw <= UINT32_MAX);
      snprintf(buf, sizeof(buf), "%" PRId32,
               proto_utils::ZigZagDecode(static_cast<uint32_t>(raw)));
      return buf;
    }
    case FieldType::kSint64:
      snprintf(buf, sizeof(buf), "%" PRId64, proto_utils::ZigZagDecode(raw));
      return buf;
    case FieldType::kBool:
      FUZZ_CHECK(raw <= 1);
      return raw ? "true" : "false";
    case FieldType::kUint32:
    case FieldType::kFixed32:
      FUZZ_CHECK(raw <= UINT32_MAX);
      snprintf(buf, sizeof(buf), "%" PRIu64, raw);
      return buf;
    case FieldType::kUint64:
    case FieldType::kFixed64:
      snprintf(buf, sizeof(buf), "%" PRIu64, raw);
      return buf;
    case FieldType::kSfixed64:
    case FieldType::kInt64:
      snprintf(buf, sizeof(buf), "%" PRId64, static_cast<int64_t>(raw));
      return buf;
    case FieldType::kDouble: {
      double d;
      memcpy(&d, &raw, sizeof(d));
      return FormatDouble(d, 17);
    }
    case FieldType::kFloat: {
      const uint32_t bits = static_cast<uint32_t>(raw);
      float f;
      memcpy(&f, &bits, sizeof(f));
      return FormatDouble(static_cast<double>(f), 9);
    }
    default:
      FUZZ_CHECK(false);
  }
  return "";
}

// Validates |bytes| as a message of |schema| and prints it as text.
void CheckAndPrint(const MessageSchema& schema, std::string_view bytes,
                   int depth, std::string* text) {
  FUZZ_CHECK(depth <= static_cast<int>(kTextFormatMaxDepth));
  ProtoDecoder dec(bytes);
  for (Field f = dec.ReadField(); f.valid(); f = dec.ReadField()) {
    const FieldSchema* field = schema.FindFieldByNumber(f.id());
    FUZZ_CHECK(field != nullptr);
    *text += field->name;
    if (field->repeated && field->packed) {
      FUZZ_CHECK(f.type() == ProtoWireType::kLengthDelimited);
      *text += ": [";
      bool parse_error = false;
      bool first = true;
      auto add = [&](uint64_t raw) {
        *text += first ? "" : ", ";
        *text += CheckAndPrintScalar(*field, raw);
        first = false;
      };
      const ProtoWireType wt = WireTypeOf(field->type);
      if (wt == ProtoWireType::kFixed32) {
        PackedRepeatedFieldIterator<PackedKind::kFixed32, uint32_t> it(
            f.data(), f.size(), &parse_error);
        for (; it; ++it)
          add(*it);
      } else if (wt == ProtoWireType::kFixed64) {
        PackedRepeatedFieldIterator<PackedKind::kFixed64, uint64_t> it(
            f.data(), f.size(), &parse_error);
        for (; it; ++it)
          add(*it);
      } else {
        PackedRepeatedFieldIterator<PackedKind::kVarInt, uint64_t> it(
            f.data(), f.size(), &parse_error);
        for (; it; ++it)
          add(*it);
      }
      FUZZ_CHECK(!parse_error);
      FUZZ_CHECK(!first);  // Empty packed fields are not written.
      *text += "]\n";
      continue;
    }
    FUZZ_CHECK(f.type() == WireTypeOf(field->type));
    if (field->type == FieldType::kMessage) {
      *text += " {\n";
      CheckAndPrint(*field->message_type(), f.as_string(), depth + 1, text);
      *text += "}\n";
    } else if (field->type == FieldType::kString ||
               field->type == FieldType::kBytes) {
      *text += ": " + QuoteBytes(f.as_string()) + "\n";
    } else {
      *text += ": " + CheckAndPrintScalar(*field, f.raw_int_value()) + "\n";
    }
  }
  FUZZ_CHECK(!dec.parse_error());
  FUZZ_CHECK(dec.bytes_left() == 0);
}

void CheckError(std::string_view text, const TextFormatError& error) {
  // A quoted token is cut to 40 bytes, shown with at most 4 characters a
  // byte; the rest of a message is fixed text, names from the small schema
  // above and line:column numbers.
  FUZZ_CHECK(!error.message.empty() && error.message.size() <= 400);
  FUZZ_CHECK(error.line >= 1 && error.column >= 1);
  // Find the start of error.line; the column must be within that line, or
  // one past its end.
  size_t line = 1, pos = 0;
  while (line < error.line) {
    const size_t nl = text.find('\n', pos);
    FUZZ_CHECK(nl != std::string_view::npos);
    pos = nl + 1;
    line++;
  }
  size_t end = text.find('\n', pos);
  if (end == std::string_view::npos)
    end = text.size();
  FUZZ_CHECK(error.column - 1 <= end - pos);
}

}  // namespace
}  // namespace protozero
}  // namespace zt

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zt::protozero;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static const std::string kPrefix = "prefix";
  std::string out = kPrefix;
  TextFormatError error;
  if (!ParseTextFormat(kNode, text, &out, &error)) {
    FUZZ_CHECK(out == kPrefix);
    CheckError(text, error);
    return 0;
  }
  FUZZ_CHECK(text.find('\0') == std::string_view::npos);
  FUZZ_CHECK(out.compare(0, kPrefix.size(), kPrefix) == 0);
  const std::string bytes = out.substr(kPrefix.size());
  std::string printed;
  CheckAndPrint(kNode, bytes, 0, &printed);

  std::string again;
  TextFormatError error2;
  if (!ParseTextFormat(kNode, printed, &again, &error2)) {
    fprintf(stderr, "reparse failed: %s\n--- printed:\n%s\n",
            FormatTextFormatError("printed", error2).c_str(), printed.c_str());
    abort();
  }
  FUZZ_CHECK(again == bytes);
  return 0;
}
