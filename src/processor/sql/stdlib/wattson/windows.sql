-- Module wattson.windows, as upstream's module of that name documents it:
-- the window a trace marks for Wattson's power estimates, from the first
-- slice named wattson_start to the last named wattson_stop (no row when
-- no slice is named wattson_start).

CREATE PERFETTO VIEW wattson_window_markers(
  ts TIMESTAMP,
  dur DURATION,
  period_id LONG
) AS
SELECT
  start.ts,
  (SELECT MAX(ts) FROM slice WHERE name = 'wattson_stop') - start.ts AS dur,
  1 AS period_id
FROM (SELECT MIN(ts) AS ts FROM slice WHERE name = 'wattson_start') AS start
WHERE start.ts IS NOT NULL;
