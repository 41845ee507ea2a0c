CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE PRECISION, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in');
SELECT date_trunc('hour', ts) AS hour, year(ts) AS y, EXTRACT(minute FROM ts) AS m,
       to_timestamp('2024-01-01 10:00:00', 'yyyy-MM-dd HH:mm:ss') AS fixed
FROM events;
