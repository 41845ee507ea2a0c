-- UNION ALL of two streaming file tables with watermarks: one query reading both sources; the
-- union's watermark is the slower input's (Spark's "min" policy).
CREATE TABLE clicks (user_id BIGINT, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in', event_time = 'ts', watermark = '10 seconds');
CREATE TABLE views (uid BIGINT, seen_at TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in', event_time = 'seen_at', watermark = '1 minute');
CREATE TABLE out () WITH (connector = 'files', format = 'parquet', path = '$DIR/out');
INSERT INTO out
SELECT user_id, ts, 'click' AS kind FROM clicks
UNION ALL
SELECT uid, seen_at, 'view' FROM views;
