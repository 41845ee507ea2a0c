# The library sources (relative to src/) the libFuzzer targets of tests/fuzz reach: the fuzz build
# (cmake/Fuzz.cmake) compiles only these. The ordinary build keeps them in unity batches of their
# own (cmake/Unity.cmake), so ctest fuzz/sources (scripts/check_fuzz_sources.py) can tell from its
# objects whether a target reaches a source this list lacks.
set(SLUICE_FUZZ_SOURCES
  checkpoint/checkpoint.cc checkpoint/compaction_writer.cc checkpoint/file_sink_log.cc checkpoint/metadata_log.cc
  iceberg/avro.cc iceberg/data_file.cc iceberg/manifest.cc iceberg/partition_spec.cc iceberg/partition_transform.cc
  iceberg/location.cc iceberg/schema.cc
  io/direct_writer.cc io/local_file_system.cc io/paths.cc io/spare_files.cc io/uuid.cc
  plan/time_patterns.cc plan/types.cc
  source/csv_field_text.cc source/file_readers.cc source/file_record_readers.cc source/flat_column_builder.cc
  source/json_line_documents.cc source/json_line_shape.cc source/json_simdjson_reader.cc
  source/json_string_values.cc source/json_value_builder.cc source/malformed_lines.cc source/parquet_pruning.cc
  sql/sql_flink_options.cc sql/sql_parse.cc sql/sql_script.cc sql/sql_spark_spelling.cc sql/sql_text.cc
  sql/sql_types.cc
  util/calendar.cc util/compute_init.cc util/log.cc util/numbers.cc util/parquet_dictionary.cc util/parquet_write.cc
  util/strings.cc
  util/timestamp_text.cc
  util/utf8_text.cc
  util/value_text.cc)
