-- Counts and sums per key: update or complete mode (no watermark, so no append).
CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE PRECISION, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in');
SELECT name, count(*) AS n, sum(price) AS total FROM events GROUP BY name;
