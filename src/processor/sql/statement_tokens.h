// The tokens of one SQL statement, as the fast paths (grouped_aggregate.h,
// direct_scan.h) read them to recognise the shapes they serve: words,
// quoted identifiers, numbers and the few punctuation marks those shapes
// use. Anything else (string literals, operators) fails the tokenizing,
// which leaves the statement to SQLite.

#ifndef ZT_SRC_PROCESSOR_SQL_STATEMENT_TOKENS_H_
#define ZT_SRC_PROCESSOR_SQL_STATEMENT_TOKENS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace zt {
namespace processor {
namespace sql {
namespace statement_tokens {

struct Token {
  enum Kind { kWord, kQuoted, kNumber, kPunct };
  Kind kind;
  std::string_view text;  // A quoted identifier without its quotes.
  size_t begin;           // In the statement.
  size_t end;
};

bool IsWordChar(char c);
// False for anything outside the shapes (string literals, operators, ...).
bool Tokenize(std::string_view s, std::vector<Token>* out);
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
// SQLite's keywords and the words the shapes read as such.
bool IsReserved(const Token& t);

// A position in a statement's tokens and the reads the shapes' parsers
// share; each derives its own grammar from it.
class TokenCursor {
 protected:
  explicit TokenCursor(const std::vector<Token>& tokens) : t_(tokens) {}

  bool IsPunct(const char* p) const;
  bool IsKeyword(const char* word) const;
  // Consumes `word` if it is next.
  bool Keyword(const char* word);
  // A name (a word that is not reserved, or a quoted identifier).
  bool Identifier(std::string_view* out);
  // A non-negative integer of at most 18 digits.
  bool Number(uint64_t* out);

  const std::vector<Token>& t_;
  size_t pos_ = 0;
};

}  // namespace statement_tokens
}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_STATEMENT_TOKENS_H_
