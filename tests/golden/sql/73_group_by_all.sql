-- GROUP BY ALL groups by every select item that calls no aggregate.
CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE PRECISION, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in');
CREATE TABLE out () WITH (connector = 'console');
INSERT INTO out SELECT name, id % 2 AS parity, count(*) AS n, sum(price) + 1 AS total FROM events GROUP BY ALL;
