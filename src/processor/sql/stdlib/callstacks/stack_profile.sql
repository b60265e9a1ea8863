-- Module callstacks.stack_profile, as upstream's module of that name: the
-- frames of sampled callstacks (stack_profile_callsite and _frame), which
-- zerotrace does not import. Its macro is here, with upstream v58.2's
-- columns, so that readers of callstacks (Perfetto UI's slice details)
-- get none rather than an error.

INCLUDE PERFETTO MODULE graphs.scan;

-- The frames of the callsites in spc_samples (column callsite_id), each
-- with its parent frame: none here.
CREATE PERFETTO MACRO _callstacks_for_stack_profile_samples(spc_samples TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT NULL AS id, NULL AS parent_id, _zt_s.callsite_id AS callsite_id, NULL AS name,
    NULL AS mapping_name, NULL AS source_file, NULL AS line_number, NULL AS inlined,
    NULL AS is_leaf_function_in_callsite_frame
  FROM $spc_samples AS _zt_s
  WHERE 0
);
