-- Module android.monitor_contention, as upstream's module of that name
-- documents it. zerotrace imports no Android runtime data (lock contention):
-- `android_monitor_contention` is empty, with upstream v58.2's columns, as
-- upstream's are for a trace without such data (Perfetto UI includes this
-- module as it opens any trace).

CREATE PERFETTO VIEW android_monitor_contention AS
  SELECT NULL AS blocking_method, NULL AS blocked_method, NULL AS short_blocking_method,
    NULL AS short_blocked_method, NULL AS blocking_src, NULL AS blocked_src,
    NULL AS waiter_count, NULL AS blocked_utid, NULL AS blocked_thread_name,
    NULL AS blocking_utid, NULL AS blocking_thread_name, NULL AS blocking_tid, NULL AS upid,
    NULL AS process_name, NULL AS id, NULL AS ts, NULL AS dur, NULL AS monotonic_dur,
    NULL AS track_id, NULL AS is_blocked_thread_main, NULL AS blocked_thread_tid,
    NULL AS is_blocking_thread_main, NULL AS blocking_thread_tid, NULL AS binder_reply_id,
    NULL AS binder_reply_ts, NULL AS binder_reply_tid, NULL AS pid, NULL AS lock_name
  WHERE 0;
