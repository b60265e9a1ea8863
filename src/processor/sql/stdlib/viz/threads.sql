-- Module viz.threads, as upstream's module of that name documents it:
-- every thread, and whether it is a kernel thread (a thread of kthreadd or
-- of its children, on a machine known to run Linux), which the timeline
-- groups apart.

INCLUDE PERFETTO MODULE linux.threads;
INCLUDE PERFETTO MODULE viz.summary.trace;

CREATE PERFETTO TABLE _kernel_threads AS
SELECT utid FROM linux_kernel_threads WHERE _is_linux_machine(machine_id);

CREATE PERFETTO TABLE _threads_with_kernel_flag(
  id LONG,
  utid LONG,
  upid LONG,
  tid LONG,
  name STRING,
  is_main_thread LONG,
  is_idle LONG,
  machine_id LONG,
  is_kernel_thread LONG
) AS
SELECT
  t.utid AS id,
  t.utid,
  t.upid,
  t.tid,
  t.name,
  t.is_main_thread,
  t.is_idle,
  t.machine_id,
  t.utid IN (SELECT utid FROM _kernel_threads) AS is_kernel_thread
FROM thread t
ORDER BY t.utid;
