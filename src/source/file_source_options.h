// Options of the file source, parsed once from a SourceSpec's case-insensitive option map
// (Spark's names and defaults; see docs/file-source.md). Parsing does not touch the filesystem.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plan/logical_plan.h"
#include "source/source.h"

namespace sluice::source {

/// What to do with a record the format decoder cannot read (Spark's `mode`).
enum class ParseMode { kPermissive, kDropMalformed, kFailFast };

/// Which decoder reads JSON lines (`jsonReader`); both give the same table for every file.
enum class JsonReader { kSimdjson, kArrow };

enum class CleanSourceMode { kOff, kDelete, kArchive };

/// How the records of one file are decoded.
struct FileFormatOptions {
  std::string format;  // json | csv | parquet | text
  ParseMode mode = ParseMode::kPermissive;
  std::string corrupt_column = "_corrupt_record";
  // csv only
  bool header = false;
  char delimiter = ',';
  bool quoting = true;
  char quote = '"';
  bool escaping = false;  // off unless `escape` is given (backslashes stay literal)
  char escape = '\\';
  bool infer_schema = false;  // batch reads without a schema: false = every column a string
  // Spark's ignoreCorruptFiles / ignoreMissingFiles (option, or spark.sql.files.* conf): skip a
  // file that cannot be decoded as its format, or that was deleted after listing, with a warning.
  bool ignore_corrupt_files = false;
  bool ignore_missing_files = false;
  // json only: simdjson decodes the common case and hands other files to Arrow's reader;
  // arrow always uses Arrow's reader (kept for comparison). See docs/file-source.md.
  JsonReader json_reader = JsonReader::kSimdjson;
  // json, inferring a schema only (Spark's options of these names): a field that is only ever
  // null (or an empty array) is left out instead of being a string; every number and boolean is
  // a string; a number with a fraction or exponent is a DECIMAL of its digits, not a DOUBLE.
  bool drop_field_if_all_null = false;
  bool primitives_as_string = false;
  bool prefers_decimal = false;
  // json (simdjson decoder) and parquet (row-group statistics): a predicate pushed by the plan,
  // applied while decoding (source.h ScanFilter); null = none.
  std::shared_ptr<const ScanFilter> filter;
};

/// Which files a source picks up, how many per trigger, and what happens to them afterwards.
struct FileSourceOptions {
  FileFormatOptions format;
  std::optional<int64_t> max_files_per_trigger;
  std::optional<int64_t> max_bytes_per_trigger;
  bool latest_first = false;
  int64_t max_file_age_ms = 7LL * 24 * 3600 * 1000;
  std::string path_glob_filter;  // fnmatch pattern on the file name; empty = all
  bool recursive = false;
  CleanSourceMode clean_source = CleanSourceMode::kOff;
  std::string archive_dir;  // absolute; set when clean_source == kArchive
  bool read_ahead = true;   // decode the next batch's files while this batch runs (readAhead)

  bool has_limit() const { return max_files_per_trigger || max_bytes_per_trigger; }
  /// Spark: latestFirst with a files/bytes limit disables maxFileAge.
  bool max_file_age_enabled() const { return !(latest_first && has_limit()); }
};

/// The formats the file source reads.
bool IsFileFormat(const std::string& format);

/// Parses and validates every option of `spec` (unknown names and bad values are errors naming
/// the option and the value).
Result<FileSourceOptions> ParseFileSourceOptions(const plan::SourceSpec& spec);

}  // namespace sluice::source
