#include "src/processor/sql/grouped_aggregate.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "src/processor/sql/statement_tokens.h"
#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {
namespace sql {
namespace grouped_aggregate {

using statement_tokens::EqualsIgnoreCase;
using statement_tokens::IsReserved;
using statement_tokens::Token;
using statement_tokens::Tokenize;

// --- The shape ---------------------------------------------------------------

enum class Agg { kNone, kCount, kSum, kMin, kMax };

struct Item {
  Agg agg = Agg::kNone;
  int column = -1;  // -1: COUNT(*).
  std::string name;  // The output column's name, as SQLite gives it.
  std::string normalized;  // The expression's tokens, lower case, for ORDER BY.
  std::string alias;
};

struct OrderTerm {
  size_t item;
  bool desc;
};

class Parser : public statement_tokens::TokenCursor {
 public:
  Parser(std::string_view statement, const std::vector<Token>& tokens)
      : TokenCursor(tokens), statement_(statement) {}

  bool Parse(FindTableFn find, void* data) {
    if (!Keyword("select"))
      return false;
    // Items are read as text first: the table comes after them.
    std::vector<std::pair<size_t, size_t>> item_tokens;
    for (;;) {
      const size_t begin = pos_;
      int parens = 0;
      while (pos_ < t_.size() && (parens > 0 || !(IsPunct(",") || IsKeyword("from")))) {
        if (IsPunct("("))
          parens++;
        if (IsPunct(")"))
          parens--;
        pos_++;
      }
      if (pos_ >= t_.size() || begin == pos_)
        return false;
      item_tokens.emplace_back(begin, pos_);
      if (IsPunct(",")) {
        pos_++;
        continue;
      }
      break;
    }
    if (!Keyword("from") || !Identifier(&table_name_))
      return false;
    table_ = find(data, table_name_);
    if (!table_)
      return false;
    if (Keyword("as")) {
      if (!Identifier(&table_alias_))
        return false;
    } else if (pos_ < t_.size() && !IsReserved(t_[pos_]) && t_[pos_].kind != Token::kPunct) {
      Identifier(&table_alias_);
    }
    if (!Keyword("group") || !Keyword("by") || !ColumnRef(&key_column_))
      return false;
    if (!table_->HasKeyIndex(static_cast<size_t>(key_column_)))
      return false;
    for (const auto& range : item_tokens) {
      Item item;
      if (!ParseItem(range.first, range.second, &item))
        return false;
      items_.push_back(std::move(item));
    }
    if (Keyword("order")) {
      if (!Keyword("by"))
        return false;
      for (;;) {
        OrderTerm term;
        if (!OrderByTerm(&term))
          return false;
        order_.push_back(term);
        if (!IsPunct(","))
          break;
        pos_++;
      }
    }
    // Rows that tie on every ORDER BY term come out of SQLite's sorter in
    // an order of its own (reversed for some plans): only an order that
    // reaches the key, unique per group, is certainly SQLite's.
    if (!order_.empty()) {
      bool total = false;
      for (const OrderTerm& term : order_)
        total = total || items_[term.item].agg == Agg::kNone;
      if (!total)
        return false;
    }
    if (Keyword("limit")) {
      if (!Number(&limit_))
        return false;
      if (Keyword("offset") && !Number(&offset_))
        return false;
    }
    if (IsPunct(";"))
      pos_++;
    return pos_ == t_.size();
  }

  ColumnTable* table() const { return table_; }
  int key_column() const { return key_column_; }
  const std::vector<Item>& items() const { return items_; }
  const std::vector<OrderTerm>& order() const { return order_; }
  uint64_t limit() const { return limit_; }
  uint64_t offset() const { return offset_; }

 private:
  // [table.]column, resolved against the table.
  bool ColumnRef(int* column) {
    std::string_view name;
    if (!Identifier(&name))
      return false;
    if (IsPunct(".")) {
      if (!EqualsIgnoreCase(name, table_alias_.empty() ? table_name_ : table_alias_))
        return false;
      pos_++;
      if (!Identifier(&name))
        return false;
    }
    const auto& columns = table_->columns();
    for (size_t c = 0; c < columns.size(); c++) {
      if (EqualsIgnoreCase(columns[c].name, name)) {
        *column = static_cast<int>(c);
        return true;
      }
    }
    return false;
  }
  std::string Normalized(size_t begin, size_t end) const {
    std::string out;
    for (size_t i = begin; i < end; i++) {
      for (char c : t_[i].text)
        out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      out += ' ';
    }
    return out;
  }
  bool ParseItem(size_t begin, size_t end, Item* item) {
    const size_t saved_pos = pos_;
    const size_t saved_end = end_;
    pos_ = begin;
    end_ = end;
    bool ok = ParseItemTokens(item);
    ok = ok && pos_ == end;
    pos_ = saved_pos;
    end_ = saved_end;
    return ok;
  }
  bool ParseItemTokens(Item* item) {
    const size_t begin = pos_;
    static const std::pair<const char*, Agg> kAggs[] = {
        {"count", Agg::kCount}, {"sum", Agg::kSum}, {"min", Agg::kMin}, {"max", Agg::kMax}};
    for (const auto& agg : kAggs) {
      if (IsKeyword(agg.first) && pos_ + 1 < end_ && t_[pos_ + 1].text == "(" &&
          t_[pos_ + 1].kind == Token::kPunct) {
        pos_ += 2;
        item->agg = agg.second;
        if (IsPunct("*")) {
          if (item->agg != Agg::kCount)
            return false;
          pos_++;
        } else if (!ColumnRef(&item->column)) {
          return false;
        }
        if (!IsPunct(")"))
          return false;
        pos_++;
        break;
      }
    }
    if (item->agg == Agg::kNone) {
      if (!ColumnRef(&item->column) || item->column != key_column_)
        return false;  // A bare column other than the key: SQLite's.
      // SQLite names a column by its declared name, however it is spelled.
      item->name = table_->column(static_cast<size_t>(item->column)).name;
    } else {
      // SQLite names an expression by its text as written: up to the next
      // token (comments included), trailing blanks trimmed.
      size_t end = pos_ < t_.size() ? t_[pos_].begin : statement_.size();
      while (end > t_[begin].begin && (statement_[end - 1] == ' ' || statement_[end - 1] == '\t' ||
                                       statement_[end - 1] == '\n' || statement_[end - 1] == '\r' ||
                                       statement_[end - 1] == '\f' || statement_[end - 1] == '\v'))
        end--;
      item->name = std::string(statement_.substr(t_[begin].begin, end - t_[begin].begin));
    }
    item->normalized = Normalized(begin, pos_);
    const bool as = pos_ < end_ && IsKeyword("as");
    if (as)
      pos_++;
    if (pos_ < end_) {
      std::string_view alias;
      if (!Identifier(&alias))
        return false;
      item->alias = std::string(alias);
      item->name = item->alias;
    } else if (as) {
      return false;
    }
    return true;
  }
  bool OrderByTerm(OrderTerm* term) {
    const size_t begin = pos_;
    int parens = 0;
    while (pos_ < t_.size() &&
           (parens > 0 || !(IsPunct(",") || IsKeyword("asc") || IsKeyword("desc") ||
                            IsKeyword("limit") || IsPunct(";")))) {
      if (IsPunct("("))
        parens++;
      if (IsPunct(")"))
        parens--;
      if (IsKeyword("nulls") || IsKeyword("collate"))
        return false;
      pos_++;
    }
    if (begin == pos_)
      return false;
    const size_t end = pos_;
    bool found = false;
    if (end == begin + 1 && t_[begin].kind == Token::kNumber) {
      std::string_view digits = t_[begin].text;
      while (digits.size() > 1 && digits[0] == '0')
        digits.remove_prefix(1);
      if (digits.size() > 9)
        return false;  // Out of range: SQLite's error.
      const uint64_t n = std::stoull(std::string(digits));
      if (n < 1 || n > items_.size())
        return false;
      term->item = n - 1;
      found = true;
    } else if (end == begin + 1) {
      // An output alias first, as SQLite resolves it; one that two items
      // share is SQLite's to resolve.
      for (size_t i = 0; i < items_.size(); i++) {
        if (!items_[i].alias.empty() && EqualsIgnoreCase(items_[i].alias, t_[begin].text)) {
          if (found)
            return false;
          term->item = i;
          found = true;
        }
      }
    }
    const std::string normalized = Normalized(begin, end);
    for (size_t i = 0; i < items_.size() && !found; i++) {
      if (items_[i].normalized == normalized) {
        term->item = i;
        found = true;
      }
    }
    if (!found)
      return false;
    term->desc = false;
    if (Keyword("desc"))
      term->desc = true;
    else
      Keyword("asc");
    return true;
  }

  std::string_view statement_;
  size_t end_ = 0;
  std::string_view table_name_;
  std::string_view table_alias_;
  ColumnTable* table_ = nullptr;
  int key_column_ = -1;
  std::vector<Item> items_;
  std::vector<OrderTerm> order_;
  uint64_t limit_ = std::numeric_limits<uint64_t>::max();
  uint64_t offset_ = 0;
};

// --- The computation -----------------------------------------------------------

// One aggregated column's values, read straight from its vector.
struct Reader {
  ColumnKind kind;
  const void* data;
  // False for NULL.
  bool Int(uint32_t row, int64_t* out) const {
    switch (kind) {
      case ColumnKind::kRowId:
        *out = row;
        return true;
      case ColumnKind::kInt64: {
        const int64_t v = static_cast<const int64_t*>(data)[row];
        *out = v;
        return v != kNullInt;
      }
      case ColumnKind::kUint32Id: {
        const uint32_t v = static_cast<const uint32_t*>(data)[row];
        *out = v;
        return v != kNullId;
      }
      case ColumnKind::kUint32:
        *out = static_cast<const uint32_t*>(data)[row];
        return true;
      case ColumnKind::kBool: {
        const uint8_t v = static_cast<const uint8_t*>(data)[row];
        *out = v;
        return v != 2;
      }
      default:
        return false;
    }
  }
  bool NotNull(uint32_t row) const {
    switch (kind) {
      case ColumnKind::kStringId:
        return static_cast<const StringId*>(data)[row] != kNullStringId;
      case ColumnKind::kCString:
        return static_cast<const char* const*>(data)[row] != nullptr;
      case ColumnKind::kDouble:
        // SQLite reads a NaN result as NULL.
        return !std::isnan(static_cast<const double*>(data)[row]);
      default: {
        int64_t ignored;
        return Int(row, &ignored);
      }
    }
  }
};

bool IsIntKind(ColumnKind kind) {
  return kind == ColumnKind::kRowId || kind == ColumnKind::kInt64 ||
         kind == ColumnKind::kUint32Id || kind == ColumnKind::kUint32 || kind == ColumnKind::kBool;
}

struct Accumulator {
  int64_t count = 0;
  int64_t int_value = 0;
  double real_value = 0;
  bool has_value = false;
};

// SQLite's order of values: NULL, then numbers, then text (bytes).
int Compare(const SqlValue& a, const SqlValue& b) {
  auto rank = [](const SqlValue& v) {
    return v.type == SqlValue::kNull ? 0 : v.type == SqlValue::kText ? 2 : 1;
  };
  if (rank(a) != rank(b))
    return rank(a) < rank(b) ? -1 : 1;
  if (a.type == SqlValue::kText)
    return a.text.compare(b.text) < 0 ? -1 : a.text == b.text ? 0 : 1;
  if (a.type == SqlValue::kInt && b.type == SqlValue::kInt)
    return a.int_value < b.int_value ? -1 : a.int_value > b.int_value ? 1 : 0;
  if (a.type == SqlValue::kNull)
    return 0;
  const double x = a.type == SqlValue::kInt ? static_cast<double>(a.int_value) : a.real_value;
  const double y = b.type == SqlValue::kInt ? static_cast<double>(b.int_value) : b.real_value;
  return x < y ? -1 : x > y ? 1 : 0;
}

SqlValue FromCell(const Cell& cell) {
  SqlValue v;
  switch (cell.type) {
    case Cell::kNull:
      break;
    case Cell::kInt:
      v.type = SqlValue::kInt;
      v.int_value = cell.i;
      break;
    case Cell::kReal:
      v.type = SqlValue::kReal;
      v.real_value = cell.d;
      break;
    case Cell::kText:
      v.type = SqlValue::kText;
      v.text.assign(cell.text.data(), cell.text.size());
      break;
  }
  return v;
}

}  // namespace grouped_aggregate

bool TryGroupedAggregate(std::string_view statement, FindTableFn find, void* data,
                         GroupedAggregateResult* result) {
  using namespace grouped_aggregate;
  std::vector<Token> tokens;
  if (!Tokenize(statement, &tokens))
    return false;
  Parser parser(statement, tokens);
  if (!parser.Parse(find, data))
    return false;
  ColumnTable& table = *parser.table();
  const std::vector<Item>& items = parser.items();
  // Which aggregates this path computes exactly as SQLite does.
  std::vector<Reader> readers(items.size());
  for (size_t i = 0; i < items.size(); i++) {
    const Item& item = items[i];
    if (item.agg == Agg::kNone || item.column < 0)
      continue;
    const Column& column = table.column(static_cast<size_t>(item.column));
    readers[i] = Reader{column.kind, column.data};
    const bool vector = column.kind != ColumnKind::kCustom && column.kind != ColumnKind::kNullOnly &&
                        (column.data || column.kind == ColumnKind::kRowId);
    if (!vector)
      return false;
    const bool numeric = IsIntKind(column.kind) || column.kind == ColumnKind::kDouble;
    if ((item.agg == Agg::kSum && !IsIntKind(column.kind)) ||
        ((item.agg == Agg::kMin || item.agg == Agg::kMax) && !numeric))
      return false;
  }
  const size_t key_col = static_cast<size_t>(parser.key_column());
  const Column& key = table.column(key_col);
  const ColumnTable::KeyIndex& index = table.Index(key_col);
  const size_t ranks = index.key_of_rank.size();
  const auto* keys = static_cast<const uint32_t*>(key.data);

  // One pass in row order: each row's rank, then its values into the
  // rank's accumulators (few groups: they stay in cache).
  std::vector<Accumulator> acc(ranks * items.size());
  std::vector<int64_t> group_rows(ranks, 0);
  const uint32_t rows = table.rows();
  for (uint32_t row = 0; row < rows; row++) {
    const uint32_t rank = index.rank_of_slot[ColumnTable::SlotOf(key.kind, keys[row])];
    group_rows[rank]++;
    Accumulator* a = &acc[size_t{rank} * items.size()];
    for (size_t i = 0; i < items.size(); i++) {
      const Item& item = items[i];
      if (item.agg == Agg::kNone || item.column < 0)
        continue;
      const Reader& r = readers[i];
      if (item.agg == Agg::kCount) {
        a[i].count += r.NotNull(row) ? 1 : 0;
        continue;
      }
      if (r.kind == ColumnKind::kDouble) {
        const double v = static_cast<const double*>(r.data)[row];
        if (std::isnan(v))
          continue;  // NULL to SQLite.
        if (!a[i].has_value || (item.agg == Agg::kMin ? v < a[i].real_value : v > a[i].real_value))
          a[i].real_value = v;
        a[i].has_value = true;
        continue;
      }
      int64_t v;
      if (!r.Int(row, &v))
        continue;
      if (item.agg == Agg::kSum) {
        if (__builtin_add_overflow(a[i].int_value, v, &a[i].int_value))
          return false;  // SQLite raises "integer overflow": let it.
      } else if (!a[i].has_value ||
                 (item.agg == Agg::kMin ? v < a[i].int_value : v > a[i].int_value)) {
        a[i].int_value = v;
      }
      a[i].has_value = true;
    }
  }

  result->columns.clear();
  for (const Item& item : items)
    result->columns.push_back(item.name);
  result->rows.clear();
  for (size_t rank = 0; rank < ranks; rank++) {
    if (group_rows[rank] == 0)
      continue;
    std::vector<SqlValue> out(items.size());
    const uint32_t first_row = index.rows()[index.start[rank]];
    for (size_t i = 0; i < items.size(); i++) {
      const Item& item = items[i];
      const Accumulator& a = acc[rank * items.size() + i];
      SqlValue& v = out[i];
      if (item.agg == Agg::kNone) {
        v = FromCell(key.Get(first_row));
      } else if (item.agg == Agg::kCount) {
        v.type = SqlValue::kInt;
        v.int_value = item.column < 0 ? group_rows[rank] : a.count;
      } else if (a.has_value) {
        const bool real = readers[i].kind == ColumnKind::kDouble;
        v.type = real ? SqlValue::kReal : SqlValue::kInt;
        v.real_value = a.real_value;
        v.int_value = a.int_value;
      }
    }
    result->rows.push_back(std::move(out));
  }
  const std::vector<OrderTerm>& order = parser.order();
  if (!order.empty()) {
    std::stable_sort(result->rows.begin(), result->rows.end(),
                     [&](const std::vector<SqlValue>& a, const std::vector<SqlValue>& b) {
                       for (const OrderTerm& term : order) {
                         const int c = Compare(a[term.item], b[term.item]);
                         if (c != 0)
                           return term.desc ? c > 0 : c < 0;
                       }
                       return false;
                     });
  }
  const uint64_t offset = std::min<uint64_t>(parser.offset(), result->rows.size());
  result->rows.erase(result->rows.begin(), result->rows.begin() + static_cast<ptrdiff_t>(offset));
  if (parser.limit() < result->rows.size())
    result->rows.resize(parser.limit());
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
