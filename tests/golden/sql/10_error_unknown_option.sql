CREATE TABLE events (id BIGINT)
  WITH (connector = 'files', format = 'json', max_files_per_trig = 2, path = '$DIR/in');
SELECT id FROM events;
