// Text format ("pbtxt") parser over MessageSchema. Design, grammar and error
// model: docs/design/text_format.md.

#include "zt/protozero/text_format.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "zt/protozero/message.h"
#include "zt/protozero/packed_repeated_fields.h"
#include "zt/protozero/proto_utils.h"
#include "zt/protozero/scattered_heap_buffer.h"
#include "zt/protozero/schema.h"
#include "src/protozero/text_format_lexer.h"

namespace zt {
namespace protozero {
namespace {

using text_format_internal::ErrorSink;
using text_format_internal::Excerpt;
using text_format_internal::HexValue;
using text_format_internal::kMaxQuotedBytes;
using text_format_internal::Lexer;
using text_format_internal::Quote;
using text_format_internal::Token;
using text_format_internal::TokenType;

char ToLower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}
bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); i++) {
    if (ToLower(a[i]) != ToLower(b[i]))
      return false;
  }
  return true;
}

const char* FieldTypeName(FieldType type) {
  switch (type) {
    case FieldType::kDouble: return "double";
    case FieldType::kFloat: return "float";
    case FieldType::kInt64: return "int64";
    case FieldType::kUint64: return "uint64";
    case FieldType::kInt32: return "int32";
    case FieldType::kFixed64: return "fixed64";
    case FieldType::kFixed32: return "fixed32";
    case FieldType::kBool: return "bool";
    case FieldType::kString: return "string";
    case FieldType::kGroup: return "group";
    case FieldType::kMessage: return "message";
    case FieldType::kBytes: return "bytes";
    case FieldType::kUint32: return "uint32";
    case FieldType::kEnum: return "enum";
    case FieldType::kSfixed32: return "sfixed32";
    case FieldType::kSfixed64: return "sfixed64";
    case FieldType::kSint32: return "sint32";
    case FieldType::kSint64: return "sint64";
  }
  return "unknown";
}

// Case-insensitive Levenshtein distance, for "did you mean" suggestions.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); j++)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); j++) {
      const size_t up = row[j];
      const size_t cost = ToLower(a[i - 1]) == ToLower(b[j - 1]) ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + cost});
      diag = up;
    }
  }
  return row[b.size()];
}

// Parses the digits of an integer token (decimal, 0x hex, 0 octal).
// Returns false on overflow of uint64.
bool ParseUnsigned(std::string_view text, uint64_t* value) {
  uint64_t base = 10;
  size_t i = 0;
  if (text.size() > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    i = 2;
  } else if (text.size() > 1 && text[0] == '0') {
    base = 8;
    i = 1;
  }
  uint64_t result = 0;
  for (; i < text.size(); i++) {
    const uint64_t digit = static_cast<uint64_t>(HexValue(text[i]));
    if (result > (std::numeric_limits<uint64_t>::max() - digit) / base)
      return false;
    result = result * base + digit;
  }
  *value = result;
  return true;
}

// Parses a decimal float token (optionally with an f/F suffix).
double ParseDouble(std::string_view text) {
  if (!text.empty() && (text.back() == 'f' || text.back() == 'F'))
    text.remove_suffix(1);
  double value = 0;
  const auto res =
      std::from_chars(text.data(), text.data() + text.size(), value,
                      std::chars_format::general);
  if (res.ec == std::errc() && res.ptr == text.data() + text.size())
    return value;
  // Overflow, underflow or a form from_chars does not take ("1." is fine,
  // but be safe): strtod gives +-HUGE_VAL / denormals / 0 like protobuf.
  const std::string copy(text);
  return strtod(copy.c_str(), nullptr);
}

float SafeDoubleToFloat(double value) {
  if (value > static_cast<double>(std::numeric_limits<float>::max()))
    return std::numeric_limits<float>::infinity();
  if (value < -static_cast<double>(std::numeric_limits<float>::max()))
    return -std::numeric_limits<float>::infinity();
  return static_cast<float>(value);
}

// One repeated packed field of the message being parsed.
struct PackedAccumulator {
  const FieldSchema* field = nullptr;
  std::unique_ptr<PackedVarInt> varint;
  std::unique_ptr<PackedFixedSizeInt<uint32_t>> fixed32;
  std::unique_ptr<PackedFixedSizeInt<uint64_t>> fixed64;
};

// The state of one message being parsed (one per nesting level).
struct Frame {
  const MessageSchema* schema;
  Message* msg;
  std::vector<bool> seen;  // Indexed like schema->fields; singular only.
  std::vector<PackedAccumulator> packed;
};

enum class WireKind { kVarInt, kFixed32, kFixed64 };

// A scalar value ready to be written: the varint payload or the fixed bits.
struct ScalarValue {
  WireKind kind;
  uint64_t bits;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : lexer_(text, &errors_) {}

  bool Parse(const MessageSchema& schema, Message* root) {
    if (!Advance())
      return false;
    return ParseMessageBody(schema, root, 0, '\0', Token(), nullptr);
  }

  const TextFormatError& error() const { return errors_.error(); }

 private:
  // ---- Errors ----

  bool FailAt(size_t line, size_t column, std::string message) {
    return errors_.Fail(line, column, std::move(message));
  }
  bool FailAt(const Token& tok, std::string message) {
    return FailAt(tok.line, tok.column, std::move(message));
  }

  static std::string Describe(const Token& tok) {
    switch (tok.type) {
      case TokenType::kEnd:
        return "end of input";
      case TokenType::kString:
        return "string " + Excerpt(tok.text);
      default:
        return Quote(Excerpt(tok.text));
    }
  }

  // The number |digits| as typed, cut like any quoted token; |negative|
  // when a "-" token came before it.
  static std::string ShowNumber(bool negative, std::string_view digits) {
    if (!negative)
      return Excerpt(digits);
    return "-" + Excerpt(digits, kMaxQuotedBytes - 1);
  }

  // ---- Tokens (text_format_lexer.h) ----

  const Token& cur() const { return lexer_.current(); }
  // Reads the next token. False on a lexical error (already reported).
  bool Advance() { return lexer_.Advance(); }
  bool IsSymbol(char c) const { return lexer_.IsSymbol(c); }
  // Consumes symbol |c| if it is next. Sets *ok = false on a lexical error.
  bool TryConsume(char c, bool* ok) {
    if (!IsSymbol(c))
      return false;
    *ok = Advance();
    return true;
  }

  // ---- Parser ----

  std::string FieldDesc(const FieldSchema& field) const {
    return "field \"" + std::string(field.name) + "\"";
  }

  bool ParseMessageBody(const MessageSchema& schema, Message* msg, size_t depth,
                        char close, const Token& open,
                        const FieldSchema* open_field) {
    Frame frame{&schema, msg, std::vector<bool>(schema.num_fields), {}};
    for (;;) {
      if (cur().type == TokenType::kEnd) {
        if (close == '\0')
          break;
        return FailAt(cur(), "unexpected end of input: \"" +
                                std::string(1, close == '}' ? '{' : '<') +
                                "\" of " + FieldDesc(*open_field) + " at " +
                                std::to_string(open.line) + ":" +
                                std::to_string(open.column) + " is not closed");
      }
      if (close != '\0' && IsSymbol(close)) {
        if (!Advance())
          return false;
        break;
      }
      if (close != '\0' && (IsSymbol('}') || IsSymbol('>'))) {
        return FailAt(cur(), "expected \"" + std::string(1, close) +
                                "\" to close \"" +
                                std::string(1, close == '}' ? '{' : '<') +
                                "\" of " + FieldDesc(*open_field) + " at " +
                                std::to_string(open.line) + ":" +
                                std::to_string(open.column) + ", found " +
                                Describe(cur()));
      }
      if (!ParseField(&frame, depth))
        return false;
    }
    return FlushPacked(&frame);
  }

  bool ParseField(Frame* frame, size_t depth) {
    const MessageSchema& schema = *frame->schema;
    if (IsSymbol('[')) {
      return FailAt(cur(), "extension and Any syntax \"[...]\" is not supported "
                          "(in " + std::string(schema.full_name) + ")");
    }
    if (cur().type != TokenType::kIdentifier) {
      if (cur().type == TokenType::kSymbol &&
          (cur().text[0] == '}' || cur().text[0] == '>'))
        return FailAt(cur(), "unexpected " + Describe(cur()) +
                                ": no open message to close here");
      if (cur().type == TokenType::kInteger)
        return FailAt(cur(), "expected a field name in " +
                                std::string(schema.full_name) + ", found " +
                                Describe(cur()) +
                                " (field numbers are not accepted)");
      return FailAt(cur(), "expected a field name in " +
                              std::string(schema.full_name) + ", found " +
                              Describe(cur()));
    }
    const Token name = cur();
    const FieldSchema* field = schema.FindFieldByName(name.text);
    if (!field)
      return FailUnknownField(schema, name);
    if (!field->repeated) {
      const size_t index = static_cast<size_t>(field - schema.fields);
      if (frame->seen[index])
        return FailAt(name, "non-repeated " + FieldDesc(*field) +
                                " is specified more than once in " +
                                std::string(schema.full_name));
      frame->seen[index] = true;
    }
    if (!Advance())
      return false;
    bool ok = true;

    if (field->type == FieldType::kMessage || field->type == FieldType::kGroup) {
      TryConsume(':', &ok);
      if (!ok)
        return false;
      if (IsSymbol('[')) {
        if (!field->repeated)
          return FailAt(cur(), "list syntax \"[...]\" used for non-repeated " +
                                  FieldDesc(*field));
        if (!Advance())
          return false;
        if (TryConsume(']', &ok))
          return ok && ConsumeSeparator();
        for (;;) {
          if (!ParseNestedMessage(frame, *field, depth))
            return false;
          if (TryConsume(']', &ok)) {
            if (!ok)
              return false;
            break;
          }
          if (!Expect(',', "\",\" or \"]\" in the list of " + FieldDesc(*field)))
            return false;
        }
      } else {
        if (!ParseNestedMessage(frame, *field, depth))
          return false;
      }
      return ConsumeSeparator();
    }

    if (!IsSymbol(':'))
      return FailAt(cur(), "expected \":\" after " + FieldDesc(*field) +
                              ", found " + Describe(cur()));
    if (!Advance())
      return false;
    if (IsSymbol('[')) {
      if (!field->repeated)
        return FailAt(cur(), "list syntax \"[...]\" used for non-repeated " +
                                FieldDesc(*field));
      if (!Advance())
        return false;
      if (TryConsume(']', &ok))
        return ok && ConsumeSeparator();
      for (;;) {
        if (!ParseScalar(frame, *field))
          return false;
        if (TryConsume(']', &ok)) {
          if (!ok)
            return false;
          break;
        }
        if (!Expect(',', "\",\" or \"]\" in the list of " + FieldDesc(*field)))
          return false;
      }
    } else {
      if (!ParseScalar(frame, *field))
        return false;
    }
    return ConsumeSeparator();
  }

  bool ConsumeSeparator() {
    bool ok = true;
    if (!TryConsume(';', &ok))
      TryConsume(',', &ok);
    return ok;
  }

  bool Expect(char c, const std::string& what) {
    if (!IsSymbol(c))
      return FailAt(cur(), "expected " + what + ", found " + Describe(cur()));
    return Advance();
  }

  bool FailUnknownField(const MessageSchema& schema, const Token& name) {
    std::string msg = "unknown field " + Describe(name) + " in " +
                      std::string(schema.full_name);
    const FieldSchema* best = nullptr;
    size_t best_distance = std::numeric_limits<size_t>::max();
    // Suggestions for plausible names only: the distance is O(n * m).
    for (size_t i = 0; i < schema.num_fields && name.text.size() <= 64; i++) {
      const size_t d = EditDistance(name.text, schema.fields[i].name);
      if (d < best_distance) {
        best_distance = d;
        best = &schema.fields[i];
      }
    }
    if (best && best_distance <= std::max<size_t>(2, name.text.size() / 3))
      msg += " (did you mean \"" + std::string(best->name) + "\"?)";
    return FailAt(name, std::move(msg));
  }

  bool ParseNestedMessage(Frame* frame, const FieldSchema& field,
                          size_t depth) {
    char close;
    if (IsSymbol('{')) {
      close = '}';
    } else if (IsSymbol('<')) {
      close = '>';
    } else {
      return FailAt(cur(), "expected \"{\" or \"<\" for message " +
                              FieldDesc(field) + ", found " + Describe(cur()));
    }
    const Token open = cur();
    if (depth + 1 > kTextFormatMaxDepth)
      return FailAt(open, "messages nested more than " +
                              std::to_string(kTextFormatMaxDepth) +
                              " levels deep");
    const MessageSchema* sub = field.message_type ? field.message_type() : nullptr;
    if (!sub)
      return FailAt(open, "schema error: message " + FieldDesc(field) +
                              " has no message type");
    if (!Advance())
      return false;
    Message* child = frame->msg->BeginNestedMessage<Message>(field.number);
    const uint64_t start = child->stream_writer()->written();
    if (!ParseMessageBody(*sub, child, depth + 1, close, open, &field))
      return false;
    if (child->stream_writer()->written() - start >
        proto_utils::kMaxMessageLength)
      return FailAt(open, "message " + FieldDesc(field) +
                              " encodes to more than " +
                              std::to_string(proto_utils::kMaxMessageLength) +
                              " bytes");
    return true;
  }

  // Reads an optional "-" and the number after it (integer or float token,
  // or an identifier for floats). Leaves cur() at the number token.
  bool ConsumeSign(bool* negative) {
    *negative = false;
    if (IsSymbol('-')) {
      *negative = true;
      return Advance();
    }
    return true;
  }

  bool ParseScalar(Frame* frame, const FieldSchema& field) {
    switch (field.type) {
      case FieldType::kString:
      case FieldType::kBytes: {
        if (cur().type != TokenType::kString)
          return FailAt(cur(), "expected a string for " +
                                  std::string(FieldTypeName(field.type)) + " " +
                                  FieldDesc(field) + ", found " +
                                  Describe(cur()));
        std::string value;
        while (cur().type == TokenType::kString) {
          if (!lexer_.Unescape(cur(), &value) || !Advance())
            return false;
        }
        frame->msg->AppendBytes(field.number, value.data(), value.size());
        return true;
      }
      case FieldType::kMessage:
      case FieldType::kGroup:
        return false;  // Not reached: handled by ParseField.
      default:
        break;
    }
    ScalarValue value{WireKind::kVarInt, 0};
    if (!ParseNumeric(field, &value))
      return false;
    Emit(frame, field, value);
    return true;
  }

  bool ParseNumeric(const FieldSchema& field, ScalarValue* value) {
    const Token first = cur();
    bool negative = false;
    switch (field.type) {
      case FieldType::kBool: {
        if (cur().type == TokenType::kIdentifier) {
          const std::string_view t = cur().text;
          if (t == "true" || t == "True" || t == "t") {
            value->bits = 1;
          } else if (t == "false" || t == "False" || t == "f") {
            value->bits = 0;
          } else {
            return FailBool(field);
          }
        } else if (cur().type == TokenType::kInteger) {
          uint64_t v = 0;
          if (!ParseUnsigned(cur().text, &v) || v > 1)
            return FailBool(field);
          value->bits = v;
        } else {
          return FailBool(field);
        }
        value->kind = WireKind::kVarInt;
        return Advance();
      }
      case FieldType::kEnum:
        return ParseEnum(field, value);
      case FieldType::kFloat:
      case FieldType::kDouble: {
        if (!ConsumeSign(&negative))
          return false;
        double d = 0;
        if (cur().type == TokenType::kFloat) {
          d = ParseDouble(cur().text);
        } else if (cur().type == TokenType::kInteger) {
          if (cur().text.size() > 1 && cur().text[0] == '0')
            return FailAt(cur(), "expected a decimal number for " +
                                    std::string(FieldTypeName(field.type)) +
                                    " " + FieldDesc(field) + ", found " +
                                    Describe(cur()));
          d = ParseDouble(cur().text);
        } else if (cur().type == TokenType::kIdentifier &&
                   (EqualsIgnoreCase(cur().text, "inf") ||
                    EqualsIgnoreCase(cur().text, "infinity"))) {
          d = std::numeric_limits<double>::infinity();
        } else if (cur().type == TokenType::kIdentifier &&
                   EqualsIgnoreCase(cur().text, "nan")) {
          d = std::numeric_limits<double>::quiet_NaN();
        } else {
          return FailAt(cur(), "expected a number for " +
                                  std::string(FieldTypeName(field.type)) + " " +
                                  FieldDesc(field) + ", found " +
                                  Describe(cur()));
        }
        if (negative)
          d = -d;
        if (field.type == FieldType::kFloat) {
          const float f = SafeDoubleToFloat(d);
          uint32_t bits;
          memcpy(&bits, &f, sizeof(bits));
          *value = ScalarValue{WireKind::kFixed32, bits};
        } else {
          uint64_t bits;
          memcpy(&bits, &d, sizeof(bits));
          *value = ScalarValue{WireKind::kFixed64, bits};
        }
        return Advance();
      }
      default:
        break;
    }

    // Integer types.
    if (!ConsumeSign(&negative))
      return false;
    if (cur().type != TokenType::kInteger) {
      return FailAt(cur(), "expected an integer for " +
                              std::string(FieldTypeName(field.type)) + " " +
                              FieldDesc(field) + ", found " + Describe(cur()));
    }
    uint64_t magnitude = 0;
    const bool parsed = ParseUnsigned(cur().text, &magnitude);
    bool is_signed = true;
    uint64_t max_positive = 0;  // Largest allowed magnitude when positive.
    switch (field.type) {
      case FieldType::kInt32:
      case FieldType::kSint32:
      case FieldType::kSfixed32:
        max_positive = 0x7fffffffu;
        break;
      case FieldType::kInt64:
      case FieldType::kSint64:
      case FieldType::kSfixed64:
        max_positive = 0x7fffffffffffffffu;
        break;
      case FieldType::kUint32:
      case FieldType::kFixed32:
        is_signed = false;
        max_positive = 0xffffffffu;
        break;
      default:  // kUint64, kFixed64
        is_signed = false;
        max_positive = std::numeric_limits<uint64_t>::max();
        break;
    }
    const uint64_t max_negative = is_signed ? max_positive + 1 : 0;
    const std::string shown = ShowNumber(negative, cur().text);
    if (negative && !is_signed)
      return FailAt(first, "negative value " + shown + " for " +
                               std::string(FieldTypeName(field.type)) + " " +
                               FieldDesc(field));
    if (!parsed || (negative ? magnitude > max_negative
                             : magnitude > max_positive))
      return FailAt(first, "integer " + shown + " out of range for " +
                               std::string(FieldTypeName(field.type)) + " " +
                               FieldDesc(field));
    // Two's complement of the value, as 64 bits.
    const uint64_t u64 = negative ? (~magnitude + 1) : magnitude;
    switch (field.type) {
      case FieldType::kSint32: {
        const int32_t v = static_cast<int32_t>(static_cast<uint32_t>(u64));
        *value = ScalarValue{WireKind::kVarInt, proto_utils::ZigZagEncode(v)};
        break;
      }
      case FieldType::kSint64: {
        const int64_t v = static_cast<int64_t>(u64);
        *value = ScalarValue{WireKind::kVarInt, proto_utils::ZigZagEncode(v)};
        break;
      }
      case FieldType::kFixed32:
      case FieldType::kSfixed32:
        *value = ScalarValue{WireKind::kFixed32, u64 & 0xffffffffu};
        break;
      case FieldType::kFixed64:
      case FieldType::kSfixed64:
        *value = ScalarValue{WireKind::kFixed64, u64};
        break;
      default:  // int32 (sign-extended to 64 bits), int64, uint32, uint64.
        *value = ScalarValue{WireKind::kVarInt, u64};
        break;
    }
    return Advance();
  }

  bool FailBool(const FieldSchema& field) {
    return FailAt(cur(), "invalid value " + Describe(cur()) + " for bool " +
                            FieldDesc(field) +
                            " (expected true, false, 1 or 0)");
  }

  bool ParseEnum(const FieldSchema& field, ScalarValue* value) {
    const EnumSchema* e = field.enum_type ? field.enum_type() : nullptr;
    if (!e)
      return FailAt(cur(), "schema error: enum " + FieldDesc(field) +
                              " has no enum type");
    const Token first = cur();
    auto valid_names = [e] {
      std::string valid;
      for (size_t i = 0; i < e->num_values; i++) {
        if (i == 24) {
          valid += ", ...";
          break;
        }
        if (i)
          valid += ", ";
        valid += e->values[i].name;
      }
      return valid;
    };
    if (cur().type == TokenType::kIdentifier) {
      for (size_t i = 0; i < e->num_values; i++) {
        if (cur().text == e->values[i].name) {
          *value = ScalarValue{
              WireKind::kVarInt,
              static_cast<uint64_t>(static_cast<int64_t>(e->values[i].number))};
          return Advance();
        }
      }
      return FailAt(cur(), "unknown value " + Quote(Excerpt(cur().text)) +
                               " for enum " + std::string(e->full_name) +
                               " of " + FieldDesc(field) +
                               " (valid: " + valid_names() + ")");
    }
    bool negative = false;
    if (!ConsumeSign(&negative))
      return false;
    if (cur().type != TokenType::kInteger)
      return FailAt(cur(), "expected an enum value name or number for " +
                              FieldDesc(field) + ", found " + Describe(cur()));
    uint64_t magnitude = 0;
    const std::string shown = ShowNumber(negative, cur().text);
    if (ParseUnsigned(cur().text, &magnitude) &&
        magnitude <= (negative ? 0x80000000u : 0x7fffffffu)) {
      const int64_t number = negative ? -static_cast<int64_t>(magnitude)
                                      : static_cast<int64_t>(magnitude);
      for (size_t i = 0; i < e->num_values; i++) {
        if (e->values[i].number == number) {
          *value = ScalarValue{WireKind::kVarInt, static_cast<uint64_t>(number)};
          return Advance();
        }
      }
    }
    return FailAt(first, "unknown number " + shown + " for enum " +
                             std::string(e->full_name) + " of " +
                             FieldDesc(field) + " (valid: " + valid_names() + ")");
  }

  void Emit(Frame* frame, const FieldSchema& field, const ScalarValue& value) {
    if (!(field.repeated && field.packed)) {
      switch (value.kind) {
        case WireKind::kVarInt:
          frame->msg->AppendVarInt(field.number, value.bits);
          break;
        case WireKind::kFixed32:
          frame->msg->AppendFixed(field.number,
                                  static_cast<uint32_t>(value.bits));
          break;
        case WireKind::kFixed64:
          frame->msg->AppendFixed(field.number, value.bits);
          break;
      }
      return;
    }
    PackedAccumulator* acc = nullptr;
    for (auto& a : frame->packed) {
      if (a.field == &field)
        acc = &a;
    }
    if (!acc) {
      frame->packed.emplace_back();
      acc = &frame->packed.back();
      acc->field = &field;
    }
    switch (value.kind) {
      case WireKind::kVarInt:
        if (!acc->varint)
          acc->varint = std::make_unique<PackedVarInt>();
        acc->varint->Append(value.bits);
        break;
      case WireKind::kFixed32:
        if (!acc->fixed32)
          acc->fixed32 = std::make_unique<PackedFixedSizeInt<uint32_t>>();
        acc->fixed32->Append(static_cast<uint32_t>(value.bits));
        break;
      case WireKind::kFixed64:
        if (!acc->fixed64)
          acc->fixed64 = std::make_unique<PackedFixedSizeInt<uint64_t>>();
        acc->fixed64->Append(value.bits);
        break;
    }
  }

  // Writes the packed fields collected for |frame|, by field number.
  bool FlushPacked(Frame* frame) {
    std::sort(frame->packed.begin(), frame->packed.end(),
              [](const PackedAccumulator& a, const PackedAccumulator& b) {
                return a.field->number < b.field->number;
              });
    for (const auto& acc : frame->packed) {
      const PackedBufferBase* buf = acc.varint    ? static_cast<const PackedBufferBase*>(acc.varint.get())
                                    : acc.fixed32 ? static_cast<const PackedBufferBase*>(acc.fixed32.get())
                                                  : static_cast<const PackedBufferBase*>(acc.fixed64.get());
      if (buf && buf->size())
        frame->msg->AppendBytes(acc.field->number, buf->data(), buf->size());
    }
    return true;
  }

  ErrorSink errors_;  // Before lexer_, which keeps a pointer to it.
  Lexer lexer_;
};

}  // namespace

bool ParseTextFormat(const MessageSchema& schema, std::string_view text,
                     std::string* out, TextFormatError* error) {
  HeapBuffered<Message> msg;
  Parser parser(text);
  if (!parser.Parse(schema, msg.get())) {
    if (error)
      *error = parser.error();
    return false;
  }
  out->append(msg.SerializeAsString());
  return true;
}

std::string FormatTextFormatError(std::string_view file,
                                  const TextFormatError& error) {
  std::string s(file);
  s += ':';
  s += std::to_string(error.line);
  s += ':';
  s += std::to_string(error.column);
  s += ": ";
  s += error.message;
  return s;
}

}  // namespace protozero
}  // namespace zt
