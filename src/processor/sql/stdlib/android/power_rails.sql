-- Module android.power_rails, as upstream's module of that name documents it.
-- zerotrace imports no Android power data (power rails):
-- `android_power_rails_counters`, `android_power_rails_metadata` are empty,
-- with upstream v58.2's columns, as upstream's are for a trace without such
-- data (Perfetto UI includes this module as it opens any trace).

CREATE PERFETTO VIEW android_power_rails_counters AS
  SELECT NULL AS id, NULL AS ts, NULL AS dur, NULL AS power_rail_name,
    NULL AS raw_power_rail_name, NULL AS energy_since_boot,
    NULL AS energy_since_boot_at_end, NULL AS average_power, NULL AS energy_delta,
    NULL AS track_id, NULL AS value
  WHERE 0;

CREATE PERFETTO VIEW android_power_rails_metadata AS
  SELECT NULL AS power_rail_name, NULL AS raw_power_rail_name, NULL AS friendly_name,
    NULL AS track_id, NULL AS subsystem_name, NULL AS machine_id
  WHERE 0;
