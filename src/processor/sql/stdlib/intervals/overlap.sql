-- Module intervals.overlap: how intervals overlap, and merging the ones
-- that do, as upstream's module of that name documents it.

-- The number of the intervals of `segments` open at each moment, as a
-- counter: a row (ts, value) at every distinct start or end, value being
-- the count from then until the next row. An interval of dur -1 never
-- ends.
CREATE PERFETTO MACRO intervals_overlap_count(
  segments TableOrSubquery,
  ts_column ColumnName,
  dur_column ColumnName
)
RETURNS TableOrSubquery AS
(
  WITH
    _zt_edges AS (
      SELECT $ts_column AS ts, 1 AS delta FROM $segments
      UNION ALL
      SELECT $ts_column + $dur_column AS ts, -1 AS delta FROM $segments
      WHERE $dur_column != -1
    ),
    _zt_steps AS (SELECT ts, SUM(delta) AS delta FROM _zt_edges GROUP BY ts)
  SELECT ts, SUM(delta) OVER (ORDER BY ts ROWS UNBOUNDED PRECEDING) AS value
  FROM _zt_steps
  ORDER BY ts
);

-- intervals_overlap_count! within each group of `group_column`: columns
-- ts, value and the group column, ordered by ts then group.
CREATE PERFETTO MACRO intervals_overlap_count_by_group(
  segments TableOrSubquery,
  ts_column ColumnName,
  dur_column ColumnName,
  group_column ColumnName
)
RETURNS TableOrSubquery AS
(
  WITH
    _zt_edges AS (
      SELECT $ts_column AS ts, 1 AS delta, $group_column AS _zt_group FROM $segments
      UNION ALL
      SELECT $ts_column + $dur_column AS ts, -1 AS delta, $group_column AS _zt_group
      FROM $segments
      WHERE $dur_column != -1
    ),
    _zt_steps AS (
      SELECT ts, _zt_group, SUM(delta) AS delta FROM _zt_edges GROUP BY ts, _zt_group
    )
  SELECT
    ts,
    SUM(delta) OVER (PARTITION BY _zt_group ORDER BY ts ROWS UNBOUNDED PRECEDING) AS value,
    _zt_group AS $group_column
  FROM _zt_steps
  ORDER BY ts, _zt_group
);

-- Whether any two intervals (ts, dur) of the table share time (one
-- starts before another, started earlier, ends): a row has_overlaps, 1 or
-- 0.
CREATE PERFETTO MACRO _intervals_overlap_in_table(intervals TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT EXISTS(
    SELECT 1 FROM (
      SELECT ts, MAX(ts + dur) OVER (
        ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS _zt_reached
      FROM $intervals)
    WHERE ts < _zt_reached) AS has_overlaps
);

-- The fewest intervals covering the same time as those of `intervals`
-- (ts, dur): intervals that overlap, or leave a gap of at most
-- `min_epsilon` between them, become one. Columns ts, dur, in ts order.
CREATE PERFETTO MACRO interval_merge_overlapping(
  intervals TableOrSubquery,
  min_epsilon Expr
)
RETURNS TableOrSubquery AS
(
  WITH
    _zt_reach AS (
      SELECT ts, ts + dur AS end_ts,
        MAX(ts + dur) OVER (
          ORDER BY ts, ts + dur ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reached
      FROM $intervals
    ),
    _zt_runs AS (
      SELECT ts, end_ts,
        SUM(IIF(reached IS NULL OR ts > reached + ($min_epsilon), 1, 0)) OVER (
          ORDER BY ts, end_ts ROWS UNBOUNDED PRECEDING) AS run
      FROM _zt_reach
    )
  SELECT MIN(ts) AS ts, MAX(end_ts) - MIN(ts) AS dur
  FROM _zt_runs
  GROUP BY run
  ORDER BY ts
);

-- interval_merge_overlapping! with no gap allowed (intervals that touch
-- merge), within each partition of the columns `partition_columns` (a
-- list in parentheses; NULL partition values group together). Columns
-- ts, dur, then the partition columns.
CREATE PERFETTO MACRO interval_merge_overlapping_partitioned(
  intervals TableOrSubquery,
  partition_columns ColumnNameList
)
RETURNS TableOrSubquery AS
(
  WITH
    _zt_reach AS (
      SELECT ts, ts + dur AS end_ts, __zt_columns!($partition_columns),
        MAX(ts + dur) OVER (
          PARTITION BY __zt_columns!($partition_columns)
          ORDER BY ts, ts + dur ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reached
      FROM $intervals
    ),
    _zt_runs AS (
      SELECT *,
        SUM(IIF(reached IS NULL OR ts > reached, 1, 0)) OVER (
          PARTITION BY __zt_columns!($partition_columns)
          ORDER BY ts, end_ts ROWS UNBOUNDED PRECEDING) AS run
      FROM _zt_reach
    )
  SELECT MIN(ts) AS ts, MAX(end_ts) - MIN(ts) AS dur, __zt_columns!($partition_columns)
  FROM _zt_runs
  GROUP BY __zt_columns!($partition_columns), run
);
