-- Module sched.states, as upstream's module of that name: the names of
-- the kernel's thread states (the letters of /proc/PID/stat and of
-- ftrace's sched_switch prev_state) for people. zerotrace does not import
-- scheduling data; Perfetto UI calls these functions for any thread slice.

-- The name of a state (its letter, or 'Running'); what is not a known
-- state is returned as it is.
CREATE PERFETTO FUNCTION sched_state_to_human_readable_string(short_name STRING)
RETURNS STRING AS
SELECT CASE $short_name
  WHEN 'Running' THEN 'Running'
  WHEN 'R' THEN 'Runnable'
  WHEN 'R+' THEN 'Runnable (Preempted)'
  WHEN 'S' THEN 'Sleeping'
  WHEN 'D' THEN 'Uninterruptible Sleep'
  WHEN 'T' THEN 'Stopped'
  WHEN 't' THEN 'Traced'
  WHEN 'X' THEN 'Exit (Dead)'
  WHEN 'Z' THEN 'Exit (Zombie)'
  WHEN 'x' THEN 'Task Dead'
  WHEN 'I' THEN 'Idle'
  WHEN 'K' THEN 'Wake Kill'
  WHEN 'W' THEN 'Waking'
  WHEN 'P' THEN 'Parked'
  WHEN 'N' THEN 'No Load'
  ELSE $short_name
END;

-- The same, saying whether an uninterruptible sleep waited on I/O
-- (io_wait 1: ' (IO)', 0: ' (non-IO)', NULL: nothing).
CREATE PERFETTO FUNCTION sched_state_io_to_human_readable_string(sched_state STRING, io_wait BOOL)
RETURNS STRING AS
SELECT sched_state_to_human_readable_string($sched_state) ||
  CASE $io_wait WHEN 1 THEN ' (IO)' WHEN 0 THEN ' (non-IO)' ELSE '' END;
