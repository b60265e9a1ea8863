#include "src/processor/sql/operators/span_join.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/processor/sql/eponymous_module.h"

namespace zt {
namespace processor {
namespace sql {
namespace span_join {

enum class JoinKind { kInner, kLeft, kOuter };
constexpr uint32_t kNone = UINT32_MAX;
constexpr int64_t kOpenEnd = INT64_MAX;

// One argument of the operator: "table [PARTITIONED column]".
struct SideSpec {
  std::string table;
  std::string partition;  // Empty: not partitioned.
};

std::string Unquote(std::string s) {
  if (s.size() >= 2 && ((s.front() == '"' && s.back() == '"') ||
                        (s.front() == '`' && s.back() == '`') ||
                        (s.front() == '[' && s.back() == ']') ||
                        (s.front() == '\'' && s.back() == '\'')))
    return s.substr(1, s.size() - 2);
  return s;
}

bool EqualsIgnoringCase(const std::string& a, const char* b) {
  size_t i = 0;
  for (; i < a.size() && b[i]; ++i)
    if (tolower(static_cast<unsigned char>(a[i])) != tolower(static_cast<unsigned char>(b[i])))
      return false;
  return i == a.size() && b[i] == '\0';
}

bool ParseSide(const std::string& arg, SideSpec* spec, std::string* error) {
  std::vector<std::string> words;
  std::string word;
  for (char c : arg + " ") {
    if (isspace(static_cast<unsigned char>(c))) {
      if (!word.empty())
        words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  if (words.size() == 1 || (words.size() == 3 && EqualsIgnoringCase(words[1], "PARTITIONED"))) {
    spec->table = Unquote(words[0]);
    spec->partition = words.size() == 3 ? Unquote(words[2]) : std::string();
    return true;
  }
  *error = "SPAN_JOIN: \"" + arg + "\" is not \"TABLE\" or \"TABLE PARTITIONED COLUMN\"";
  return false;
}

std::string Quote(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"')
      out += '"';
    out += c;
  }
  return out + "\"";
}

// A side's columns as the operator uses them.
struct Side {
  SideSpec spec;
  std::vector<std::string> columns;  // Other than ts, dur and the partition.
  // Without a dur column every row is an instant (dur 0), as upstream's
  // operator takes it; one side at least must have one.
  bool has_dur = true;
  std::string select_sql;
};

bool DescribeSide(sqlite3* db, const SideSpec& spec, Side* side, std::string* error) {
  side->spec = spec;
  sqlite3_stmt* stmt = nullptr;
  const std::string probe = "SELECT * FROM " + Quote(spec.table) + " LIMIT 0";
  if (sqlite3_prepare_v2(db, probe.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    *error = "SPAN_JOIN: cannot read " + spec.table + ": " + sqlite3_errmsg(db);
    return false;
  }
  bool has_ts = false, has_dur = false, has_partition = spec.partition.empty();
  for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
    const std::string name = sqlite3_column_name(stmt, i);
    if (EqualsIgnoringCase(name, "ts")) {
      has_ts = true;
    } else if (EqualsIgnoringCase(name, "dur")) {
      has_dur = true;
    } else if (!spec.partition.empty() && EqualsIgnoringCase(name, spec.partition.c_str())) {
      has_partition = true;
    } else {
      side->columns.push_back(name);
    }
  }
  sqlite3_finalize(stmt);
  if (!has_ts) {
    *error = "SPAN_JOIN: " + spec.table + " has no ts column";
    return false;
  }
  side->has_dur = has_dur;
  if (!has_partition) {
    *error = "SPAN_JOIN: " + spec.table + " has no column " + spec.partition +
             " to partition by";
    return false;
  }
  side->select_sql = std::string("SELECT ts, ") + (has_dur ? "dur" : "0") + ", " +
                     (spec.partition.empty() ? std::string("0") : Quote(spec.partition));
  for (const std::string& column : side->columns)
    side->select_sql += ", " + Quote(column);
  side->select_sql += " FROM " + Quote(spec.table);
  return true;
}

struct Table : sqlite3_vtab {
  sqlite3* db = nullptr;
  JoinKind kind = JoinKind::kInner;
  Side a, b;
  bool partitioned = false;
};

// A value read from a side, kept for the scan.
struct Value {
  int type = SQLITE_NULL;
  int64_t i = 0;
  double d = 0;
  uint32_t offset = 0;  // Text and blobs: into SideData::bytes.
  uint32_t size = 0;
};

struct Span {
  int64_t ts;
  int64_t end;
  int64_t partition;
  uint32_t row;
  // dur -1, a slice that never ended: joined as a point at its start, as
  // upstream's operator does (end == ts), and its rows have dur -1.
  bool unfinished;
};

struct SideData {
  std::vector<Span> spans;  // dur >= 0, sorted by (partition, ts).
  std::vector<Value> cells;  // Row-major, `width` per row.
  std::string bytes;
  size_t width = 0;
};

struct OutRow {
  int64_t ts;
  int64_t dur;
  int64_t partition;
  uint32_t a;
  uint32_t b;
};

struct Cursor : sqlite3_vtab_cursor {
  SideData a, b;
  std::vector<OutRow> rows;
  size_t pos = 0;
};

// Spans by (partition, ts). Tables usually come in time order with their
// partitions interleaved: a stable bucketing by partition keeps that order
// in O(n), where a comparison sort would spend O(n log n) on it.
void SortByPartitionAndTime(std::vector<Span>* spans) {
  auto by_ts = [](const Span& x, const Span& y) { return x.ts < y.ts; };
  if (!std::is_sorted(spans->begin(), spans->end(), by_ts))
    std::stable_sort(spans->begin(), spans->end(), by_ts);
  std::unordered_map<int64_t, size_t> bucket;
  for (const Span& span : *spans)
    bucket.emplace(span.partition, 0);
  if (bucket.size() <= 1)
    return;
  std::vector<int64_t> partitions;
  partitions.reserve(bucket.size());
  for (const auto& entry : bucket)
    partitions.push_back(entry.first);
  std::sort(partitions.begin(), partitions.end());
  std::vector<size_t> start(partitions.size() + 1, 0);
  for (size_t i = 0; i < partitions.size(); ++i)
    bucket[partitions[i]] = i;
  for (const Span& span : *spans)
    start[bucket[span.partition] + 1]++;
  for (size_t i = 1; i < start.size(); ++i)
    start[i] += start[i - 1];
  std::vector<Span> sorted(spans->size());
  for (const Span& span : *spans)
    sorted[start[bucket[span.partition]]++] = span;
  spans->swap(sorted);
}

bool Load(sqlite3* db, const Side& side, SideData* data, std::string* error) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, side.select_sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    *error = "SPAN_JOIN: reading " + side.spec.table + ": " + sqlite3_errmsg(db);
    return false;
  }
  data->width = side.columns.size();
  uint32_t next_row = 0;
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const int64_t dur = sqlite3_column_int64(stmt, 1);
    if (dur < -1 || sqlite3_column_type(stmt, 0) == SQLITE_NULL)
      continue;  // Not a span.
    const int64_t ts = sqlite3_column_int64(stmt, 0);
    const bool unfinished = dur == -1;
    const int64_t end = unfinished ? ts : ts > kOpenEnd - dur ? kOpenEnd : ts + dur;
    data->spans.push_back(Span{ts, end, sqlite3_column_int64(stmt, 2), next_row++, unfinished});
    for (size_t c = 0; c < data->width; ++c) {
      const int col = static_cast<int>(c) + 3;
      Value v;
      v.type = sqlite3_column_type(stmt, col);
      if (v.type == SQLITE_INTEGER) {
        v.i = sqlite3_column_int64(stmt, col);
      } else if (v.type == SQLITE_FLOAT) {
        v.d = sqlite3_column_double(stmt, col);
      } else if (v.type == SQLITE_TEXT || v.type == SQLITE_BLOB) {
        const void* p = v.type == SQLITE_TEXT ? static_cast<const void*>(sqlite3_column_text(stmt, col))
                                              : sqlite3_column_blob(stmt, col);
        v.size = static_cast<uint32_t>(sqlite3_column_bytes(stmt, col));
        v.offset = static_cast<uint32_t>(data->bytes.size());
        if (p)
          data->bytes.append(static_cast<const char*>(p), v.size);
      }
      data->cells.push_back(v);
    }
  }
  const bool ok = rc == SQLITE_DONE;
  if (!ok)
    *error = "SPAN_JOIN: reading " + side.spec.table + ": " + sqlite3_errmsg(db);
  sqlite3_finalize(stmt);
  SortByPartitionAndTime(&data->spans);
  // The cells in the spans' new order: the scan then reads them in
  // sequence, not all over memory.
  if (data->width > 0) {
    std::vector<Value> cells;
    cells.reserve(data->cells.size());
    uint32_t row = 0;
    for (Span& span : data->spans) {
      const Value* first = &data->cells[span.row * data->width];
      cells.insert(cells.end(), first, first + data->width);
      span.row = row++;
    }
    data->cells.swap(cells);
  }
  return ok;
}

// The span of `spans` (sorted, not overlapping) around `t`, or nullptr.
const Span* SpanAround(const Span* begin, const Span* end, int64_t t) {
  const Span* it = std::upper_bound(begin, end, t, [](int64_t v, const Span& s) { return v < s.ts; });
  if (it == begin)
    return nullptr;
  --it;
  return (t >= it->ts && t < it->end) ? it : nullptr;
}

// The first of `points` (sorted by ts) at `t`, or nullptr.
const Span* PointAt(const std::vector<Span>& points, int64_t t) {
  const auto it = std::lower_bound(points.begin(), points.end(), t,
                                   [](const Span& s, int64_t v) { return s.ts < v; });
  return it != points.end() && it->ts == t ? &*it : nullptr;
}

// Rows of one partition: a and b sorted by ts.
void Sweep(JoinKind kind, int64_t partition, const Span* a_begin, const Span* a_end,
           const Span* b_begin, const Span* b_end, std::vector<OutRow>* out) {
  const size_t first = out->size();
  std::vector<Span> a_long, b_long;
  std::vector<int64_t> points;
  for (const Span* s = a_begin; s != a_end; ++s) {
    if (s->end > s->ts) {
      a_long.push_back(*s);
      points.push_back(s->ts);
      points.push_back(s->end);
    }
  }
  for (const Span* s = b_begin; s != b_end; ++s) {
    if (s->end > s->ts) {
      b_long.push_back(*s);
      points.push_back(s->ts);
      points.push_back(s->end);
    }
  }
  // Each side's points are in order when its spans do not overlap: a
  // merge, not a sort (which degrades on such input).
  const auto middle = points.begin() + static_cast<std::ptrdiff_t>(2 * a_long.size());
  if (std::is_sorted(points.begin(), middle) && std::is_sorted(middle, points.end()))
    std::inplace_merge(points.begin(), middle, points.end());
  else
    std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  size_t ia = 0, ib = 0;
  for (size_t k = 0; k + 1 < points.size(); ++k) {
    const int64_t p = points[k];
    while (ia < a_long.size() && a_long[ia].end <= p)
      ++ia;
    while (ib < b_long.size() && b_long[ib].end <= p)
      ++ib;
    const bool has_a = ia < a_long.size() && a_long[ia].ts <= p;
    const bool has_b = ib < b_long.size() && b_long[ib].ts <= p;
    const bool emit = kind == JoinKind::kInner ? (has_a && has_b)
                      : kind == JoinKind::kLeft ? has_a
                                                : (has_a || has_b);
    if (emit) {
      const int64_t dur = points[k + 1] == kOpenEnd ? -1 : points[k + 1] - p;
      out->push_back(OutRow{p, dur, partition, has_a ? a_long[ia].row : kNone,
                            has_b ? b_long[ib].row : kNone});
    }
  }
  // Points (dur 0, or -1 for a slice that never ended), as upstream's
  // operator joins them (its cursor walk, stated as rules):
  //  * a point inside (or at the start of) the other side's long span
  //    pairs with it;
  //  * a point of a pairs with every point of b at its time (dur -1 if
  //    either never ended);
  //  * in a left or outer join, a point of a that no long span of b holds
  //    also has a row of its own (b NULL), even when it met b's points;
  //  * in an outer join, a point of b that nothing of a holds or meets
  //    has a row of its own (a NULL).
  // A point's rows have its dur (0, or -1).
  std::vector<Span> a_points, b_points;
  for (const Span* s = a_begin; s != a_end; ++s) {
    if (s->end == s->ts)
      a_points.push_back(*s);
  }
  for (const Span* s = b_begin; s != b_end; ++s) {
    if (s->end == s->ts)
      b_points.push_back(*s);
  }
  const Span* const a_long_begin = a_long.data();
  const Span* const a_long_end = a_long.data() + a_long.size();
  const Span* const b_long_begin = b_long.data();
  const Span* const b_long_end = b_long.data() + b_long.size();
  auto own_dur = [](const Span& point) -> int64_t { return point.unfinished ? -1 : 0; };
  for (const Span& s : a_points) {
    const Span* around = SpanAround(b_long_begin, b_long_end, s.ts);
    if (around)
      out->push_back(OutRow{s.ts, own_dur(s), partition, s.row, around->row});
    for (const Span* q = PointAt(b_points, s.ts); q && q != b_points.data() + b_points.size() &&
                                                  q->ts == s.ts;
         ++q) {
      out->push_back(OutRow{s.ts, s.unfinished || q->unfinished ? -1 : 0, partition, s.row,
                            q->row});
    }
    if (!around && kind != JoinKind::kInner)
      out->push_back(OutRow{s.ts, own_dur(s), partition, s.row, kNone});
  }
  for (const Span& s : b_points) {
    const Span* around = SpanAround(a_long_begin, a_long_end, s.ts);
    if (around)
      out->push_back(OutRow{s.ts, own_dur(s), partition, around->row, s.row});
    else if (kind == JoinKind::kOuter && !PointAt(a_points, s.ts))
      out->push_back(OutRow{s.ts, own_dur(s), partition, kNone, s.row});
  }
  std::stable_sort(out->begin() + static_cast<std::ptrdiff_t>(first), out->end(),
                   [](const OutRow& x, const OutRow& y) {
                     return x.ts != y.ts ? x.ts < y.ts : x.dur < y.dur;
                   });
}

void Join(const Table& table, const SideData& a, const SideData& b, std::vector<OutRow>* out) {
  const bool a_parts = !table.a.spec.partition.empty();
  const bool b_parts = !table.b.spec.partition.empty();
  const Span* const a0 = a.spans.data();
  const Span* const a1 = a0 + a.spans.size();
  const Span* const b0 = b.spans.data();
  const Span* const b1 = b0 + b.spans.size();
  if (!a_parts && !b_parts) {
    Sweep(table.kind, 0, a0, a1, b0, b1, out);
    return;
  }
  // Partition by partition, in order; a side without partitions joins
  // each partition of the other whole.
  const Span* ia = a0;
  const Span* ib = b0;
  while ((a_parts && ia != a1) || (b_parts && ib != b1)) {
    int64_t partition;
    if (a_parts && b_parts) {
      if (ia == a1)
        partition = ib->partition;
      else if (ib == b1)
        partition = ia->partition;
      else
        partition = std::min(ia->partition, ib->partition);
    } else {
      partition = a_parts ? ia->partition : ib->partition;
    }
    const Span* a_end = ia;
    const Span* b_end = ib;
    if (a_parts) {
      while (a_end != a1 && a_end->partition == partition)
        ++a_end;
    }
    if (b_parts) {
      while (b_end != b1 && b_end->partition == partition)
        ++b_end;
    }
    const Span* a_from = a_parts ? ia : a0;
    const Span* a_to = a_parts ? a_end : a1;
    const Span* b_from = b_parts ? ib : b0;
    const Span* b_to = b_parts ? b_end : b1;
    // Which partitions exist: both sides' for an inner join, a's for a
    // left join, either's for an outer one.
    const bool in_a = !a_parts || a_from != a_to;
    const bool in_b = !b_parts || b_from != b_to;
    const bool wanted = table.kind == JoinKind::kInner  ? (in_a && in_b)
                        : table.kind == JoinKind::kLeft ? in_a
                                                        : true;
    if (wanted)
      Sweep(table.kind, partition, a_from, a_to, b_from, b_to, out);
    if (a_parts)
      ia = a_end;
    if (b_parts)
      ib = b_end;
  }
}

using Module = EponymousModule<Table, Cursor>;

int Create(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
           char** error_out) {
  std::string error;
  auto fail = [&](const std::string& message) {
    *error_out = sqlite3_mprintf("%s", message.c_str());
    return SQLITE_ERROR;
  };
  if (argc != 5)
    return fail(std::string(argv[0]) + " takes two tables: " + argv[0] +
                "(a [PARTITIONED col], b [PARTITIONED col])");
  SideSpec a_spec, b_spec;
  if (!ParseSide(argv[3], &a_spec, &error) || !ParseSide(argv[4], &b_spec, &error))
    return fail(error);
  if (!a_spec.partition.empty() && !b_spec.partition.empty() &&
      !EqualsIgnoringCase(a_spec.partition, b_spec.partition.c_str()))
    return fail("SPAN_JOIN: both sides must partition by the same column (" +
                a_spec.partition + " and " + b_spec.partition + ")");
  std::unique_ptr<Table> table(new Table());
  table->db = db;
  table->kind = *static_cast<const JoinKind*>(aux);
  if (!DescribeSide(db, a_spec, &table->a, &error) || !DescribeSide(db, b_spec, &table->b, &error))
    return fail(error);
  if (!table->a.has_dur && !table->b.has_dur)
    return fail("SPAN_JOIN: neither " + a_spec.table + " nor " + b_spec.table +
                " has a dur column (one side may be instants without one, not both)");
  const std::string partition = !a_spec.partition.empty() ? a_spec.partition : b_spec.partition;
  table->partitioned = !partition.empty();
  std::string schema = "CREATE TABLE x(ts INTEGER, dur INTEGER";
  std::vector<std::string> names = {"ts", "dur"};
  if (table->partitioned) {
    schema += ", " + Quote(partition) + " INTEGER";
    names.push_back(partition);
  }
  for (const Side* side : {&table->a, &table->b}) {
    for (const std::string& column : side->columns) {
      for (const std::string& seen : names) {
        if (EqualsIgnoringCase(seen, column.c_str()))
          return fail("SPAN_JOIN: column " + column + " is on both sides (" + a_spec.table +
                      ", " + b_spec.table + "); rename one in a view");
      }
      names.push_back(column);
      schema += ", " + Quote(column);
    }
  }
  schema += ")";
  if (sqlite3_declare_vtab(db, schema.c_str()) != SQLITE_OK)
    return fail(std::string("SPAN_JOIN: ") + sqlite3_errmsg(db));
  *out = table.release();
  return SQLITE_OK;
}

int BestIndex(sqlite3_vtab*, sqlite3_index_info* info) {
  info->estimatedCost = 1e6;
  info->estimatedRows = 100000;
  return SQLITE_OK;
}

int Filter(sqlite3_vtab_cursor* base, int, const char*, int, sqlite3_value**) {
  Cursor* cursor = static_cast<Cursor*>(base);
  Table* table = static_cast<Table*>(base->pVtab);
  cursor->a = SideData();
  cursor->b = SideData();
  cursor->rows.clear();
  cursor->pos = 0;
  std::string error;
  if (!Load(table->db, table->a, &cursor->a, &error) ||
      !Load(table->db, table->b, &cursor->b, &error))
    return VtabError(table, error);
  Join(*table, cursor->a, cursor->b, &cursor->rows);
  return SQLITE_OK;
}

void ResultValue(sqlite3_context* ctx, const SideData& data, uint32_t row, size_t column) {
  if (row == kNone) {
    sqlite3_result_null(ctx);
    return;
  }
  const Value& v = data.cells[row * data.width + column];
  switch (v.type) {
    case SQLITE_INTEGER:
      sqlite3_result_int64(ctx, v.i);
      break;
    case SQLITE_FLOAT:
      sqlite3_result_double(ctx, v.d);
      break;
    case SQLITE_TEXT:
      sqlite3_result_text(ctx, data.bytes.data() + v.offset, static_cast<int>(v.size),
                          SQLITE_TRANSIENT);
      break;
    case SQLITE_BLOB:
      sqlite3_result_blob(ctx, data.bytes.data() + v.offset, static_cast<int>(v.size),
                          SQLITE_TRANSIENT);
      break;
    default:
      sqlite3_result_null(ctx);
  }
}

int Column(sqlite3_vtab_cursor* base, sqlite3_context* ctx, int column) {
  const Cursor* cursor = static_cast<const Cursor*>(base);
  const Table* table = static_cast<const Table*>(base->pVtab);
  const OutRow& row = cursor->rows[cursor->pos];
  size_t c = static_cast<size_t>(column);
  if (c == 0) {
    sqlite3_result_int64(ctx, row.ts);
    return SQLITE_OK;
  }
  if (c == 1) {
    sqlite3_result_int64(ctx, row.dur);
    return SQLITE_OK;
  }
  c -= 2;
  if (table->partitioned) {
    if (c == 0) {
      sqlite3_result_int64(ctx, row.partition);
      return SQLITE_OK;
    }
    --c;
  }
  if (c < table->a.columns.size())
    ResultValue(ctx, cursor->a, row.a, c);
  else
    ResultValue(ctx, cursor->b, row.b, c - table->a.columns.size());
  return SQLITE_OK;
}

int RowId(sqlite3_vtab_cursor* base, sqlite3_int64* id) {
  *id = static_cast<sqlite3_int64>(static_cast<Cursor*>(base)->pos);
  return SQLITE_OK;
}

const JoinKind kKinds[] = {JoinKind::kInner, JoinKind::kLeft, JoinKind::kOuter};
const char* const kNames[] = {"span_join", "span_left_join", "span_outer_join"};

sqlite3_module MakeModule() {
  sqlite3_module module = Module::Make(Create, BestIndex, Filter, Column, RowId);
  module.xCreate = Create;  // Made with CREATE VIRTUAL TABLE, not eponymous.
  return module;
}

}  // namespace span_join

bool RegisterSpanJoin(sqlite3* db, std::string* error) {
  static const sqlite3_module module = span_join::MakeModule();
  for (size_t i = 0; i < 3; ++i) {
    if (sqlite3_create_module_v2(db, span_join::kNames[i], &module,
                                 const_cast<span_join::JoinKind*>(&span_join::kKinds[i]),
                                 nullptr) != SQLITE_OK) {
      *error = std::string("cannot register ") + span_join::kNames[i] + ": " + sqlite3_errmsg(db);
      return false;
    }
  }
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
