CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE PRECISION, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in');
CREATE TABLE out (id BIGINT, name BIGINT) WITH (connector = 'files', format = 'json', path = '$DIR/out');
INSERT INTO out SELECT id, name FROM events;
