-- Module graphs.search: reachability in a directed graph given as a table
-- of edges, as upstream's module of that name documents it. The searches
-- run in C++ (src/processor/sql/operators/graph_search.h); the macros
-- hand them their inputs and name the columns.
--
-- graph_table has the columns source_node_id and dest_node_id (integers);
-- start_nodes the column node_id. A node's edges are followed in the
-- order the graph table gives them.

-- Depth-first search from the start nodes. Columns node_id (each node
-- reachable, once, in the order reached) and parent_node_id (the node it
-- was first reached from; NULL for a start node).
CREATE PERFETTO MACRO graph_reachable_dfs(
  graph_table TableOrSubquery,
  start_nodes TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  SELECT node_id, parent_node_id
  FROM __zt_graph_search(
    'dfs',
    (SELECT __zt_pack_rows(_zt_edges.source_node_id, _zt_edges.dest_node_id)
     FROM $graph_table AS _zt_edges),
    (SELECT __zt_pack_rows(_zt_starts.node_id) FROM $start_nodes AS _zt_starts))
);

-- Breadth-first search from the start nodes; the same columns as
-- graph_reachable_dfs!, the nodes in breadth-first order.
CREATE PERFETTO MACRO graph_reachable_bfs(
  graph_table TableOrSubquery,
  start_nodes TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  SELECT node_id, parent_node_id
  FROM __zt_graph_search(
    'bfs',
    (SELECT __zt_pack_rows(_zt_edges.source_node_id, _zt_edges.dest_node_id)
     FROM $graph_table AS _zt_edges),
    (SELECT __zt_pack_rows(_zt_starts.node_id) FROM $start_nodes AS _zt_starts))
);

-- For each node of graph_table (columns node_id, node_parent_id,
-- sort_key), the next node of the same parent in sort_key order
-- (next_node_id; NULL for the last).
CREATE PERFETTO MACRO graph_next_sibling(graph_table TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT
    _zt_nodes.node_id,
    LEAD(_zt_nodes.node_id) OVER (
      PARTITION BY _zt_nodes.node_parent_id ORDER BY _zt_nodes.sort_key) AS next_node_id
  FROM $graph_table AS _zt_nodes
);

-- A depth-first search from each root of root_table (columns
-- root_node_id, root_target_weight) over graph_table's edges (columns
-- source_node_id, dest_node_id, edge_weight), which adds up the weights of
-- the edges it takes and stops once the sum passes the root's target. With
-- is_target_weight_floor true the node that passed the target is kept,
-- with false it is not. Columns root_node_id, node_id, parent_node_id.
CREATE PERFETTO MACRO graph_reachable_weight_bounded_dfs(
  graph_table TableOrSubquery,
  root_table TableOrSubquery,
  is_target_weight_floor Expr
)
RETURNS TableOrSubquery AS
(
  SELECT root_node_id, node_id, parent_node_id
  FROM __zt_graph_weight_bounded_dfs(
    (SELECT __zt_pack_rows(_zt_edges.source_node_id, _zt_edges.dest_node_id,
                           _zt_edges.edge_weight)
     FROM $graph_table AS _zt_edges),
    (SELECT __zt_pack_rows(_zt_roots.root_node_id, _zt_roots.root_target_weight)
     FROM $root_table AS _zt_roots),
    $is_target_weight_floor)
);
