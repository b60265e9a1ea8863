-- Module viz.flamegraph, as upstream's module of that name: the steps by
-- which Perfetto UI turns a forest of frames into a drawn flamegraph (its
-- slice flamegraph among others). The UI calls them in this order, each
-- result stored in a table the next reads:
--
--   prepare_filter   the frames, with each filter's verdict on each
--   filter_frames    hidden frames left out, pivots made roots
--   accumulate       each frame's value with all below it
--   downwards_hash,  a fingerprint of each frame's path (from the roots,
--   upwards_hash     and up from the pivots)
--   merge_hashes     frames of the same path merged into one node
--   local_layout     each node's place among its siblings
--   global_layout    each node's place in the whole graph
--
-- The frames: rows (id, parentId, name, value, grouping columns, grouped
-- columns). The walks are _graph_scan! (from the roots down) and
-- _graph_aggregating_scan! (from the leaves up), both in graphs.scan.

INCLUDE PERFETTO MODULE graphs.scan;
INCLUDE PERFETTO MODULE std.metasql.unparenthesize;

-- A grouping column's value as the fingerprint takes it (NULL as 0).
CREATE PERFETTO MACRO _zt_flamegraph_or_zero(col ColumnName)
RETURNS Expr
AS IFNULL($col, 0);

-- A column of the frame aliased `frame` (the steps below use that alias).
CREATE PERFETTO MACRO _zt_flamegraph_of_frame(col ColumnName)
RETURNS Expr
AS frame.$col;

-- Each frame of `tab` with the filters' verdicts: stackBits (the show
-- filters it matches, one bit each; `impossible_stack_bits` when a hide
-- filter matches), showFromFrameBits, showFrame (no hide-frame filter
-- matches), isPivot, and groupingHash (its name and grouping columns).
CREATE PERFETTO MACRO _viz_flamegraph_prepare_filter(
  tab TableOrSubquery,
  show_stack Expr,
  hide_stack Expr,
  show_from_frame Expr,
  hide_frame Expr,
  pivot Expr,
  impossible_stack_bits Expr,
  grouping ColumnNameList
)
RETURNS TableOrSubquery
AS (
  SELECT
    *,
    CASE WHEN ($hide_stack) THEN ($impossible_stack_bits) ELSE ($show_stack) END AS stackBits,
    ($show_from_frame) AS showFromFrameBits,
    NOT ($hide_frame) AS showFrame,
    ($pivot) AS isPivot,
    HASH(
      IFNULL(name, ''),
      __intrinsic_token_apply!(_zt_flamegraph_or_zero, $grouping)
    ) AS groupingHash
  FROM $tab
  ORDER BY id
);

-- From the roots down: a frame is kept when it is shown and the
-- show-from-frame bits gathered on its path are all set (a filter that
-- gives NULL, as on a frame without a name, shows nothing); a frame not kept
-- gives its value to the nearest kept one above it. A pivot frame becomes
-- a root (its parentId NULL; unpivotedParentId keeps the real one).
-- Columns: id, parentId, unpivotedParentId, stackBits, value.
CREATE PERFETTO MACRO _viz_flamegraph_filter_frames(
  source TableOrSubquery,
  show_from_frame_bits Expr
)
RETURNS TableOrSubquery
AS (
  WITH
    _zt_down AS (
      SELECT parentId AS source_node_id, id AS dest_node_id
      FROM $source
      WHERE parentId IS NOT NULL
    ),
    _zt_roots AS (
      SELECT
        id,
        CASE WHEN kept THEN id END AS filteredId,
        NULL AS filteredParentId,
        NULL AS filteredUnpivotedParentId,
        CASE WHEN IFNULL(showFrame, 0) THEN showFromFrameBits ELSE 0 END AS showFromFrameBits,
        CASE WHEN kept THEN stackBits ELSE 0 END AS stackBits
      FROM (
        SELECT *, IFNULL(showFrame AND showFromFrameBits = ($show_from_frame_bits), 0) AS kept
        FROM $source
        WHERE parentId IS NULL
      )
    )
  SELECT
    walked.filteredId AS id,
    -- The kept frame's own row says where it hangs (not whichever row of
    -- the group SQLite would pick for a bare column).
    MAX(CASE WHEN walked.id = walked.filteredId THEN walked.filteredParentId END) AS parentId,
    MAX(CASE WHEN walked.id = walked.filteredId THEN walked.filteredUnpivotedParentId END)
      AS unpivotedParentId,
    MAX(CASE WHEN walked.id = walked.filteredId THEN walked.stackBits END) AS stackBits,
    SUM(frame.value) AS value
  FROM _graph_scan!(
    _zt_down,
    _zt_roots,
    (filteredId, filteredParentId, filteredUnpivotedParentId, showFromFrameBits, stackBits),
    (
      SELECT
        id,
        CASE WHEN kept THEN id ELSE filteredId END AS filteredId,
        CASE
          WHEN NOT kept THEN filteredParentId
          WHEN isPivot THEN NULL
          ELSE filteredId
        END AS filteredParentId,
        CASE WHEN kept THEN filteredId ELSE filteredUnpivotedParentId END
          AS filteredUnpivotedParentId,
        CASE WHEN frameShown THEN pathBits ELSE showFromFrameBits END AS showFromFrameBits,
        CASE WHEN kept THEN stackBits | frameStackBits ELSE stackBits END AS stackBits
      FROM (
        SELECT
          above.*,
          frame.isPivot,
          IFNULL(frame.showFrame, 0) AS frameShown,
          frame.stackBits AS frameStackBits,
          above.showFromFrameBits | frame.showFromFrameBits AS pathBits,
          IFNULL(
            frame.showFrame
              AND (above.showFromFrameBits | frame.showFromFrameBits) = ($show_from_frame_bits),
            0) AS kept
        FROM $table AS above
        JOIN $source AS frame USING (id)
      )
    )
  ) AS walked
  JOIN $source AS frame USING (id)
  WHERE walked.filteredId IS NOT NULL
  GROUP BY walked.filteredId
  ORDER BY walked.filteredId
);

-- From the leaves up: each kept frame's cumulative value, its own (when
-- its stack passes the show filters) plus everything below it. Frames
-- with no leaf below them that passes are left out. Columns: id,
-- cumulativeValue.
CREATE PERFETTO MACRO _viz_flamegraph_accumulate(
  filtered TableOrSubquery,
  showStackBits Expr
)
RETURNS TableOrSubquery
AS (
  WITH
    _zt_up AS (
      SELECT id AS source_node_id, parentId AS dest_node_id
      FROM $filtered
      WHERE parentId IS NOT NULL
    ),
    _zt_leaves AS (
      SELECT leaf.id, leaf.value AS cumulativeValue
      FROM $filtered AS leaf
      WHERE leaf.stackBits = ($showStackBits)
        AND NOT EXISTS (SELECT 1 FROM $filtered AS child WHERE child.parentId = leaf.id)
    )
  SELECT id, cumulativeValue
  FROM _graph_aggregating_scan!(
    _zt_up,
    _zt_leaves,
    (cumulativeValue),
    (
      SELECT
        below.id,
        below.total
          + CASE WHEN frame.stackBits = ($showStackBits) THEN frame.value ELSE 0 END
          AS cumulativeValue
      FROM (SELECT id, SUM(cumulativeValue) AS total FROM $table GROUP BY id) AS below
      JOIN $filtered AS frame USING (id)
    )
  )
  ORDER BY id
);

-- The columns of a fingerprinted frame (the hash steps below): the walk's
-- row `walked`, the frame `frame`, the kept frame `kept`.
CREATE PERFETTO MACRO _zt_flamegraph_hashed_columns(
  grouping ColumnNameList,
  grouped ColumnNameList,
  cumulative Expr
)
RETURNS _ProjectionFragment
AS
  walked.id,
  walked.hash,
  walked.parentHash,
  walked.depth,
  frame.name,
  __intrinsic_token_apply!(_zt_flamegraph_of_frame, $grouping),
  __intrinsic_token_apply!(_zt_flamegraph_of_frame, $grouped),
  kept.value,
  $cumulative AS cumulativeValue;

-- From the pivots up to the roots: each frame on the way gets the pivot's
-- cumulative value and a fingerprint of its path from the pivot (depths
-- -1, -2, ... above it). Columns: id, hash, parentHash, depth, name, the
-- grouping and grouped columns, value, cumulativeValue.
CREATE PERFETTO MACRO _viz_flamegraph_upwards_hash(
  source TableOrSubquery,
  filtered TableOrSubquery,
  accumulated TableOrSubquery,
  grouping ColumnNameList,
  grouped ColumnNameList
)
RETURNS TableOrSubquery
AS (
  WITH
    _zt_up AS (
      SELECT id AS source_node_id, unpivotedParentId AS dest_node_id
      FROM $filtered
      WHERE unpivotedParentId IS NOT NULL
    ),
    _zt_pivots AS (
      SELECT
        kept.id,
        HASH(-1, frame.groupingHash) AS hash,
        NULL AS parentHash,
        -1 AS depth,
        total.cumulativeValue
      FROM $filtered AS kept
      JOIN $source AS frame USING (id)
      JOIN $accumulated AS total USING (id)
      WHERE frame.isPivot AND total.cumulativeValue > 0
    )
  SELECT _zt_flamegraph_hashed_columns!($grouping, $grouped, walked.cumulativeValue)
  FROM _graph_scan!(
    _zt_up,
    _zt_pivots,
    (hash, parentHash, depth, cumulativeValue),
    (
      SELECT
        below.id,
        HASH(below.hash, frame.groupingHash) AS hash,
        below.hash AS parentHash,
        below.depth - 1 AS depth,
        below.cumulativeValue
      FROM $table AS below
      JOIN $source AS frame USING (id)
    )
  ) AS walked
  JOIN $source AS frame USING (id)
  JOIN $filtered AS kept USING (id)
);

-- From the roots down (when `showDownward`): each kept frame with a
-- cumulative value gets a fingerprint of its path from its root (depths
-- 1, 2, ...). Columns: as _viz_flamegraph_upwards_hash's.
CREATE PERFETTO MACRO _viz_flamegraph_downwards_hash(
  source TableOrSubquery,
  filtered TableOrSubquery,
  accumulated TableOrSubquery,
  grouping ColumnNameList,
  grouped ColumnNameList,
  showDownward Expr
)
RETURNS TableOrSubquery
AS (
  WITH
    _zt_down AS (
      SELECT parentId AS source_node_id, id AS dest_node_id
      FROM $filtered
      WHERE parentId IS NOT NULL
    ),
    _zt_roots AS (
      SELECT kept.id, HASH(1, frame.groupingHash) AS hash, NULL AS parentHash, 1 AS depth
      FROM $filtered AS kept
      JOIN $source AS frame USING (id)
      WHERE kept.parentId IS NULL AND ($showDownward)
    )
  SELECT _zt_flamegraph_hashed_columns!($grouping, $grouped, total.cumulativeValue)
  FROM _graph_scan!(
    _zt_down,
    _zt_roots,
    (hash, parentHash, depth),
    (
      SELECT
        above.id,
        HASH(above.hash, frame.groupingHash) AS hash,
        above.hash AS parentHash,
        above.depth + 1 AS depth
      FROM $table AS above
      JOIN $source AS frame USING (id)
    )
  ) AS walked
  JOIN $source AS frame USING (id)
  JOIN $filtered AS kept USING (id)
  JOIN $accumulated AS total USING (id)
  ORDER BY walked.hash
);

-- The frames of one fingerprint merged into one node, numbered from 0 in
-- fingerprint order, its parent the node of its parent's fingerprint;
-- values summed and the grouped columns aggregated by
-- `grouped_agged_exprs`. Columns: id, parentId, depth, name, the grouping
-- columns, the aggregated ones, value, cumulativeValue.
CREATE PERFETTO MACRO _viz_flamegraph_merge_hashes(
  hashed TableOrSubquery,
  grouping ColumnNameList,
  grouped_agged_exprs ColumnNameList
)
RETURNS TableOrSubquery
AS (
  WITH _zt_numbered AS (
    SELECT hash AS numberedHash, row_number() OVER (ORDER BY hash) - 1 AS nodeId
    FROM (SELECT DISTINCT hash FROM $hashed)
  )
  SELECT
    node.nodeId AS id,
    parent.nodeId AS parentId,
    depth,
    name,
    metasql_unparenthesize_exprlist!($grouping),
    metasql_unparenthesize_exprlist!($grouped_agged_exprs),
    SUM(value) AS value,
    SUM(cumulativeValue) AS cumulativeValue
  FROM $hashed AS merged
  JOIN _zt_numbered AS node ON node.numberedHash = merged.hash
  LEFT JOIN _zt_numbered AS parent ON parent.numberedHash = merged.parentHash
  GROUP BY merged.hash
);

-- Each node's span among its siblings (same parent and depth), the
-- largest first, in units of value. Nodes of no value are not drawn.
-- Columns: id, xStart, xEnd.
CREATE PERFETTO MACRO _viz_flamegraph_local_layout(merged TableOrSubquery)
RETURNS TableOrSubquery
AS (
  SELECT id, runningEnd - cumulativeValue AS xStart, runningEnd AS xEnd
  FROM (
    SELECT
      id,
      cumulativeValue,
      SUM(cumulativeValue) OVER (
        PARTITION BY parentId, depth
        ORDER BY cumulativeValue DESC
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS runningEnd
    FROM $merged
    WHERE cumulativeValue > 0
  )
  ORDER BY id
);

-- From the roots down: each node's span offset by its parent's, which
-- the UI draws. Columns: id, parentId (-1 for a root), name ('unknown'
-- when empty), the grouping and grouped columns, selfValue,
-- cumulativeValue, parentCumulativeValue, depth, xStart, xEnd; roots
-- first, then by distance from them, left to right.
CREATE PERFETTO MACRO _viz_flamegraph_global_layout(
  merged TableOrSubquery,
  layout TableOrSubquery,
  grouping ColumnNameList,
  grouped ColumnNameList
)
RETURNS TableOrSubquery
AS (
  WITH
    _zt_down AS (
      SELECT parentId AS source_node_id, id AS dest_node_id
      FROM $merged
      WHERE parentId IS NOT NULL
    ),
    _zt_roots AS (
      SELECT node.id, 1 AS rootDistance, span.xStart, span.xEnd
      FROM $merged AS node
      JOIN $layout AS span USING (id)
      WHERE node.parentId IS NULL
    )
  SELECT
    frame.id,
    IFNULL(frame.parentId, -1) AS parentId,
    CASE WHEN IFNULL(frame.name, '') = '' THEN 'unknown' ELSE frame.name END AS name,
    __intrinsic_token_apply!(_zt_flamegraph_of_frame, $grouping),
    __intrinsic_token_apply!(_zt_flamegraph_of_frame, $grouped),
    frame.value AS selfValue,
    frame.cumulativeValue,
    parent.cumulativeValue AS parentCumulativeValue,
    frame.depth,
    placed.xStart,
    placed.xEnd
  FROM _graph_scan!(
    _zt_down,
    _zt_roots,
    (rootDistance, xStart, xEnd),
    (
      SELECT
        above.id,
        above.rootDistance + 1 AS rootDistance,
        above.xStart + span.xStart AS xStart,
        above.xStart + span.xEnd AS xEnd
      FROM $table AS above
      JOIN $layout AS span USING (id)
    )
  ) AS placed
  JOIN $merged AS frame USING (id)
  LEFT JOIN $merged AS parent ON frame.parentId = parent.id
  ORDER BY placed.rootDistance, placed.xStart
);
