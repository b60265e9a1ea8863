-- Module zt.absent_tables: upstream's tables of data no importer of
-- zerotrace reads (kernel scheduling and CPUs, GPUs, Android logs and
-- packages, heap and CPU profiles, memory snapshots, video frames),
-- created empty with upstream v58.2's columns, as upstream's own are for a
-- trace without such data. `ztrace serve` includes it in every session:
-- Perfetto UI reads these tables as it opens any trace and stops at the
-- first that is missing. Elsewhere a query naming one gets an error saying
-- which data it needs (missing_name_hints.h); INCLUDE this module to get
-- empty tables instead. The packets of such data that a trace holds are
-- counted by the stat tokenizer_skipped_packets.

CREATE VIEW cpu AS
  SELECT NULL AS id, NULL AS ucpu, NULL AS cpu, NULL AS cluster_id, NULL AS processor,
    NULL AS machine_id, NULL AS capacity, NULL AS arg_set_id
  WHERE 0;

CREATE VIEW sched AS
  SELECT NULL AS id, NULL AS ts, NULL AS dur, NULL AS cpu, NULL AS utid, NULL AS end_state,
    NULL AS priority, NULL AS ucpu, NULL AS ts_end
  WHERE 0;

CREATE VIEW sched_slice AS
  SELECT NULL AS id, NULL AS ts, NULL AS dur, NULL AS cpu, NULL AS utid, NULL AS end_state,
    NULL AS priority, NULL AS ucpu
  WHERE 0;

CREATE VIEW thread_state AS
  SELECT NULL AS id, NULL AS ts, NULL AS dur, NULL AS cpu, NULL AS utid, NULL AS state,
    NULL AS io_wait, NULL AS blocked_function, NULL AS waker_utid, NULL AS waker_id,
    NULL AS irq_context, NULL AS ucpu
  WHERE 0;

CREATE VIEW gpu AS
  SELECT NULL AS id, NULL AS ugpu, NULL AS gpu, NULL AS name, NULL AS vendor, NULL AS model,
    NULL AS architecture, NULL AS uuid, NULL AS pci_bdf, NULL AS machine_id,
    NULL AS arg_set_id
  WHERE 0;

CREATE VIEW cpu_counter_track AS
  SELECT NULL AS id, NULL AS name, NULL AS type, NULL AS parent_id,
    NULL AS source_arg_set_id, NULL AS machine_id, NULL AS unit, NULL AS description,
    NULL AS cpu
  WHERE 0;

CREATE VIEW gpu_counter_track AS
  SELECT NULL AS id, NULL AS name, NULL AS type, NULL AS parent_id,
    NULL AS source_arg_set_id, NULL AS machine_id, NULL AS unit, NULL AS description,
    NULL AS ugpu, NULL AS gpu_id
  WHERE 0;

CREATE VIEW perf_counter_track AS
  SELECT NULL AS id, NULL AS name, NULL AS type, NULL AS parent_id,
    NULL AS source_arg_set_id, NULL AS machine_id, NULL AS unit, NULL AS description,
    NULL AS perf_session_id, NULL AS cpu, NULL AS is_timebase
  WHERE 0;

CREATE VIEW process_state_track AS
  SELECT NULL AS id, NULL AS name, NULL AS type, NULL AS parent_id,
    NULL AS source_arg_set_id, NULL AS machine_id, NULL AS upid
  WHERE 0;

CREATE VIEW state AS
  SELECT NULL AS id, NULL AS ts, NULL AS dur, NULL AS track_id, NULL AS category,
    NULL AS value, NULL AS arg_set_id
  WHERE 0;

CREATE VIEW package_list AS
  SELECT NULL AS id, NULL AS package_name, NULL AS uid, NULL AS debuggable,
    NULL AS profileable_from_shell, NULL AS version_code
  WHERE 0;

CREATE VIEW android_logs AS
  SELECT NULL AS id, NULL AS ts, NULL AS utid, NULL AS prio, NULL AS tag, NULL AS msg
  WHERE 0;

CREATE VIEW heap_graph AS
  SELECT NULL AS id, NULL AS ts, NULL AS upid, NULL AS dump_reason, NULL AS heap_size
  WHERE 0;

CREATE VIEW heap_graph_object AS
  SELECT NULL AS id, NULL AS upid, NULL AS graph_sample_ts, NULL AS self_size,
    NULL AS native_size, NULL AS reference_set_id, NULL AS reachable, NULL AS heap_type,
    NULL AS type_id, NULL AS root_type, NULL AS root_distance, NULL AS object_data_id
  WHERE 0;

CREATE VIEW heap_profile_allocation AS
  SELECT NULL AS id, NULL AS ts, NULL AS upid, NULL AS heap_name, NULL AS callsite_id,
    NULL AS count, NULL AS size
  WHERE 0;

CREATE VIEW perf_sample AS
  SELECT NULL AS id, NULL AS ts, NULL AS utid, NULL AS cpu, NULL AS cpu_mode,
    NULL AS callsite_id, NULL AS unwind_error, NULL AS perf_session_id
  WHERE 0;

CREATE VIEW profiler_smaps AS
  SELECT NULL AS id, NULL AS upid, NULL AS ts, NULL AS path, NULL AS path_trimmed,
    NULL AS aggregate_count, NULL AS is_deleted, NULL AS size_kb, NULL AS private_dirty_kb,
    NULL AS swap_kb, NULL AS file_name, NULL AS start_address, NULL AS module_timestamp,
    NULL AS module_debugid, NULL AS module_debug_path, NULL AS protection_flags,
    NULL AS private_clean_resident_kb, NULL AS shared_dirty_resident_kb,
    NULL AS shared_clean_resident_kb, NULL AS locked_kb, NULL AS proportional_resident_kb,
    NULL AS rss_kb, NULL AS anonymous_kb, NULL AS pss_dirty_kb, NULL AS swap_pss_kb
  WHERE 0;

CREATE VIEW process_memory_mappings AS
  SELECT NULL AS id, NULL AS upid, NULL AS ts, NULL AS path, NULL AS aggregate_count,
    NULL AS is_deleted, NULL AS size_kb, NULL AS rss_kb, NULL AS anonymous_kb,
    NULL AS swap_kb, NULL AS shared_clean_kb, NULL AS shared_dirty_kb,
    NULL AS private_clean_kb, NULL AS private_dirty_kb, NULL AS locked_kb, NULL AS pss_kb,
    NULL AS pss_dirty_kb, NULL AS swap_pss_kb
  WHERE 0;

CREATE VIEW stack_sample AS
  SELECT NULL AS id, NULL AS ts, NULL AS source, NULL AS task_context_id,
    NULL AS execution_context_id, NULL AS callsite_id, NULL AS session_id
  WHERE 0;

CREATE VIEW stack_sample_counter_track AS
  SELECT NULL AS id, NULL AS name, NULL AS type, NULL AS parent_id,
    NULL AS source_arg_set_id, NULL AS machine_id, NULL AS unit, NULL AS description,
    NULL AS session_id, NULL AS cpu, NULL AS is_timebase
  WHERE 0;

CREATE VIEW stack_sample_session AS
  SELECT NULL AS id, NULL AS source, NULL AS timebase_unit, NULL AS cmdline
  WHERE 0;

CREATE VIEW stack_sample_task_context AS
  SELECT NULL AS id, NULL AS upid, NULL AS utid, NULL AS async_context_id
  WHERE 0;

CREATE VIEW process_memory_snapshot AS
  SELECT NULL AS id, NULL AS snapshot_id, NULL AS upid
  WHERE 0;

CREATE VIEW memory_snapshot AS
  SELECT NULL AS id, NULL AS timestamp, NULL AS track_id, NULL AS detail_level
  WHERE 0;

CREATE VIEW memory_snapshot_node AS
  SELECT NULL AS id, NULL AS process_snapshot_id, NULL AS parent_node_id, NULL AS path,
    NULL AS size, NULL AS effective_size, NULL AS arg_set_id
  WHERE 0;

CREATE VIEW __intrinsic_aggregate_profile AS
  SELECT NULL AS id, NULL AS scope, NULL AS name, NULL AS sample_type_type,
    NULL AS sample_type_unit
  WHERE 0;

CREATE VIEW __intrinsic_video_frames AS
  SELECT NULL AS id, NULL AS ts, NULL AS display_id, NULL AS display_name,
    NULL AS codec_string, NULL AS frame_number, NULL AS codec, NULL AS is_key_frame,
    NULL AS pts_us, NULL AS is_config
  WHERE 0;

CREATE VIEW __intrinsic_trace_diagnostics AS
  SELECT NULL AS id, NULL AS key, NULL AS title, NULL AS description, NULL AS remediation,
    NULL AS confidence, NULL AS trace_id
  WHERE 0;

CREATE VIEW __intrinsic_track_event_callstacks AS
  SELECT NULL AS id, NULL AS slice_id, NULL AS track_id, NULL AS callsite_id,
    NULL AS end_callsite_id, NULL AS weight
  WHERE 0;

-- The standard library's documentation, which upstream's processor serves
-- from its modules' comments: empty here (Perfetto UI reads it once).
CREATE VIEW __intrinsic_stdlib_objects AS
  SELECT NULL AS id, NULL AS package, NULL AS module, NULL AS name, NULL AS qualified_name,
    NULL AS object_type, NULL AS exposed, NULL AS short_description, NULL AS summary,
    NULL AS description, NULL AS return_type, NULL AS return_description, NULL AS args,
    NULL AS cols
  WHERE 0;

-- The files the session loaded: the one trace (not a container), as
-- upstream lists it.
CREATE VIEW __intrinsic_trace_file AS
  SELECT 0 AS id, NULL AS parent_id, NULL AS name,
    coalesce(extract_metadata('trace_size_bytes'), 0) AS size,
    coalesce(extract_metadata('trace_type'), 'proto') AS trace_type, 0 AS processing_order,
    0 AS is_container;

CREATE VIEW gpu_counter_group AS
  SELECT NULL AS id, NULL AS group_id, NULL AS track_id, NULL AS name, NULL AS description
  WHERE 0;

CREATE VIEW android_game_intervention_list AS
  SELECT NULL AS id, NULL AS package_name, NULL AS uid, NULL AS current_mode,
    NULL AS standard_mode_supported, NULL AS standard_mode_downscale,
    NULL AS standard_mode_use_angle, NULL AS standard_mode_fps, NULL AS perf_mode_supported,
    NULL AS perf_mode_downscale, NULL AS perf_mode_use_angle, NULL AS perf_mode_fps,
    NULL AS battery_mode_supported, NULL AS battery_mode_downscale,
    NULL AS battery_mode_use_angle, NULL AS battery_mode_fps
  WHERE 0;

-- Upstream's log of what its importers met, row by row; zerotrace counts
-- such events in `stats` and marks losses in its own tables.
CREATE VIEW _trace_import_logs AS
  SELECT NULL AS id, NULL AS trace_id, NULL AS ts, NULL AS byte_offset, NULL AS severity,
    NULL AS name, NULL AS arg_set_id
  WHERE 0;
