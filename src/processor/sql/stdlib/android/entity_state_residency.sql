-- Module android.entity_state_residency, as upstream's module of that name
-- documents it. zerotrace imports no Android power data (entity state
-- residency): `android_entity_state_residency` is empty, with upstream
-- v58.2's columns, as upstream's are for a trace without such data (Perfetto
-- UI includes this module as it opens any trace).

CREATE PERFETTO VIEW android_entity_state_residency AS
  SELECT NULL AS id, NULL AS ts, NULL AS dur, NULL AS entity_name, NULL AS state_name,
    NULL AS raw_name, NULL AS state_time_since_boot, NULL AS state_time_since_boot_at_end,
    NULL AS state_time_ratio, NULL AS track_id
  WHERE 0;
