-- Session windows per user (append: a session is emitted when the watermark closes it).
CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE PRECISION, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in', event_time = 'ts', watermark = '10 minutes');
SELECT name AS who, window_start, window_end, count(*) AS clicks, max(price) AS top
FROM events
GROUP BY name, session(ts, INTERVAL '5 minutes');
