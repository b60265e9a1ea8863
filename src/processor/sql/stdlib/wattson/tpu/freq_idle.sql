-- Module wattson.tpu.freq_idle, as upstream's module of that name documents
-- it. zerotrace imports no device or power data (TPU frequencies):
-- `_tpu_freq` is empty, with upstream v58.2's columns, as upstream's are for
-- a trace without such data (Perfetto UI includes this module as it opens any
-- trace).

CREATE PERFETTO VIEW _tpu_freq AS
  SELECT NULL AS ts, NULL AS dur, NULL AS freq, NULL AS cluster
  WHERE 0;
