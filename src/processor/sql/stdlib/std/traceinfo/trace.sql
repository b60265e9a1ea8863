-- Module std.traceinfo.trace: what is known of each trace loaded in the
-- session, one row per trace, as upstream's module of that name documents
-- it (written anew for zerotrace's metadata table). zerotrace loads one
-- trace per session: trace 0. Perfetto UI reads it as it opens a trace.

CREATE PERFETTO TABLE _metadata_by_trace(
  trace_id LONG,
  unique_session_name STRING,
  trace_uuid STRING,
  trace_type STRING,
  trace_size_bytes LONG,
  trace_trigger STRING,
  machines STRING
) AS
SELECT
  t.trace_id,
  extract_metadata_for_trace(t.trace_id, 'unique_session_name') AS unique_session_name,
  extract_metadata_for_trace(t.trace_id, 'trace_uuid') AS trace_uuid,
  -- Never NULL: a reader keys its handling of the trace on it.
  coalesce(extract_metadata_for_trace(t.trace_id, 'trace_type'), 'proto') AS trace_type,
  extract_metadata_for_trace(t.trace_id, 'trace_size_bytes') AS trace_size_bytes,
  extract_metadata_for_trace(t.trace_id, 'trace_trigger') AS trace_trigger,
  -- The machines that have a name in the metadata: none here (the host's
  -- rows carry no machine id), so '', as upstream says for such a trace.
  '' AS machines
FROM (SELECT DISTINCT trace_id FROM metadata UNION SELECT 0) AS t;
