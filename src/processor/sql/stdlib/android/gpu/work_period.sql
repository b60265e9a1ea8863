-- Module android.gpu.work_period, as upstream's module of that name documents
-- it. zerotrace imports no GPU data (work periods):
-- `android_gpu_work_period_track` is empty, with upstream v58.2's columns, as
-- upstream's are for a trace without such data (Perfetto UI includes this
-- module as it opens any trace).

CREATE PERFETTO VIEW android_gpu_work_period_track AS
  SELECT NULL AS id, NULL AS machine_id, NULL AS uid, NULL AS ugpu, NULL AS gpu_id
  WHERE 0;
