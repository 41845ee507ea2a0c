-- GROUP BY a select-list alias or position, as in Postgres; first/last in arrival order.
CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE PRECISION, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in');
SELECT upper(name) AS who, first(price) AS f, last(price) AS l FROM events GROUP BY who;
SELECT id % 10 AS bucket, min(name), max(name) FROM events GROUP BY 1;
