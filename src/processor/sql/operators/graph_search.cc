#include "src/processor/sql/operators/graph_search.h"

#include <sqlite3.h>

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "src/processor/sql/operators/computed_table_function.h"
#include "src/processor/sql/operators/packed_rows.h"

namespace zt {
namespace processor {
namespace sql {
namespace graph_search {

using Rows = std::vector<std::vector<ComputedValue>>;
constexpr uint32_t kNoParent = UINT32_MAX;

// The graph with its node ids remapped to 0..n-1, so that the searches
// index vectors rather than hash maps.
class Graph {
 public:
  struct Edge {
    uint32_t dest;
    int64_t weight;
  };

  uint32_t Index(int64_t id) {
    const auto it = index_.emplace(id, static_cast<uint32_t>(ids_.size()));
    if (it.second) {
      ids_.push_back(id);
      edges_.emplace_back();
    }
    return it.first->second;
  }
  void AddEdge(int64_t source, int64_t dest, int64_t weight) {
    const uint32_t s = Index(source);
    const uint32_t d = Index(dest);
    edges_[s].push_back(Edge{d, weight});
  }
  const std::vector<Edge>& EdgesOf(uint32_t node) const { return edges_[node]; }
  int64_t IdOf(uint32_t node) const { return ids_[node]; }
  size_t size() const { return ids_.size(); }

 private:
  std::unordered_map<int64_t, uint32_t> index_;
  std::vector<int64_t> ids_;
  std::vector<std::vector<Edge>> edges_;
};

// Reads edges (2 or 3 values per row: source, dest[, weight]).
bool ReadEdges(sqlite3_value* value, size_t arity, Graph* graph, std::string* error) {
  PackedRowsReader reader(value, "the edges");
  if (!reader.CheckArity(arity, arity, error))
    return false;
  std::vector<ComputedValue> row;
  while (reader.Next(&row, error)) {
    if (row[0].type != ComputedValue::kInt || row[1].type != ComputedValue::kInt)
      continue;
    const int64_t weight = arity == 3 && row[2].type == ComputedValue::kInt ? row[2].i : 0;
    graph->AddEdge(row[0].i, row[1].i, weight);
  }
  return error->empty();
}

ComputedValue ParentValue(const Graph& graph, uint32_t parent) {
  return parent == kNoParent ? ComputedValue::Null() : ComputedValue::Int(graph.IdOf(parent));
}

bool Search(void*, sqlite3_value** args, Rows* rows, std::string* error) {
  const char* mode_text = reinterpret_cast<const char*>(sqlite3_value_text(args[0]));
  const std::string mode = mode_text ? mode_text : "";
  if (mode != "dfs" && mode != "bfs") {
    *error = "the mode must be 'dfs' or 'bfs', not '" + mode + "'";
    return false;
  }
  Graph graph;
  if (!ReadEdges(args[1], 2, &graph, error))
    return false;
  std::vector<uint32_t> starts;
  PackedRowsReader reader(args[2], "the start nodes");
  if (!reader.CheckArity(1, 1, error))
    return false;
  std::vector<ComputedValue> row;
  while (reader.Next(&row, error)) {
    if (row[0].type == ComputedValue::kInt)
      starts.push_back(graph.Index(row[0].i));
  }
  if (!error->empty())
    return false;

  struct Visit {
    uint32_t node;
    uint32_t parent;
  };
  std::vector<bool> visited(graph.size());
  auto emit = [&](const Visit& visit) {
    rows->push_back({ComputedValue::Int(graph.IdOf(visit.node)), ParentValue(graph, visit.parent)});
  };
  if (mode == "dfs") {
    // A node is reached when it is popped: of several paths to it, the
    // first popped names its parent. Children are pushed in reverse so
    // that they are followed in the order given.
    std::vector<Visit> stack;
    for (uint32_t start : starts)
      stack.push_back(Visit{start, kNoParent});
    while (!stack.empty()) {
      const Visit visit = stack.back();
      stack.pop_back();
      if (visited[visit.node])
        continue;
      visited[visit.node] = true;
      emit(visit);
      const auto& edges = graph.EdgesOf(visit.node);
      for (auto it = edges.rbegin(); it != edges.rend(); ++it)
        stack.push_back(Visit{it->dest, visit.node});
    }
    return true;
  }
  // Breadth-first: a node is reached when it is queued.
  std::deque<Visit> queue;
  for (uint32_t start : starts) {
    if (visited[start])
      continue;
    visited[start] = true;
    queue.push_back(Visit{start, kNoParent});
  }
  while (!queue.empty()) {
    const Visit visit = queue.front();
    queue.pop_front();
    emit(visit);
    for (const Graph::Edge& edge : graph.EdgesOf(visit.node)) {
      if (visited[edge.dest])
        continue;
      visited[edge.dest] = true;
      queue.push_back(Visit{edge.dest, visit.node});
    }
  }
  return true;
}

bool WeightBoundedDfs(void*, sqlite3_value** args, Rows* rows, std::string* error) {
  Graph graph;
  if (!ReadEdges(args[0], 3, &graph, error))
    return false;
  struct Root {
    uint32_t node;
    int64_t target;
  };
  std::vector<Root> roots;
  PackedRowsReader reader(args[1], "the roots");
  if (!reader.CheckArity(2, 2, error))
    return false;
  std::vector<ComputedValue> row;
  while (reader.Next(&row, error)) {
    if (row[0].type == ComputedValue::kInt)
      roots.push_back(Root{graph.Index(row[0].i), row[1].type == ComputedValue::kInt ? row[1].i : 0});
  }
  if (!error->empty())
    return false;
  const bool floor = sqlite3_value_int64(args[2]) != 0;

  struct Visit {
    uint32_t node;
    int64_t weight;  // Of the edge it was reached by.
    uint32_t parent;
  };
  std::vector<bool> seen(graph.size());
  std::vector<Visit> stack;
  for (const Root& root : roots) {
    std::fill(seen.begin(), seen.end(), false);
    stack.assign(1, Visit{root.node, 0, kNoParent});
    int64_t total = 0;
    while (!stack.empty()) {
      const Visit visit = stack.back();
      stack.pop_back();
      if (seen[visit.node])
        continue;
      seen[visit.node] = true;
      bool past_target;
      if (__builtin_add_overflow(total, visit.weight, &total)) {
        // Beyond int64: past any target upwards, short of any downwards.
        past_target = visit.weight > 0;
        total = past_target ? INT64_MAX : INT64_MIN;
      } else {
        past_target = total > root.target;
      }
      if (past_target && !floor)
        break;  // A ceiling: the node that passed it is left out.
      rows->push_back({ComputedValue::Int(graph.IdOf(root.node)),
                       ComputedValue::Int(graph.IdOf(visit.node)),
                       ParentValue(graph, visit.parent)});
      if (past_target)
        break;  // A floor: the node that passed it is the last.
      const auto& edges = graph.EdgesOf(visit.node);
      for (auto it = edges.rbegin(); it != edges.rend(); ++it)
        stack.push_back(Visit{it->dest, it->weight, visit.node});
    }
  }
  return true;
}

}  // namespace graph_search

bool RegisterGraphSearch(sqlite3* db, std::string* error) {
  static const ComputedTableFunction kSearch{"__zt_graph_search",
                                             {"node_id", "parent_node_id"},
                                             {"mode", "edges", "starts"},
                                             &graph_search::Search, nullptr};
  static const ComputedTableFunction kWeightBounded{
      "__zt_graph_weight_bounded_dfs",
      {"root_node_id", "node_id", "parent_node_id"},
      {"edges", "roots", "is_target_weight_floor"},
      &graph_search::WeightBoundedDfs, nullptr};
  return RegisterComputedTableFunction(db, &kSearch, error) &&
         RegisterComputedTableFunction(db, &kWeightBounded, error);
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
