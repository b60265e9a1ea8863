-- Module android.memory.heap_graph.oome, as upstream's module of that name
-- documents it. zerotrace imports no heap profile data (Java heap graphs):
-- `android_heap_graph_java_oome_details` is empty, with upstream v58.2's
-- columns, as upstream's are for a trace without such data (Perfetto UI
-- includes this module as it opens any trace).

CREATE PERFETTO VIEW android_heap_graph_java_oome_details AS
  SELECT NULL AS id, NULL AS heap_graph_id, NULL AS allocation_size_bytes,
    NULL AS total_bytes_free, NULL AS free_bytes_until_oom, NULL AS error_msg
  WHERE 0;
