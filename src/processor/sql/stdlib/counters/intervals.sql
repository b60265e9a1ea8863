-- Module counters.intervals: counter samples as intervals of time, as
-- upstream's module of that name documents them.
--
-- counter_leading_intervals!(t): t is a counter-like table (columns id,
-- ts, track_id, value). Each sample's value holds from its ts until the
-- next kept sample of its track ("leading": a value is reached at its ts),
-- the last until the end of the trace. Of a run of equal values on a
-- track, the first and the last sample are kept and the ones between are
-- merged into one row (the first of them), so that the deltas of the
-- values can rebuild the counter. Columns: id, ts, dur, track_id, value,
-- next_value (the following row's value; NULL for the last), delta_value
-- (value minus the preceding row's; NULL for the first). The values are
-- REAL, as a counter's, even where the input's are integers.
CREATE PERFETTO MACRO counter_leading_intervals(counter_table TableOrSubquery)
RETURNS TableOrSubquery AS
(
  WITH _zt_samples AS (
    SELECT id, ts, track_id, CAST(value AS REAL) AS value,
      LAG(value) OVER (PARTITION BY track_id ORDER BY ts, id) AS _prev,
      LAG(value, 2) OVER (PARTITION BY track_id ORDER BY ts, id) AS _prev2,
      LEAD(value) OVER (PARTITION BY track_id ORDER BY ts, id) AS _next
    FROM $counter_table
  ),
  _zt_kept AS (
    SELECT id, ts, track_id, value FROM _zt_samples
    WHERE _prev IS NULL OR _prev != value
      OR _next IS NULL OR _next != value
      OR _prev2 IS NULL OR _prev2 != value
  )
  SELECT id, ts,
    LEAD(ts, 1, MAX(trace_end(), ts)) OVER (PARTITION BY track_id ORDER BY ts, id) - ts AS dur,
    track_id, value,
    LEAD(value) OVER (PARTITION BY track_id ORDER BY ts, id) AS next_value,
    value - LAG(value) OVER (PARTITION BY track_id ORDER BY ts, id) AS delta_value
  FROM _zt_kept
  ORDER BY track_id, ts, id
);
