#include "src/processor/sql/direct_scan.h"

#include <algorithm>

#include "src/processor/sql/statement_tokens.h"

namespace zt {
namespace processor {
namespace sql {
namespace direct_scan {

using statement_tokens::EqualsIgnoreCase;
using statement_tokens::IsReserved;
using statement_tokens::Token;
using statement_tokens::Tokenize;

class Parser : public statement_tokens::TokenCursor {
 public:
  explicit Parser(const std::vector<Token>& tokens) : TokenCursor(tokens) {}

  bool Parse(FindTableFn find, void* data, DirectScan* scan) {
    if (!Keyword("select"))
      return false;
    // The items are read once the table is known.
    const size_t items_begin = pos_;
    while (pos_ < t_.size() && !IsKeyword("from"))
      pos_++;
    const size_t items_end = pos_;
    std::string_view table_name;
    if (items_begin == items_end || !Keyword("from") || !Identifier(&table_name))
      return false;
    ColumnTable* table = find(data, table_name);
    if (!table)
      return false;
    std::string_view alias;
    if (Keyword("as")) {
      if (!Identifier(&alias))
        return false;
    } else if (pos_ < t_.size() && t_[pos_].kind != Token::kPunct && !IsReserved(t_[pos_])) {
      Identifier(&alias);
    }
    if (Keyword("limit")) {
      if (!Number(&scan->limit))
        return false;
      if (Keyword("offset") && !Number(&scan->offset))
        return false;
    }
    if (IsPunct(";"))
      pos_++;
    if (pos_ != t_.size())
      return false;

    scan->table = table;
    const size_t end = pos_;
    pos_ = items_begin;
    for (;;) {
      if (!Item(table, alias.empty() ? table_name : alias, items_end, scan))
        return false;
      if (pos_ == items_end)
        break;
      if (!IsPunct(","))
        return false;
      pos_++;
    }
    pos_ = end;
    return !scan->columns.empty();
  }

 private:
  // `*`, or [table.]column [[AS] alias].
  bool Item(const ColumnTable* table, std::string_view qualifier, size_t items_end,
            DirectScan* scan) {
    if (IsPunct("*")) {
      pos_++;
      for (size_t i = 0; i < table->columns().size(); i++) {
        scan->columns.push_back(i);
        scan->names.push_back(table->column(i).name);
      }
      return true;
    }
    std::string_view name;
    if (!Identifier(&name))
      return false;
    if (IsPunct(".")) {
      if (!EqualsIgnoreCase(name, qualifier))
        return false;
      pos_++;
      if (!Identifier(&name))
        return false;
    }
    size_t column = table->columns().size();
    for (size_t i = 0; i < table->columns().size(); i++) {
      if (EqualsIgnoreCase(table->column(i).name, name))
        column = i;
    }
    if (column == table->columns().size())
      return false;  // SQLite says which column does not exist.
    // SQLite names a column after its declared name, whatever its case
    // as written, unless it has an alias.
    std::string_view output = table->column(column).name;
    if (Keyword("as")) {
      if (!Identifier(&output))
        return false;
    } else if (pos_ < items_end && t_[pos_].kind != Token::kPunct && !IsReserved(t_[pos_])) {
      if (!Identifier(&output))
        return false;
    }
    scan->columns.push_back(column);
    scan->names.emplace_back(output);
    return true;
  }

};

}  // namespace direct_scan

uint32_t DirectScan::begin_row() const {
  return static_cast<uint32_t>(std::min<uint64_t>(offset, table->rows()));
}

uint32_t DirectScan::end_row() const {
  const uint64_t rows = table->rows();
  const uint64_t begin = begin_row();
  return static_cast<uint32_t>(begin + std::min<uint64_t>(limit, rows - begin));
}

bool ParseDirectScan(std::string_view statement, FindTableFn find, void* data, DirectScan* scan) {
  std::vector<statement_tokens::Token> tokens;
  if (!statement_tokens::Tokenize(statement, &tokens))
    return false;
  DirectScan parsed;
  direct_scan::Parser parser(tokens);
  if (!parser.Parse(find, data, &parsed))
    return false;
  *scan = std::move(parsed);
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
