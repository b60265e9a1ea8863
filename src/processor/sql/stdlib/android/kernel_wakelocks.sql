-- Module android.kernel_wakelocks, as upstream's module of that name
-- documents it. zerotrace imports no Android kernel data (wakelocks):
-- `android_kernel_wakelocks` is empty, with upstream v58.2's columns, as
-- upstream's are for a trace without such data (Perfetto UI includes this
-- module as it opens any trace).

CREATE PERFETTO VIEW android_kernel_wakelocks AS
  SELECT NULL AS ts, NULL AS dur, NULL AS awake_dur, NULL AS name, NULL AS type,
    NULL AS held_dur, NULL AS held_ratio
  WHERE 0;
