-- Module android.aflags, as upstream's module of that name: Android's
-- aconfig flags, which zerotrace does not import. `android_aflags` is
-- empty, with upstream v58.2's columns (Perfetto UI's trace info page
-- reads it for any trace).

CREATE PERFETTO VIEW android_aflags AS
  SELECT NULL AS ts, NULL AS package, NULL AS name, NULL AS flag_namespace,
    NULL AS container, NULL AS value, NULL AS staged_value, NULL AS permission,
    NULL AS value_picked_from, NULL AS storage_backend, NULL AS type
  WHERE 0;
