-- Sliding windows: Flink's HOP(time, slide, size) is window(time, size, slide).
CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE PRECISION, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in', event_time = 'ts', watermark = '10 minutes');
SELECT name, window_start, window_end, count(*) AS n
FROM events
GROUP BY name, hop(ts, INTERVAL '5' MINUTE, INTERVAL '15 minutes')
HAVING count(*) > 1 AND window_end > TIMESTAMP '2024-01-01 00:00:00';
