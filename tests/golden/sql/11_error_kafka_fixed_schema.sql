CREATE TABLE ticks (value BIGINT) WITH (connector = 'kafka', bootstrap_servers = 'localhost:9092', subscribe = 'ticks');
SELECT value FROM ticks;
