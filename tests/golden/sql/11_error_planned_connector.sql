CREATE TABLE ticks (value BIGINT) WITH (connector = 'kafka', rows_per_second = 10);
SELECT value FROM ticks;
