#include "source/malformed_lines.h"

#include <arrow/api.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include "io/file_system.h"
#include "util/utf8_text.h"

namespace sluice::source {

namespace {

// Calls `visit` with each non-blank line of `data` in order, until it returns false.
template <typename Visit>
void VisitNonBlankLines(const arrow::Buffer& data, int64_t first_line, Visit&& visit) {
  const char* p = reinterpret_cast<const char*>(data.data());
  int64_t n = data.size();
  int64_t start = 0;
  int64_t number = first_line;
  while (start < n) {
    const void* nl = std::memchr(p + start, '\n', static_cast<size_t>(n - start));
    int64_t end = nl ? static_cast<const char*>(nl) - p : n;
    int64_t e = end;
    if (e > start && p[e - 1] == '\r') --e;
    bool blank = std::all_of(p + start, p + e, [](char c) { return c == ' ' || c == '\t'; });
    if (!blank && !visit(Line{number, start, e})) return;
    start = end + 1;
    ++number;
  }
}

}  // namespace

std::vector<Line> NonBlankLines(const arrow::Buffer& data, int64_t first_line) {
  std::vector<Line> out;
  VisitNonBlankLines(data, first_line, [&](const Line& line) {
    out.push_back(line);
    return true;
  });
  return out;
}

int64_t CountNonBlankLines(const arrow::Buffer& data) {
  int64_t n = 0;
  VisitNonBlankLines(data, 1, [&](const Line&) {
    ++n;
    return true;
  });
  return n;
}

std::optional<Line> FirstNonBlankLine(const arrow::Buffer& data) {
  std::optional<Line> first;
  VisitNonBlankLines(data, 1, [&](const Line& line) {
    first = line;
    return false;
  });
  return first;
}

MalformedLineFinder::MalformedLineFinder(std::shared_ptr<arrow::Buffer> data, std::string path,
                                         std::shared_ptr<arrow::Schema> schema, const FileFormatOptions& options,
                                         RangeParser parse, RangeParser salvage, RangeParser rescue)
    : data_(std::move(data)),
      path_(std::move(path)),
      schema_(std::move(schema)),
      options_(options),
      parse_(std::move(parse)),
      salvage_(std::move(salvage)),
      rescue_(std::move(rescue)) {}

Result<FileReadResult> MalformedLineFinder::Run(const std::vector<Line>& lines, const Status& whole_file_error) {
  lines_ = &lines;
  if (!lines.empty()) ARROW_RETURN_NOT_OK(Visit(0, lines.size(), &whole_file_error));
  FileReadResult out;
  out.malformed_rows = malformed_;
  if (pieces_.empty()) {
    ARROW_ASSIGN_OR_RAISE(out.table, arrow::Table::MakeEmpty(schema_));
    return out;
  }
  ARROW_ASSIGN_OR_RAISE(auto table, arrow::ConcatenateTables(pieces_));
  ARROW_ASSIGN_OR_RAISE(out.table, table->CombineChunks());
  return out;
}

std::shared_ptr<arrow::Buffer> MalformedLineFinder::Slice(size_t b, size_t e) const {
  const auto& lines = *lines_;
  return arrow::SliceBuffer(data_, lines[b].begin, lines[e - 1].end - lines[b].begin);
}

Status MalformedLineFinder::Visit(size_t b, size_t e, const Status* known_error) {
  Status error;
  if (known_error) {
    error = *known_error;
  } else {
    auto table = parse_(Slice(b, e));
    if (table.ok()) {
      if ((*table)->num_rows() > 0) pieces_.push_back(*table);
      return Status::OK();
    }
    error = table.status();
  }
  if (e - b == 1) return OnMalformed((*lines_)[b], error);
  size_t mid = b + (e - b) / 2;
  ARROW_RETURN_NOT_OK(Visit(b, mid));
  return Visit(mid, e);
}

Status MalformedLineFinder::OnMalformed(const Line& line, const Status& why) {
  if (rescue_) {
    auto whole = rescue_(arrow::SliceBuffer(data_, line.begin, line.end - line.begin));
    if (whole.ok()) {
      pieces_.push_back(*whole);
      return Status::OK();
    }
  }
  ++malformed_;
  if (options_.mode == ParseMode::kFailFast) {
    return Status::Invalid("Malformed record in ", io::PathToUri(path_), " at line ", line.number, ": ",
                           why.message());
  }
  if (options_.mode == ParseMode::kDropMalformed) return Status::OK();
  const arrow::Buffer* text = data_.get();
  Line at = line;
  if (original_) {  // the line as the file writes it
    text = original_.get();
    at = original_lines_[static_cast<size_t>(&line - lines_->data())];
  }
  const std::string raw = util::ReplaceInvalidUtf8(std::string_view(
      reinterpret_cast<const char*>(text->data()) + at.begin, static_cast<size_t>(at.end - at.begin)));
  std::shared_ptr<arrow::Table> row;  // the partial rows (one, or one per record of the line)
  if (salvage_) {
    auto partial = salvage_(arrow::SliceBuffer(data_, line.begin, line.end - line.begin));
    if (partial.ok() && (*partial)->num_rows() >= 1) row = *partial;
  }
  const int64_t n = row ? row->num_rows() : 1;
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
  for (int i = 0; i < schema_->num_fields(); ++i) {
    const auto& field = schema_->field(i);
    if (field->name() == options_.corrupt_column) {
      std::unique_ptr<arrow::ArrayBuilder> builder;
      ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), field->type(), &builder));
      for (int64_t r = 0; r < n; ++r) {
        if (field->type()->id() == arrow::Type::LARGE_STRING) {
          ARROW_RETURN_NOT_OK(static_cast<arrow::LargeStringBuilder*>(builder.get())->Append(raw));
        } else {
          ARROW_RETURN_NOT_OK(static_cast<arrow::StringBuilder*>(builder.get())->Append(raw));
        }
      }
      ARROW_ASSIGN_OR_RAISE(auto arr, builder->Finish());
      columns.push_back(std::make_shared<arrow::ChunkedArray>(arr));
    } else if (row) {
      columns.push_back(row->column(i));
    } else {
      ARROW_ASSIGN_OR_RAISE(auto arr, arrow::MakeArrayOfNull(field->type(), 1));
      columns.push_back(std::make_shared<arrow::ChunkedArray>(arr));
    }
  }
  pieces_.push_back(arrow::Table::Make(schema_, std::move(columns), n));
  return Status::OK();
}

}  // namespace sluice::source
