-- Module viz.slices, as upstream's module of that name: what Perfetto UI
-- reads when an area of slice tracks is selected (its slice flamegraph)
-- and in its table of slices.

INCLUDE PERFETTO MODULE graphs.scan;
INCLUDE PERFETTO MODULE slices.with_context;

-- Self time up a forest of slices. `nodes`: the slices to consider, rows
-- (id, parent_id, name, dur); `inits`: those of them the walk starts from
-- (the leaves), rows (id, dur). Each slice reached gets its self time:
-- its duration less that of its children among `nodes` (a leaf: all of
-- it), and self_count 1 for a leaf, 0 above. Columns: id, parentId, name,
-- self_dur, self_count, simple_count (1).
CREATE PERFETTO MACRO _viz_slice_ancestor_agg(
  inits TableOrSubquery,
  nodes TableOrSubquery
)
RETURNS TableOrSubquery
AS (
  SELECT
    walked.id,
    node.parent_id AS parentId,
    node.name,
    walked.self_dur,
    walked.self_count,
    1 AS simple_count
  FROM _graph_aggregating_scan!(
    (
      SELECT id AS source_node_id, parent_id AS dest_node_id
      FROM $nodes
      WHERE parent_id IS NOT NULL
    ),
    (SELECT id, dur, dur AS self_dur, 1 AS self_count FROM $inits),
    (dur, self_dur, self_count),
    (
      SELECT
        children.id,
        parent.dur,
        parent.dur - children.total_dur AS self_dur,
        0 AS self_count
      FROM (SELECT id, SUM(dur) AS total_dur FROM $table GROUP BY id) AS children
      JOIN $nodes AS parent USING (id)
    )
  ) AS walked
  JOIN $nodes AS node USING (id)
);

-- Every slice, with its thread and process where it has them (those on
-- other tracks: NULL there, and their track's name): the columns of
-- thread_or_process_slice up to arg_set_id.
CREATE PERFETTO VIEW _viz_slices_for_ui_table AS
SELECT
  id, ts, dur, category, name, track_id, track_name, thread_name, utid, tid,
  process_name, upid, pid, depth, parent_id, arg_set_id
FROM thread_or_process_slice
UNION ALL
SELECT
  s.id, s.ts, s.dur, s.category, s.name, s.track_id, t.name, NULL, NULL, NULL,
  NULL, NULL, NULL, s.depth, s.parent_id, s.arg_set_id
FROM slice AS s
JOIN track AS t ON s.track_id = t.id
WHERE s.track_id NOT IN (SELECT id FROM thread_track)
  AND s.track_id NOT IN (SELECT id FROM process_track);
