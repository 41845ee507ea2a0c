CREATE TABLE rows (a INT, b STRING)
  WITH (connector = 'files', format = 'csv', path = '$DIR/in', header = 'true', sep = ';',
        max_files_per_trigger = 5, latestFirst = true, path_glob_filter = '*.csv');
CREATE TABLE out () WITH (connector = 'files', format = 'csv', path = '$DIR/out', header = true);
INSERT INTO out SELECT a, b FROM rows WHERE a IS NOT NULL;
