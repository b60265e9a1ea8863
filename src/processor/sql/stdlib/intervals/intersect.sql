-- Module intervals.intersect: intervals shared by tables of intervals, as
-- upstream's module of that name documents it. The intersection runs in
-- C++ (src/processor/sql/operators/interval_intersect.h, which says what
-- overlaps what); these macros name its inputs and columns.

-- The intersection of the tables in `tabs` (1 to 15 tables or subqueries
-- with the columns id, ts, dur, in parentheses), within the partitions
-- given by `agg_columns` (up to 4 columns every table has, in parentheses;
-- () for none). Columns: ts, dur (the span the intervals share), id_0,
-- id_1, ... (each table's interval, in the order of `tabs`), then the
-- partition columns.
CREATE PERFETTO MACRO _interval_intersect(
  tabs _TableNameList,
  agg_columns ColumnNameList
)
RETURNS TableOrSubquery AS
__zt_interval_intersect!($tabs, $agg_columns);

-- The intervals of `t` (columns id, ts, dur) within the one interval (ts,
-- dur): columns id, ts, dur (the part inside).
CREATE PERFETTO MACRO _interval_intersect_single(
  ts Expr,
  dur Expr,
  t TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  SELECT id_0 AS id, ts, dur
  FROM __zt_interval_intersect!(($t, (SELECT 0 AS id, $ts AS ts, $dur AS dur)), ())
);

-- _interval_intersect! of two tables whose id, ts and dur columns have
-- other names: (tab1, its id, ts, dur columns, tab2, its columns,
-- partition columns). The columns of the result are _interval_intersect!'s.
CREATE PERFETTO MACRO _interval_intersect_with_col_names(
  tab1 TableOrSubquery,
  id_col1 ColumnName,
  ts_col1 ColumnName,
  dur_col1 ColumnName,
  tab2 TableOrSubquery,
  id_col2 ColumnName,
  ts_col2 ColumnName,
  dur_col2 ColumnName,
  agg_columns ColumnNameList
)
RETURNS TableOrSubquery AS
__zt_interval_intersect_named!(
  $tab1, $id_col1, $ts_col1, $dur_col1, $tab2, $id_col2, $ts_col2, $dur_col2, $agg_columns);

-- The intervals of one table (id, ts, dur) cut at every start and end of
-- any of them: the distinct start and end timestamps, in order, are the
-- groups (group_id 1, 2, ... in time order; each lasts until the next, the
-- last 0). Columns ts, dur, group_id, id, interval_ends_at_ts: a row of
-- interval_ends_at_ts FALSE for each interval and each group of positive
-- duration it covers (ts and dur the group's), and a row of TRUE at each
-- interval's end (ts its end, dur and group_id those of the group
-- starting there).
CREATE PERFETTO MACRO interval_self_intersect(intervals TableOrSubquery)
RETURNS TableOrSubquery AS
(
  WITH
    _zt_ends AS (
      SELECT _zt_i.id, _zt_i.ts, 1 AS is_start FROM $intervals AS _zt_i
      UNION
      SELECT _zt_i.id, _zt_i.ts + _zt_i.dur, 0 AS is_start FROM $intervals AS _zt_i
    ),
    _zt_groups AS (
      SELECT
        ROW_NUMBER() OVER (ORDER BY ts) AS id,
        ts,
        IFNULL(LEAD(ts) OVER (ORDER BY ts) - ts, 0) AS dur
      FROM (SELECT DISTINCT ts FROM _zt_ends)
    )
  SELECT ii.ts, ii.dur, ii.id_0 AS group_id, ii.id_1 AS id, FALSE AS interval_ends_at_ts
  FROM __zt_interval_intersect!((_zt_groups, $intervals), ()) AS ii
  WHERE ii.dur > 0
  UNION ALL
  SELECT e.ts, g.dur, g.id AS group_id, e.id, TRUE AS interval_ends_at_ts
  FROM _zt_ends AS e
  JOIN _zt_groups AS g USING (ts)
  WHERE e.is_start = 0
);
