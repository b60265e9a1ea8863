#include "src/processor/sql/table_module.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

#include "src/processor/sql/sqlite_cell.h"

namespace zt {
namespace processor {
namespace sql {
namespace {

constexpr int64_t kMinInt = std::numeric_limits<int64_t>::min();
constexpr int64_t kMaxInt = std::numeric_limits<int64_t>::max();

// What xBestIndex chose, passed to xFilter as idxStr: the key column used
// for equality (-1: none), the column whose order is delivered through its
// key index (-1: row order), whether reversed, then one (column, op) per
// argv value. Column -1 is SQLite's rowid (the row id).
struct Plan {
  int key_col = -1;
  int order_col = -1;
  int desc = 0;
  // DISTINCT on order_col alone: one row per key is enough.
  int one_per_key = 0;
  uint64_t columns_used = 0;  // sqlite3_index_info::colUsed.
  std::vector<std::pair<int, int>> args;

  std::string Encode() const {
    std::string text = std::to_string(key_col) + ' ' + std::to_string(order_col) + ' ' +
                       std::to_string(desc) + ' ' + std::to_string(columns_used) + ' ' +
                       std::to_string(one_per_key);
    for (const auto& arg : args)
      text += ' ' + std::to_string(arg.first) + ' ' + std::to_string(arg.second);
    return text;
  }
  static Plan Decode(const char* text) {
    Plan plan;
    char* end = nullptr;
    plan.key_col = static_cast<int>(strtol(text, &end, 10));
    plan.order_col = static_cast<int>(strtol(end, &end, 10));
    plan.desc = static_cast<int>(strtol(end, &end, 10));
    plan.columns_used = strtoull(end, &end, 10);
    plan.one_per_key = static_cast<int>(strtol(end, &end, 10));
    while (*end) {
      const int col = static_cast<int>(strtol(end, &end, 10));
      const int op = static_cast<int>(strtol(end, &end, 10));
      plan.args.emplace_back(col, op);
    }
    return plan;
  }
};

struct Vtab : sqlite3_vtab {
  ColumnTable* table;
};

// How many list entries ahead the cursor prefetches the columns read.
constexpr int64_t kPrefetchDistance = 16;

struct Cursor : sqlite3_vtab_cursor {
  ColumnTable* table = nullptr;
  Plan plan;                        // Decoded from plan_text.
  const char* plan_text = nullptr;  // The idxStr of the last xFilter.
  // Rows come from list[i] (list set) or are i itself, i stepping from
  // `next` toward `stop` by `step`; list rows outside [lo, hi) are skipped.
  const uint32_t* list = nullptr;
  int64_t next = 0;
  int64_t stop = 0;
  int64_t step = 1;
  uint32_t lo = 0;
  uint32_t hi = 0;
  uint32_t row = 0;
  int64_t pos = 0;  // Where `row` came from in the list.
  bool eof = true;
  // Per column: its values in list order (ColumnTable::ValuesInOrderOf),
  // read at `pos` instead of at `row`; empty when rows come in row order.
  std::vector<const void*> in_list_order;
  // The whole table in the order of a key column: that column's value is
  // the current rank's key (rows of one rank are consecutive).
  int order_col = -1;
  const ColumnTable::KeyIndex* order_index = nullptr;
  uint32_t rank = 0;
  bool one_per_key = false;  // Skip the rest of a rank once a row is out.
  // The columns the query reads, for prefetching rows that come from a
  // list (out of row order, each likely a cache miss): base and width.
  std::vector<std::pair<const char*, size_t>> prefetch;

  void Advance() {
    while (next != stop) {
      const int64_t i = next;
      next += step;
      if (list && !prefetch.empty()) {
        const int64_t ahead = i + step * kPrefetchDistance;
        if ((step > 0 && ahead < stop) || (step < 0 && ahead > stop)) {
          const uint32_t future = list[ahead];
          for (const auto& column : prefetch)
            __builtin_prefetch(column.first + future * column.second);
        }
      }
      if (!list) {
        row = static_cast<uint32_t>(i);
        eof = false;
        return;
      }
      const uint32_t candidate = list[i];
      if (candidate >= lo && candidate < hi) {
        row = candidate;
        pos = i;
        if (order_index) {
          const uint32_t p = static_cast<uint32_t>(i);
          while (step > 0 && p >= order_index->start[rank + 1])
            rank++;
          while (step < 0 && p < order_index->start[rank])
            rank--;
          if (one_per_key)
            next = step > 0 ? order_index->start[rank + 1]
                            : static_cast<int64_t>(order_index->start[rank]) - 1;
        }
        eof = false;
        return;
      }
    }
    eof = true;
  }
};

bool IsRange(int op) {
  return op == SQLITE_INDEX_CONSTRAINT_EQ || op == SQLITE_INDEX_CONSTRAINT_GT ||
         op == SQLITE_INDEX_CONSTRAINT_GE || op == SQLITE_INDEX_CONSTRAINT_LT ||
         op == SQLITE_INDEX_CONSTRAINT_LE;
}

bool IsRowId(const ColumnTable& table, int col) {
  return col < 0 || table.column(static_cast<size_t>(col)).kind == ColumnKind::kRowId;
}

// The integers [*min, *max] that `column op value` may hold (a superset);
// false when none can (a NULL operand, a non-integral equality).
bool IntegerBounds(int op, sqlite3_value* value, int64_t* min, int64_t* max) {
  *min = kMinInt;
  *max = kMaxInt;
  const int type = sqlite3_value_type(value);
  if (type == SQLITE_NULL)
    return false;
  if (type == SQLITE_INTEGER) {
    const int64_t v = sqlite3_value_int64(value);
    switch (op) {
      case SQLITE_INDEX_CONSTRAINT_EQ:
        *min = *max = v;
        return true;
      case SQLITE_INDEX_CONSTRAINT_GT:
        if (v == kMaxInt)
          return false;
        *min = v + 1;
        return true;
      case SQLITE_INDEX_CONSTRAINT_GE:
        *min = v;
        return true;
      case SQLITE_INDEX_CONSTRAINT_LT:
        if (v == kMinInt)
          return false;
        *max = v - 1;
        return true;
      case SQLITE_INDEX_CONSTRAINT_LE:
        *max = v;
        return true;
    }
    return true;
  }
  if (type == SQLITE_FLOAT) {
    const double d = sqlite3_value_double(value);
    if (std::isnan(d))
      return false;
    // Beyond ±2^63 the bound is the whole range or nothing.
    constexpr double kLimit = 9.2e18;
    auto clamp = [](double x) {
      return x <= -kLimit ? kMinInt : x >= kLimit ? kMaxInt : static_cast<int64_t>(x);
    };
    switch (op) {
      case SQLITE_INDEX_CONSTRAINT_EQ:
        if (d != std::floor(d) || std::fabs(d) >= kLimit)
          return false;
        *min = *max = static_cast<int64_t>(d);
        return true;
      case SQLITE_INDEX_CONSTRAINT_GT:
      case SQLITE_INDEX_CONSTRAINT_GE:
        if (d >= kLimit)
          return false;
        *min = clamp(op == SQLITE_INDEX_CONSTRAINT_GT ? std::floor(d) + 1 : std::ceil(d));
        return true;
      case SQLITE_INDEX_CONSTRAINT_LT:
      case SQLITE_INDEX_CONSTRAINT_LE:
        if (d <= -kLimit)
          return false;
        *max = clamp(op == SQLITE_INDEX_CONSTRAINT_LT ? std::ceil(d) - 1 : std::floor(d));
        return true;
    }
  }
  // Text or blob: no narrowing (SQLite compares them itself).
  return true;
}

int Connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out,
            char** error) {
  auto* table = static_cast<ColumnTable*>(aux);
  const int rc = sqlite3_declare_vtab(db, table->Schema().c_str());
  if (rc != SQLITE_OK) {
    *error = sqlite3_mprintf("cannot declare table %s", table->name().c_str());
    return rc;
  }
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  auto* vtab = new Vtab();
  vtab->table = table;
  *out = vtab;
  return SQLITE_OK;
}

int Disconnect(sqlite3_vtab* vtab) {
  delete static_cast<Vtab*>(vtab);
  return SQLITE_OK;
}

int BestIndex(sqlite3_vtab* base, sqlite3_index_info* info) {
  ColumnTable& table = *static_cast<Vtab*>(base)->table;
  Plan plan;
  plan.columns_used = static_cast<uint64_t>(info->colUsed);
  const double rows = std::max<double>(table.rows(), 1);
  double estimate = rows;
  bool unique = false;
  bool has_in = false;
  int key_constraint = -1;
  int argv = 0;
  for (int i = 0; i < info->nConstraint; i++) {
    const auto& c = info->aConstraint[i];
    if (!c.usable)
      continue;
    const bool row_id = IsRowId(table, c.iColumn);
    const bool sorted = !row_id && table.column(static_cast<size_t>(c.iColumn)).sorted;
    if ((row_id || sorted) && IsRange(c.op)) {
      info->aConstraintUsage[i].argvIndex = ++argv;
      plan.args.emplace_back(row_id ? -1 : c.iColumn, c.op);
      if (c.op == SQLITE_INDEX_CONSTRAINT_EQ) {
        estimate = row_id ? 1 : std::min(estimate, 2.0);
        unique = unique || row_id;
      } else {
        estimate = std::max(1.0, estimate / 4);
      }
      if (sqlite3_vtab_in(info, i, -1))
        has_in = true;
      continue;
    }
    if (c.op == SQLITE_INDEX_CONSTRAINT_EQ && key_constraint < 0 &&
        table.HasKeyIndex(static_cast<size_t>(c.iColumn))) {
      key_constraint = i;
    }
  }
  if (key_constraint >= 0 && !unique) {
    const auto& c = info->aConstraint[key_constraint];
    info->aConstraintUsage[key_constraint].argvIndex = ++argv;
    plan.key_col = c.iColumn;
    plan.args.emplace_back(c.iColumn, c.op);
    estimate = std::max(1.0, std::min(estimate, rows / 64));
    if (sqlite3_vtab_in(info, key_constraint, -1))
      has_in = true;
  }

  if (info->nOrderBy == 1 && !has_in) {
    const int col = info->aOrderBy[0].iColumn;
    const bool desc = info->aOrderBy[0].desc != 0;
    const bool in_row_order =
        IsRowId(table, col) || table.column(static_cast<size_t>(col)).sorted;
    if (in_row_order || col == plan.key_col) {
      // Row order (also within one key's rows), or a single key value.
      info->orderByConsumed = 1;
      plan.desc = desc && col != plan.key_col;
    } else if (plan.key_col < 0 && plan.args.empty() &&
               table.HasKeyIndex(static_cast<size_t>(col))) {
      // The whole table in the column's order. Not with a range: walking
      // every row to keep a few would cost more than SQLite's sort of them.
      info->orderByConsumed = 1;
      plan.order_col = col;
      plan.desc = desc;
      // SELECT DISTINCT col: with no constraint on this table (SQLite
      // rechecks every row: the one kept could fail one another passes)
      // and no other column read, one row per key is the whole answer.
      const uint64_t only_col = col < 64 ? uint64_t{1} << col : 0;
      if (sqlite3_vtab_distinct(info) >= 2 && info->nConstraint == 0 && only_col &&
          (static_cast<uint64_t>(info->colUsed) & ~only_col) == 0) {
        plan.one_per_key = 1;
      }
    }
  }

  const std::string encoded = plan.Encode();
  info->idxStr = sqlite3_mprintf("%s", encoded.c_str());
  info->needToFreeIdxStr = 1;
  info->estimatedRows = static_cast<sqlite3_int64>(estimate);
  info->estimatedCost = estimate;
  if (unique)
    info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  return SQLITE_OK;
}

int Open(sqlite3_vtab* base, sqlite3_vtab_cursor** out) {
  auto* cursor = new Cursor();
  cursor->table = static_cast<Vtab*>(base)->table;
  *out = cursor;
  return SQLITE_OK;
}

int Close(sqlite3_vtab_cursor* cursor) {
  delete static_cast<Cursor*>(cursor);
  return SQLITE_OK;
}

int Filter(sqlite3_vtab_cursor* base, int, const char* idx_str, int argc,
           sqlite3_value** argv) {
  Cursor& cursor = *static_cast<Cursor*>(base);
  ColumnTable& table = *cursor.table;
  // Inner loops of joins call xFilter once per outer row with the same
  // idxStr: decode it once.
  if (!cursor.plan_text || idx_str != cursor.plan_text) {
    cursor.plan = Plan::Decode(idx_str ? idx_str : "-1 -1 0 0 0");
    cursor.plan_text = idx_str;
  }
  const Plan& plan = cursor.plan;
  uint32_t lo = 0;
  uint32_t hi = table.rows();
  bool empty = false;
  const uint32_t* list = nullptr;
  size_t list_size = 0;
  bool have_list = false;

  for (int i = 0; i < argc && i < static_cast<int>(plan.args.size()); i++) {
    const int col = plan.args[i].first;
    const int op = plan.args[i].second;
    if (col == plan.key_col && col >= 0) {
      have_list = true;
      const Column& column = table.column(static_cast<size_t>(col));
      const int type = sqlite3_value_type(argv[i]);
      if (type == SQLITE_NULL) {
        empty = true;
      } else if (column.kind == ColumnKind::kStringId) {
        if (type == SQLITE_TEXT) {
          const char* text = reinterpret_cast<const char*>(sqlite3_value_text(argv[i]));
          list = table.RowsWithText(
              static_cast<size_t>(col),
              std::string_view(text, static_cast<size_t>(sqlite3_value_bytes(argv[i]))),
              &list_size);
        } else {
          have_list = false;  // Numbers never equal text: SQLite decides.
        }
      } else {
        int64_t min, max;
        if (!IntegerBounds(SQLITE_INDEX_CONSTRAINT_EQ, argv[i], &min, &max)) {
          empty = true;
        } else if (min != max || min < 0 || min > 0xfffffffe) {
          // Text, or a value no row holds.
          if (min == max)
            empty = true;
          else
            have_list = false;
        } else {
          list = table.RowsWithKey(static_cast<size_t>(col), static_cast<uint32_t>(min),
                                   &list_size);
        }
      }
      continue;
    }
    int64_t min, max;
    if (!IntegerBounds(op, argv[i], &min, &max)) {
      empty = true;
      continue;
    }
    if (col < 0 || IsRowId(table, col)) {
      lo = static_cast<uint32_t>(std::max<int64_t>(lo, std::max<int64_t>(min, 0)));
      if (max < 0)
        hi = 0;
      else if (max < static_cast<int64_t>(hi))
        hi = static_cast<uint32_t>(max + 1);
    } else {
      lo = std::max(lo, table.LowerBound(static_cast<size_t>(col), min));
      hi = std::min(hi, table.UpperBound(static_cast<size_t>(col), max));
    }
  }

  if (plan.order_col >= 0 && !have_list) {
    list = table.RowsByValue(static_cast<size_t>(plan.order_col));
    list_size = table.rows();
    have_list = true;
  }
  if (empty || lo >= hi) {
    cursor.eof = true;
    return SQLITE_OK;
  }
  cursor.lo = lo;
  cursor.hi = hi;
  cursor.prefetch.clear();
  cursor.in_list_order.clear();
  cursor.order_col = -1;
  cursor.order_index = nullptr;
  cursor.one_per_key = false;
  if (have_list) {
    for (size_t c = 0; c < table.columns().size() && c < 63; c++) {
      const Column& column = table.column(c);
      const size_t width = ValueWidth(column.kind);
      if (!(plan.columns_used >> c & 1) || !width)
        continue;
      if (plan.order_col == static_cast<int>(c)) {
        continue;  // The rank's key.
      } else if (plan.order_col >= 0) {
        // The whole table in value order: read copies in that order.
        cursor.in_list_order.resize(table.columns().size());
        cursor.in_list_order[c] =
            table.ValuesInOrderOf(static_cast<size_t>(plan.order_col), c);
      } else {
        cursor.prefetch.emplace_back(static_cast<const char*>(column.data), width);
      }
    }
    cursor.list = list;
    if (plan.order_col < 0 && list_size) {
      // A key's rows are ascending: jump to [lo, hi) by binary search.
      const uint32_t* first = std::lower_bound(list, list + list_size, lo);
      const uint32_t* last = std::lower_bound(first, list + list_size, hi);
      cursor.list = list;
      cursor.next = first - list;
      cursor.stop = last - list;
    } else {
      cursor.next = 0;
      cursor.stop = static_cast<int64_t>(list_size);
    }
  } else {
    cursor.list = nullptr;
    cursor.next = lo;
    cursor.stop = hi;
  }
  cursor.step = 1;
  if (plan.order_col >= 0 && have_list && list_size) {
    cursor.order_col = plan.order_col;
    cursor.order_index = &table.Index(static_cast<size_t>(plan.order_col));
    cursor.one_per_key = plan.one_per_key != 0;
    cursor.rank =
        plan.desc ? static_cast<uint32_t>(cursor.order_index->key_of_rank.size() - 1) : 0;
  }
  if (plan.desc && cursor.next < cursor.stop) {
    std::swap(cursor.next, cursor.stop);
    cursor.next--;
    cursor.stop--;
    cursor.step = -1;
  }
  cursor.eof = false;
  cursor.Advance();
  return SQLITE_OK;
}

int Next(sqlite3_vtab_cursor* base) {
  static_cast<Cursor*>(base)->Advance();
  return SQLITE_OK;
}

int Eof(sqlite3_vtab_cursor* base) {
  return static_cast<Cursor*>(base)->eof;
}

int ColumnValue(sqlite3_vtab_cursor* base, sqlite3_context* ctx, int col) {
  const Cursor& cursor = *static_cast<Cursor*>(base);
  const size_t c = static_cast<size_t>(col);
  const Column& column = cursor.table->column(c);
  Cell cell;
  if (col == cursor.order_col)
    cell = column.GetFrom(&cursor.order_index->key_of_rank[cursor.rank], 0, cursor.row);
  else if (c < cursor.in_list_order.size() && cursor.in_list_order[c])
    cell =
        column.GetFrom(cursor.in_list_order[c], static_cast<uint32_t>(cursor.pos), cursor.row);
  else
    cell = column.Get(cursor.row);
  ResultCell(ctx, cell);
  return SQLITE_OK;
}

int RowId(sqlite3_vtab_cursor* base, sqlite3_int64* out) {
  *out = static_cast<Cursor*>(base)->row;
  return SQLITE_OK;
}

sqlite3_module MakeModule() {
  sqlite3_module module = {};
  module.iVersion = 0;
  module.xCreate = nullptr;  // Eponymous only: no CREATE VIRTUAL TABLE.
  module.xConnect = Connect;
  module.xBestIndex = BestIndex;
  module.xDisconnect = Disconnect;
  module.xDestroy = Disconnect;
  module.xOpen = Open;
  module.xClose = Close;
  module.xFilter = Filter;
  module.xNext = Next;
  module.xEof = Eof;
  module.xColumn = ColumnValue;
  module.xRowid = RowId;
  return module;
}

const sqlite3_module kModule = MakeModule();

}  // namespace

bool RegisterColumnTable(sqlite3* db, ColumnTable* table, std::string* error) {
  const int rc = sqlite3_create_module_v2(db, table->name().c_str(), &kModule, table, nullptr);
  if (rc != SQLITE_OK) {
    *error = "cannot register table " + table->name() + ": " + sqlite3_errstr(rc);
    return false;
  }
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
