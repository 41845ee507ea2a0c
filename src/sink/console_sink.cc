// The console sink: Spark's ConsoleWrite, i.e. a "Batch: N" banner and then the batch as
// Dataset.show(numRows, truncate) prints it. Widths count Unicode code points (Spark also
// counts East Asian wide characters twice; sluice does not).
#include "sink/console_sink.h"

#include <algorithm>
#include <charconv>
#include <iostream>
#include <sstream>

#include "util/value_text.h"

namespace sluice::sink {
namespace {

constexpr int kTruncateWidth = 20;  // Spark's show(truncate = true)

size_t CodePoints(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// The first `n` code points of `s`.
std::string PrefixCodePoints(const std::string& s, size_t n) {
  size_t seen = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((s[i] & 0xC0) != 0x80) {
      if (seen == n) return s.substr(0, i);
      ++seen;
    }
  }
  return s;
}

// Spark's SchemaUtils.escapeMetaCharacters: control characters shown as escapes.
std::string EscapeMeta(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\f': out += "\\f"; break;
      case '\b': out += "\\b"; break;
      case '\v': out += "\\v"; break;
      case '\a': out += "\\a"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string Truncate(const std::string& s, int truncate) {
  if (truncate <= 0 || CodePoints(s) <= static_cast<size_t>(truncate)) return s;
  if (truncate < 4) return PrefixCodePoints(s, static_cast<size_t>(truncate));
  return PrefixCodePoints(s, static_cast<size_t>(truncate - 3)) + "...";
}

// Dataset.showString(numRows, truncate) for a table: bordered grid, right-aligned cells when
// truncating (left-aligned otherwise), "only showing top N rows" when rows were left out.
Result<std::string> ShowString(const arrow::Table& table, int64_t num_rows, int truncate) {
  std::shared_ptr<arrow::Table> shown = table.Slice(0, num_rows);
  ARROW_ASSIGN_OR_RAISE(shown, shown->CombineChunks());
  std::vector<std::vector<std::string>> grid;
  std::vector<std::string> header;
  for (const auto& f : table.schema()->fields()) header.push_back(EscapeMeta(f->name()));
  grid.push_back(std::move(header));
  for (int64_t r = 0; r < shown->num_rows(); ++r) {
    std::vector<std::string> row;
    for (int c = 0; c < shown->num_columns(); ++c) {
      const auto& column = *shown->column(c)->chunk(0);
      auto cell = util::FormatShowCell(column, r);
      if (!cell.ok()) {
        return cell.status().WithMessage("console sink, column '", table.schema()->field(c)->name(),
                                         "': ", cell.status().message());
      }
      row.push_back(Truncate(EscapeMeta(*cell), truncate));
    }
    grid.push_back(std::move(row));
  }
  std::vector<size_t> widths(grid[0].size(), 3);
  for (const auto& row : grid) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], CodePoints(row[c]));
  }
  std::string sep = "+";
  for (size_t w : widths) sep += std::string(w, '-') + "+";
  sep += "\n";
  auto line = [&](const std::vector<std::string>& row) {
    std::string out = "|";
    for (size_t c = 0; c < row.size(); ++c) {
      std::string pad(widths[c] - CodePoints(row[c]), ' ');
      out += (truncate > 0 ? pad + row[c] : row[c] + pad) + "|";
    }
    return out + "\n";
  };
  std::string out = sep + line(grid[0]) + sep;
  for (size_t r = 1; r < grid.size(); ++r) out += line(grid[r]);
  out += sep;
  if (table.num_rows() > num_rows) {
    out += "only showing top " + std::to_string(num_rows) + (num_rows == 1 ? " row\n" : " rows\n");
  }
  return out;
}

class ConsoleSink final : public Sink {
 public:
  ConsoleSink(int64_t num_rows, bool truncate, std::ostream* out)
      : num_rows_(num_rows), truncate_(truncate), out_(out) {}

  std::string Description() const override {
    return "ConsoleSink[numRows=" + std::to_string(num_rows_) + ", truncate=" + (truncate_ ? "true" : "false") + "]";
  }
  bool idempotent() const override { return false; }

  Status AddBatch(int64_t batch_id, const std::shared_ptr<arrow::Table>& rows) override {
    ARROW_ASSIGN_OR_RAISE(auto table, ShowString(*rows, num_rows_, truncate_ ? kTruncateWidth : 0));
    std::ostream& os = out_ ? *out_ : std::cout;
    // One write per batch, so batches of concurrent queries do not interleave mid-table.
    os << "-------------------------------------------\nBatch: " << batch_id
       << "\n-------------------------------------------\n" + table + "\n";
    os.flush();
    return Status::OK();
  }

 private:
  int64_t num_rows_;
  bool truncate_;
  std::ostream* out_;
};

struct ConsoleOptions {
  int64_t num_rows = 20;
  bool truncate = true;
};

Result<ConsoleOptions> ParseConsoleOptions(const plan::Options& options) {
  ARROW_RETURN_NOT_OK(options.CheckKnown({"numRows", "truncate", "checkpointLocation"}, "console sink"));
  ConsoleOptions o;
  if (auto v = options.Get("numRows")) {
    auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), o.num_rows);
    if (ec != std::errc() || p != v->data() + v->size() || o.num_rows < 0) {
      return Status::Invalid("Option 'numRows' of the console sink must be a non-negative integer, got '", *v, "'");
    }
  }
  if (auto v = options.Get("truncate")) {
    std::string s = *v;
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    if (s != "true" && s != "false") {
      return Status::Invalid("Option 'truncate' of the console sink must be true or false, got '", *v, "'");
    }
    o.truncate = s == "true";
  }
  return o;
}

}  // namespace

Status ValidateConsoleSinkSpec(const SinkSpec& spec) { return ParseConsoleOptions(spec.options).status(); }

Result<std::unique_ptr<Sink>> MakeConsoleSink(const SinkSpec& spec, const SinkContext& ctx) {
  ARROW_ASSIGN_OR_RAISE(auto o, ParseConsoleOptions(spec.options));
  return std::unique_ptr<Sink>(new ConsoleSink(o.num_rows, o.truncate, ctx.console));
}

Result<std::string> ShowTable(const arrow::Table& table, int64_t num_rows, bool truncate) {
  return ShowString(table, num_rows, truncate ? kTruncateWidth : 0);
}

}  // namespace sluice::sink
