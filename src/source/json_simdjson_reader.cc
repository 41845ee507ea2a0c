#include "source/json_simdjson_reader.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/util/parallel.h>
#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

#include "plan/expr.h"
#include "source/json_line_documents.h"
#include "source/json_line_shape.h"
#include "source/json_value_builder.h"
#include "util/compute_init.h"

namespace sluice::source {
namespace {

constexpr int64_t kMinBytesPerPart = 4 << 20;  // below this a file is parsed on one thread
// With a pushed filter: lines per block whose predicate columns are decoded, then evaluated.
constexpr size_t kFilterBlockRows = 4096;
// Lines of a range decoded before its columns reserve for the rest (ReserveAhead), and the
// smallest rest worth it.
constexpr int64_t kLinesBeforeReserve = 64;
constexpr int64_t kMinBytesToReserve = 256 << 10;
// Lines that miss the learned layouts one after another before the next parsed line's layout
// replaces the one matched least recently (LineLayouts holds a few), and misses after which
// layouts are given up for the range (when they outnumber hits).
constexpr int kMissesBeforeRelearning = 8;
constexpr int64_t kMissesBeforeGivingUp = 64;

// Which columns a parse of one line appends: all, only the pushed predicate's (the others are
// checked, not stored), or only the others (a line the predicate kept, parsed again).
enum class Store { kAll, kPredicate, kRest };

// Decodes consecutive lines of one file into columns; one instance per thread.
class LineRangeDecoder {
 public:
  // `filter`: applied by blocks of lines when given (every column it reads is in `schema`).
  // `shapes`: lines of the layout of an earlier line are read without the parser (LineLayouts).
  LineRangeDecoder(const arrow::Schema& schema, bool truncate_fractions, const ScanFilter* filter, bool shapes)
      : truncate_fractions_(truncate_fractions), filter_(filter), filtering_(filter != nullptr), shapes_(shapes) {
    columns_.resize(static_cast<size_t>(schema.num_fields()));
    predicate_.resize(columns_.size(), 0);
    chunks_.resize(columns_.size());
    for (int i = 0; filter && i < schema.num_fields(); ++i) {
      const auto& cols = filter->columns;
      if (std::find(cols.begin(), cols.end(), schema.field(i)->name()) == cols.end()) continue;
      predicate_[static_cast<size_t>(i)] = 1;
      predicate_fields_.push_back(schema.field(i));
    }
    rest_ = predicate_fields_.size() < columns_.size();
    for (int i = 0; i < schema.num_fields(); ++i) {
      auto& c = columns_[static_cast<size_t>(i)];
      c = MakeColumnBuilder(*schema.field(i));
      if (c.kind == ValueKind::kNested) shapes_ = false;
    }
    for (size_t i = 0; i < columns_.size(); ++i) {
      stored_[static_cast<int>(Store::kAll)].push_back(1);
      stored_[static_cast<int>(Store::kPredicate)].push_back(predicate_[i]);
      stored_[static_cast<int>(Store::kRest)].push_back(!predicate_[i]);
    }
  }

  Status Init() {
    for (auto& c : columns_) {
      if (c.kind != ValueKind::kNested) continue;
      ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), c.type, &c.nested));
    }
    return Status::OK();
  }

  // Why the decoder declined a line (after Decode returned false).
  const std::string& why() const { return why_; }

  // Decodes bytes [begin, end) of `file` (whole lines). False: a line is declined (see header).
  Result<bool> Decode(const char* file, int64_t file_size, int64_t begin, int64_t end) {
    int64_t start = begin;
    int64_t lines = 0;
    while (start < end) {
      if (lines == kLinesBeforeReserve && !filtering_) {
        ARROW_RETURN_NOT_OK(Flush());  // the sizes so far
        ReserveAhead(start - begin, end - start);
      }
      ++lines;
      const Store store = filtering_ ? Store::kPredicate : Store::kAll;
      int64_t b = start;
      int64_t e = 0;
      if (const char* shaped = ShapedLine(file, file_size, start, end)) {  // its end found on the way
        e = shaped - file;
        start = (e < end && file[e] == '\r' ? e + 1 : e) + 1;
        ARROW_RETURN_NOT_OK(AppendShaped(store));
      } else {
        const void* nl = std::memchr(file + start, '\n', static_cast<size_t>(end - start));
        const int64_t stop = nl ? static_cast<const char*>(nl) - file : end;
        e = stop;
        if (e > start && file[e - 1] == '\r') --e;
        while (b < e && (file[b] == ' ' || file[b] == '\t')) ++b;
        start = stop + 1;
        if (b == e) continue;  // a blank line is no record
        // ShapedLine tried the layouts at `start`: again only past leading blanks.
        ARROW_ASSIGN_OR_RAISE(bool ok, DecodeOne(file, file_size, end, b, e, store, /*layouts=*/b != start));
        if (!ok) return false;
      }
      if (!filtering_) continue;
      block_.emplace_back(b, e);
      if (block_.size() == kFilterBlockRows) {
        ARROW_ASSIGN_OR_RAISE(bool ok, FilterBlock(file, file_size));
        if (!ok) return false;
      }
    }
    if (filtering_ && !block_.empty()) return FilterBlock(file, file_size);
    ARROW_RETURN_NOT_OK(Flush());  // the values point into `file`
    return true;
  }

  // Builders grow by doubling and copy what they hold each time. Once the first lines of a range
  // give its line length, each column reserves for the lines the rest should hold (a tenth
  // more), so a range is built with about one allocation per column. Only a hint: a reservation
  // refused (a string column past 2 GiB) is left to the appends to report.
  void ReserveAhead(int64_t bytes_seen, int64_t bytes_left) {
    if (rows_ == 0 || bytes_left < kMinBytesToReserve) return;
    const double lines_per_byte = static_cast<double>(rows_) / static_cast<double>(bytes_seen);
    const auto more = static_cast<int64_t>(static_cast<double>(bytes_left) * lines_per_byte * 1.1) + 16;
    for (auto& c : columns_) {
      if (c.kind == ValueKind::kNested) continue;
      int64_t data = 0;
      if (c.kind == ValueKind::kString) {
        const double per_value = static_cast<double>(c.values.string_bytes()) / static_cast<double>(rows_);
        data = static_cast<int64_t>(per_value * static_cast<double>(more));
        if (data >= (int64_t{1} << 30)) data = 0;  // left to grow as it fills
      }
      (void)c.values.Reserve(more, data);
    }
  }

  // Rows the pushed filter dropped.
  int64_t rows_filtered() const { return rows_filtered_; }

  Result<std::vector<std::shared_ptr<arrow::Array>>> Finish() {
    ARROW_RETURN_NOT_OK(Flush());
    std::vector<std::shared_ptr<arrow::Array>> out;
    for (size_t i = 0; i < columns_.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(auto array, FinishColumn(&columns_[i]));
      if (!chunks_[i].empty()) {  // a predicate column: its filtered blocks, then lines decoded whole
        chunks_[i].push_back(array);
        ARROW_ASSIGN_OR_RAISE(array, arrow::Concatenate(chunks_[i]));
        chunks_[i].clear();
      }
      out.push_back(std::move(array));
    }
    return out;
  }

  int64_t rows() const { return rows_; }

 private:
  // The values appended to `c` so far, as an array of its declared type (the builders restart).
  static Result<std::shared_ptr<arrow::Array>> FinishColumn(ColumnBuilder* cb) {
    ColumnBuilder& c = *cb;
    std::shared_ptr<arrow::Array> array;
    switch (c.kind) {
      case ValueKind::kNested:
        ARROW_RETURN_NOT_OK(c.nested->Finish(&array));
        break;
      case ValueKind::kString:
      case ValueKind::kDouble:
      case ValueKind::kBoolean:
      case ValueKind::kTimestamp: {  // int64 values: a timestamp's layout
        ARROW_ASSIGN_OR_RAISE(array, c.values.Finish(c.type));
        break;
      }
      case ValueKind::kInteger: {
        ARROW_ASSIGN_OR_RAISE(array, c.values.Finish(arrow::int64()));
        if (c.type->id() != arrow::Type::INT64) {
          ARROW_RETURN_NOT_OK(util::EnsureComputeInitialized());
          ARROW_ASSIGN_OR_RAISE(auto cast, arrow::compute::Cast(*array, c.type));
          array = cast;
        }
        break;
      }
    }
    return array;
  }

  // The block of lines whose predicate columns were decoded: evaluates the predicate, keeps the
  // predicate columns' values of the rows it keeps and decodes the other columns of those rows.
  // When the predicate cannot be evaluated, or keeps more than a quarter of the block, the rest
  // of the range is decoded whole (the plan's filter still runs above the scan).
  Result<bool> FilterBlock(const char* file, int64_t file_size) {
    ARROW_RETURN_NOT_OK(Flush());
    const auto n = static_cast<int64_t>(block_.size());
    std::vector<std::shared_ptr<arrow::Array>> arrays;
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (!predicate_[i]) continue;
      ARROW_ASSIGN_OR_RAISE(auto a, FinishColumn(&columns_[i]));
      arrays.push_back(std::move(a));
    }
    auto mask = filter_->evaluate(arrow::RecordBatch::Make(arrow::schema(predicate_fields_), n, arrays));
    std::vector<int64_t> kept;
    if (mask.ok() && (*mask)->length() == n && (*mask)->type_id() == arrow::Type::BOOL) {
      const auto& m = static_cast<const arrow::BooleanArray&>(**mask);
      for (int64_t r = 0; r < n; ++r) {
        if (m.IsValid(r) && m.Value(r)) kept.push_back(r);
      }
      ARROW_RETURN_NOT_OK(util::EnsureComputeInitialized());
      for (auto& a : arrays) {
        ARROW_ASSIGN_OR_RAISE(auto datum, arrow::compute::Filter(a, *mask));
        a = datum.make_array();
      }
      rows_filtered_ += n - static_cast<int64_t>(kept.size());
      if (static_cast<int64_t>(kept.size()) * 4 > n) filtering_ = false;
    } else {
      for (int64_t r = 0; r < n; ++r) kept.push_back(r);
      filtering_ = false;
    }
    for (size_t i = 0, k = 0; i < columns_.size(); ++i) {
      if (predicate_[i]) chunks_[i].push_back(std::move(arrays[k++]));
    }
    for (const int64_t r : kept) {
      const auto [b, e] = block_[static_cast<size_t>(r)];
      if (rest_) {
        ARROW_ASSIGN_OR_RAISE(bool ok, DecodeOne(file, file_size, /*range_end=*/-1, b, e, Store::kRest));
        if (!ok) return false;  // not reached: the line was accepted a moment ago
      }
    }
    rows_ += static_cast<int64_t>(kept.size());
    block_.clear();
    return true;
  }

  bool Stores(size_t column, Store store) const {
    return store == Store::kAll || (store == Store::kPredicate) == (predicate_[column] != 0);
  }

  // The line at bytes [b, e): read by its layout when it has a learned one, else parsed (many
  // lines at a time while layouts are not used, alone while they are: a line missed is then
  // learned from while fewer than LineLayouts::kMaxLayouts are held, or after a run of misses;
  // layouts are given up for the range when most lines miss).
  // `range_end` -1: a line behind the stream's (decoded again for the filter), parsed alone.
  // `layouts` false: the caller found the layouts miss the line already.
  Result<bool> DecodeOne(const char* file, int64_t file_size, int64_t range_end, int64_t b, int64_t e, Store store,
                         bool layouts = true) {
    if (layouts && shapes_ && layouts_.size() > 0 &&
        layouts_.Match(file + b, file + e, file + file_size, columns_) == file + e) {
      ARROW_RETURN_NOT_OK(AppendShaped(store));
      return true;
    }
    if (shapes_) {
      ++missed_;
      learning_ = layouts_.size() < LineLayouts::kMaxLayouts || ++misses_in_a_row_ >= kMissesBeforeRelearning;
      ARROW_ASSIGN_OR_RAISE(bool ok, DecodeLine(file + b, static_cast<size_t>(e - b), static_cast<size_t>(file_size - b), store));
      if (ok && learning_ && layouts_.Learn(learned_keys_, columns_, std::string_view(file + b, static_cast<size_t>(e - b)))) {
        misses_in_a_row_ = 0;
      }
      learning_ = false;
      if (missed_ >= kMissesBeforeGivingUp && missed_ > shaped_) shapes_ = false;
      return ok;
    }
    simdjson::dom::element doc;
    if (range_end >= 0 && documents_.Next(file, file_size, range_end, b, e, &doc)) return DecodeDocument(doc, store);
    return DecodeLine(file + b, static_cast<size_t>(e - b), static_cast<size_t>(file_size - b), store);
  }

  // The end of the line of a learned layout that starts at `start`, when what follows it is a
  // line break (`\n` or `\r\n`) or the range's end: the line is then matched and its end
  // found in one pass. Else null.
  const char* ShapedLine(const char* file, int64_t file_size, int64_t start, int64_t end) {
    if (!shapes_ || layouts_.size() == 0) return nullptr;
    const char* close = layouts_.Match(file + start, file + end, file + file_size, columns_);
    const char* range_end = file + end;
    if (!close || close == range_end || *close == '\n') return close;
    return *close == '\r' && close + 1 < range_end && close[1] == '\n' ? close : nullptr;
  }

  // The values of the line a learned layout matched last, appended to the columns `store` names.
  // With one layout held, the lines are staged and appended a column at a time; with several,
  // each at once (lines of layouts in turn would flush the stage every line or two, which costs
  // more than it saves).
  Status AppendShaped(Store store) {
    const bool ok = store == Store::kAll && layouts_.size() == 1
                        ? layouts_.Stage(&columns_, &error_)
                        : layouts_.Append(&columns_, stored_[static_cast<int>(store)], &error_);
    if (!ok) return error_;
    ++line_id_;
    if (store == Store::kAll) ++rows_;
    ++shaped_;
    misses_in_a_row_ = 0;
    return Status::OK();
  }

  // `capacity`: readable bytes from `line` on (simdjson reads up to SIMDJSON_PADDING past the end).
  Result<bool> DecodeLine(const char* line, size_t size, size_t capacity, Store store) {
    const char* text = line;
    if (capacity < size + simdjson::SIMDJSON_PADDING) {
      padded_.assign(line, size);
      padded_.resize(size + simdjson::SIMDJSON_PADDING, ' ');
      text = padded_.data();
    }
    simdjson::dom::element doc;
    if (const auto error = parser_.parse(text, size, /*realloc_if_needed=*/false).get(doc); error != simdjson::SUCCESS) {
      return Decline("the record is not valid JSON (", simdjson::error_message(error), ")");
    }
    return DecodeDocument(doc, store);
  }

  // The lines the layouts staged appended to the columns (before any other append, and before
  // the columns are read).
  Status Flush() {
    return layouts_.Flush(&columns_, &error_) ? Status::OK() : error_;
  }

  // A line's parsed document: its fields appended to the columns `store` names.
  Result<bool> DecodeDocument(const simdjson::dom::element& doc, Store store) {
    ARROW_RETURN_NOT_OK(Flush());
    simdjson::dom::object object;
    if (doc.get_object().get(object) != simdjson::SUCCESS) {
      return Decline("the record is ", JsonKindName(doc.type()), ", not an object");
    }
    const int64_t row = line_id_++;
    if (learning_) learned_keys_.clear();
    for (simdjson::dom::key_value_pair field : object) {
      ColumnBuilder* c = Find(field.key);
      if (learning_) learned_keys_.emplace_back(field.key, c ? static_cast<int>(c - columns_.data()) : -1);
      if (!c) continue;  // a field the schema lacks is ignored
      const bool stored = Stores(static_cast<size_t>(c - columns_.data()), store);
      // A declared key given twice: Arrow's reader rejects the record.
      if (c->last_row == row) return Decline("the field '", field.key, "' is given twice");
      c->last_row = row;
      if (c->kind == ValueKind::kNested) {
        auto st = AppendJsonValue(field.value, *c->type, c->nested.get());
        if (st.IsInvalid()) return Decline("field '", field.key, "': ", st.message());
        ARROW_RETURN_NOT_OK(st);
        continue;
      }
      bool fits = false;
      if (ARROW_PREDICT_FALSE(!Append(c, field.value, truncate_fractions_, stored, &fits, &error_))) return error_;
      if (!fits) {
        return Decline("field '", field.key, "': ", JsonKindName(field.value.type()), " ",
                       simdjson::minify(field.value), " does not fit ", plan::TypeName(*c->type));
      }
    }
    for (size_t i = 0; i < columns_.size(); ++i) {
      auto& c = columns_[i];
      if (c.last_row != row && Stores(i, store)) ARROW_RETURN_NOT_OK(AppendNull(&c));
      c.last_row = row;
    }
    if (store == Store::kAll) ++rows_;
    return true;
  }

  template <typename... Args>
  bool Decline(Args&&... args) {
    why_ = Status::Invalid(std::forward<Args>(args)...).message();
    return false;
  }

  // Column names are short: compared by two overlapping loads (the first and the last 4 or 8
  // bytes) rather than byte by byte or by a call to memcmp per field.
  static bool SameName(const std::string& name, std::string_view key) {
    const size_t n = key.size();
    if (name.size() != n) return false;
    const char* a = name.data();
    const char* b = key.data();
    if (n >= 8 && n <= 16) return Load<uint64_t>(a) == Load<uint64_t>(b) && Load<uint64_t>(a + n - 8) == Load<uint64_t>(b + n - 8);
    if (n >= 4 && n < 8) return Load<uint32_t>(a) == Load<uint32_t>(b) && Load<uint32_t>(a + n - 4) == Load<uint32_t>(b + n - 4);
    return std::memcmp(a, b, n) == 0;
  }

  template <typename T>
  static T Load(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
  }

  // Lines of one file nearly always give their keys in one order: the column after the last
  // one found is tried first.
  ColumnBuilder* Find(std::string_view key) {
    const size_t n = columns_.size();
    if (next_ < n && SameName(columns_[next_].name, key)) return &columns_[next_++];
    for (size_t i = 0; i < n; ++i) {
      if (SameName(columns_[i].name, key)) {
        next_ = i + 1;
        return &columns_[i];
      }
    }
    return nullptr;
  }

  // *fits false: `value` is not one Arrow's reader takes for the column's type. `store` false:
  // only checks it. False: the append failed, with `*error` set. (No Status or Result is made
  // on the way of a value that is appended: this runs once per value.)
  static bool Append(ColumnBuilder* c, const simdjson::dom::element& value, bool truncate_fractions, bool store,
                     bool* fits, Status* error) {
    const auto type = value.type();
    *fits = true;
    if (type == simdjson::dom::element_type::NULL_VALUE) return !store || Appended(AppendNull(c), error);
    switch (c->kind) {
      case ValueKind::kString: {
        if (type != simdjson::dom::element_type::STRING) break;
        if (!store) return true;
        std::string_view s = value.get_string().value_unsafe();
        return AppendValue(c, s, error);
      }
      case ValueKind::kInteger: {
        int64_t v = 0;
        if (!JsonIntegerIn(value, c->min, c->max, &v)) break;
        return !store || AppendValue(c, v, error);
      }
      case ValueKind::kDouble: {
        double v = 0;
        if (!JsonNumber(value, &v)) break;
        return !store || AppendValue(c, v, error);
      }
      case ValueKind::kBoolean: {
        if (type != simdjson::dom::element_type::BOOL) break;
        const bool v = value.get_bool().value_unsafe();
        return !store || AppendValue(c, v, error);
      }
      case ValueKind::kNested:
        break;  // appended by AppendJsonValue
      case ValueKind::kTimestamp: {
        int64_t v = 0;
        // The parser Arrow's JSON reader applies to timestamp text (a zone offset is converted
        // to UTC; more than the unit's fractional digits fails, and Arrow's path truncates them).
        if (!JsonTimestamp(value, static_cast<const arrow::TimestampType&>(*c->type), truncate_fractions, &v)) {
          break;
        }
        return !store || AppendValue(c, v, error);
      }
    }
    *fits = false;
    return true;
  }

  bool truncate_fractions_;
  const ScanFilter* filter_;
  bool filtering_;  // lines are decoded predicate first (until the filter is given up)
  bool rest_ = false;  // some column is not the predicate's
  bool shapes_;        // lines are read by their layout where they have a learned one
  bool learning_ = false;  // the line being parsed gives its keys to learned_keys_
  LineLayouts layouts_;
  std::vector<std::pair<std::string_view, int>> learned_keys_;  // keys and columns of the line parsed last
  std::vector<uint8_t> stored_[3];  // per Store: the columns it appends to
  int64_t shaped_ = 0;              // lines read by their layout
  int64_t missed_ = 0;              // lines parsed while layouts are used
  int misses_in_a_row_ = 0;
  std::vector<uint8_t> predicate_;  // per column: read by the filter
  arrow::FieldVector predicate_fields_;
  std::vector<std::vector<std::shared_ptr<arrow::Array>>> chunks_;  // per predicate column: kept values by block
  std::vector<std::pair<int64_t, int64_t>> block_;  // [begin, end) of the lines awaiting the predicate
  std::string why_;
  Status error_;  // why Append failed
  std::vector<ColumnBuilder> columns_;
  simdjson::dom::parser parser_;  // a line parsed alone
  LineDocuments documents_;        // lines parsed many at once
  std::string padded_;
  size_t next_ = 0;            // the column Find tries first
  int64_t rows_ = 0;           // rows output
  int64_t line_id_ = 0;        // lines parsed (a kept line twice): tells a duplicate key
  int64_t rows_filtered_ = 0;  // rows the filter dropped
};

// Line-aligned byte ranges of about equal size; one when `parts` is 1.
std::vector<std::pair<int64_t, int64_t>> SplitAtLines(const char* p, int64_t n, int parts) {
  std::vector<std::pair<int64_t, int64_t>> out;
  int64_t begin = 0;
  for (int i = 1; i < parts && begin < n; ++i) {
    int64_t cut = std::max(begin, n * i / parts);
    const void* nl = std::memchr(p + cut, '\n', static_cast<size_t>(n - cut));
    if (!nl) break;
    int64_t end = static_cast<const char*>(nl) - p + 1;
    out.emplace_back(begin, end);
    begin = end;
  }
  if (begin < n || out.empty()) out.emplace_back(begin, n);
  return out;
}

}  // namespace

bool SimdjsonDecodesSchema(const arrow::Schema& parse_schema) {
  for (const auto& f : parse_schema.fields()) {
    if (!KindOf(*f->type()).ok()) return false;
  }
  return true;
}

bool HoldsMap(const arrow::DataType& type) {
  if (type.id() == arrow::Type::MAP) return true;
  for (const auto& f : type.fields()) {
    if (HoldsMap(*f->type())) return true;
  }
  return false;
}

bool SchemaHoldsMap(const arrow::Schema& schema) {
  for (const auto& f : schema.fields()) {
    if (HoldsMap(*f->type())) return true;
  }
  return false;
}

Status CheckSimdjsonDecodesMapSchema(const arrow::Schema& parse_schema) {
  for (const auto& f : parse_schema.fields()) {
    if (KindOf(*f->type()).ok() || JsonValueBuilderDecodes(*f->type())) continue;
    if (HoldsMap(*f->type())) {
      return Status::Invalid("The JSON reader reads a MAP only with STRING keys and values of the types string, "
                             "tinyint, smallint, int, bigint, float, double, boolean, timestamp, date, or arrays, "
                             "structs and maps of them; column '", f->name(), "' is ", plan::TypeName(*f->type()));
    }
    return Status::Invalid("The JSON reader reads a schema with a MAP column only when every column is of the "
                           "types string, tinyint, smallint, int, bigint, float, double, boolean, timestamp, date, "
                           "or arrays, structs and maps of them; column '", f->name(), "' is ", plan::TypeName(*f->type()));
  }
  return Status::OK();
}

const ScanFilter* SimdjsonFilter(const ScanFilter* filter, const arrow::Schema& parse_schema,
                                  const arrow::Schema& schema) {
  if (!filter || !filter->evaluate || !SimdjsonDecodesSchema(parse_schema)) return nullptr;
  for (const auto& name : filter->columns) {
    if (parse_schema.GetFieldIndex(name) < 0) return nullptr;  // e.g. the corrupt-record column
  }
  for (const auto& f : parse_schema.fields()) {
    const auto declared = schema.GetFieldByName(f->name());
    if (!declared || !declared->type()->Equals(*f->type())) return nullptr;  // a date read as text
  }
  return filter;
}

Result<std::shared_ptr<arrow::Table>> DecodeJsonLinesSimdjson(const std::shared_ptr<arrow::Buffer>& data,
                                                              const std::shared_ptr<arrow::Schema>& parse_schema,
                                                              bool use_threads, std::string* why,
                                                              const ScanFilter* filter, int64_t* rows_filtered,
                                                              bool shapes) {
  // With a nested column (a schema with a MAP) this decoder alone judges the records, so it also
  // truncates timestamp fractions, as Arrow's path does for the flat schemas it declines.
  const bool sole_decoder = !SimdjsonDecodesSchema(*parse_schema);
  if (sole_decoder) filter = nullptr;
  const char* p = reinterpret_cast<const char*>(data->data());
  const int64_t n = data->size();
  int parts = 1;
  if (use_threads) {
    const int64_t by_size = std::max<int64_t>(1, n / kMinBytesPerPart);
    parts = static_cast<int>(std::min<int64_t>(by_size, arrow::GetCpuThreadPoolCapacity()));
  }
  const auto ranges = SplitAtLines(p, n, parts);
  std::vector<std::unique_ptr<LineRangeDecoder>> decoders(ranges.size());
  std::vector<uint8_t> accepted(ranges.size(), 0);
  auto decode = [&](int i) -> Status {
    const auto k = static_cast<size_t>(i);
    decoders[k] = std::make_unique<LineRangeDecoder>(*parse_schema, sole_decoder, filter, shapes);
    ARROW_RETURN_NOT_OK(decoders[k]->Init());
    ARROW_ASSIGN_OR_RAISE(bool ok, decoders[k]->Decode(p, n, ranges[k].first, ranges[k].second));
    accepted[k] = ok ? 1 : 0;
    return Status::OK();
  };
  // One range is decoded on the calling thread: it may be a pool thread already (files of a
  // batch are read in parallel), where waiting on the pool could deadlock.
  if (ranges.size() == 1) {
    ARROW_RETURN_NOT_OK(decode(0));
  } else {
    ARROW_RETURN_NOT_OK(arrow::internal::ParallelFor(static_cast<int>(ranges.size()), decode));
  }
  for (size_t k = 0; k < accepted.size(); ++k) {
    if (accepted[k]) continue;
    if (why) *why = decoders[k]->why();
    return nullptr;
  }
  std::vector<std::shared_ptr<arrow::Table>> tables;
  for (auto& d : decoders) {
    if (rows_filtered) *rows_filtered += d->rows_filtered();
    const int64_t rows = d->rows();
    ARROW_ASSIGN_OR_RAISE(auto columns, d->Finish());
    tables.push_back(arrow::Table::Make(parse_schema, std::move(columns), rows));
  }
  if (tables.size() == 1) return tables[0];
  return arrow::ConcatenateTables(tables);  // one chunk per range, as Arrow's reader gives one per block
}

}  // namespace sluice::source
