-- Module sched.time_in_state, as upstream's module of that name: how long
-- a thread spent in each scheduling state over an interval. zerotrace
-- does not import scheduling data, so the function's table is empty, with
-- upstream v58.2's columns (Perfetto UI asks it for any thread slice).

CREATE PERFETTO FUNCTION sched_time_in_state_and_cpu_for_thread_in_interval(
  ts TIMESTAMP, dur DURATION, utid LONG)
RETURNS TABLE(state STRING, io_wait BOOL, cpu LONG, blocked_function LONG, dur DURATION) AS
SELECT NULL AS state, NULL AS io_wait, NULL AS cpu, NULL AS blocked_function, NULL AS dur
WHERE 0;
