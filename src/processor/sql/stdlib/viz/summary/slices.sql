-- Module viz.summary.slices: per track, how many slices it holds and how
-- deep they nest, which a timeline reads to size each track before it
-- draws (as upstream's module of that name documents it; written anew).

CREATE PERFETTO TABLE _slice_track_summary(
  id LONG,
  cnt LONG,
  min_dur LONG,
  max_dur LONG,
  max_depth LONG
) AS
SELECT
  track_id AS id,
  COUNT(*) AS cnt,
  MIN(dur) AS min_dur,
  MAX(dur) AS max_dur,
  MAX(depth) AS max_depth
FROM slice
GROUP BY track_id;
