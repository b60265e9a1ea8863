#include "src/processor/sql/operators/mipmap.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "src/processor/sql/eponymous_module.h"

namespace zt {
namespace processor {
namespace sql {
namespace mipmap {

// The bucket boundaries of a window: start, then start + k * step up to
// the first at or past end. Empty when end <= start. Saturates rather
// than overflows.
std::vector<int64_t> Boundaries(int64_t start, int64_t end, int64_t step) {
  std::vector<int64_t> out;
  if (end <= start)
    return out;
  out.push_back(start);
  int64_t q = start;
  while (q < end) {
    q = q > std::numeric_limits<int64_t>::max() - step ? std::numeric_limits<int64_t>::max()
                                                        : q + step;
    out.push_back(q);
    if (q == std::numeric_limits<int64_t>::max())
      break;
  }
  return out;
}

size_t LowerBound(const std::vector<int64_t>& ts, int64_t value) {
  return static_cast<size_t>(std::lower_bound(ts.begin(), ts.end(), value) - ts.begin());
}

// Reads the window's arguments; false with the error set.
bool ReadWindow(sqlite3_vtab* vtab, int idx, int argc, sqlite3_value** argv, const char* name,
                int64_t* start, int64_t* end, int64_t* step) {
  if (idx != 1 || argc != 3) {
    VtabError(vtab, std::string(name) + ": query it with a window: FROM t(start, end, step)");
    return false;
  }
  *start = sqlite3_value_int64(argv[0]);
  *end = sqlite3_value_int64(argv[1]);
  *step = sqlite3_value_int64(argv[2]);
  if (*step <= 0) {
    VtabError(vtab, std::string(name) + ": the step must be positive");
    return false;
  }
  return true;
}

// Runs "SELECT <what> FROM <argument>" for a module's creation.
int Prepare(sqlite3* db, const char* name, const std::string& what, int argc,
            const char* const* argv, sqlite3_stmt** stmt, char** error) {
  if (argc != 4) {
    *error = sqlite3_mprintf("%s: takes one argument, a subquery in parentheses", name);
    return SQLITE_ERROR;
  }
  const std::string sql = "SELECT " + what + " FROM " + argv[3];
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, stmt, nullptr) != SQLITE_OK) {
    *error = sqlite3_mprintf("%s: %s", name, sqlite3_errmsg(db));
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

// --- Slices -------------------------------------------------------------------

struct Depth {
  std::vector<int64_t> ts;
  std::vector<int64_t> dur;
  std::vector<int64_t> id;
};

struct SliceTable : sqlite3_vtab {
  std::vector<Depth> depths;
};

struct SliceRow {
  int64_t ts;
  int64_t id;
  int64_t count;
  int64_t dur;
  int64_t depth;
};

struct SliceCursor : sqlite3_vtab_cursor {
  std::vector<SliceRow> rows;
  size_t pos = 0;
};

constexpr char kSliceName[] = "__intrinsic_slice_mipmap";
// The subquery's depths become rows of this many depths at most: a
// made-up depth of billions would otherwise allocate as many.
constexpr int64_t kMaxDepth = 1 << 20;

int CreateSlices(sqlite3* db, void*, int argc, const char* const* argv, sqlite3_vtab** out,
                 char** error) {
  sqlite3_stmt* stmt = nullptr;
  if (Prepare(db, kSliceName, "*", argc, argv, &stmt, error) != SQLITE_OK)
    return SQLITE_ERROR;
  auto table = std::make_unique<SliceTable>();
  if (sqlite3_column_count(stmt) < 4) {
    sqlite3_finalize(stmt);
    *error = sqlite3_mprintf("%s: the subquery needs the columns id, ts, dur, depth", kSliceName);
    return SQLITE_ERROR;
  }
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const int64_t depth = sqlite3_column_int64(stmt, 3);
    if (depth < 0 || depth >= kMaxDepth) {
      sqlite3_finalize(stmt);
      *error = sqlite3_mprintf("%s: depth %lld is out of range", kSliceName,
                               static_cast<long long>(depth));
      return SQLITE_ERROR;
    }
    if (static_cast<size_t>(depth) >= table->depths.size())
      table->depths.resize(static_cast<size_t>(depth) + 1);
    Depth& d = table->depths[static_cast<size_t>(depth)];
    d.id.push_back(sqlite3_column_int64(stmt, 0));
    d.ts.push_back(sqlite3_column_int64(stmt, 1));
    d.dur.push_back(sqlite3_column_int64(stmt, 2));
  }
  if (rc != SQLITE_DONE) {
    *error = sqlite3_mprintf("%s: %s", kSliceName, sqlite3_errmsg(db));
    sqlite3_finalize(stmt);
    return SQLITE_ERROR;
  }
  sqlite3_finalize(stmt);
  // Lookups need each depth in ts order; the UI's subqueries are, but a
  // stable sort makes any input right.
  for (Depth& d : table->depths) {
    if (std::is_sorted(d.ts.begin(), d.ts.end()))
      continue;
    std::vector<size_t> order(d.ts.size());
    for (size_t i = 0; i < order.size(); i++)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&d](size_t a, size_t b) { return d.ts[a] < d.ts[b]; });
    Depth sorted;
    for (size_t i : order) {
      sorted.ts.push_back(d.ts[i]);
      sorted.dur.push_back(d.dur[i]);
      sorted.id.push_back(d.id[i]);
    }
    d = std::move(sorted);
  }
  if (sqlite3_declare_vtab(db,
                           "CREATE TABLE x(ts INTEGER, id INTEGER, count INTEGER, dur INTEGER, "
                           "depth INTEGER, in_window_start INTEGER HIDDEN, "
                           "in_window_end INTEGER HIDDEN, in_window_step INTEGER HIDDEN)") !=
      SQLITE_OK) {
    *error = sqlite3_mprintf("%s: %s", kSliceName, sqlite3_errmsg(db));
    return SQLITE_ERROR;
  }
  *out = table.release();
  return SQLITE_OK;
}

int SliceBestIndex(sqlite3_vtab*, sqlite3_index_info* info) {
  return BestIndexWithEveryArgument(info, 5, 3, 1000);
}

int SliceFilter(sqlite3_vtab_cursor* base, int idx, const char*, int argc, sqlite3_value** argv) {
  SliceCursor* cursor = static_cast<SliceCursor*>(base);
  const SliceTable* table = static_cast<const SliceTable*>(base->pVtab);
  cursor->rows.clear();
  cursor->pos = 0;
  int64_t start, end, step;
  if (!ReadWindow(base->pVtab, idx, argc, argv, kSliceName, &start, &end, &step))
    return SQLITE_ERROR;
  const std::vector<int64_t> bounds = Boundaries(start, end, step);
  if (bounds.empty())
    return SQLITE_OK;
  for (size_t depth = 0; depth < table->depths.size(); depth++) {
    const Depth& d = table->depths[depth];
    size_t a = LowerBound(d.ts, bounds[0]);
    // The slice before the window, if it runs past the window's start
    // (dur -1: never ended).
    if (a > 0 && (a == d.ts.size() || d.ts[a] != bounds[0])) {
      const int64_t prev_end = d.dur[a - 1] < 0 ? std::numeric_limits<int64_t>::max()
                                                : d.ts[a - 1] + d.dur[a - 1];
      if (prev_end > bounds[0])
        a--;
    }
    for (size_t k = 1; k < bounds.size() && a < d.ts.size(); k++) {
      const size_t b = LowerBound(d.ts, bounds[k]);
      if (b <= a)
        continue;
      size_t longest = a;
      for (size_t i = a + 1; i < b; i++) {
        if (d.dur[i] > d.dur[longest])
          longest = i;
      }
      cursor->rows.push_back(SliceRow{d.ts[longest], d.id[longest], static_cast<int64_t>(b - a),
                                      d.dur[longest], static_cast<int64_t>(depth)});
      a = b;
    }
  }
  return SQLITE_OK;
}

int SliceColumn(sqlite3_vtab_cursor* base, sqlite3_context* ctx, int column) {
  const SliceCursor* cursor = static_cast<const SliceCursor*>(base);
  const SliceRow& row = cursor->rows[cursor->pos];
  const int64_t values[] = {row.ts, row.id, row.count, row.dur, row.depth};
  if (column >= 0 && column < 5)
    sqlite3_result_int64(ctx, values[column]);
  else
    sqlite3_result_null(ctx);
  return SQLITE_OK;
}

int SliceRowId(sqlite3_vtab_cursor* base, sqlite3_int64* id) {
  *id = static_cast<sqlite3_int64>(static_cast<SliceCursor*>(base)->pos);
  return SQLITE_OK;
}

// --- Counters -----------------------------------------------------------------

struct CounterTable : sqlite3_vtab {
  std::vector<int64_t> ts;
  std::vector<double> value;
};

struct CounterRow {
  double min_value;
  double max_value;
  int64_t last_ts;
  double last_value;
};

struct CounterCursor : sqlite3_vtab_cursor {
  std::vector<CounterRow> rows;
  size_t pos = 0;
};

constexpr char kCounterName[] = "__intrinsic_counter_mipmap";

int CreateCounters(sqlite3* db, void*, int argc, const char* const* argv, sqlite3_vtab** out,
                   char** error) {
  sqlite3_stmt* stmt = nullptr;
  if (Prepare(db, kCounterName, "ts, value", argc, argv, &stmt, error) != SQLITE_OK)
    return SQLITE_ERROR;
  auto table = std::make_unique<CounterTable>();
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    table->ts.push_back(sqlite3_column_int64(stmt, 0));
    table->value.push_back(sqlite3_column_double(stmt, 1));
  }
  if (rc != SQLITE_DONE) {
    *error = sqlite3_mprintf("%s: %s", kCounterName, sqlite3_errmsg(db));
    sqlite3_finalize(stmt);
    return SQLITE_ERROR;
  }
  sqlite3_finalize(stmt);
  if (!std::is_sorted(table->ts.begin(), table->ts.end())) {
    std::vector<size_t> order(table->ts.size());
    for (size_t i = 0; i < order.size(); i++)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&table](size_t a, size_t b) { return table->ts[a] < table->ts[b]; });
    std::vector<int64_t> ts;
    std::vector<double> value;
    for (size_t i : order) {
      ts.push_back(table->ts[i]);
      value.push_back(table->value[i]);
    }
    table->ts = std::move(ts);
    table->value = std::move(value);
  }
  if (sqlite3_declare_vtab(db,
                           "CREATE TABLE x(min_value REAL, max_value REAL, last_ts INTEGER, "
                           "last_value REAL, in_window_start INTEGER HIDDEN, "
                           "in_window_end INTEGER HIDDEN, in_window_step INTEGER HIDDEN)") !=
      SQLITE_OK) {
    *error = sqlite3_mprintf("%s: %s", kCounterName, sqlite3_errmsg(db));
    return SQLITE_ERROR;
  }
  *out = table.release();
  return SQLITE_OK;
}

int CounterBestIndex(sqlite3_vtab*, sqlite3_index_info* info) {
  return BestIndexWithEveryArgument(info, 4, 3, 1000);
}

int CounterFilter(sqlite3_vtab_cursor* base, int idx, const char*, int argc,
                  sqlite3_value** argv) {
  CounterCursor* cursor = static_cast<CounterCursor*>(base);
  const CounterTable* table = static_cast<const CounterTable*>(base->pVtab);
  cursor->rows.clear();
  cursor->pos = 0;
  int64_t start, end, step;
  if (!ReadWindow(base->pVtab, idx, argc, argv, kCounterName, &start, &end, &step))
    return SQLITE_ERROR;
  const std::vector<int64_t> bounds = Boundaries(start, end, step);
  if (bounds.empty())
    return SQLITE_OK;
  size_t a = LowerBound(table->ts, bounds[0]);
  // The sample in effect at the window's start.
  if (a > 0 && (a == table->ts.size() || table->ts[a] != bounds[0]))
    a--;
  for (size_t k = 1; k < bounds.size() && a < table->ts.size(); k++) {
    const size_t b = LowerBound(table->ts, bounds[k]);
    if (b <= a)
      continue;
    CounterRow row{table->value[a], table->value[a], table->ts[b - 1], table->value[b - 1]};
    for (size_t i = a + 1; i < b; i++) {
      row.min_value = std::min(row.min_value, table->value[i]);
      row.max_value = std::max(row.max_value, table->value[i]);
    }
    cursor->rows.push_back(row);
    a = b;
  }
  return SQLITE_OK;
}

int CounterColumn(sqlite3_vtab_cursor* base, sqlite3_context* ctx, int column) {
  const CounterCursor* cursor = static_cast<const CounterCursor*>(base);
  const CounterRow& row = cursor->rows[cursor->pos];
  switch (column) {
    case 0:
      sqlite3_result_double(ctx, row.min_value);
      break;
    case 1:
      sqlite3_result_double(ctx, row.max_value);
      break;
    case 2:
      sqlite3_result_int64(ctx, row.last_ts);
      break;
    case 3:
      sqlite3_result_double(ctx, row.last_value);
      break;
    default:
      sqlite3_result_null(ctx);
  }
  return SQLITE_OK;
}

int CounterRowId(sqlite3_vtab_cursor* base, sqlite3_int64* id) {
  *id = static_cast<sqlite3_int64>(static_cast<CounterCursor*>(base)->pos);
  return SQLITE_OK;
}

sqlite3_module SliceModule() {
  sqlite3_module module = EponymousModule<SliceTable, SliceCursor>::Make(
      CreateSlices, SliceBestIndex, SliceFilter, SliceColumn, SliceRowId);
  module.xCreate = CreateSlices;  // Made with CREATE VIRTUAL TABLE only.
  module.xConnect = CreateSlices;
  return module;
}

sqlite3_module CounterModule() {
  sqlite3_module module = EponymousModule<CounterTable, CounterCursor>::Make(
      CreateCounters, CounterBestIndex, CounterFilter, CounterColumn, CounterRowId);
  module.xCreate = CreateCounters;
  module.xConnect = CreateCounters;
  return module;
}

}  // namespace mipmap

bool RegisterMipmaps(sqlite3* db, std::string* error) {
  static const sqlite3_module slices = mipmap::SliceModule();
  static const sqlite3_module counters = mipmap::CounterModule();
  if (sqlite3_create_module_v2(db, mipmap::kSliceName, &slices, nullptr, nullptr) != SQLITE_OK ||
      sqlite3_create_module_v2(db, mipmap::kCounterName, &counters, nullptr, nullptr) !=
          SQLITE_OK) {
    *error = std::string("cannot register the mipmap tables: ") + sqlite3_errmsg(db);
    return false;
  }
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
