-- Module android.startup.startups, as upstream's module of that name
-- documents it. zerotrace imports no Android system data (app startups):
-- `android_startups` is empty, with upstream v58.2's columns, as upstream's
-- are for a trace without such data (Perfetto UI includes this module as it
-- opens any trace).

CREATE PERFETTO VIEW android_startups AS
  SELECT NULL AS startup_id, NULL AS ts, NULL AS ts_end, NULL AS dur, NULL AS package,
    NULL AS startup_type
  WHERE 0;
