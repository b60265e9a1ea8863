-- Module viz.summary.track_event, as upstream's module of that name
-- documents it: the tracks of track events (types *_track_event) as a
-- timeline groups and orders them. Siblings are ordered as their parent
-- asks (zerotrace keeps no child_ordering, so by name, as upstream orders
-- them without one); ties by id. Rows come parents first (ORDER BY
-- parent_id, whose tracks are made before their children).

INCLUDE PERFETTO MODULE viz.track_event_callstacks;

CREATE PERFETTO TABLE _track_event_tracks_unordered AS
SELECT
  t.id,
  t.name,
  t.parent_id,
  extract_arg(p.source_arg_set_id, 'child_ordering') AS parent_ordering,
  coalesce(extract_arg(t.source_arg_set_id, 'sibling_order_rank'), 0) AS rank,
  extract_arg(t.source_arg_set_id, 'description') AS description
FROM track t
LEFT JOIN track p ON p.id = t.parent_id AND p.type GLOB '*_track_event'
WHERE t.type GLOB '*_track_event';

CREATE PERFETTO TABLE _min_ts_per_track AS
SELECT track_id AS id, MIN(ts) AS min_ts
FROM counter
WHERE track_id IN (SELECT id FROM _track_event_tracks_unordered)
GROUP BY track_id
UNION ALL
SELECT track_id AS id, MIN(ts) AS min_ts
FROM slice
WHERE track_id IN (SELECT id FROM _track_event_tracks_unordered)
GROUP BY track_id;

CREATE PERFETTO TABLE _track_event_has_children AS
SELECT DISTINCT parent_id AS id
FROM track
WHERE type GLOB '*_track_event' AND parent_id IS NOT NULL;

CREATE PERFETTO TABLE _track_event_tracks_ordered_groups AS
WITH ordered AS (
  SELECT
    u.id,
    row_number() OVER (
      PARTITION BY u.parent_id
      ORDER BY
        iif(u.parent_ordering = 'explicit', u.rank, NULL),
        iif(u.parent_ordering = 'chronological', m.min_ts, NULL),
        iif(u.parent_ordering IS NULL OR u.parent_ordering = 'lexicographic', u.name, NULL),
        u.id) AS order_id
  FROM _track_event_tracks_unordered u
  LEFT JOIN _min_ts_per_track m USING (id)
)
SELECT
  extract_arg(t.dimension_arg_set_id, 'upid') AS upid,
  extract_arg(t.dimension_arg_set_id, 'utid') AS utid,
  t.parent_id,
  t.type GLOB '*counter*' AS is_counter,
  t.type GLOB '*state*' AS is_state,
  t.name,
  MIN(extract_arg(t.source_arg_set_id, 'description')) AS description,
  MIN(ct.unit) AS unit,
  MIN(extract_arg(t.source_arg_set_id, 'builtin_counter_type')) AS builtin_counter_type,
  MIN(extract_arg(t.source_arg_set_id, 'y_axis_share_key')) AS y_axis_share_key,
  MAX(t.id IN (SELECT id FROM _min_ts_per_track)) AS has_data,
  MAX(t.id IN (SELECT id FROM _track_event_has_children)) AS has_children,
  MAX(t.id IN (SELECT track_id FROM _track_event_tracks_with_callstacks)) AS has_callstacks,
  MIN(t.id) AS min_track_id,
  GROUP_CONCAT(t.id) AS track_ids,
  MIN(o.order_id) AS order_id
FROM track t
JOIN ordered o USING (id)
LEFT JOIN counter_track ct USING (id)
GROUP BY t.track_group_id, coalesce(t.track_group_id, t.id)
ORDER BY t.parent_id, order_id;
