-- Module android.memory.heap_profile.intervals, as upstream's module of that
-- name documents it. zerotrace imports no heap profile data:
-- `_android_heap_profile_intervals` is empty, with upstream v58.2's columns,
-- as upstream's are for a trace without such data (Perfetto UI includes this
-- module as it opens any trace).

CREATE PERFETTO VIEW _android_heap_profile_intervals AS
  SELECT NULL AS id, NULL AS upid, NULL AS heap_name, NULL AS ts, NULL AS dur,
    NULL AS retained, NULL AS allocated, NULL AS delta
  WHERE 0;
