-- Only ROW_NUMBER() = 1 is a dedupe; other window functions are refused by name.
CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE PRECISION, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in');
CREATE TABLE out () WITH (connector = 'console');
INSERT INTO out SELECT id FROM events QUALIFY rank() OVER (PARTITION BY id ORDER BY ts) = 1;
