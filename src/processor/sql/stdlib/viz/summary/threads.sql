-- Module viz.summary.threads: per thread, what there is to show of it, as
-- upstream's module of that name documents it (written anew). zerotrace
-- imports no scheduling data or stack samples: their columns are 0; the
-- slices are those of the thread's tracks.

INCLUDE PERFETTO MODULE viz.summary.slices;

CREATE PERFETTO TABLE _thread_track_summary(
  utid LONG,
  track_id LONG,
  slice_count LONG
) AS
SELECT tt.utid, tt.id AS track_id, s.cnt AS slice_count
FROM thread_track tt
JOIN _slice_track_summary s ON s.id = tt.id;

CREATE PERFETTO TABLE _thread_available_info_summary(
  utid LONG,
  max_running_dur LONG,
  sum_running_dur LONG,
  running_count LONG,
  slice_count LONG,
  stack_sample_count LONG
) AS
SELECT
  utid,
  0 AS max_running_dur,
  0 AS sum_running_dur,
  0 AS running_count,
  SUM(slice_count) AS slice_count,
  0 AS stack_sample_count
FROM _thread_track_summary
GROUP BY utid;
