-- Expressions over aggregates and grouping columns, HAVING on an aggregate not selected.
CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE PRECISION, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in');
SELECT name, sum(price) / count(*) AS mean, max(price) - min(price) AS spread, concat(name, '!') AS shout
FROM events
GROUP BY name
HAVING avg(price) > 10;
