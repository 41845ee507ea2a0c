-- sluice quick start: clean up order events arriving as JSON files in data/orders/ and write
-- them as Parquet to data/clean/; print the large ones on the console as they arrive.
--   sluice run examples/quickstart.sql --checkpoint data/checkpoints --trigger available-now

SET sluice.sql.streaming.minBatchesToRetain = 20;

CREATE TABLE orders (id BIGINT, customer TEXT, amount DOUBLE PRECISION, placed_at TEXT)
  WITH (connector = 'files', format = 'json', path = 'data/orders', max_files_per_trigger = 10);

CREATE TABLE clean_orders ()
  WITH (connector = 'files', format = 'parquet', path = 'data/clean');

CREATE TABLE big_orders () WITH (connector = 'console', num_rows = 10);

INSERT INTO clean_orders
SELECT id,
       upper(trim(customer)) AS customer,
       CAST(amount AS DECIMAL(12, 2)) AS amount,
       to_timestamp(placed_at, 'yyyy-MM-dd HH:mm:ss') AS placed_at,
       CASE WHEN amount >= 100 THEN 'large' ELSE 'small' END AS size
FROM orders
WHERE amount > 0 AND customer IS NOT NULL;

INSERT INTO big_orders
SELECT id, customer, amount FROM orders WHERE amount >= 100;
