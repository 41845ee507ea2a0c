CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE PRECISION, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in');
CREATE TABLE out () WITH (connector = 'files', format = 'parquet', path = '$DIR/out', compression = 'zstd');
INSERT INTO out SELECT id, upper(name) AS name, price * 2 AS doubled FROM events WHERE price > 0;
