CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE PRECISION, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in');
CREATE TABLE cheap () WITH (connector = 'files', format = 'json', path = '$DIR/cheap');
CREATE TABLE shown () WITH (connector = 'console', num_rows = 5, truncate = false);
INSERT INTO cheap SELECT * FROM events WHERE price < 10;
INSERT INTO shown SELECT id, name FROM events;
