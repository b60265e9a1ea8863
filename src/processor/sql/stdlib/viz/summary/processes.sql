-- Module viz.summary.processes: per process, what there is to show of it,
-- as upstream's module of that name documents it (written anew).
-- zerotrace imports no scheduling, stack-sample or heap data: their
-- columns are 0; the slices are those of the process's threads' tracks
-- and of its own tracks.

INCLUDE PERFETTO MODULE viz.summary.slices;
INCLUDE PERFETTO MODULE viz.summary.threads;

CREATE PERFETTO TABLE _process_track_summary(
  upid LONG,
  track_id LONG,
  slice_count LONG
) AS
SELECT pt.upid, pt.id AS track_id, s.cnt AS slice_count
FROM process_track pt
JOIN _slice_track_summary s ON s.id = pt.id;

CREATE PERFETTO TABLE _process_available_info_summary(
  upid LONG,
  max_running_dur LONG,
  sum_running_dur LONG,
  running_count LONG,
  thread_slice_count LONG,
  stack_sample_count LONG,
  process_slice_count LONG,
  allocation_count LONG,
  graph_object_count LONG
) AS
WITH
  by_thread AS (
    SELECT t.upid, SUM(s.slice_count) AS n
    FROM _thread_available_info_summary s
    JOIN thread t USING (utid)
    WHERE t.upid IS NOT NULL
    GROUP BY t.upid
  ),
  by_process AS (
    SELECT upid, SUM(slice_count) AS n FROM _process_track_summary GROUP BY upid
  ),
  upids AS (
    SELECT upid FROM by_thread UNION SELECT upid FROM by_process
  )
SELECT
  u.upid,
  0 AS max_running_dur,
  0 AS sum_running_dur,
  0 AS running_count,
  coalesce(bt.n, 0) AS thread_slice_count,
  0 AS stack_sample_count,
  coalesce(bp.n, 0) AS process_slice_count,
  0 AS allocation_count,
  0 AS graph_object_count
FROM upids u
LEFT JOIN by_thread bt USING (upid)
LEFT JOIN by_process bp USING (upid);
