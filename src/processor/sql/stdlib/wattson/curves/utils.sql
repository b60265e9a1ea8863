-- Module wattson.curves.utils, as upstream's module of that name documents
-- it. zerotrace imports no device or power data (Wattson's curves):
-- `_gpu_filtered_curves` is empty, with upstream v58.2's columns, as
-- upstream's are for a trace without such data (Perfetto UI includes this
-- module as it opens any trace).

CREATE PERFETTO VIEW _gpu_filtered_curves AS
  SELECT NULL AS freq_khz, NULL AS idle, NULL AS curve_value
  WHERE 0;
