// The searches behind the standard library's graphs.search module
// (graph_reachable_dfs!, graph_reachable_bfs!,
// graph_reachable_weight_bounded_dfs!), as table-valued functions over
// packed rows (packed_rows.h):
//
//   __zt_graph_search(mode, edges, starts)
//     mode 'dfs' or 'bfs'; edges: rows (source_node_id, dest_node_id);
//     starts: rows (node_id). Columns node_id, parent_node_id: every node
//     reachable from the starts, each once, in the order the search
//     reaches it, with the node it was reached from (NULL for a start).
//     A node's outgoing edges are followed in the order they were given.
//
//   __zt_graph_weight_bounded_dfs(edges, roots, is_target_weight_floor)
//     edges: rows (source_node_id, dest_node_id, edge_weight); roots: rows
//     (root_node_id, root_target_weight). Columns root_node_id, node_id,
//     parent_node_id: for each root, a depth-first search that adds up
//     the weights of the edges it takes (each node's arriving edge, in
//     the order nodes are reached) and stops once the sum passes the
//     root's target; a floor target keeps the node that passed it, a
//     ceiling one does not.
//
// Semantics are upstream Perfetto's (v58) for the same macros. Node ids
// are any integers (remapped to dense indices inside); rows with a NULL
// id are skipped. Cost: O(edges + nodes) per search, memory O(edges).

#ifndef ZT_SRC_PROCESSOR_SQL_OPERATORS_GRAPH_SEARCH_H_
#define ZT_SRC_PROCESSOR_SQL_OPERATORS_GRAPH_SEARCH_H_

#include <string>

struct sqlite3;

namespace zt {
namespace processor {
namespace sql {

bool RegisterGraphSearch(sqlite3* db, std::string* error);

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_OPERATORS_GRAPH_SEARCH_H_
