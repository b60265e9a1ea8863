// The text format lexer: see text_format_lexer.h.

#include "src/protozero/text_format_lexer.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "src/protozero/utf8.h"

namespace zt {
namespace protozero {
namespace text_format_internal {
namespace {

// The one-character tokens. (Not strchr(), which would match a NUL.)
constexpr std::string_view kSymbols = "{}<>[]:;,-";

bool ReadHex(std::string_view t, size_t at, size_t n, uint32_t* v) {
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

}  // namespace

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

std::string Excerpt(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes)
    return std::string(text);
  return std::string(text.substr(0, max_bytes - 3)) + "...";
}

bool ErrorSink::Fail(size_t line, size_t column, std::string message) {
  if (!failed_) {
    failed_ = true;
    error_.line = line;
    error_.column = column;
    error_.message = std::move(message);
  }
  return false;
}

void Lexer::Bump() {
  if (text_[pos_] == '\n') {
    line_++;
    column_ = 1;
  } else {
    column_++;
  }
  pos_++;
}

bool Lexer::Advance() {
  for (;;) {
    if (AtEnd())
      break;
    const char c = PeekChar();
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
        c == '\f') {
      Bump();
    } else if (c == '#') {
      while (!AtEnd() && PeekChar() != '\n') {
        // As in libprotobuf, whose tokenizer ends the comment there and
        // then refuses the NUL as a control character.
        if (PeekChar() == '\0')
          return errors_->Fail(line_, column_,
                               "comment cannot contain a NUL byte");
        Bump();
      }
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
        return errors_->Fail(cur_.line, cur_.column,
                             AtEnd() ? "unterminated string literal"
                                     : "string literal cannot span lines "
                                       "(use \\n)");
      // libprotobuf refuses a raw NUL in a literal (its tokenizer takes it
      // for the end of the input); the escape \0 is the way to write one.
      if (PeekChar() == '\0')
        return errors_->Fail(line_, column_,
                             "string literal cannot contain a NUL byte "
                             "(use \\0)");
      const char d = PeekChar();
      Bump();
      if (d == c)
        break;
      // Escapes are checked when the literal is decoded; a newline or a NUL
      // after the backslash is reported by the next iteration.
      if (d == '\\' && !AtEnd() && PeekChar() != '\n' && PeekChar() != '\0')
        Bump();
    }
    cur_.type = TokenType::kString;
  } else if (kSymbols.find(c) != std::string_view::npos) {
    Bump();
    cur_.type = TokenType::kSymbol;
  } else {
    const auto u = static_cast<unsigned char>(c);
    std::string shown = (u >= 0x20 && u < 0x7f)
                            ? "'" + std::string(1, c) + "'"
                            : Quote(std::string_view(&c, 1));
    return errors_->Fail(cur_.line, cur_.column,
                         "unexpected character " + shown);
  }
  cur_.text = text_.substr(start, pos_ - start);
  return true;
}

bool Lexer::LexNumber() {
  bool is_float = false;
  if (PeekChar() == '0' && (PeekChar(1) == 'x' || PeekChar(1) == 'X')) {
    Bump();
    Bump();
    if (!IsHexDigit(PeekChar()))
      return errors_->Fail(cur_.line, cur_.column,
                           "\"0x\" must be followed by hex digits");
    while (IsHexDigit(PeekChar()))
      Bump();
  } else if (PeekChar() == '0' && IsDigit(PeekChar(1))) {
    while (IsDigit(PeekChar())) {
      if (!IsOctalDigit(PeekChar()))
        return errors_->Fail(cur_.line, cur_.column,
                             "numbers starting with 0 are octal: digit '" +
                                 std::string(1, PeekChar()) +
                                 "' is not allowed");
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
        return errors_->Fail(cur_.line, cur_.column,
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
    return errors_->Fail(line_, column_,
                         "unexpected '" + std::string(1, PeekChar()) +
                             "' right after a number");
  cur_.type = is_float ? TokenType::kFloat : TokenType::kInteger;
  return true;
}

bool Lexer::Unescape(const Token& tok, std::string* out) {
  const std::string_view t = tok.text.substr(1, tok.text.size() - 2);
  auto fail = [&](size_t offset, const std::string& msg) {
    return errors_->Fail(tok.line, tok.column + 1 + offset, msg);
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

}  // namespace text_format_internal
}  // namespace protozero
}  // namespace zt
