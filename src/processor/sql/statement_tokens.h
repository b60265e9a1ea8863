// The tokens of one SQL statement, as the fast paths (grouped_aggregate.h,
// direct_scan.h) read them to recognise the shapes they serve: words,
// quoted identifiers, numbers and the few punctuation marks those shapes
// use. Anything else (string literals, operators) fails the tokenizing,
// which leaves the statement to SQLite.

#ifndef ZT_SRC_PROCESSOR_SQL_STATEMENT_TOKENS_H_
#define ZT_SRC_PROCESSOR_SQL_STATEMENT_TOKENS_H_

#include <cstddef>
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

}  // namespace statement_tokens
}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_STATEMENT_TOKENS_H_
