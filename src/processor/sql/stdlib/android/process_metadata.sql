-- Module android.process_metadata, as upstream's module of that name
-- documents it: one row per process. zerotrace imports no Android package
-- or user data, so the uid, user and package columns are NULL; a process
-- is a kernel task if its pid is 0 or its parent is kthreadd or has pid 0.

CREATE PERFETTO TABLE android_process_metadata(
  upid LONG,
  pid LONG,
  process_name STRING,
  uid LONG,
  user_id LONG,
  user_type STRING,
  shared_uid BOOL,
  package_name STRING,
  version_code LONG,
  debuggable LONG,
  is_kernel_task BOOL
) AS
SELECT
  p.upid,
  p.pid,
  p.name AS process_name,
  NULL AS uid,
  NULL AS user_id,
  NULL AS user_type,
  NULL AS shared_uid,
  NULL AS package_name,
  NULL AS version_code,
  NULL AS debuggable,
  (p.pid = 0 OR parent.name = 'kthreadd' OR parent.pid = 0) IS 1 AS is_kernel_task
FROM process p
LEFT JOIN process parent ON parent.upid = p.parent_upid
ORDER BY p.upid;
