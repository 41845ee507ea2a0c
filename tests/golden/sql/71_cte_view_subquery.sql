-- A view reused by two INSERTs, a CTE over the view and a subquery in FROM: each is inlined.
CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE PRECISION, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in');
CREATE TABLE cheap () WITH (connector = 'files', format = 'json', path = '$DIR/cheap');
CREATE TABLE named () WITH (connector = 'console');
CREATE TEMP VIEW priced AS SELECT id, upper(name) AS name, price FROM events WHERE price IS NOT NULL;
WITH small AS (SELECT id, price FROM priced WHERE price < 10)
INSERT INTO cheap SELECT s.id, s.price * 2 AS doubled FROM small s;
INSERT INTO named SELECT name FROM (SELECT name, id FROM priced) AS p WHERE p.id > 3;
