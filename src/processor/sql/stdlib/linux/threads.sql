-- Module linux.threads, as upstream's module of that name documents it:
-- the threads of the kernel's processes (kthreadd, pid 2, and its
-- children), one row per thread.

CREATE PERFETTO TABLE linux_kernel_threads(
  upid LONG,
  utid LONG,
  pid LONG,
  tid LONG,
  process_name STRING,
  thread_name STRING,
  machine_id LONG
) AS
WITH
  kthreadd AS (SELECT upid FROM process WHERE pid = 2),
  kernel_processes AS (
    SELECT upid, pid, name, machine_id FROM process WHERE pid = 2
    UNION
    SELECT upid, pid, name, machine_id FROM process WHERE parent_upid IN (SELECT upid FROM kthreadd)
  )
SELECT p.upid, t.utid, p.pid, t.tid, p.name AS process_name, t.name AS thread_name, p.machine_id
FROM kernel_processes p
JOIN thread t USING (upid);
