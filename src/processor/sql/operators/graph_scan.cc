#include "src/processor/sql/operators/graph_scan.h"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "src/processor/sql/operators/computed_table_function.h"
#include "src/processor/sql/operators/packed_rows.h"
#include "src/processor/sql/perfetto_sql_parser.h"

namespace zt {
namespace processor {
namespace sql {
// Named, not anonymous: the unity build puts other operators in this unit.
namespace graph_scan {

constexpr size_t kMaxColumns = 7;

using Values = std::vector<ComputedValue>;

void Bind(sqlite3_stmt* stmt, int index, const ComputedValue& value) {
  switch (value.type) {
    case ComputedValue::kNull:
      sqlite3_bind_null(stmt, index);
      break;
    case ComputedValue::kInt:
      sqlite3_bind_int64(stmt, index, value.i);
      break;
    case ComputedValue::kReal:
      sqlite3_bind_double(stmt, index, value.d);
      break;
    case ComputedValue::kText:
      sqlite3_bind_text(stmt, index, value.text.data(), static_cast<int>(value.text.size()),
                        SQLITE_TRANSIENT);
      break;
  }
}

ComputedValue Column(sqlite3_stmt* stmt, int column) {
  ComputedValue value;
  switch (sqlite3_column_type(stmt, column)) {
    case SQLITE_INTEGER:
      value.type = ComputedValue::kInt;
      value.i = sqlite3_column_int64(stmt, column);
      break;
    case SQLITE_FLOAT:
      value.type = ComputedValue::kReal;
      value.d = sqlite3_column_double(stmt, column);
      break;
    case SQLITE_NULL:
      break;
    default:
      value.type = ComputedValue::kText;
      value.text.assign(reinterpret_cast<const char*>(sqlite3_column_text(stmt, column)),
                        static_cast<size_t>(sqlite3_column_bytes(stmt, column)));
      break;
  }
  return value;
}

// `step` with each `$table` replaced by `table`.
std::string WithTable(const std::string& step, const std::string& table) {
  std::string out;
  size_t copied = 0;
  for (size_t at = step.find("$table"); at != std::string::npos; at = step.find("$table", at + 1)) {
    const size_t end = at + 6;
    const bool word_ends =
        end == step.size() || !(isalnum(static_cast<unsigned char>(step[end])) || step[end] == '_');
    if (!word_ends)
      continue;
    out.append(step, copied, at - copied);
    out += table;
    copied = end;
  }
  out.append(step, copied, std::string::npos);
  return out;
}

struct Scan {
  sqlite3* db;
  std::vector<std::string> columns;
  std::string step;
  // The edges out of each node, and how many nodes the graph and the
  // start rows name (a walk longer than that went round a cycle).
  std::unordered_map<int64_t, std::vector<int64_t>> children;
  size_t nodes = 0;

  const std::vector<int64_t>* EdgesFrom(int64_t node) const {
    const auto found = children.find(node);
    return found == children.end() ? nullptr : &found->second;
  }

  // Runs the step over `rows` (node, parent values); appends what it
  // returns for nodes without a value yet to *level.
  bool RunStep(const std::vector<std::pair<int64_t, const Values*>>& rows,
               std::vector<std::pair<int64_t, Values>>* level, std::string* error) {
    // The rows go in as one packed BLOB, however many (bound parameters
    // would cap a node's edges at a few thousand).
    PackedRowsWriter packed(columns.size() + 1);
    for (const auto& row : rows) {
      packed.Add(ComputedValue::Int(row.first));
      for (const ComputedValue& v : *row.second)
        packed.Add(v);
    }
    std::string table = "(SELECT c0 AS id";
    for (size_t c = 0; c < columns.size(); c++)
      table += ", c" + std::to_string(c + 1) + " AS " + columns[c];
    table += " FROM __zt_unpack_rows(?1))";
    // The step is a table or a parenthesised subquery (TableOrSubquery).
    const std::string sql = "SELECT * FROM " + WithTable(step, table);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
      *error = std::string("the step query: ") + sqlite3_errmsg(db);
      sqlite3_finalize(stmt);
      return false;
    }
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> owned(stmt, sqlite3_finalize);
    if (sqlite3_bind_parameter_count(stmt) != 1) {
      *error = "the step query may not have parameters of its own";
      return false;
    }
    sqlite3_bind_blob64(stmt, 1, packed.bytes().data(), packed.bytes().size(), SQLITE_STATIC);
    if (sqlite3_column_count(stmt) != static_cast<int>(columns.size() + 1)) {
      *error = "the step query returns " + std::to_string(sqlite3_column_count(stmt)) +
               " columns; it must return id and the " + std::to_string(columns.size()) +
               " scanned";
      return false;
    }
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      if (sqlite3_column_type(stmt, 0) != SQLITE_INTEGER)
        continue;
      const int64_t id = sqlite3_column_int64(stmt, 0);
      Values v;
      for (size_t c = 0; c < columns.size(); c++)
        v.push_back(Column(stmt, static_cast<int>(c + 1)));
      level->emplace_back(id, std::move(v));
    }
    if (rc != SQLITE_DONE) {
      *error = std::string("the step query: ") + sqlite3_errmsg(db);
      return false;
    }
    return true;
  }
};

// What both scans read from their arguments: the scanned columns, the
// step (or aggregation) query, the edges and the start rows.
bool ReadArgs(void* data, sqlite3_value** args, Scan* scan,
              std::vector<std::pair<int64_t, Values>>* start, std::string* error) {
  scan->db = static_cast<sqlite3*>(data);
  if (sqlite3_value_type(args[2]) != SQLITE_TEXT || sqlite3_value_type(args[3]) != SQLITE_TEXT) {
    *error = "the columns and the step query must be text";
    return false;
  }
  std::string list = "(" + std::string(reinterpret_cast<const char*>(sqlite3_value_text(args[2]))) +
                     ")";
  if (!SplitMacroList(list, &scan->columns, error))
    return false;
  if (scan->columns.empty() || scan->columns.size() > kMaxColumns) {
    *error = "scans 1 to " + std::to_string(kMaxColumns) + " columns, not " +
             std::to_string(scan->columns.size());
    return false;
  }
  scan->step = reinterpret_cast<const char*>(sqlite3_value_text(args[3]));

  PackedRowsReader edges(args[0], "the edges");
  if (!edges.CheckArity(2, 2, error))
    return false;
  Values row;
  std::unordered_set<int64_t> named;
  while (edges.Next(&row, error)) {
    if (row[0].type != ComputedValue::kInt || row[1].type != ComputedValue::kInt)
      continue;
    scan->children[row[0].i].push_back(row[1].i);
    named.insert(row[0].i);
    named.insert(row[1].i);
  }
  if (!error->empty())
    return false;

  PackedRowsReader init(args[1], "the start rows");
  if (!init.CheckArity(1, kMaxColumns + 1, error))
    return false;
  if (init.arity() != 0 && init.arity() != scan->columns.size() + 1) {
    *error = "the start rows have " + std::to_string(init.arity()) +
             " values; they must have id and the " + std::to_string(scan->columns.size()) +
             " scanned";
    return false;
  }
  while (init.Next(&row, error)) {
    if (row[0].type == ComputedValue::kInt) {
      start->emplace_back(row[0].i, Values(row.begin() + 1, row.end()));
      named.insert(row[0].i);
    }
  }
  scan->nodes = named.size();
  return error->empty();
}

// The $table rows of one step: for each node, in the order nodes first
// came, the values carried to it (one row per edge that brought some).
struct Level {
  std::vector<int64_t> order;
  std::unordered_map<int64_t, std::vector<Values>> rows;

  void Add(int64_t node, const Values& values) {
    std::vector<Values>& carried = rows[node];
    if (carried.empty())
      order.push_back(node);
    carried.push_back(values);
  }
  bool empty() const { return order.empty(); }
};

// Runs the step over `level`'s rows (grouped by node); appends what it
// returns to *out.
bool RunLevel(Scan* scan, const Level& level, std::vector<std::pair<int64_t, Values>>* out,
              std::string* error) {
  std::vector<std::pair<int64_t, const Values*>> step_rows;
  for (int64_t node : level.order) {
    for (const Values& values : level.rows.at(node))
      step_rows.emplace_back(node, &values);
  }
  return step_rows.empty() || scan->RunStep(step_rows, out, error);
}

// At most this many cells (values) made and waiting, in one scan: a walk
// that multiplies along a graph's paths stops with an error rather than
// filling memory (a cell costs ~60 bytes here: ~2 GB).
constexpr size_t kMaxScanCells = size_t{32} << 20;

std::string TooManyCells() {
  return "the scan made more than " + std::to_string(kMaxScanCells >> 20) +
         " M values (the walk multiplies along the graph's paths)";
}

// The plain scan, as upstream's: the start rows, then, step after step,
// what the step query makes of the rows the last step's sent along their
// edges, until a step sends none. A node is met once per path to it.
bool Compute(void* data, sqlite3_value** args, std::vector<std::vector<ComputedValue>>* rows,
             std::string* error) {
  Scan scan;
  std::vector<std::pair<int64_t, Values>> made;
  if (!ReadArgs(data, args, &scan, &made, error))
    return false;
  const size_t row_cells = scan.columns.size() + 1;
  for (size_t step = 0;; step++) {
    // What this step's rows would send on, counted before any is copied.
    size_t waiting = 0;
    for (const auto& node : made) {
      const std::vector<int64_t>* out = scan.EdgesFrom(node.first);
      waiting += out ? out->size() : 0;
    }
    if ((rows->size() + made.size() + waiting) * row_cells > kMaxScanCells) {
      *error = TooManyCells();
      return false;
    }
    Level next;
    for (auto& node : made) {
      const std::vector<int64_t>* out = scan.EdgesFrom(node.first);
      if (out) {
        for (int64_t child : *out)
          next.Add(child, node.second);
      }
      std::vector<ComputedValue> out_row{ComputedValue::Int(node.first)};
      out_row.insert(out_row.end(), std::make_move_iterator(node.second.begin()),
                     std::make_move_iterator(node.second.end()));
      rows->push_back(std::move(out_row));
    }
    if (next.empty())
      return true;
    // A walk of more steps than there are nodes has gone round a cycle
    // (and would go on for ever, as long as the step makes rows).
    if (step >= scan.nodes) {
      *error = "the walk went round a cycle through node " + std::to_string(next.order[0]) +
               " (a scan stops only once a step makes no rows)";
      return false;
    }
    made.clear();
    if (!RunLevel(&scan, next, &made, error))
      return false;
  }
}

// The aggregating scan: the start rows, then every node below them, each
// once all its sources have given their values (deepest first: a node's
// depth is the longest path from it to a node with no edge out).
bool ComputeAggregating(void* data, sqlite3_value** args,
                        std::vector<std::vector<ComputedValue>>* rows, std::string* error) {
  Scan scan;
  std::vector<std::pair<int64_t, Values>> start;
  if (!ReadArgs(data, args, &scan, &start, error))
    return false;
  const auto edges_from = [&scan](int64_t node) { return scan.EdgesFrom(node); };

  // Depths of the nodes the start rows reach, by a depth-first walk that
  // finds a cycle rather than looping on it.
  enum class Visit { kOpen, kDone };
  std::unordered_map<int64_t, Visit> visit;
  std::unordered_map<int64_t, uint32_t> depth;
  uint32_t max_depth = 0;
  std::vector<int64_t> stack;
  for (const auto& node : start) {
    if (const std::vector<int64_t>* out = edges_from(node.first))
      stack.insert(stack.end(), out->begin(), out->end());
  }
  while (!stack.empty()) {
    const int64_t node = stack.back();
    const auto seen = visit.find(node);
    if (seen == visit.end()) {
      visit.emplace(node, Visit::kOpen);
      if (const std::vector<int64_t>* out = edges_from(node)) {
        for (int64_t next : *out) {
          const auto next_seen = visit.find(next);
          if (next_seen != visit.end() && next_seen->second == Visit::kOpen) {
            *error = "the graph has a cycle through node " + std::to_string(next) +
                     ": an aggregating scan needs one without";
            return false;
          }
          if (next_seen == visit.end())
            stack.push_back(next);
        }
      }
      continue;
    }
    stack.pop_back();
    if (seen->second == Visit::kDone)
      continue;
    seen->second = Visit::kDone;
    uint32_t d = 0;
    if (const std::vector<int64_t>* out = edges_from(node)) {
      for (int64_t next : *out)
        d = std::max(d, depth[next] + 1);
    }
    depth[node] = d;
    max_depth = std::max(max_depth, d);
  }

  // Per depth, the $table rows waiting for it.
  std::vector<Level> waiting(depth.empty() ? 0 : max_depth + 1);
  const auto emit = [&](int64_t node, Values values) {
    if (const std::vector<int64_t>* out = edges_from(node)) {
      for (int64_t next : *out)
        waiting[depth[next]].Add(next, values);
    }
    std::vector<ComputedValue> out_row{ComputedValue::Int(node)};
    out_row.insert(out_row.end(), std::make_move_iterator(values.begin()),
                   std::make_move_iterator(values.end()));
    rows->push_back(std::move(out_row));
  };
  for (auto& node : start)
    emit(node.first, std::move(node.second));

  for (size_t d = waiting.size(); d-- > 0;) {
    std::vector<std::pair<int64_t, Values>> level;
    if (!RunLevel(&scan, waiting[d], &level, error))
      return false;
    waiting[d] = Level();
    for (auto& node : level) {
      // A row for a node of another depth (or none) would come too late
      // for what lies below it: the query must answer for its own nodes.
      const auto node_depth = depth.find(node.first);
      if (node_depth == depth.end() || node_depth->second != d) {
        *error = "the aggregation query returned node " + std::to_string(node.first) +
                 ", which its $table did not hold";
        return false;
      }
      emit(node.first, std::move(node.second));
    }
  }
  return true;
}
}  // namespace graph_scan

bool RegisterGraphScan(sqlite3* db, std::string* error) {
  for (const bool aggregating : {false, true}) {
    std::unique_ptr<ComputedTableFunction> scan(new ComputedTableFunction());
    scan->name = aggregating ? "__zt_graph_aggregating_scan" : "__zt_graph_scan";
    scan->columns = {"id"};
    for (size_t c = 1; c <= graph_scan::kMaxColumns; c++)
      scan->columns.push_back("c" + std::to_string(c));
    scan->args = {"edges", "init", "columns", "step"};
    scan->compute = aggregating ? &graph_scan::ComputeAggregating : &graph_scan::Compute;
    scan->data = db;
    if (!RegisterComputedTableFunction(db, std::move(scan), error))
      return false;
  }
  return true;
}

namespace graph_scan {

bool Expand(const char* function, const std::vector<std::string>& args, std::string* body,
            std::string* error) {
  std::vector<std::string> columns;
  if (!SplitMacroList(args[2], &columns, error))
    return false;
  if (columns.empty() || columns.size() > kMaxColumns) {
    *error = "scans 1 to " + std::to_string(kMaxColumns) + " columns, as (depth) or (a, b)";
    return false;
  }
  std::string select = "id";
  std::string packed = "_zt_init.id";
  std::string names;
  for (size_t c = 0; c < columns.size(); c++) {
    select += ", c" + std::to_string(c + 1) + " AS " + columns[c];
    packed += ", _zt_init." + columns[c];
    names += (c ? "," : "") + columns[c];
  }
  // Both go into SQL string literals.
  auto quoted = [](const std::string& text) {
    std::string out;
    for (char ch : text) {
      out += ch;
      if (ch == '\'')
        out += '\'';
    }
    return out;
  };
  names = quoted(names);
  const std::string step = quoted(args[3]);
  *body = "(SELECT " + select + " FROM " + function + "(" +
          "(SELECT __zt_pack_rows(_zt_edge.source_node_id, _zt_edge.dest_node_id) FROM " +
          args[0] + " AS _zt_edge), " + "(SELECT __zt_pack_rows(" + packed + ") FROM " + args[1] +
          " AS _zt_init), '" + names + "', '" + step + "'))";
  return true;
}

}  // namespace graph_scan

bool ExpandGraphScan(const std::vector<std::string>& args, std::string* body,
                     std::string* error) {
  return graph_scan::Expand("__zt_graph_scan", args, body, error);
}

bool ExpandGraphAggregatingScan(const std::vector<std::string>& args, std::string* body,
                                std::string* error) {
  return graph_scan::Expand("__zt_graph_aggregating_scan", args, body, error);
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
