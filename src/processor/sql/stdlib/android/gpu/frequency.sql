-- Module android.gpu.frequency, as upstream's module of that name documents
-- it. zerotrace imports no GPU data (frequency counters):
-- `android_gpu_frequency` is empty, with upstream v58.2's columns, as
-- upstream's are for a trace without such data (Perfetto UI includes this
-- module as it opens any trace).

CREATE PERFETTO VIEW android_gpu_frequency AS
  SELECT NULL AS ts, NULL AS dur, NULL AS gpu_id, NULL AS gpu_freq, NULL AS prev_gpu_freq,
    NULL AS next_gpu_freq
  WHERE 0;
