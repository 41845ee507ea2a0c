#include "source/file_source_options.h"

#include <algorithm>

#include "io/file_system.h"
#include "source/source_registry.h"
#include "util/duration.h"
#include "util/numbers.h"
#include "util/strings.h"

namespace sluice::source {
namespace {

using util::ToLower;
using util::Trim;

const std::vector<std::string> kCommonOptions = {
    "maxFilesPerTrigger", "maxBytesPerTrigger", "latestFirst",      "maxFileAge",
    "pathGlobFilter",     "recursiveFileLookup", "cleanSource",     "sourceArchiveDir",
    "ignoreCorruptFiles", "ignoreMissingFiles", "readAhead"};
const std::vector<std::string> kRecordOptions = {"mode", "columnNameOfCorruptRecord"};
const std::vector<std::string> kJsonOptions = {"jsonReader", "dropFieldIfAllNull", "primitivesAsString", "prefersDecimal"};
const std::vector<std::string> kCsvOptions = {"header", "sep", "delimiter", "quote", "escape", "inferSchema"};

Status BadValue(const std::string& option, const std::string& value, const std::string& expected) {
  return Status::Invalid("Invalid value '", value, "' for option '", option, "', ", expected);
}

Result<bool> ParseBool(const plan::Options& opts, const std::string& name, bool def) {
  auto v = opts.Get(name);
  if (!v) return def;
  std::string l = ToLower(Trim(*v));
  if (l == "true") return true;
  if (l == "false") return false;
  return BadValue(name, *v, "must be true or false");
}

Result<int64_t> ParsePositive(const std::string& name, const std::string& value) {
  auto v = util::ParseInt64(Trim(value), name);
  if (!v.ok() || *v <= 0) return BadValue(name, value, "must be a positive integer");
  return *v;
}

// "1048576", "10m", "1g", "512kb" -> bytes.
Result<int64_t> ParseBytes(const std::string& name, const std::string& value) {
  static const std::vector<util::ScaleUnit> kUnits = {
      {{"", "b"}, 1}, {{"k", "kb"}, 1LL << 10}, {{"m", "mb"}, 1LL << 20}, {{"g", "gb"}, 1LL << 30}};
  constexpr const char* kExpected = "a positive number of bytes (e.g. 1048576, 512k, 10m, 1g)";
  ARROW_ASSIGN_OR_RAISE(int64_t bytes, util::ParseScaled(value, kUnits, name, kExpected));
  if (bytes <= 0) return BadValue(name, value, std::string("must be ") + kExpected);
  return bytes;
}

// A single character; "\t" and friends as two-character escapes; "" only when `allow_empty`.
Result<std::optional<char>> ParseChar(const std::string& name, const std::string& value, bool allow_empty) {
  if (value.empty()) {
    if (allow_empty) return std::optional<char>{};
    return BadValue(name, value, "must be a single character");
  }
  if (value.size() == 1) return std::optional<char>(value[0]);
  if (value == "\\t") return std::optional<char>('\t');
  if (value == "\\\\") return std::optional<char>('\\');
  if (value == "\\u0000") return std::optional<char>{};
  return BadValue(name, value, "must be a single character");
}

Status ParseFormatOptions(const plan::Options& opts, FileFormatOptions* out) {
  ARROW_ASSIGN_OR_RAISE(out->ignore_corrupt_files, ParseBool(opts, "ignoreCorruptFiles", false));
  ARROW_ASSIGN_OR_RAISE(out->ignore_missing_files, ParseBool(opts, "ignoreMissingFiles", false));
  if (auto mode = opts.Get("mode")) {
    std::string m = ToLower(Trim(*mode));
    if (m == "permissive") {
      out->mode = ParseMode::kPermissive;
    } else if (m == "dropmalformed") {
      out->mode = ParseMode::kDropMalformed;
    } else if (m == "failfast") {
      out->mode = ParseMode::kFailFast;
    } else {
      return BadValue("mode", *mode, "must be one of PERMISSIVE, DROPMALFORMED, FAILFAST");
    }
  }
  if (auto c = opts.Get("columnNameOfCorruptRecord")) {
    if (c->empty()) return BadValue("columnNameOfCorruptRecord", *c, "must not be empty");
    out->corrupt_column = *c;
  }
  if (out->format == "json") {
    if (auto r = opts.Get("jsonReader")) {
      std::string v = ToLower(Trim(*r));
      if (v == "simdjson") {
        out->json_reader = JsonReader::kSimdjson;
      } else if (v == "arrow") {
        out->json_reader = JsonReader::kArrow;
      } else {
        return BadValue("jsonReader", *r, "must be simdjson or arrow");
      }
    }
    ARROW_ASSIGN_OR_RAISE(out->drop_field_if_all_null, ParseBool(opts, "dropFieldIfAllNull", false));
    ARROW_ASSIGN_OR_RAISE(out->primitives_as_string, ParseBool(opts, "primitivesAsString", false));
    ARROW_ASSIGN_OR_RAISE(out->prefers_decimal, ParseBool(opts, "prefersDecimal", false));
  }
  if (out->format != "csv") return Status::OK();
  ARROW_ASSIGN_OR_RAISE(out->header, ParseBool(opts, "header", false));
  ARROW_ASSIGN_OR_RAISE(out->infer_schema, ParseBool(opts, "inferSchema", false));
  auto sep = opts.Get("sep");
  auto delimiter = opts.Get("delimiter");
  if (sep && delimiter && *sep != *delimiter) {
    return Status::Invalid("Options 'sep' ('", *sep, "') and 'delimiter' ('", *delimiter,
                           "') are the same option and disagree; set only one");
  }
  if (sep || delimiter) {
    ARROW_ASSIGN_OR_RAISE(auto d, ParseChar(sep ? "sep" : "delimiter", sep ? *sep : *delimiter, false));
    out->delimiter = *d;
  }
  if (auto q = opts.Get("quote")) {
    ARROW_ASSIGN_OR_RAISE(auto c, ParseChar("quote", *q, /*allow_empty=*/true));
    out->quoting = c.has_value();
    if (c) out->quote = *c;
  }
  if (auto e = opts.Get("escape")) {
    ARROW_ASSIGN_OR_RAISE(auto c, ParseChar("escape", *e, /*allow_empty=*/true));
    out->escaping = c.has_value();
    if (c) out->escape = *c;
  }
  return Status::OK();
}

}  // namespace

bool IsFileFormat(const std::string& format) {
  const SourceKind* kind = FindSourceKind(format);
  return kind && kind->file_format();
}

Result<FileSourceOptions> ParseFileSourceOptions(const plan::SourceSpec& spec) {
  if (!IsFileFormat(spec.format)) {
    return Status::Invalid("Unsupported file source format '", spec.format, "'; supported formats: ",
                           SourceKindList(/*files_only=*/true));
  }
  const plan::Options& opts = spec.options;
  std::vector<std::string> valid = kCommonOptions;
  if (spec.format == "json" || spec.format == "csv") valid.insert(valid.end(), kRecordOptions.begin(), kRecordOptions.end());
  if (spec.format == "json") valid.insert(valid.end(), kJsonOptions.begin(), kJsonOptions.end());
  if (spec.format == "csv") valid.insert(valid.end(), kCsvOptions.begin(), kCsvOptions.end());
  ARROW_RETURN_NOT_OK(opts.CheckKnown(valid, spec.format + " file source"));

  FileSourceOptions out;
  out.format.format = spec.format;
  ARROW_RETURN_NOT_OK(ParseFormatOptions(opts, &out.format));
  if (auto v = opts.Get("maxFilesPerTrigger")) {
    ARROW_ASSIGN_OR_RAISE(out.max_files_per_trigger, ParsePositive("maxFilesPerTrigger", *v));
  }
  if (auto v = opts.Get("maxBytesPerTrigger")) {
    ARROW_ASSIGN_OR_RAISE(out.max_bytes_per_trigger, ParseBytes("maxBytesPerTrigger", *v));
  }
  ARROW_ASSIGN_OR_RAISE(out.latest_first, ParseBool(opts, "latestFirst", false));
  ARROW_ASSIGN_OR_RAISE(out.recursive, ParseBool(opts, "recursiveFileLookup", false));
  ARROW_ASSIGN_OR_RAISE(out.read_ahead, ParseBool(opts, "readAhead", true));
  if (auto v = opts.Get("maxFileAge")) {
    ARROW_ASSIGN_OR_RAISE(out.max_file_age_ms, util::ParseDurationMs("maxFileAge", *v));
  }
  out.path_glob_filter = opts.GetOr("pathGlobFilter", "");

  std::string clean = ToLower(Trim(opts.GetOr("cleanSource", "off")));
  if (clean == "off") {
    out.clean_source = CleanSourceMode::kOff;
  } else if (clean == "delete") {
    out.clean_source = CleanSourceMode::kDelete;
  } else if (clean == "archive") {
    out.clean_source = CleanSourceMode::kArchive;
  } else {
    return BadValue("cleanSource", opts.GetOr("cleanSource", ""), "must be one of off, delete, archive");
  }
  if (out.clean_source == CleanSourceMode::kArchive) {
    auto dir = opts.Get("sourceArchiveDir");
    if (!dir || Trim(*dir).empty()) return Status::Invalid("Archive mode must be used with 'sourceArchiveDir' option.");
    out.archive_dir = io::AbsolutePath(io::UriToPath(*dir));
    std::string in = io::AbsolutePath(io::UriToPath(spec.path));
    if (out.archive_dir == in || out.archive_dir.rfind(in + "/", 0) == 0) {
      return Status::Invalid("Option 'sourceArchiveDir' ('", *dir, "') must not be inside the source path '", spec.path,
                             "': archived files would be read again");
    }
  }
  return out;
}

}  // namespace sluice::source
