-- UNION ALL matches columns by position: a type mismatch names the column.
CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE PRECISION, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in');
CREATE TABLE out () WITH (connector = 'console');
INSERT INTO out SELECT id, name FROM events UNION ALL SELECT id, price FROM events;
