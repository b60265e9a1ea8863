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

namespace zt {
namespace protozero {
namespace {

enum class TokenType { kEnd, kIdentifier, kInteger, kFloat, kString, kSymbol };

struct Token {
  TokenType type = TokenType::kEnd;
  std::string_view text;  // Raw text; string tokens include their quotes.
  size_t line = 1;
  size_t column = 1;
};

bool IsLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsOctalDigit(char c) { return c >= '0' && c <= '7'; }
bool IsHexDigit(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
int HexValue(char c) {
  if (IsDigit(c))
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return c - 'A' + 10;
}
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

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u >= 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
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
  explicit Parser(std::string_view text) : text_(text) {}

  bool Parse(const MessageSchema& schema, Message* root) {
    if (!Advance())
      return false;
    return ParseMessageBody(schema, root, 0, '\0', Token(), nullptr);
  }

  const TextFormatError& error() const { return error_; }

 private:
  // ---- Errors ----

  bool FailAt(size_t line, size_t column, std::string message) {
    if (!failed_) {
      failed_ = true;
      error_.line = line;
      error_.column = column;
      error_.message = std::move(message);
    }
    return false;
  }
  bool FailAt(const Token& tok, std::string message) {
    return FailAt(tok.line, tok.column, std::move(message));
  }

  static std::string Describe(const Token& tok) {
    switch (tok.type) {
      case TokenType::kEnd:
        return "end of input";
      case TokenType::kString: {
        std::string_view t = tok.text;
        if (t.size() > 40)
          return "string " + std::string(t.substr(0, 37)) + "...";
        return "string " + std::string(t);
      }
      default: {
        std::string_view t = tok.text;
        if (t.size() > 40)
          return Quote(std::string(t.substr(0, 37)) + "...");
        return Quote(t);
      }
    }
  }

  // ---- Lexer ----

  char PeekChar(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  bool AtEnd(size_t ahead = 0) const { return pos_ + ahead >= text_.size(); }
  void Bump() {
    if (text_[pos_] == '\n') {
      line_++;
      column_ = 1;
    } else {
      column_++;
    }
    pos_++;
  }

  // Reads the next token into cur_. False on a lexical error.
  bool Advance() {
    for (;;) {
      if (AtEnd())
        break;
      const char c = PeekChar();
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
          c == '\f') {
        Bump();
      } else if (c == '#') {
        while (!AtEnd() && PeekChar() != '\n')
          Bump();
      } else {
        break;
      }
    }
    cur_.line = line_;
    cur_.column = column_;
    const size_t start = pos_;
    if (AtEnd()) {
      cur_.type = TokenType::kEnd;
      cur_.text = std::string_view();
      return true;
    }
    const char c = PeekChar();
    if (IsLetter(c)) {
      while (!AtEnd() && (IsLetter(PeekChar()) || IsDigit(PeekChar())))
        Bump();
      cur_.type = TokenType::kIdentifier;
    } else if (IsDigit(c) || (c == '.' && IsDigit(PeekChar(1)))) {
      if (!LexNumber())
        return false;
    } else if (c == '"' || c == '\'') {
      Bump();
      for (;;) {
        if (AtEnd() || PeekChar() == '\n')
          return FailAt(cur_.line, cur_.column,
                        AtEnd() ? "unterminated string literal"
                                : "string literal cannot span lines "
                                  "(use \\n)");
        const char d = PeekChar();
        Bump();
        if (d == c)
          break;
        if (d == '\\' && !AtEnd() && PeekChar() != '\n')
          Bump();  // Escapes are checked when the literal is decoded.
      }
      cur_.type = TokenType::kString;
    } else if (strchr("{}<>[]:;,-", c) != nullptr) {
      Bump();
      cur_.type = TokenType::kSymbol;
    } else {
      const auto u = static_cast<unsigned char>(c);
      std::string shown = (u >= 0x20 && u < 0x7f)
                              ? "'" + std::string(1, c) + "'"
                              : Quote(std::string_view(&c, 1));
      return FailAt(cur_.line, cur_.column, "unexpected character " + shown);
    }
    cur_.text = text_.substr(start, pos_ - start);
    return true;
  }

  bool LexNumber() {
    bool is_float = false;
    if (PeekChar() == '0' && (PeekChar(1) == 'x' || PeekChar(1) == 'X')) {
      Bump();
      Bump();
      if (!IsHexDigit(PeekChar()))
        return FailAt(cur_.line, cur_.column,
                      "\"0x\" must be followed by hex digits");
      while (IsHexDigit(PeekChar()))
        Bump();
    } else if (PeekChar() == '0' && IsDigit(PeekChar(1))) {
      while (IsDigit(PeekChar())) {
        if (!IsOctalDigit(PeekChar()))
          return FailAt(cur_.line, cur_.column,
                        "numbers starting with 0 are octal: digit '" +
                            std::string(1, PeekChar()) + "' is not allowed");
        Bump();
      }
    } else {
      while (IsDigit(PeekChar()))
        Bump();
      if (PeekChar() == '.') {
        is_float = true;
        Bump();
        while (IsDigit(PeekChar()))
          Bump();
      }
      if (PeekChar() == 'e' || PeekChar() == 'E') {
        is_float = true;
        Bump();
        if (PeekChar() == '+' || PeekChar() == '-')
          Bump();
        if (!IsDigit(PeekChar()))
          return FailAt(cur_.line, cur_.column,
                        "exponent in number has no digits");
        while (IsDigit(PeekChar()))
          Bump();
      }
      if (PeekChar() == 'f' || PeekChar() == 'F') {
        is_float = true;
        Bump();
      }
    }
    if (IsLetter(PeekChar()) || IsDigit(PeekChar()) || PeekChar() == '.')
      return FailAt(line_, column_,
                    "unexpected '" + std::string(1, PeekChar()) +
                        "' right after a number");
    cur_.type = is_float ? TokenType::kFloat : TokenType::kInteger;
    return true;
  }

  bool IsSymbol(char c) const {
    return cur_.type == TokenType::kSymbol && cur_.text[0] == c;
  }
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
      if (cur_.type == TokenType::kEnd) {
        if (close == '\0')
          break;
        return FailAt(cur_, "unexpected end of input: \"" +
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
        return FailAt(cur_, "expected \"" + std::string(1, close) +
                                "\" to close \"" +
                                std::string(1, close == '}' ? '{' : '<') +
                                "\" of " + FieldDesc(*open_field) + " at " +
                                std::to_string(open.line) + ":" +
                                std::to_string(open.column) + ", found " +
                                Describe(cur_));
      }
      if (!ParseField(&frame, depth))
        return false;
    }
    return FlushPacked(&frame);
  }

  bool ParseField(Frame* frame, size_t depth) {
    const MessageSchema& schema = *frame->schema;
    if (IsSymbol('[')) {
      return FailAt(cur_, "extension and Any syntax \"[...]\" is not supported "
                          "(in " + std::string(schema.full_name) + ")");
    }
    if (cur_.type != TokenType::kIdentifier) {
      if (cur_.type == TokenType::kSymbol &&
          (cur_.text[0] == '}' || cur_.text[0] == '>'))
        return FailAt(cur_, "unexpected " + Describe(cur_) +
                                ": no open message to close here");
      if (cur_.type == TokenType::kInteger)
        return FailAt(cur_, "expected a field name in " +
                                std::string(schema.full_name) + ", found " +
                                Describe(cur_) +
                                " (field numbers are not accepted)");
      return FailAt(cur_, "expected a field name in " +
                              std::string(schema.full_name) + ", found " +
                              Describe(cur_));
    }
    const Token name = cur_;
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
          return FailAt(cur_, "list syntax \"[...]\" used for non-repeated " +
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
      return FailAt(cur_, "expected \":\" after " + FieldDesc(*field) +
                              ", found " + Describe(cur_));
    if (!Advance())
      return false;
    if (IsSymbol('[')) {
      if (!field->repeated)
        return FailAt(cur_, "list syntax \"[...]\" used for non-repeated " +
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
      return FailAt(cur_, "expected " + what + ", found " + Describe(cur_));
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
      return FailAt(cur_, "expected \"{\" or \"<\" for message " +
                              FieldDesc(field) + ", found " + Describe(cur_));
    }
    const Token open = cur_;
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
  // or an identifier for floats). Leaves cur_ at the number token.
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
        if (cur_.type != TokenType::kString)
          return FailAt(cur_, "expected a string for " +
                                  std::string(FieldTypeName(field.type)) + " " +
                                  FieldDesc(field) + ", found " +
                                  Describe(cur_));
        std::string value;
        while (cur_.type == TokenType::kString) {
          if (!Unescape(cur_, &value) || !Advance())
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
    const Token first = cur_;
    bool negative = false;
    switch (field.type) {
      case FieldType::kBool: {
        if (cur_.type == TokenType::kIdentifier) {
          const std::string_view t = cur_.text;
          if (t == "true" || t == "True" || t == "t") {
            value->bits = 1;
          } else if (t == "false" || t == "False" || t == "f") {
            value->bits = 0;
          } else {
            return FailBool(field);
          }
        } else if (cur_.type == TokenType::kInteger) {
          uint64_t v = 0;
          if (!ParseUnsigned(cur_.text, &v) || v > 1)
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
        if (cur_.type == TokenType::kFloat) {
          d = ParseDouble(cur_.text);
        } else if (cur_.type == TokenType::kInteger) {
          if (cur_.text.size() > 1 && cur_.text[0] == '0')
            return FailAt(cur_, "expected a decimal number for " +
                                    std::string(FieldTypeName(field.type)) +
                                    " " + FieldDesc(field) + ", found " +
                                    Describe(cur_));
          d = ParseDouble(cur_.text);
        } else if (cur_.type == TokenType::kIdentifier &&
                   (EqualsIgnoreCase(cur_.text, "inf") ||
                    EqualsIgnoreCase(cur_.text, "infinity"))) {
          d = std::numeric_limits<double>::infinity();
        } else if (cur_.type == TokenType::kIdentifier &&
                   EqualsIgnoreCase(cur_.text, "nan")) {
          d = std::numeric_limits<double>::quiet_NaN();
        } else {
          return FailAt(cur_, "expected a number for " +
                                  std::string(FieldTypeName(field.type)) + " " +
                                  FieldDesc(field) + ", found " +
                                  Describe(cur_));
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
    if (cur_.type != TokenType::kInteger) {
      return FailAt(cur_, "expected an integer for " +
                              std::string(FieldTypeName(field.type)) + " " +
                              FieldDesc(field) + ", found " + Describe(cur_));
    }
    uint64_t magnitude = 0;
    const bool parsed = ParseUnsigned(cur_.text, &magnitude);
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
    const std::string shown =
        (negative ? "-" : "") + std::string(cur_.text);
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
    return FailAt(cur_, "invalid value " + Describe(cur_) + " for bool " +
                            FieldDesc(field) +
                            " (expected true, false, 1 or 0)");
  }

  bool ParseEnum(const FieldSchema& field, ScalarValue* value) {
    const EnumSchema* e = field.enum_type ? field.enum_type() : nullptr;
    if (!e)
      return FailAt(cur_, "schema error: enum " + FieldDesc(field) +
                              " has no enum type");
    const Token first = cur_;
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
    if (cur_.type == TokenType::kIdentifier) {
      for (size_t i = 0; i < e->num_values; i++) {
        if (cur_.text == e->values[i].name) {
          *value = ScalarValue{
              WireKind::kVarInt,
              static_cast<uint64_t>(static_cast<int64_t>(e->values[i].number))};
          return Advance();
        }
      }
      return FailAt(cur_, "unknown value \"" + std::string(cur_.text) +
                              "\" for enum " + std::string(e->full_name) +
                              " of " + FieldDesc(field) + " (valid: " + valid_names() +
                              ")");
    }
    bool negative = false;
    if (!ConsumeSign(&negative))
      return false;
    if (cur_.type != TokenType::kInteger)
      return FailAt(cur_, "expected an enum value name or number for " +
                              FieldDesc(field) + ", found " + Describe(cur_));
    uint64_t magnitude = 0;
    const std::string shown = (negative ? "-" : "") + std::string(cur_.text);
    if (ParseUnsigned(cur_.text, &magnitude) &&
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

  // Decodes string literal |tok| (with quotes) and appends it to |out|.
  bool Unescape(const Token& tok, std::string* out) {
    const std::string_view t = tok.text.substr(1, tok.text.size() - 2);
    auto fail = [&](size_t offset, const std::string& msg) {
      return FailAt(tok.line, tok.column + 1 + offset, msg);
    };
    for (size_t i = 0; i < t.size();) {
      const char c = t[i];
      if (c != '\\') {
        out->push_back(c);
        i++;
        continue;
      }
      const size_t esc = i;
      i++;  // The lexer guarantees a character after a backslash.
      const char e = t[i++];
      switch (e) {
        case 'a': out->push_back('\a'); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'v': out->push_back('\v'); break;
        case '\\': out->push_back('\\'); break;
        case '?': out->push_back('?'); break;
        case '\'': out->push_back('\''); break;
        case '"': out->push_back('"'); break;
        case 'x':
        case 'X': {
          if (i >= t.size() || !IsHexDigit(t[i]))
            return fail(esc, "\\x must be followed by hex digits");
          int v = HexValue(t[i++]);
          if (i < t.size() && IsHexDigit(t[i]))
            v = v * 16 + HexValue(t[i++]);
          out->push_back(static_cast<char>(v));
          break;
        }
        case 'u':
        case 'U': {
          const size_t n = e == 'u' ? 4 : 8;
          uint32_t cp = 0;
          if (!ReadHex(t, i, n, &cp))
            return fail(esc, std::string("\\") + e + " must be followed by " +
                                 std::to_string(n) + " hex digits");
          i += n;
          if (cp > 0x10FFFF)
            return fail(esc, "\\U escape beyond U+10FFFF");
          // A high surrogate followed by a \u low surrogate is one code point.
          uint32_t low = 0;
          if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < t.size() &&
              t[i] == '\\' && t[i + 1] == 'u' && ReadHex(t, i + 2, 4, &low) &&
              low >= 0xDC00 && low <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            i += 6;
          }
          AppendUtf8(cp, out);
          break;
        }
        default:
          if (IsOctalDigit(e)) {
            int v = e - '0';
            for (int k = 0; k < 2 && i < t.size() && IsOctalDigit(t[i]); k++)
              v = v * 8 + (t[i++] - '0');
            out->push_back(static_cast<char>(v & 0xff));  // As protobuf.
            break;
          }
          return fail(esc, "invalid escape sequence \"\\" + std::string(1, e) +
                               "\" in string literal");
      }
    }
    return true;
  }

  static bool ReadHex(std::string_view t, size_t at, size_t n, uint32_t* v) {
    if (at + n > t.size())
      return false;
    uint32_t r = 0;
    for (size_t k = 0; k < n; k++) {
      if (!IsHexDigit(t[at + k]))
        return false;
      r = r * 16 + static_cast<uint32_t>(HexValue(t[at + k]));
    }
    *v = r;
    return true;
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

  std::string_view text_;
  size_t pos_ = 0;
  size_t line_ = 1;
  size_t column_ = 1;
  Token cur_;
  bool failed_ = false;
  TextFormatError error_;
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
