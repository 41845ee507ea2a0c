CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE PRECISION, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in');
SELECT id FROM events
WHERE (name LIKE 'a%' OR name IN ('x', 'y'))
  AND price BETWEEN 1 AND 100
  AND NOT (id = 3)
  AND coalesce(name, '') <> '';
