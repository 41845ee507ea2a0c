-- The seeds' exercise into an Iceberg table (run by examples/demo.sh from demo-out/):
-- JSON event files arriving in in-ice/ streamed into lake.db.events, an Apache Iceberg v2 table
-- registered in a SQL catalog on SQLite (Iceberg's JDBC catalog layout, the one PyIceberg's
-- SqlCatalog reads). Each micro-batch becomes one `append` snapshot whose summary carries the
-- query id and the batch id, so a redone batch is never committed twice.
--   sluice run examples/iceberg_events.sql --trigger available-now --checkpoint ckpt-ice
-- Relative paths are relative to the current directory.

SET sluice.sql.catalog.lake.type = 'sql';
SET sluice.sql.catalog.lake.uri = 'sqlite:///lake/catalog.db';   -- three slashes: relative path
SET sluice.sql.catalog.lake.warehouse = 'lake/wh';

CREATE TABLE raw_events (id BIGINT, name TEXT, price DOUBLE PRECISION)
  WITH (connector = 'files', format = 'json', path = 'in-ice', max_files_per_trigger = 2);

CREATE TABLE events () WITH (connector = 'iceberg', catalog = 'lake', table = 'db.events');

INSERT INTO events SELECT id, name, price FROM raw_events;
