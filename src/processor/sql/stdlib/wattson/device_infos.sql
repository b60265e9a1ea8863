-- Module wattson.device_infos, as upstream's module of that name documents
-- it. zerotrace imports no device or power data (Wattson's devices):
-- `_wattson_device` is empty, with upstream v58.2's columns, as upstream's
-- are for a trace without such data (Perfetto UI includes this module as it
-- opens any trace).

CREATE PERFETTO VIEW _wattson_device AS
  SELECT NULL AS name
  WHERE 0;
