// CSV schema inference (schema_inference.h), with the rules of Spark's CSVInferSchema:
//
// - Names: the first non-blank line of the first file that has one. With header = true its
//   fields, renamed as Spark's CSV header checker renames them (file_readers.h CsvHeaderOf);
//   otherwise _c0, _c1, ... as many as that line has fields.
// - Types (inferSchema = true; otherwise every column is STRING): each record's fields are
//   folded into their column's type so far, in file order. A field is tried only against the
//   types at or above the type so far, in this order: INT, BIGINT, DECIMAL(p, 0), DOUBLE, DATE
//   (yyyy-MM-dd), TIMESTAMP, BOOLEAN, STRING; the type so far and the field's type then merge
//   (numbers widen: INT < BIGINT < DECIMAL < DOUBLE; DATE with TIMESTAMP is TIMESTAMP; any other
//   pair is STRING). Each file starts from no type and the files' types merge the same way (Spark
//   folds each of its partitions, here a file, on its own, then merges them). An empty field
//   leaves the type as it is; a column with no value is STRING. A record with fewer fields than
//   the names leaves the missing columns as they are; fields beyond the names are not looked at.
// - Lines: blank lines are skipped; with header = true so is each file's first non-blank line
//   and any line equal to the first file's header line (Spark drops those while inferring).
//
// Files are read a block of whole lines at a time (ForEachLineBlock) and tokenized by Arrow's
// CSV parser with the reader's options, so a field is split here exactly as ReadCsv splits it.
// Which text is of which type: csv_field_text.h.
#include <arrow/api.h>
#include <arrow/csv/parser.h>

#include <algorithm>
#include <optional>
#include <string_view>

#include "source/csv_field_text.h"
#include "source/file_readers.h"
#include "source/malformed_lines.h"
#include "source/schema_inference.h"

namespace sluice::source {
namespace {

// A column's type as Spark infers it. DECIMAL only ever has scale 0 here.
enum class Kind : uint8_t { kNull, kInt, kLong, kDecimal, kDouble, kDate, kTimestamp, kBool, kString };
struct ColumnType {
  Kind kind = Kind::kNull;
  int precision = 0;  // kDecimal
};

// The type of `s` found by trying the types from `from` on, in the order of the header comment.
ColumnType TypeOfField(Kind from, std::string_view s) {
  switch (from) {
    case Kind::kNull:
    case Kind::kInt:
      if (IsJavaIntegerText(s, INT32_MAX)) return {Kind::kInt};
      [[fallthrough]];
    case Kind::kLong:
      if (IsJavaIntegerText(s, INT64_MAX)) return {Kind::kLong};
      [[fallthrough]];
    case Kind::kDecimal:
      if (auto p = SparkDecimalPrecision(s)) return {Kind::kDecimal, *p};
      [[fallthrough]];
    case Kind::kDouble:
      if (IsSparkDoubleText(s)) return {Kind::kDouble};
      [[fallthrough]];
    case Kind::kDate:
      if (IsSparkDateText(s)) return {Kind::kDate};
      [[fallthrough]];
    case Kind::kTimestamp:
      if (SparkTimestampMicros(s)) return {Kind::kTimestamp};
      [[fallthrough]];
    case Kind::kBool:
      if (IsSparkBooleanText(s)) return {Kind::kBool};
      [[fallthrough]];
    case Kind::kString:
      break;
  }
  return {Kind::kString};
}

bool IsIntegral(Kind k) { return k == Kind::kInt || k == Kind::kLong; }
int DecimalPrecisionOf(const ColumnType& t) {
  return t.kind == Kind::kInt ? 10 : t.kind == Kind::kLong ? 20 : t.precision;
}

// The type both `a` and `b` widen to (Spark's merge of CSV column types).
ColumnType Merge(const ColumnType& a, const ColumnType& b) {
  if (a.kind == Kind::kNull) return b;
  if (b.kind == Kind::kNull) return a;
  if (a.kind == b.kind && a.kind == Kind::kDecimal) return {Kind::kDecimal, std::max(a.precision, b.precision)};
  if (a.kind == b.kind) return a;
  const Kind lo = std::min(a.kind, b.kind), hi = std::max(a.kind, b.kind);
  if (IsIntegral(lo) && IsIntegral(hi)) return {Kind::kLong};
  if (IsIntegral(lo) && hi == Kind::kDecimal) {
    return {Kind::kDecimal, std::max(DecimalPrecisionOf(a), DecimalPrecisionOf(b))};
  }
  if (lo <= Kind::kDecimal && lo != Kind::kNull && hi == Kind::kDouble) return {Kind::kDouble};
  if (lo == Kind::kDate && hi == Kind::kTimestamp) return {Kind::kTimestamp};
  return {Kind::kString};
}

std::shared_ptr<arrow::DataType> ArrowType(const ColumnType& t) {
  switch (t.kind) {
    case Kind::kInt: return arrow::int32();
    case Kind::kLong: return arrow::int64();
    case Kind::kDecimal: return arrow::decimal128(t.precision, 0);
    case Kind::kDouble: return arrow::float64();
    case Kind::kDate: return arrow::date32();
    case Kind::kTimestamp: return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");  // Spark's TIMESTAMP
    case Kind::kBool: return arrow::boolean();
    default: return arrow::utf8();
  }
}

bool IsBlank(std::string_view line) {
  return std::all_of(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\t'; });
}

class CsvSchemaInference final : public SchemaInference {
 public:
  CsvSchemaInference(FileFormatOptions options, int64_t block_bytes)
      : options_(std::move(options)), block_bytes_(block_bytes), parse_(CsvParseOptions(options_)) {
    // As Spark: a short record leaves its missing columns alone, extra fields are not looked at.
    parse_.pad_short_rows = true;
    parse_.ignore_extra_columns = true;
  }

  Status AddFile(io::FileSystem* fs, const std::string& path) override {
    if (names_ && !options_.infer_schema) return Status::OK();  // the names are all it needs
    FileFold fold{path, false, {}};
    bool stopped = false;  // ended on purpose once the names were found
    Status walked = ForEachLineBlock(
        fs, path, block_bytes_, [&](const std::shared_ptr<arrow::Buffer>& block, int64_t first_line, bool) -> Status {
          ARROW_RETURN_NOT_OK(VisitBlock(block, first_line, &fold));
          if (names_ && !options_.infer_schema) {
            stopped = true;
            return Status::Cancelled("the column names are known");
          }
          return Status::OK();
        });
    if (stopped) walked = Status::OK();
    // As Spark with ignoreCorruptFiles, the records read before a read error still count.
    for (size_t i = 0; i < fold.types.size(); ++i) types_[i] = Merge(types_[i], fold.types[i]);
    return walked;
  }

  Result<std::shared_ptr<arrow::Schema>> Finish() override {
    if (!names_) return nullptr;
    arrow::FieldVector fields;
    for (size_t i = 0; i < names_->size(); ++i) {
      fields.push_back(arrow::field((*names_)[i], options_.infer_schema ? ArrowType(types_[i]) : arrow::utf8()));
    }
    return arrow::schema(std::move(fields));
  }

 private:
  // What one file has folded so far.
  struct FileFold {
    const std::string& path;
    bool past_first_line = false;  // its first non-blank line has been seen
    std::vector<ColumnType> types;
  };

  // Takes the names from the file's first non-blank line (once for all files), skips the
  // lines that are not records, and folds the rest.
  Status VisitBlock(const std::shared_ptr<arrow::Buffer>& block, int64_t first_line, FileFold* fold) {
    const std::string_view text(reinterpret_cast<const char*>(block->data()), static_cast<size_t>(block->size()));
    size_t start = 0;
    int64_t line_number = first_line;
    if (!fold->past_first_line) {
      const std::optional<Line> line = FirstNonBlankLine(*block);
      if (!line) return Status::OK();  // only blank lines so far
      fold->past_first_line = true;
      if (!names_) ARROW_RETURN_NOT_OK(TakeNames(block, text.substr(line->begin, line->end - line->begin), fold->path));
      if (options_.header) {  // each file's header line is not a record
        const size_t nl = text.find('\n', static_cast<size_t>(line->end));
        start = nl == std::string_view::npos ? text.size() : nl + 1;
        line_number = first_line + line->number;
      }
    }
    if (!options_.infer_schema) return Status::OK();
    fold->types.resize(names_->size());
    // Runs of record lines are parsed whole; a blank line or a copy of the header ends a run.
    size_t run = start;
    int64_t run_line = line_number;
    for (size_t pos = start; pos < text.size(); ++line_number) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(pos, end - pos);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      const bool skip = IsBlank(line) || (options_.header && line == header_line_);
      if (skip) {
        ARROW_RETURN_NOT_OK(FoldRecords(text.substr(run, pos - run), run_line, fold));
        run = end + 1;
        run_line = line_number + 1;
      }
      pos = end + 1;
    }
    if (run < text.size()) ARROW_RETURN_NOT_OK(FoldRecords(text.substr(run), run_line, fold));
    return Status::OK();
  }

  Status TakeNames(const std::shared_ptr<arrow::Buffer>& block, std::string_view line, const std::string& path) {
    auto names = CsvHeaderOf(block, options_);
    if (!names.ok()) {
      return Status::Invalid("Cannot infer the schema of ", io::PathToUri(path), ": cannot read the CSV ",
                             options_.header ? "header" : "first", " line: ", names.status().message());
    }
    std::vector<std::string> columns = std::move(**names);
    if (options_.header) {
      std::vector<std::string> sorted = columns;
      std::sort(sorted.begin(), sorted.end());
      auto twice = std::adjacent_find(sorted.begin(), sorted.end());
      if (twice != sorted.end()) {  // e.g. `a,a,a0`: Spark's renaming gives a0 twice, and Spark fails too
        return Status::Invalid("Cannot infer the schema of ", io::PathToUri(path), ": the CSV header names column '",
                               *twice, "' twice after renaming repeated and empty names (to <name><index> and ",
                               "_c<index>, as Spark does); rename the header's columns or declare the schema");
      }
    } else {
      for (size_t i = 0; i < columns.size(); ++i) columns[i] = "_c" + std::to_string(i);
    }
    header_line_ = std::string(line);
    types_.assign(columns.size(), ColumnType{});
    names_ = std::move(columns);
    return Status::OK();
  }

  // Folds the records of `text` (whole lines, none blank), whose first line is `line_number`.
  Status FoldRecords(std::string_view text, int64_t line_number, FileFold* fold) {
    const auto width = static_cast<int32_t>(names_->size());
    while (!text.empty()) {
      arrow::csv::BlockParser parser(arrow::default_memory_pool(), parse_, width, line_number);
      uint32_t parsed = 0;
      Status st = parser.ParseFinal(text, &parsed);
      if (st.ok() && parsed == 0) st = Status::Invalid("no record could be parsed");
      if (!st.ok()) {
        return Status::Invalid("Cannot infer the schema of ", io::PathToUri(fold->path),
                               ": CSV parse error at or after line ", line_number, ": ", st.message());
      }
      for (int32_t c = 0; c < width; ++c) {
        ColumnType& type = fold->types[static_cast<size_t>(c)];
        ARROW_RETURN_NOT_OK(parser.VisitColumn(c, [&](const uint8_t* data, uint32_t size, bool, bool missing) {
          if (missing || size == 0 || type.kind == Kind::kString) return Status::OK();  // empty: null
          type = Merge(type, TypeOfField(type.kind, std::string_view(reinterpret_cast<const char*>(data), size)));
          return Status::OK();
        }));
      }
      // Records are whole lines (no line breaks inside fields), so rows count lines.
      line_number += parser.num_rows();
      text.remove_prefix(parsed);
    }
    return Status::OK();
  }

  FileFormatOptions options_;
  int64_t block_bytes_;
  arrow::csv::ParseOptions parse_;
  std::optional<std::vector<std::string>> names_;  // from the first file with a non-blank line
  std::string header_line_;                        // that line's text
  std::vector<ColumnType> types_;                  // the files' types merged, one per name
};

}  // namespace

std::unique_ptr<SchemaInference> MakeCsvSchemaInference(const FileFormatOptions& options, int64_t block_bytes) {
  return std::make_unique<CsvSchemaInference>(options, block_bytes);
}

}  // namespace sluice::source
