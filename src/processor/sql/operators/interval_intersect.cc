#include "src/processor/sql/operators/interval_intersect.h"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <unordered_map>

#include "src/processor/sql/operators/computed_table_function.h"
#include "src/processor/sql/operators/packed_rows.h"
#include "src/processor/sql/perfetto_sql_parser.h"

namespace zt {
namespace processor {
namespace sql {
namespace interval_intersect {

constexpr size_t kMaxTables = 15;
constexpr size_t kMaxPartitions = 4;

struct Interval {
  int64_t id;
  int64_t start;
  int64_t end;
};

// A partial result: the span shared so far and the id of each table's
// interval in it.
struct Shared {
  int64_t start;
  int64_t end;
  std::array<int64_t, kMaxTables> ids;
};

// One table's intervals of one partition, sorted by start, with a tree of
// the largest end over each range of them: a lookup visits only ranges
// that start before the query ends and reach its start.
class OverlapIndex {
 public:
  explicit OverlapIndex(std::vector<Interval>* intervals) : intervals_(*intervals) {
    std::sort(intervals_.begin(), intervals_.end(), [](const Interval& a, const Interval& b) {
      return a.start != b.start ? a.start < b.start : a.id < b.id;
    });
    leaves_ = 1;
    while (leaves_ < intervals_.size())
      leaves_ *= 2;
    max_end_.assign(2 * leaves_, INT64_MIN);
    for (size_t i = 0; i < intervals_.size(); i++)
      max_end_[leaves_ + i] = intervals_[i].end;
    for (size_t node = leaves_ - 1; node >= 1; node--)
      max_end_[node] = std::max(max_end_[2 * node], max_end_[2 * node + 1]);
  }

  // Calls on_overlap(interval, shared_start, shared_end) for each interval
  // overlapping [s, e) (an instant if s == e).
  template <typename Fn>
  void FindOverlaps(int64_t s, int64_t e, Fn&& on_overlap) const {
    const bool instant = s == e;
    // Only intervals starting before e (at or before s for an instant).
    const size_t limit = static_cast<size_t>(
        std::partition_point(intervals_.begin(), intervals_.end(),
                             [&](const Interval& i) { return instant ? i.start <= s : i.start < e; }) -
        intervals_.begin());
    if (limit == 0)
      return;
    struct Range {
      size_t node, lo, hi;
    };
    Range stack[64];
    size_t depth = 0;
    stack[depth++] = Range{1, 0, leaves_};
    while (depth > 0) {
      const Range r = stack[--depth];
      if (r.lo >= limit || max_end_[r.node] < s)
        continue;
      if (r.hi - r.lo == 1) {
        const Interval& i = intervals_[r.lo];
        const bool is_instant = i.start == i.end;
        if (instant && is_instant) {
          if (i.start == s)
            on_overlap(i, s, s);
        } else if (instant) {
          if (i.start <= s && s < i.end)
            on_overlap(i, s, s);
        } else if (is_instant) {
          if (s <= i.start && i.start < e)
            on_overlap(i, i.start, i.start);
        } else if (e > i.start && s < i.end) {
          on_overlap(i, std::max(s, i.start), std::min(e, i.end));
        }
        continue;
      }
      const size_t mid = (r.lo + r.hi) / 2;
      // Right first, so that the left (earlier) range is visited first.
      stack[depth++] = Range{2 * r.node + 1, mid, r.hi};
      stack[depth++] = Range{2 * r.node, r.lo, mid};
    }
  }

 private:
  std::vector<Interval>& intervals_;
  size_t leaves_ = 1;
  std::vector<int64_t> max_end_;
};

struct Partition {
  std::vector<ComputedValue> values;
  std::vector<Interval> intervals;
};

// One table: its partitions by key (the partition values' bytes), in the
// order they first appear.
struct Table {
  std::unordered_map<std::string, size_t> by_key;
  std::vector<Partition> partitions;
};

void AppendKey(const ComputedValue& value, std::string* key) {
  key->push_back(static_cast<char>(value.type));
  switch (value.type) {
    case ComputedValue::kNull:
      break;
    case ComputedValue::kInt:
      key->append(reinterpret_cast<const char*>(&value.i), sizeof value.i);
      break;
    case ComputedValue::kReal:
      key->append(reinterpret_cast<const char*>(&value.d), sizeof value.d);
      break;
    case ComputedValue::kText:
      key->append(std::to_string(value.text.size()) + ":" + value.text);
      break;
  }
}

std::string IdText(const ComputedValue& id) {
  return id.type == ComputedValue::kInt ? std::to_string(id.i) : "NULL";
}

bool ReadTable(sqlite3_value* value, size_t index, size_t partitions, Table* table,
               std::string* error) {
  const std::string what = "table " + std::to_string(index + 1);
  PackedRowsReader reader(value, what);
  if (!reader.CheckArity(3 + partitions, 3 + partitions, error))
    return false;
  std::vector<ComputedValue> row;
  std::string key;
  while (reader.Next(&row, error)) {
    if (row[0].type != ComputedValue::kInt) {
      *error = what + ": an interval's id is not an integer (ids must be integers)";
      return false;
    }
    if (row[1].type != ComputedValue::kInt || row[2].type != ComputedValue::kInt) {
      *error = what + ": the interval of id " + IdText(row[0]) +
               " has a ts or dur that is not an integer";
      return false;
    }
    if (row[2].i < 0) {
      *error = what + ": the interval of id " + IdText(row[0]) + " has a negative dur (" +
               std::to_string(row[2].i) + "); intervals must have dur >= 0";
      return false;
    }
    key.clear();
    for (size_t p = 0; p < partitions; p++)
      AppendKey(row[3 + p], &key);
    auto it = table->by_key.emplace(key, table->partitions.size());
    if (it.second) {
      table->partitions.emplace_back();
      table->partitions.back().values.assign(row.begin() + 3, row.end());
    }
    const int64_t id = row[0].i;
    const int64_t start = row[1].i;
    int64_t end;
    if (__builtin_add_overflow(start, row[2].i, &end))
      end = INT64_MAX;  // dur >= 0: only past the top.

    table->partitions[it.first->second].intervals.push_back(Interval{id, start, end});
  }
  return error->empty();
}

using Rows = std::vector<std::vector<ComputedValue>>;

// Intersects one partition's intervals of every table; appends the rows.
void IntersectPartition(const std::vector<Partition*>& parts, size_t partition_count,
                        Rows* rows) {
  const size_t tables = parts.size();
  std::vector<size_t> order(tables);
  for (size_t i = 0; i < tables; i++)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return parts[a]->intervals.size() < parts[b]->intervals.size();
  });
  std::vector<Shared> shared;
  for (const Interval& i : parts[order[0]]->intervals) {
    Shared s{i.start, i.end, {}};
    s.ids[order[0]] = i.id;
    shared.push_back(s);
  }
  std::vector<Shared> next;
  for (size_t k = 1; k < tables && !shared.empty(); k++) {
    const size_t table = order[k];
    const OverlapIndex index(&parts[table]->intervals);
    next.clear();
    for (const Shared& s : shared) {
      index.FindOverlaps(s.start, s.end, [&](const Interval& i, int64_t start, int64_t end) {
        Shared n = s;
        n.start = start;
        n.end = end;
        n.ids[table] = i.id;
        next.push_back(n);
      });
    }
    shared.swap(next);
  }
  std::sort(shared.begin(), shared.end(), [&](const Shared& a, const Shared& b) {
    if (a.start != b.start)
      return a.start < b.start;
    for (size_t t = 0; t < tables; t++) {
      if (a.ids[t] != b.ids[t])
        return a.ids[t] < b.ids[t];
    }
    return false;
  });
  for (const Shared& s : shared) {
    std::vector<ComputedValue> row;
    row.reserve(2 + kMaxTables + kMaxPartitions);
    int64_t dur;
    if (__builtin_sub_overflow(s.end, s.start, &dur))
      dur = INT64_MAX;  // A span wider than int64: as wide as it can say.
    row.push_back(ComputedValue::Int(s.start));
    row.push_back(ComputedValue::Int(dur));
    for (size_t t = 0; t < kMaxTables; t++)
      row.push_back(t < tables ? ComputedValue::Int(s.ids[t]) : ComputedValue::Null());
    for (size_t p = 0; p < kMaxPartitions; p++)
      row.push_back(p < partition_count ? parts[0]->values[p] : ComputedValue::Null());
    rows->push_back(std::move(row));
  }
}

// args: tables count, partition count, then kMaxTables packed tables.
bool Compute(void*, sqlite3_value** args, Rows* rows, std::string* error) {
  const int64_t tables = sqlite3_value_int64(args[0]);
  const int64_t partitions = sqlite3_value_int64(args[1]);
  if (tables < 1 || tables > static_cast<int64_t>(kMaxTables)) {
    *error = "intersects 1 to " + std::to_string(kMaxTables) + " tables, not " +
             std::to_string(tables);
    return false;
  }
  if (partitions < 0 || partitions > static_cast<int64_t>(kMaxPartitions)) {
    *error = "takes at most " + std::to_string(kMaxPartitions) + " partition columns, not " +
             std::to_string(partitions);
    return false;
  }
  const auto table_count = static_cast<size_t>(tables);
  const auto partition_count = static_cast<size_t>(partitions);
  std::vector<Table> read(table_count);
  for (size_t t = 0; t < table_count; t++) {
    if (!ReadTable(args[2 + t], t, partition_count, &read[t], error))
      return false;
  }
  // The partitions of the table with the fewest, in their order there.
  size_t fewest = 0;
  for (size_t t = 1; t < table_count; t++) {
    if (read[t].partitions.size() < read[fewest].partitions.size())
      fewest = t;
  }
  std::vector<Partition*> parts(table_count);
  for (auto& partition : read[fewest].partitions) {
    std::string key;
    for (const ComputedValue& value : partition.values)
      AppendKey(value, &key);
    bool everywhere = true;
    for (size_t t = 0; t < table_count && everywhere; t++) {
      const auto it = read[t].by_key.find(key);
      everywhere = it != read[t].by_key.end();
      if (everywhere)
        parts[t] = &read[t].partitions[it->second];
    }
    if (everywhere)
      IntersectPartition(parts, partition_count, rows);
  }
  return true;
}

// Each table as the packed rows of (id, ts, dur, partitions...).
struct Source {
  std::string table;
  std::string id = "id";
  std::string ts = "ts";
  std::string dur = "dur";
};

bool Expand(const std::vector<Source>& sources, const std::string& partition_list,
            std::string* body, std::string* error) {
  std::vector<std::string> partitions;
  if (!SplitMacroList(partition_list, &partitions, error))
    return false;
  if (sources.empty() || sources.size() > kMaxTables) {
    *error = "intersects 1 to " + std::to_string(kMaxTables) + " tables, not " +
             std::to_string(sources.size());
    return false;
  }
  if (partitions.size() > kMaxPartitions) {
    *error = "takes at most " + std::to_string(kMaxPartitions) + " partition columns, not " +
             std::to_string(partitions.size());
    return false;
  }
  std::string packed_partitions;
  for (const std::string& p : partitions)
    packed_partitions += ", " + p;
  std::string& out = *body;
  out = "(SELECT ts, dur";
  for (size_t t = 0; t < sources.size(); t++)
    out += ", id_" + std::to_string(t);
  for (size_t p = 0; p < partitions.size(); p++)
    out += ", p_" + std::to_string(p) + " AS " + partitions[p];
  out += " FROM __zt_interval_intersect(" + std::to_string(sources.size()) + ", " +
         std::to_string(partitions.size());
  for (size_t t = 0; t < kMaxTables; t++) {
    if (t >= sources.size()) {
      out += ", 0";  // Unread; not NULL, which SQLite would take for no rows.
      continue;
    }
    const Source& s = sources[t];
    out += ", (SELECT __zt_pack_rows(" + s.id + ", " + s.ts + ", " + s.dur + packed_partitions +
           ") FROM " + s.table + ")";
  }
  out += "))";
  return true;
}

}  // namespace interval_intersect

bool RegisterIntervalIntersect(sqlite3* db, std::string* error) {
  static const ComputedTableFunction kFunction = [] {
    ComputedTableFunction f;
    f.name = "__zt_interval_intersect";
    f.columns = {"ts", "dur"};
    for (size_t t = 0; t < interval_intersect::kMaxTables; t++)
      f.columns.push_back("id_" + std::to_string(t));
    for (size_t p = 0; p < interval_intersect::kMaxPartitions; p++)
      f.columns.push_back("p_" + std::to_string(p));
    f.args = {"tables", "partitions"};
    for (size_t t = 0; t < interval_intersect::kMaxTables; t++)
      f.args.push_back("table_" + std::to_string(t));
    f.compute = &interval_intersect::Compute;
    return f;
  }();
  return RegisterComputedTableFunction(db, &kFunction, error);
}

bool ExpandIntervalIntersect(const std::vector<std::string>& args, std::string* body,
                             std::string* error) {
  std::vector<std::string> tables;
  if (!SplitMacroList(args[0], &tables, error))
    return false;
  std::vector<interval_intersect::Source> sources;
  for (const std::string& table : tables) {
    interval_intersect::Source source;
    source.table = table;
    sources.push_back(source);
  }
  return interval_intersect::Expand(sources, args[1], body, error);
}

bool ExpandIntervalIntersectNamed(const std::vector<std::string>& args, std::string* body,
                                  std::string* error) {
  std::vector<interval_intersect::Source> sources(2);
  for (size_t t = 0; t < 2; t++) {
    sources[t].table = args[4 * t];
    sources[t].id = args[4 * t + 1];
    sources[t].ts = args[4 * t + 2];
    sources[t].dur = args[4 * t + 3];
  }
  return interval_intersect::Expand(sources, args[8], body, error);
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
