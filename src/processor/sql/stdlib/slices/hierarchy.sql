-- Module slices.hierarchy: a slice with its ancestors or descendants, as
-- upstream's module of that name documents it (its macro
-- _slice_remove_nulls_and_reparent is not here yet).

-- The slice itself, then its ancestors (ancestor_slice's rows), with the
-- slice table's usual columns.
CREATE PERFETTO FUNCTION _slice_ancestor_and_self(slice_id LONG)
RETURNS TABLE(
  id LONG, ts TIMESTAMP, dur DURATION, track_id LONG, category STRING, name STRING,
  depth LONG, parent_id LONG, arg_set_id LONG, thread_ts TIMESTAMP, thread_dur LONG
) AS
SELECT id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id, thread_ts,
  thread_dur
FROM slice WHERE id = $slice_id
UNION ALL
SELECT id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id, thread_ts,
  thread_dur
FROM ancestor_slice($slice_id);

-- The slice itself, then its descendants (descendant_slice's rows).
CREATE PERFETTO FUNCTION _slice_descendant_and_self(slice_id LONG)
RETURNS TABLE(
  id LONG, ts TIMESTAMP, dur DURATION, track_id LONG, category STRING, name STRING,
  depth LONG, parent_id LONG, arg_set_id LONG, thread_ts TIMESTAMP, thread_dur LONG
) AS
SELECT id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id, thread_ts,
  thread_dur
FROM slice WHERE id = $slice_id
UNION ALL
SELECT id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id, thread_ts,
  thread_dur
FROM descendant_slice($slice_id);
