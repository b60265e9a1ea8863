-- Module viz.track_event_callstacks, as upstream's module of that name
-- documents it. zerotrace imports no callstacks of track events:
-- `_track_event_tracks_with_callstacks` is empty, with upstream v58.2's
-- columns, as upstream's are for a trace without such data (Perfetto UI
-- includes this module as it opens any trace).

CREATE PERFETTO VIEW _track_event_tracks_with_callstacks AS
  SELECT NULL AS track_id
  WHERE 0;
