-- A windowed count with a watermark into a parquet file sink: append mode emits each window once.
CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE PRECISION, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in', event_time = 'ts', watermark = '10 minutes');
CREATE TABLE counts () WITH (connector = 'files', format = 'parquet', path = '$DIR/out');
INSERT INTO counts
SELECT window_start, window_end, count(*) AS n, sum(price) AS total
FROM events
GROUP BY tumble(ts, INTERVAL '10 minutes');
