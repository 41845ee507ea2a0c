// JSON-lines and CSV decoding with malformed-record handling (see file_readers.h).
//
// Fast path: one Arrow reader over the whole file, declared types, no per-row work of ours.
// Slow path (only when the fast path fails): the file's non-blank lines are bisected
// (malformed_lines.h); a range Arrow decodes is kept as is, a single line it rejects is a
// malformed record.
#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/csv/api.h>
#include <arrow/csv/parser.h>
#include <arrow/io/memory.h>
#include <arrow/json/api.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <optional>
#include <string_view>

#include "plan/expr_resolve.h"
#include "source/csv_field_text.h"
#include "source/file_readers.h"
#include "source/json_simdjson_reader.h"
#include "source/json_string_values.h"
#include "source/malformed_lines.h"
#include "util/timestamp_text.h"
#include "util/utf8_text.h"

namespace sluice::source {
namespace {

using util::ReplaceInvalidUtf8;
using util::ValidUtf8;

constexpr int32_t kBlockSize = 1 << 20;
constexpr int64_t kThreadedRange = 4 << 20;  // slow-path ranges above this decode with threads

Status InvalidUtf8() { return Status::Invalid("the record is not valid UTF-8"); }

std::shared_ptr<arrow::Schema> WithoutField(const std::shared_ptr<arrow::Schema>& schema, const std::string& name) {
  int i = schema->GetFieldIndex(name);
  return i < 0 ? schema : *schema->RemoveField(i);
}

// Arrow's JSON reader cannot decode dates; they are read as strings and cast by ConformToSchema.
std::shared_ptr<arrow::Schema> JsonParseSchema(const std::shared_ptr<arrow::Schema>& schema, const std::string& corrupt) {
  auto fields = WithoutField(schema, corrupt)->fields();
  for (auto& f : fields) {
    auto id = f->type()->id();
    if (id == arrow::Type::DATE32 || id == arrow::Type::DATE64) f = f->WithType(arrow::utf8());
  }
  return arrow::schema(fields);
}

// Ranges decoded with threads keep Arrow's block size (blocks are the unit of parallelism);
// others get one block, so a record longer than kBlockSize still decodes.
int32_t BlockSizeFor(int64_t bytes, bool threaded) {
  if (threaded) return kBlockSize;
  return static_cast<int32_t>(std::clamp<int64_t>(bytes + 1, kBlockSize, INT32_MAX));
}

// ---- JSON ---------------------------------------------------------------------------------

// Whether a line of `data` starts with `null` (after JSON whitespace). Such a record is malformed
// (Spark's parser rejects a null root, and no object starts so), and Arrow's JSON reader must
// never see one: it crashes when a block starts with a null value, whatever follows it on the
// line (found by tests/fuzz; inputs tests/fuzz/corpus/json/null_record*.json).
bool HasNullRecord(const arrow::Buffer& data) {
  const std::string_view text(reinterpret_cast<const char*>(data.data()), static_cast<size_t>(data.size()));
  for (size_t line = 0; line < text.size();) {
    const size_t first = text.find_first_not_of(" \t\r", line);
    if (first == std::string_view::npos) break;
    if (text.compare(first, 4, "null") == 0) return true;
    const size_t nl = text.find('\n', first);
    if (nl == std::string_view::npos) break;
    line = nl + 1;
  }
  return false;
}

Result<std::shared_ptr<arrow::Table>> DecodeJson(const std::shared_ptr<arrow::Buffer>& data,
                                                 const std::shared_ptr<arrow::Schema>& explicit_schema,
                                                 bool use_threads, int32_t block_size) {
  if (HasNullRecord(*data)) return Status::Invalid("the record starts with the JSON value null, not an object");
  auto read = arrow::json::ReadOptions::Defaults();
  read.use_threads = use_threads;
  read.block_size = block_size;
  auto parse = arrow::json::ParseOptions::Defaults();
  if (explicit_schema) {
    parse.explicit_schema = explicit_schema;
    parse.unexpected_field_behavior = arrow::json::UnexpectedFieldBehavior::Ignore;
  }
  ARROW_ASSIGN_OR_RAISE(auto reader,
                        arrow::json::TableReader::Make(arrow::default_memory_pool(),
                                                       std::make_shared<arrow::io::BufferReader>(data), read, parse));
  return reader->Read();
}

// Timestamp text -> `type` (microseconds, UTC): naive text is UTC, text with a zone is converted.
Result<std::shared_ptr<arrow::Array>> TimestampsFromText(const std::shared_ptr<arrow::Array>& text,
                                                         const std::shared_ptr<arrow::DataType>& type) {
  ARROW_ASSIGN_OR_RAISE(auto parsed, util::TimestampFromText(arrow::Datum(text), type));
  return parsed.make_array();
}

// A JSON record Arrow rejected only because a timestamp has more than six fractional digits:
// decoded with those digits cut (Spark truncates to microseconds). An error otherwise.
Result<std::shared_ptr<arrow::Table>> DecodeTruncatingFractions(const std::shared_ptr<arrow::Buffer>& line,
                                                                const std::shared_ptr<arrow::Schema>& schema,
                                                                const std::shared_ptr<arrow::Schema>& parse_schema,
                                                                const std::string& path) {
  auto fields = parse_schema->fields();
  bool any_timestamp = false;
  for (auto& f : fields) {
    if (f->type()->id() != arrow::Type::TIMESTAMP) continue;
    f = f->WithType(arrow::utf8());
    any_timestamp = true;
  }
  if (!any_timestamp) return Status::Invalid("no timestamp field");
  auto as_text = arrow::schema(fields);
  ARROW_ASSIGN_OR_RAISE(auto table, DecodeJson(line, as_text, false, BlockSizeFor(line->size(), false)));
  ARROW_ASSIGN_OR_RAISE(table, table->CombineChunks());
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns = table->columns();
  arrow::FieldVector out_fields = table->schema()->fields();
  for (int i = 0; i < table->num_columns(); ++i) {
    auto want = parse_schema->GetFieldByName(table->schema()->field(i)->name());
    if (!want || want->type()->id() != arrow::Type::TIMESTAMP) continue;
    const auto& text = static_cast<const arrow::StringArray&>(*columns[i]->chunk(0));
    arrow::StringBuilder cut;
    for (int64_t r = 0; r < text.length(); ++r) {
      if (text.IsNull(r)) {
        ARROW_RETURN_NOT_OK(cut.AppendNull());
        continue;
      }
      std::string value = text.GetString(r);
      plan::TruncateFractionToMicros(&value);
      ARROW_RETURN_NOT_OK(cut.Append(value));
    }
    ARROW_ASSIGN_OR_RAISE(auto cut_array, cut.Finish());
    ARROW_ASSIGN_OR_RAISE(auto parsed, TimestampsFromText(cut_array, want->type()));
    columns[i] = std::make_shared<arrow::ChunkedArray>(parsed);
    out_fields[i] = want;
  }
  return ConformToSchema(arrow::Table::Make(arrow::schema(out_fields), columns, table->num_rows()), schema, path);
}

// Decodes one JSON line into a table of `parse_schema` (one field of the declared schema's).
using JsonFieldDecoder = std::function<Result<std::shared_ptr<arrow::Table>>(
    const std::shared_ptr<arrow::Buffer>& line, const std::shared_ptr<arrow::Schema>& parse_schema)>;

Result<std::shared_ptr<arrow::Table>> DecodeJsonWithArrow(const std::shared_ptr<arrow::Buffer>& line,
                                                          const std::shared_ptr<arrow::Schema>& parse_schema) {
  return DecodeJson(line, parse_schema, false, BlockSizeFor(line->size(), false));
}

// The simdjson decoder as the only judge of the records (a schema with a MAP): a declined range
// is an error giving the decoder's reason.
Result<std::shared_ptr<arrow::Table>> DecodeJsonWithSimdjson(const std::shared_ptr<arrow::Buffer>& range,
                                                             const std::shared_ptr<arrow::Schema>& parse_schema,
                                                             bool use_threads) {
  std::string why;
  ARROW_ASSIGN_OR_RAISE(auto table, DecodeJsonLinesSimdjson(range, parse_schema, use_threads, &why));
  if (!table) return Status::Invalid(why);
  return table;
}

// PERMISSIVE's partial result for a JSON record rejected as a whole (Spark 4): each field that
// decodes on its own (by `decode`) keeps its value, the others are null. An error when no field
// decodes.
Result<std::shared_ptr<arrow::Table>> SalvageJsonRecord(const std::shared_ptr<arrow::Buffer>& line,
                                                        const std::shared_ptr<arrow::Schema>& schema,
                                                        const std::shared_ptr<arrow::Schema>& parse_schema,
                                                        const std::string& path, const JsonFieldDecoder& decode) {
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
  bool any = false;
  for (const auto& field : schema->fields()) {
    std::shared_ptr<arrow::Table> one;
    const auto parse_field = parse_schema->GetFieldByName(field->name());
    if (parse_field) {
      auto decoded = decode(line, arrow::schema({parse_field}));
      auto conformed = decoded.ok() ? ConformToSchema(*decoded, arrow::schema({field}), path) : decoded.status();
      if (conformed.ok() && (*conformed)->num_rows() == 1) one = *conformed;
    }
    if (one) {
      any = true;
      columns.push_back(one->column(0));
    } else {
      ARROW_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(field->type(), 1));
      columns.push_back(std::make_shared<arrow::ChunkedArray>(nulls));
    }
  }
  if (!any) return Status::Invalid("no field of the record decodes");
  return arrow::Table::Make(schema, std::move(columns), 1);
}

// ---- CSV ----------------------------------------------------------------------------------

struct CsvSetup {
  arrow::csv::ReadOptions read = arrow::csv::ReadOptions::Defaults();
  arrow::csv::ParseOptions parse = arrow::csv::ParseOptions::Defaults();
  arrow::csv::ConvertOptions convert = arrow::csv::ConvertOptions::Defaults();
};

CsvSetup MakeCsvSetup(const FileFormatOptions& options) {
  CsvSetup s;
  s.parse = CsvParseOptions(options);
  // Spark: an empty unquoted field is null for every type; "NULL"/"NA" are ordinary text.
  s.convert.null_values = {""};
  s.convert.strings_can_be_null = true;
  s.convert.quoted_strings_can_be_null = false;
  static const std::vector<std::string> kTrue = EveryCaseOf("true"), kFalse = EveryCaseOf("false");
  s.convert.true_values = kTrue;
  s.convert.false_values = kFalse;
  if (!options.header) s.read.autogenerate_column_names = true;
  return s;
}

Result<std::shared_ptr<arrow::Table>> DecodeCsv(const std::shared_ptr<arrow::Buffer>& data, const CsvSetup& setup) {
  ARROW_ASSIGN_OR_RAISE(auto reader, arrow::csv::TableReader::Make(arrow::io::default_io_context(),
                                                                   std::make_shared<arrow::io::BufferReader>(data),
                                                                   setup.read, setup.parse, setup.convert));
  return reader->Read();
}

// Arrow's CSV reader cannot read naive text into a zoned timestamp column, nor take more than six
// fractional digits: timestamp columns are decoded as text and converted here (as Spark reads
// them: naive text is UTC, digits beyond microseconds are cut), then the table is conformed.
Result<std::shared_ptr<arrow::Table>> CsvToSchema(const std::shared_ptr<arrow::Table>& table,
                                                  const std::shared_ptr<arrow::Schema>& schema, const std::string& path) {
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns = table->columns();
  arrow::FieldVector fields = table->schema()->fields();
  for (int i = 0; i < table->num_columns(); ++i) {
    auto want = schema->GetFieldByName(fields[i]->name());
    if (!want || want->type()->id() != arrow::Type::TIMESTAMP || fields[i]->type()->id() != arrow::Type::STRING) continue;
    ARROW_ASSIGN_OR_RAISE(auto text, arrow::Concatenate(columns[i]->chunks()));
    auto parsed = TimestampsFromText(text, want->type());
    if (!parsed.ok()) {
      const auto& strings = static_cast<const arrow::StringArray&>(*text);
      arrow::StringBuilder cut;
      for (int64_t r = 0; r < strings.length(); ++r) {
        if (strings.IsNull(r)) {
          ARROW_RETURN_NOT_OK(cut.AppendNull());
          continue;
        }
        std::string value = strings.GetString(r);
        plan::TruncateFractionToMicros(&value);
        ARROW_RETURN_NOT_OK(cut.Append(value));
      }
      ARROW_ASSIGN_OR_RAISE(auto cut_array, cut.Finish());
      parsed = TimestampsFromText(cut_array, want->type());
    }
    if (!parsed.ok()) parsed = SparkTimestampsFromText(static_cast<const arrow::StringArray&>(*text), want->type());
    ARROW_ASSIGN_OR_RAISE(auto converted, parsed);
    columns[i] = std::make_shared<arrow::ChunkedArray>(converted);
    fields[i] = want;
  }
  return ConformToSchema(arrow::Table::Make(arrow::schema(fields), columns, table->num_rows()), schema, path);
}

// PERMISSIVE's partial result for a CSV record with a field that does not convert (Spark 4): the
// record decoded as text, each field converted on its own, null where that fails.
Result<std::shared_ptr<arrow::Table>> SalvageCsvRecord(const std::shared_ptr<arrow::Buffer>& line, CsvSetup setup,
                                                       const std::shared_ptr<arrow::Schema>& schema,
                                                       const std::string& path) {
  for (auto& [name, type] : setup.convert.column_types) type = arrow::utf8();
  ARROW_ASSIGN_OR_RAISE(auto text, DecodeCsv(line, setup));
  if (text->num_rows() != 1) return Status::Invalid("not one record");
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
  for (const auto& field : schema->fields()) {
    std::shared_ptr<arrow::ChunkedArray> column;
    if (auto raw = text->GetColumnByName(field->name())) {
      auto one = CsvToSchema(arrow::Table::Make(arrow::schema({arrow::field(field->name(), raw->type())}), {raw}, 1),
                             arrow::schema({field}), path);
      if (one.ok()) column = (*one)->column(0);
    }
    if (!column) {
      ARROW_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(field->type(), 1));
      column = std::make_shared<arrow::ChunkedArray>(nulls);
    }
    columns.push_back(column);
  }
  return arrow::Table::Make(schema, std::move(columns), 1);
}

// Column names of the header line `line` of `data`, split by Arrow's CSV parser as Arrow's reader
// splits a header (with bytes that are not UTF-8 replaced, as ReadCsv reads them).
Result<std::vector<std::string>> CsvHeaderNames(const arrow::Buffer& data, const Line& line,
                                                const arrow::csv::ParseOptions& parse) {
  const std::string text = ReplaceInvalidUtf8(std::string_view(reinterpret_cast<const char*>(data.data()) + line.begin,
                                                               static_cast<size_t>(line.end - line.begin))) + "\n";
  arrow::csv::BlockParser parser(arrow::default_memory_pool(), parse, /*num_cols=*/-1, /*first_row=*/line.number);
  uint32_t parsed = 0;
  ARROW_RETURN_NOT_OK(parser.ParseFinal(std::string_view(text), &parsed));
  if (parser.num_rows() != 1) return Status::Invalid("the header line holds ", parser.num_rows(), " records");
  std::vector<std::string> names(static_cast<size_t>(parser.num_cols()));
  for (int32_t c = 0; c < parser.num_cols(); ++c) {
    ARROW_RETURN_NOT_OK(parser.VisitColumn(c, [&](const uint8_t* value, uint32_t size, bool, bool) {
      names[static_cast<size_t>(c)].assign(reinterpret_cast<const char*>(value), size);
      return Status::OK();
    }));
  }
  return names;
}

// PERMISSIVE's partial rows of a malformed line by `salvage_one`: for a line holding an array of
// objects, a row per object (as Spark's partial results give), else the line's own row.
Result<std::shared_ptr<arrow::Table>> SalvageRecords(const std::shared_ptr<arrow::Buffer>& line,
                                                     const arrow::Schema& parse_schema, const RangeParser& salvage_one) {
  auto records = ArrayElementsAsLines(*line);
  if (!records.ok() || !*records || (*records)->empty()) return salvage_one(line);
  std::vector<std::shared_ptr<arrow::Table>> rows;
  const std::string& all = **records;
  for (size_t b = 0; b < all.size();) {
    const size_t e = all.find('\n', b);
    std::shared_ptr<arrow::Buffer> one = arrow::Buffer::FromString(all.substr(b, e - b));
    ARROW_ASSIGN_OR_RAISE(auto quoted, RewriteJsonLines(*one, parse_schema));
    ARROW_ASSIGN_OR_RAISE(auto row, salvage_one(quoted ? quoted : one));
    if (row->num_rows() != 1) return Status::Invalid("not one record");
    rows.push_back(std::move(row));
    b = e + 1;
  }
  return arrow::ConcatenateTables(rows);
}

// The records of a line holding an array of objects (ArrayElementsAsLines), decoded as lines
// of their own by `parse` (their STRING fields quoted first, as every line's are).
Result<std::shared_ptr<arrow::Table>> DecodeArrayOfRecords(std::string records, const arrow::Schema& parse_schema,
                                                           const std::shared_ptr<arrow::Schema>& schema,
                                                           const RangeParser& parse) {
  if (records.empty()) return arrow::Table::MakeEmpty(schema);
  std::shared_ptr<arrow::Buffer> lines = arrow::Buffer::FromString(std::move(records));
  ARROW_ASSIGN_OR_RAISE(auto quoted, RewriteJsonLines(*lines, parse_schema));
  return parse(quoted ? quoted : lines);
}

// The first decode of a block of JSON lines (`decode`: all of it, or an error), as Spark reads
// them: the lines as written when they decode to a row each, else the lines rewritten where a
// STRING field is given another kind of value or a line goes on after its first value
// (json_string_values.h; a number for a string field fails a decode, two values on one line give
// two rows). `*data` becomes the lines the slow path bisects when `*fast` failed.
Status DecodeAsSparkReads(const std::shared_ptr<arrow::Buffer>& input, const arrow::Schema& parse_schema,
                          const RangeParser& decode, std::shared_ptr<arrow::Buffer>* data,
                          Result<std::shared_ptr<arrow::Table>>* fast) {
  *data = input;
  *fast = decode(input);
  if (fast->ok() && (**fast)->num_rows() == CountNonBlankLines(*input)) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto rewritten, RewriteJsonLines(*input, parse_schema));
  if (rewritten) {
    *data = std::move(rewritten);
    *fast = decode(*data);
  } else if (fast->ok()) {
    *fast = Status::Invalid("a line holds more than one JSON value");  // found by bisection
  }
  return Status::OK();
}

// A JSON-lines file whose schema has a MAP column: the simdjson decoder alone reads it (Arrow's
// reader has no map type), and bisects the file to find malformed records as Arrow does above.
Result<FileReadResult> ReadJsonLinesWithMaps(const std::shared_ptr<arrow::Buffer>& input, const std::string& path,
                                             const std::shared_ptr<arrow::Schema>& schema,
                                             const std::shared_ptr<arrow::Schema>& parse_schema,
                                             const FileFormatOptions& options, bool use_threads, int64_t first_line) {
  if (options.json_reader != JsonReader::kSimdjson) {
    return Status::Invalid("Cannot read ", io::PathToUri(path), " with option jsonReader = arrow: Arrow's JSON reader ",
                           "has no MAP type; use jsonReader = simdjson (the default)");
  }
  ARROW_RETURN_NOT_OK(CheckSimdjsonDecodesMapSchema(*parse_schema));
  RangeParser parse = [&](const std::shared_ptr<arrow::Buffer>& range) -> Result<std::shared_ptr<arrow::Table>> {
    if (!ValidUtf8(*range)) return InvalidUtf8();
    ARROW_ASSIGN_OR_RAISE(auto table,
                          DecodeJsonWithSimdjson(range, parse_schema, use_threads && range->size() > kThreadedRange));
    return ConformToSchema(table, schema, path);
  };
  std::shared_ptr<arrow::Buffer> data;
  Result<std::shared_ptr<arrow::Table>> fast = InvalidUtf8();
  ARROW_RETURN_NOT_OK(DecodeAsSparkReads(input, *parse_schema, parse, &data, &fast));
  if (fast.ok()) return FileReadResult{std::move(*fast), 0};
  RangeParser salvage = [&](const std::shared_ptr<arrow::Buffer>& line) -> Result<std::shared_ptr<arrow::Table>> {
    if (!ValidUtf8(*line)) return InvalidUtf8();
    return SalvageRecords(line, *parse_schema, [&](const std::shared_ptr<arrow::Buffer>& one) {
      return SalvageJsonRecord(one, schema, parse_schema, path,
                               [](const std::shared_ptr<arrow::Buffer>& x, const std::shared_ptr<arrow::Schema>& s) {
                                 return DecodeJsonWithSimdjson(x, s, false);
                               });
    });
  };
  RangeParser rescue = [&](const std::shared_ptr<arrow::Buffer>& line) -> Result<std::shared_ptr<arrow::Table>> {
    ARROW_ASSIGN_OR_RAISE(auto records, ArrayElementsAsLines(*line));
    if (!records) return Status::Invalid("not an array of records");
    return DecodeArrayOfRecords(std::move(*records), *parse_schema, schema, parse);
  };
  MalformedLineFinder finder(data, path, schema, options, parse, salvage, rescue);
  if (data != input) finder.KeepRecordTextOf(input, NonBlankLines(*input, first_line));
  return finder.Run(NonBlankLines(*data, first_line), fast.status());
}

}  // namespace

Result<FileReadResult> ReadJsonLines(const std::shared_ptr<arrow::Buffer>& input, const std::string& path,
                                     const std::shared_ptr<arrow::Schema>& schema, const FileFormatOptions& options,
                                     bool use_threads, int64_t first_line) {
  auto parse_schema = JsonParseSchema(schema, options.corrupt_column);
  if (SchemaHoldsMap(*parse_schema)) {
    return ReadJsonLinesWithMaps(input, path, schema, parse_schema, options, use_threads, first_line);
  }
  // Bytes that are not UTF-8 make a record malformed (as in Spark; Arrow's reader would copy them):
  // simdjson declines such a line itself (it validates what it parses); other paths check first.
  if (options.json_reader == JsonReader::kSimdjson && SimdjsonDecodesSchema(*parse_schema)) {
    int64_t cut = 0;  // rows a pushed filter dropped while decoding
    const ScanFilter* where = SimdjsonFilter(options.filter.get(), *parse_schema, *schema);  // pushed, if usable
    ARROW_ASSIGN_OR_RAISE(auto decoded, DecodeJsonLinesSimdjson(input, parse_schema, use_threads, nullptr, where, &cut));
    if (decoded) {  // a date that does not cast fails here as on Arrow's fast path: the slow path finds the record
      auto conformed = ConformToSchema(decoded, schema, path);
      if (conformed.ok()) return FileReadResult{std::move(*conformed), 0, 0, cut};
    }
  }
  const bool valid_utf8 = ValidUtf8(*input);  // the rewrite keeps it so
  RangeParser parse = [&](const std::shared_ptr<arrow::Buffer>& range) -> Result<std::shared_ptr<arrow::Table>> {
    if (!valid_utf8 && !ValidUtf8(*range)) return InvalidUtf8();
    bool threads = use_threads && range->size() > kThreadedRange;
    ARROW_ASSIGN_OR_RAISE(auto table, DecodeJson(range, parse_schema, threads, BlockSizeFor(range->size(), threads)));
    return ConformToSchema(table, schema, path);
  };
  // The whole block in one decode first (the fast path), as Spark reads the lines.
  std::shared_ptr<arrow::Buffer> data;
  Result<std::shared_ptr<arrow::Table>> fast = InvalidUtf8();
  ARROW_RETURN_NOT_OK(DecodeAsSparkReads(
      input, *parse_schema,
      [&](const std::shared_ptr<arrow::Buffer>& lines) -> Result<std::shared_ptr<arrow::Table>> {
        if (!valid_utf8) return InvalidUtf8();
        ARROW_ASSIGN_OR_RAISE(auto decoded, DecodeJson(lines, parse_schema, use_threads, kBlockSize));
        return ConformToSchema(decoded, schema, path);
      },
      &data, &fast));
  if (fast.ok()) return FileReadResult{std::move(*fast), 0};
  RangeParser salvage = [&](const std::shared_ptr<arrow::Buffer>& line) -> Result<std::shared_ptr<arrow::Table>> {
    if (!ValidUtf8(*line)) return InvalidUtf8();
    return SalvageRecords(line, *parse_schema, [&](const std::shared_ptr<arrow::Buffer>& one) {
      return SalvageJsonRecord(one, schema, parse_schema, path, DecodeJsonWithArrow);
    });
  };
  RangeParser rescue = [&](const std::shared_ptr<arrow::Buffer>& line) -> Result<std::shared_ptr<arrow::Table>> {
    if (!ValidUtf8(*line)) return InvalidUtf8();
    ARROW_ASSIGN_OR_RAISE(auto records, ArrayElementsAsLines(*line));
    if (records) return DecodeArrayOfRecords(std::move(*records), *parse_schema, schema, parse);
    ARROW_ASSIGN_OR_RAISE(auto row, DecodeTruncatingFractions(line, schema, parse_schema, path));
    if (row->num_rows() != 1) return Status::Invalid("not one record");
    return row;
  };
  MalformedLineFinder finder(data, path, schema, options, parse, salvage, rescue);
  if (data != input) finder.KeepRecordTextOf(input, NonBlankLines(*input, first_line));
  return finder.Run(NonBlankLines(*data, first_line), fast.status());
}

arrow::csv::ParseOptions CsvParseOptions(const FileFormatOptions& options) {
  auto parse = arrow::csv::ParseOptions::Defaults();
  parse.delimiter = options.delimiter;
  parse.quoting = options.quoting;
  parse.quote_char = options.quote;
  parse.escaping = options.escaping;
  parse.escape_char = options.escape;
  return parse;
}

Result<std::optional<std::vector<std::string>>> CsvHeaderOf(const std::shared_ptr<arrow::Buffer>& block,
                                                             const FileFormatOptions& options) {
  const std::optional<Line> line = FirstNonBlankLine(*block);
  if (!line) return std::optional<std::vector<std::string>>();
  ARROW_ASSIGN_OR_RAISE(auto names, CsvHeaderNames(*block, *line, CsvParseOptions(options)));
  if (options.header) names = SparkCsvHeaderNames(std::move(names));
  return std::optional<std::vector<std::string>>(std::move(names));
}

Result<FileReadResult> ReadCsv(const std::shared_ptr<arrow::Buffer>& input, const std::string& path,
                               const std::shared_ptr<arrow::Schema>& schema, const FileFormatOptions& options,
                               bool use_threads, int64_t first_line, const std::vector<std::string>* header) {
  // Spark decodes CSV lines as UTF-8 text first (a byte that is not UTF-8 becomes U+FFFD, the
  // row is not malformed); so do we, so string columns and _corrupt_record stay valid UTF-8.
  std::shared_ptr<arrow::Buffer> data = input;
  if (!ValidUtf8(*input)) {
    data = arrow::Buffer::FromString(ReplaceInvalidUtf8(
        std::string_view(reinterpret_cast<const char*>(input->data()), static_cast<size_t>(input->size()))));
  }
  auto parse_schema = WithoutField(schema, options.corrupt_column);
  CsvSetup setup = MakeCsvSetup(options);
  // The header line's names (a block that holds it): a header whose names Spark renames (empty
  // or repeated ones) is read here, and the lines after it with the new names, as Arrow's reader
  // would keep the names as written.
  std::optional<Result<std::vector<std::string>>> header_names;
  if (options.header && header == nullptr) {
    if (std::optional<Line> line = FirstNonBlankLine(*data)) {
      line->number += first_line - 1;  // the file's line number, for errors
      header_names = CsvHeaderNames(*data, *line, setup.parse);
      const auto& names = *header_names;
      std::vector<std::string> renamed;
      if (names.ok() && (renamed = SparkCsvHeaderNames(*names)) != *names) {
        const auto* p = reinterpret_cast<const char*>(data->data());
        const void* nl = std::memchr(p + line->end, '\n', static_cast<size_t>(data->size() - line->end));
        const int64_t rest = nl ? static_cast<const char*>(nl) - p + 1 : data->size();
        return ReadCsv(arrow::SliceBuffer(data, rest), path, schema, options, use_threads, line->number + 1,
                       &renamed);
      }
    }
  }
  setup.read.use_threads = use_threads;
  for (const auto& f : parse_schema->fields()) {
    const bool timestamp = f->type()->id() == arrow::Type::TIMESTAMP;  // converted by CsvToSchema
    setup.convert.column_types[f->name()] = timestamp ? arrow::utf8() : f->type();
  }
  if (options.header) {
    setup.convert.include_columns = parse_schema->field_names();
    setup.convert.include_missing_columns = true;
    if (header != nullptr) {  // a later block of the file: its columns are the header's
      setup.read.autogenerate_column_names = false;
      setup.read.column_names = *header;
    }
  } else {
    setup.read.autogenerate_column_names = false;
    setup.read.column_names = parse_schema->field_names();  // positional, as Spark without a header
  }
  auto decoded = DecodeCsv(data, setup);
  auto fast = decoded.ok() ? CsvToSchema(*decoded, schema, path) : decoded.status();
  if (fast.ok()) return FileReadResult{std::move(*fast), 0};

  std::vector<Line> lines = NonBlankLines(*data, first_line);
  if (options.header && header == nullptr && !lines.empty()) {
    const auto& names = *header_names;  // set above: this block holds a non-blank line
    if (!names.ok()) {
      return Status::Invalid("Cannot read the CSV header of ", io::PathToUri(path), ": ", names.status().message());
    }
    setup.read.column_names = *names;
    setup.read.autogenerate_column_names = false;
    lines.erase(lines.begin());
  }
  RangeParser parse = [&](const std::shared_ptr<arrow::Buffer>& range) -> Result<std::shared_ptr<arrow::Table>> {
    CsvSetup s = setup;
    s.read.use_threads = use_threads && range->size() > kThreadedRange;
    s.read.block_size = BlockSizeFor(range->size(), s.read.use_threads);
    ARROW_ASSIGN_OR_RAISE(auto table, DecodeCsv(range, s));
    return CsvToSchema(table, schema, path);
  };
  // PERMISSIVE keeps what a row with too few or too many fields still holds (as Spark does).
  RangeParser salvage = [&](const std::shared_ptr<arrow::Buffer>& range) -> Result<std::shared_ptr<arrow::Table>> {
    CsvSetup s = setup;
    s.parse.pad_short_rows = true;
    s.parse.ignore_extra_columns = true;
    s.read.use_threads = false;
    auto table = DecodeCsv(range, s);
    auto whole = table.ok() ? CsvToSchema(*table, schema, path) : table.status();
    if (whole.ok()) return whole;
    return SalvageCsvRecord(range, s, schema, path);
  };
  // A record Arrow rejects only for a number written as Spark reads it ("+1", "2d"): its fields
  // as text, numbers rewritten as Arrow reads them, then converted. Not a malformed record.
  RangeParser rescue = [&](const std::shared_ptr<arrow::Buffer>& line) -> Result<std::shared_ptr<arrow::Table>> {
    CsvSetup s = setup;
    for (auto& [name, type] : s.convert.column_types) type = arrow::utf8();
    ARROW_ASSIGN_OR_RAISE(auto text, DecodeCsv(line, s));
    ARROW_ASSIGN_OR_RAISE(text, WithArrowNumberText(text, *schema));
    return CsvToSchema(text, schema, path);
  };
  MalformedLineFinder finder(data, path, schema, options, parse, salvage, rescue);
  return finder.Run(lines, fast.status());
}

}  // namespace sluice::source
