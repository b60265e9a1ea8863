-- Module android.cpu.cpu_per_uid, as upstream's module of that name documents
-- it. zerotrace imports no Android system data (CPU time per uid):
-- `android_cpu_per_uid_track`, `android_cpu_per_uid_counter` are empty, with
-- upstream v58.2's columns, as upstream's are for a trace without such data
-- (Perfetto UI includes this module as it opens any trace).

CREATE PERFETTO VIEW android_cpu_per_uid_track AS
  SELECT NULL AS id, NULL AS uid, NULL AS cluster, NULL AS total_cpu_millis,
    NULL AS package_name
  WHERE 0;

CREATE PERFETTO VIEW android_cpu_per_uid_counter AS
  SELECT NULL AS id, NULL AS ts, NULL AS dur, NULL AS track_id, NULL AS diff_ms,
    NULL AS cpu_ratio
  WHERE 0;
