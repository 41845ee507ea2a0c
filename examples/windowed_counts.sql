-- Event-time windows: page views arriving as JSON files in data/views/ ({"user_id": "ada",
-- "page": "/home", "ts": "2024-05-01 10:00:12"}) counted per page in 5-minute windows, and
-- user sessions that end after 10 minutes without a view. The watermark (the latest event
-- time seen minus 2 minutes) decides when a window is final: in append mode (the default,
-- and the only mode file sinks take) each window is written once, when the watermark passes
-- its end; views more than 2 minutes late for a closed window are dropped.
--   sluice explain examples/windowed_counts.sql
--   sluice run examples/windowed_counts.sql --checkpoint data/checkpoints --trigger available-now
--   sluice batch examples/windowed_counts.sql --print      (every window, over all files now)

CREATE TABLE views (user_id TEXT, page TEXT, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = 'data/views',
        event_time = 'ts', watermark = '2 minutes');

CREATE TABLE page_counts () WITH (connector = 'files', format = 'parquet', path = 'data/page_counts');
CREATE TABLE sessions () WITH (connector = 'files', format = 'parquet', path = 'data/sessions');

INSERT INTO page_counts
SELECT window_start, window_end, page, count(*) AS views, count(DISTINCT user_id) AS visitors
FROM views
WHERE page IS NOT NULL
GROUP BY tumble(ts, INTERVAL '5 minutes'), page;

INSERT INTO sessions
SELECT user_id, window_start, window_end, count(*) AS views, first(page) AS landing, last(page) AS exit_page
FROM views
GROUP BY user_id, session(ts, INTERVAL '10 minutes');
