// The lexer behind ParseTextFormat (text_format.cc). Private to the text
// format parser. It splits the input into tokens (identifiers, integer and
// float literals, quoted strings, one-character symbols), skipping
// whitespace and '#' comments, and tracks 1-based line:column positions (a
// tab or a '\r' counts as one column). It also decodes string literals
// (escapes, \u surrogate pairs) for the parser. Lexical errors are reported
// to an ErrorSink shared with the parser, which keeps only the first one.
// Grammar and error model: docs/design/text_format.md.

#ifndef ZT_SRC_PROTOZERO_TEXT_FORMAT_LEXER_H_
#define ZT_SRC_PROTOZERO_TEXT_FORMAT_LEXER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "zt/protozero/text_format.h"

namespace zt {
namespace protozero {
namespace text_format_internal {

enum class TokenType { kEnd, kIdentifier, kInteger, kFloat, kString, kSymbol };

struct Token {
  TokenType type = TokenType::kEnd;
  std::string_view text;  // Raw text; string tokens include their quotes.
  size_t line = 1;
  size_t column = 1;
};

inline bool IsLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsOctalDigit(char c) { return c >= '0' && c <= '7'; }
inline bool IsHexDigit(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
// Value of hex digit |c|; |c| must satisfy IsHexDigit (or IsDigit).
inline int HexValue(char c) {
  if (IsDigit(c))
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return c - 'A' + 10;
}

// |s| in double quotes, with '"' and '\\' escaped and bytes outside
// printable ASCII shown as \xNN. Used to quote input in error messages.
std::string Quote(std::string_view s);

// Error messages show at most this many bytes of any one piece of input:
// a token can be megabytes long.
constexpr size_t kMaxQuotedBytes = 40;

// |text| as an error message may show it: whole if it has at most
// |max_bytes| bytes, else its first |max_bytes| - 3 bytes and "..." (also
// |max_bytes| in all). |max_bytes| must be at least 3.
std::string Excerpt(std::string_view text, size_t max_bytes = kMaxQuotedBytes);

// Records the first error reported by the lexer or the parser; later ones
// are dropped.
class ErrorSink {
 public:
  // Records the error if it is the first one. Always returns false, so that
  // callers can write `return sink->Fail(...)`.
  bool Fail(size_t line, size_t column, std::string message);

  const TextFormatError& error() const { return error_; }

 private:
  bool failed_ = false;
  TextFormatError error_;
};

class Lexer {
 public:
  // |text| and |errors| must outlive the lexer. There is no current token
  // until the first Advance().
  Lexer(std::string_view text, ErrorSink* errors)
      : text_(text), errors_(errors) {}

  // Reads the next token into current(); at the end of the input that is a
  // kEnd token (and stays so). Returns false after reporting a lexical error
  // (bad character, malformed number, unterminated string literal, a NUL
  // byte anywhere, even in a literal or a comment), in which case current()
  // is not meaningful.
  bool Advance();

  const Token& current() const { return cur_; }

  // True if the current token is symbol |c|.
  bool IsSymbol(char c) const {
    return cur_.type == TokenType::kSymbol && cur_.text[0] == c;
  }

  // Decodes string literal |tok| (a kString token, with its quotes) and
  // appends the bytes to |out|. Returns false after reporting a bad escape
  // at its position in the input; |out| may then hold part of the literal.
  bool Unescape(const Token& tok, std::string* out);

 private:
  char PeekChar(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  bool AtEnd(size_t ahead = 0) const { return pos_ + ahead >= text_.size(); }
  void Bump();
  bool LexNumber();

  std::string_view text_;
  ErrorSink* errors_;
  size_t pos_ = 0;
  size_t line_ = 1;
  size_t column_ = 1;
  Token cur_;
};

}  // namespace text_format_internal
}  // namespace protozero
}  // namespace zt

#endif  // ZT_SRC_PROTOZERO_TEXT_FORMAT_LEXER_H_
