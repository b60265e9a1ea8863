-- Module android.anrs, as upstream's module of that name documents it.
-- zerotrace imports no Android system data (ANRs): `android_anrs` is empty,
-- with upstream v58.2's columns, as upstream's are for a trace without such
-- data (Perfetto UI includes this module as it opens any trace).

CREATE PERFETTO VIEW android_anrs AS
  SELECT NULL AS process_name, NULL AS pid, NULL AS upid, NULL AS error_id, NULL AS ts,
    NULL AS anr_type, NULL AS subject, NULL AS intent, NULL AS component,
    NULL AS timer_delay, NULL AS anr_dur_ms, NULL AS default_anr_dur_ms
  WHERE 0;
