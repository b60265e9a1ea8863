-- Module slices.flow: following flows across many slices at once, as
-- upstream's module of that name documents it.

INCLUDE PERFETTO MODULE graphs.search;

-- Every slice reachable through flows (flow.slice_out to flow.slice_in,
-- any number of steps) from the slices of source_table (column id), as a
-- depth-first search from each of them: columns root_node_id (the source
-- slice; once for each flow that leaves it), node_id (a slice reached,
-- the source itself first) and parent_node_id (the slice it was reached
-- from). A faster FOLLOWING_FLOW for a set of slices.
CREATE PERFETTO MACRO _slice_following_flow(source_table TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT *
  FROM graph_reachable_weight_bounded_dfs!(
    (SELECT slice_out AS source_node_id, slice_in AS dest_node_id, 0 AS edge_weight FROM flow),
    (SELECT _zt_out.slice_out AS root_node_id, 1 AS root_target_weight
     FROM flow AS _zt_out
     JOIN (SELECT _zt_src.id FROM $source_table AS _zt_src) AS _zt_from
       ON _zt_out.slice_out = _zt_from.id),
    TRUE)
);
