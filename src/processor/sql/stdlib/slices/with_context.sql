-- Module slices.with_context: slices with the thread and process they
-- belong to, as upstream's module of that name documents them (the same
-- views, columns and meanings; written anew for zerotrace's tables).

-- Every slice on a thread's track, with the track's name, the thread and
-- the thread's process (NULL when the process is not known).
CREATE PERFETTO VIEW thread_slice(
  id LONG,
  ts TIMESTAMP,
  dur DURATION,
  category STRING,
  name STRING,
  track_id LONG,
  track_name STRING,
  thread_name STRING,
  utid LONG,
  tid LONG,
  is_main_thread BOOL,
  process_name STRING,
  upid LONG,
  pid LONG,
  depth LONG,
  parent_id LONG,
  arg_set_id LONG,
  thread_ts TIMESTAMP,
  thread_dur LONG
) AS
SELECT
  s.id, s.ts, s.dur, s.category, s.name, s.track_id,
  tt.name AS track_name,
  t.name AS thread_name, t.utid, t.tid, t.is_main_thread,
  p.name AS process_name, p.upid, p.pid,
  s.depth, s.parent_id, s.arg_set_id, s.thread_ts, s.thread_dur
FROM slice AS s
JOIN thread_track AS tt ON s.track_id = tt.id
JOIN thread AS t ON tt.utid = t.utid
LEFT JOIN process AS p ON t.upid = p.upid;

-- Every slice on a process's track (async slices), with the track's name
-- and the process.
CREATE PERFETTO VIEW process_slice(
  id LONG,
  ts TIMESTAMP,
  dur DURATION,
  category STRING,
  name STRING,
  track_id LONG,
  track_name STRING,
  process_name STRING,
  upid LONG,
  pid LONG,
  depth LONG,
  parent_id LONG,
  arg_set_id LONG,
  thread_ts TIMESTAMP,
  thread_dur LONG
) AS
SELECT
  s.id, s.ts, s.dur, s.category, s.name, s.track_id,
  pt.name AS track_name,
  p.name AS process_name, p.upid, p.pid,
  s.depth, s.parent_id, s.arg_set_id, s.thread_ts, s.thread_dur
FROM slice AS s
JOIN process_track AS pt ON s.track_id = pt.id
JOIN process AS p ON pt.upid = p.upid;

-- Both: the slices of thread tracks and of process tracks, the thread
-- columns NULL for the latter.
CREATE PERFETTO VIEW thread_or_process_slice(
  id LONG,
  ts TIMESTAMP,
  dur DURATION,
  category STRING,
  name STRING,
  track_id LONG,
  track_name STRING,
  thread_name STRING,
  utid LONG,
  tid LONG,
  process_name STRING,
  upid LONG,
  pid LONG,
  depth LONG,
  parent_id LONG,
  arg_set_id LONG,
  thread_ts TIMESTAMP,
  thread_dur LONG
) AS
SELECT
  id, ts, dur, category, name, track_id, track_name, thread_name, utid, tid,
  process_name, upid, pid, depth, parent_id, arg_set_id, thread_ts, thread_dur
FROM thread_slice
UNION ALL
SELECT
  id, ts, dur, category, name, track_id, track_name, NULL, NULL, NULL,
  process_name, upid, pid, depth, parent_id, arg_set_id, thread_ts, thread_dur
FROM process_slice;
