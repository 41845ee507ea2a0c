CREATE TABLE events (id BIGINT, ts TEXT)
  WITH (connector = 'files', format = 'json', path = '$DIR/in', event_time = 'ts', watermark = '10 seconds');
SELECT id FROM events;
