-- Module slices.self_dur: each slice's self time, as upstream's module of
-- that name documents it.

-- The summed durations of each slice's direct children.
CREATE PERFETTO TABLE _zt_slice_child_dur AS
SELECT parent_id AS id, SUM(dur) AS child_dur
FROM slice
WHERE parent_id IS NOT NULL
GROUP BY parent_id;

-- Every slice with its self duration: its dur less its direct children's
-- (a slice without children: its dur).
CREATE PERFETTO TABLE slice_self_dur(
  id LONG,
  self_dur DURATION
) AS
SELECT s.id, s.dur - IFNULL(c.child_dur, 0) AS self_dur
FROM slice AS s
LEFT JOIN _zt_slice_child_dur AS c USING (id);
