-- Module android.screenshots, as upstream's module of that name documents
-- it: the slices that carry a screenshot (named Screenshot, of category
-- android_screenshot, with a screenshot.jpg_image argument).

CREATE PERFETTO TABLE android_screenshots(
  id LONG,
  ts TIMESTAMP,
  dur DURATION,
  name STRING
) AS
SELECT id, ts, dur, name
FROM slice
WHERE name = 'Screenshot'
  AND category = 'android_screenshot'
  AND EXISTS (
    SELECT 1 FROM args a
    WHERE a.arg_set_id = slice.arg_set_id AND a.key = 'screenshot.jpg_image');
