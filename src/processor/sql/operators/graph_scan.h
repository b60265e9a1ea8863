// The scan behind `_graph_scan!` (upstream's graphs.scan module, v58):
// values carried down a directed graph, level by level, each level
// computed by an SQL step query from its parents' values.
//
//   _graph_scan!(graph_table, init_table, (col_a, col_b), step_query)
//     graph_table: rows (source_node_id, dest_node_id).
//     init_table:  rows (id, col_a, col_b): the start nodes' values.
//     step_query:  SQL reading `$table`, whose rows are (id, col_a, col_b):
//                  for each node reached by the last step, one row per
//                  edge that reached it, with the values of the edge's
//                  source; it returns the step's rows (id, col_a, col_b), e.g.
//                  (SELECT id, MAX(depth) + 1 AS depth FROM $table GROUP BY id).
//   The result: the start rows, then each step's, as upstream's: every
//   row a step makes is sent along its node's edges to the next step,
//   until a step is sent none. A node is met once per path to it (twice
//   for a diamond), and a walk that goes round a cycle is an error (after
//   as many steps as there are nodes), as is one whose rows made and
//   waiting pass 32 M values (~2 GB).
//
// `_graph_aggregating_scan!` (same arguments; the step is an aggregation)
// carries values the other way, from the start nodes (leaves) towards
// the nodes with no edge out (roots), each node once, when every node
// below it has given its value: nodes are taken deepest first, a node's
// depth being the longest path from it to a root; the step query gets,
// for each node of a depth, one row per edge into it with the values of
// the edge's source, and returns that node's row, e.g.
//   (SELECT id, SUM(total) AS total FROM $table GROUP BY id).
// The result: the start rows, then each depth's rows, deepest first. A
// cycle among the nodes reached is an error, and so is a step that
// returns a node its `$table` did not hold.
//
// The step query may not have parameters of its own, and `$table` is
// replaced wherever it stands as a word, in a string literal too.
//
// The macro expands to the table function
//   __zt_graph_scan(edges, init, columns, step)
// over packed rows (packed_rows.h), with at most 7 value columns; the
// step query is run once per level on the calling connection, its
// `$table` replaced by the level's rows: all of them, however many edges
// go into one node, bound as one packed BLOB read by __zt_unpack_rows.
// Cost: O(edges + nodes) plus the step queries. Thread-compatible, as the
// connection.

#ifndef ZT_SRC_PROCESSOR_SQL_OPERATORS_GRAPH_SCAN_H_
#define ZT_SRC_PROCESSOR_SQL_OPERATORS_GRAPH_SCAN_H_

#include <string>
#include <vector>

struct sqlite3;

namespace zt {
namespace processor {
namespace sql {

// Registers __zt_graph_scan and __zt_graph_aggregating_scan on `db`
// (which their steps run on).
bool RegisterGraphScan(sqlite3* db, std::string* error);

// The native macro _graph_scan!: args (graph_table, init_table,
// (columns), step_query).
bool ExpandGraphScan(const std::vector<std::string>& args, std::string* body,
                     std::string* error);
// The native macro _graph_aggregating_scan!: the same arguments.
bool ExpandGraphAggregatingScan(const std::vector<std::string>& args, std::string* body,
                                std::string* error);

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_OPERATORS_GRAPH_SCAN_H_
