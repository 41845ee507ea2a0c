-- A table declared in Flink's spelling: quoted option keys, 'filesystem', a dashed option and
-- WATERMARK FOR in the column list (the event_time/watermark options).
CREATE TABLE clicks (
  user_id BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'format' = 'json', 'path' = '$DIR/in', 'max-files-per-trigger' = 2);
CREATE TABLE counts () WITH ('connector' = 'console');
INSERT INTO counts SELECT window_start, count(*) AS n FROM clicks GROUP BY tumble(ts, INTERVAL '10' SECOND);
