-- Module linux.cpu.idle_time_in_state, as upstream's module of that name
-- documents it. zerotrace imports no kernel data (CPU idle states):
-- `linux_per_cpu_idle_time_in_state_counters`,
-- `linux_cpu_idle_time_in_state_counters` are empty, with upstream v58.2's
-- columns, as upstream's are for a trace without such data (Perfetto UI
-- includes this module as it opens any trace).

CREATE PERFETTO VIEW linux_per_cpu_idle_time_in_state_counters AS
  SELECT NULL AS ts, NULL AS machine_id, NULL AS state, NULL AS cpu,
    NULL AS idle_percentage, NULL AS total_residency, NULL AS time_slice
  WHERE 0;

CREATE PERFETTO VIEW linux_cpu_idle_time_in_state_counters AS
  SELECT NULL AS ts, NULL AS machine_id, NULL AS state, NULL AS idle_percentage,
    NULL AS total_residency, NULL AS time_slice
  WHERE 0;
