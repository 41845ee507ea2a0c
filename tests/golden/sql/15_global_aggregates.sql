-- Aggregates without GROUP BY: one row; default names are the calls' text.
CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE PRECISION, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in');
SELECT count(*), count(name), count(DISTINCT name), avg(price), min(ts), max(ts) FROM events WHERE price > 0;
