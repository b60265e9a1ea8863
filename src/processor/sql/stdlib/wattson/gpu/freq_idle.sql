-- Module wattson.gpu.freq_idle, as upstream's module of that name documents
-- it. zerotrace imports no GPU data (power states): `_gpu_power_state` is
-- empty, with upstream v58.2's columns, as upstream's are for a trace without
-- such data (Perfetto UI includes this module as it opens any trace).

CREATE PERFETTO VIEW _gpu_power_state AS
  SELECT NULL AS ts, NULL AS dur, NULL AS power_state
  WHERE 0;
