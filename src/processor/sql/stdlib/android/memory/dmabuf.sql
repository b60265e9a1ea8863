-- Module android.memory.dmabuf, as upstream's module of that name documents
-- it. zerotrace imports no Android memory data (dmabuf):
-- `android_dmabuf_allocs`, `android_memory_cumulative_dmabuf` are empty, with
-- upstream v58.2's columns, as upstream's are for a trace without such data
-- (Perfetto UI includes this module as it opens any trace).

CREATE PERFETTO VIEW android_dmabuf_allocs AS
  SELECT NULL AS ts, NULL AS buf_size, NULL AS inode, NULL AS utid, NULL AS tid,
    NULL AS thread_name, NULL AS upid, NULL AS pid, NULL AS process_name
  WHERE 0;

CREATE PERFETTO VIEW android_memory_cumulative_dmabuf AS
  SELECT NULL AS upid, NULL AS process_name, NULL AS utid, NULL AS thread_name, NULL AS ts,
    NULL AS value
  WHERE 0;
