#include "src/processor/sql/statement_tokens.h"

#include <sqlite3.h>

#include <string>

namespace zt {
namespace processor {
namespace sql {
namespace statement_tokens {

bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool Tokenize(std::string_view s, std::vector<Token>* out) {
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      i++;
    } else if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      while (i < s.size() && s[i] != '\n')
        i++;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const size_t close = s.find("*/", i + 2);
      if (close == std::string_view::npos)
        return false;
      i = close + 2;
    } else if (c == '"' || c == '`' || c == '[') {
      const char close = c == '[' ? ']' : c;
      const size_t end = s.find(close, i + 1);
      if (end == std::string_view::npos || (end + 1 < s.size() && s[end + 1] == close))
        return false;  // Unclosed, or an escaped quote: left to SQLite.
      out->push_back(Token{Token::kQuoted, s.substr(i + 1, end - i - 1), i, end + 1});
      i = end + 1;
    } else if (c >= '0' && c <= '9') {
      size_t end = i;
      while (end < s.size() && s[end] >= '0' && s[end] <= '9')
        end++;
      if (end < s.size() && IsWordChar(s[end]))
        return false;
      out->push_back(Token{Token::kNumber, s.substr(i, end - i), i, end});
      i = end;
    } else if (IsWordChar(c)) {
      size_t end = i;
      while (end < s.size() && IsWordChar(s[end]))
        end++;
      out->push_back(Token{Token::kWord, s.substr(i, end - i), i, end});
      i = end;
    } else if (c == '(' || c == ')' || c == ',' || c == '*' || c == '.' || c == ';') {
      out->push_back(Token{Token::kPunct, s.substr(i, 1), i, i + 1});
      i++;
    } else {
      return false;
    }
  }
  return true;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); i++) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z')
      x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z')
      y = static_cast<char>(y - 'A' + 'a');
    if (x != y)
      return false;
  }
  return true;
}

const char* const kReserved[] = {"select", "from",  "where", "group", "order",  "by",
                                 "limit",  "offset", "as",   "having", "join",  "on",
                                 "asc",    "desc",  "union", "window", "distinct", "all",
                                 "nulls",  "collate", "natural", "left", "inner", "cross"};

bool IsReserved(const Token& t) {
  if (t.kind != Token::kWord)
    return false;
  // Any of SQLite's keywords (some may be names, some not: SQLite decides).
  if (sqlite3_keyword_check(t.text.data(), static_cast<int>(t.text.size())))
    return true;
  for (const char* word : kReserved) {
    if (EqualsIgnoreCase(t.text, word))
      return true;
  }
  return false;
}

bool TokenCursor::IsPunct(const char* p) const {
  return pos_ < t_.size() && t_[pos_].kind == Token::kPunct && t_[pos_].text == p;
}

bool TokenCursor::IsKeyword(const char* word) const {
  return pos_ < t_.size() && t_[pos_].kind == Token::kWord && EqualsIgnoreCase(t_[pos_].text, word);
}

bool TokenCursor::Keyword(const char* word) {
  if (!IsKeyword(word))
    return false;
  pos_++;
  return true;
}

bool TokenCursor::Identifier(std::string_view* out) {
  if (pos_ >= t_.size() || IsReserved(t_[pos_]) ||
      (t_[pos_].kind != Token::kWord && t_[pos_].kind != Token::kQuoted))
    return false;
  *out = t_[pos_++].text;
  return true;
}

bool TokenCursor::Number(uint64_t* out) {
  if (pos_ >= t_.size() || t_[pos_].kind != Token::kNumber)
    return false;
  std::string_view digits = t_[pos_].text;
  while (digits.size() > 1 && digits[0] == '0')
    digits.remove_prefix(1);
  if (digits.size() > 18)
    return false;
  *out = std::stoull(std::string(digits));
  pos_++;
  return true;
}

}  // namespace statement_tokens
}  // namespace sql
}  // namespace processor
}  // namespace zt
