-- Module viz.summary.counters: per counter track, its number of values
-- and their range (as upstream's module of that name documents it;
-- written anew).

CREATE PERFETTO TABLE _counter_track_summary(
  id LONG,
  cnt LONG,
  min_value DOUBLE,
  max_value DOUBLE
) AS
SELECT
  track_id AS id,
  COUNT(*) AS cnt,
  MIN(value) AS min_value,
  MAX(value) AS max_value
FROM counter
GROUP BY track_id;
