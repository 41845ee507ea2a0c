CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE PRECISION, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in');
SELECT id,
       CASE WHEN price >= 100 THEN 'high' WHEN price >= 10 THEN 'mid' ELSE 'low' END AS band,
       CAST(price AS DECIMAL(10, 2)) AS exact,
       id::TEXT AS id_text
FROM events;
