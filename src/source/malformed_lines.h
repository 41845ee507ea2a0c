// The slow path of the record readers (file_record_readers.cc): when one decode of a whole file
// (or block) fails, its non-blank lines are bisected; a range that decodes is kept as it is, a
// single line that does not is a malformed record, handled by the source's `mode` (PERMISSIVE's
// row with `_corrupt_record`, DROPMALFORMED, FAILFAST's error naming the line). About 3 decodes
// of the file for one bad line, O(n log k) for k bad lines.
#pragma once

#include <arrow/buffer.h>
#include <arrow/table.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "source/file_readers.h"
#include "source/file_source_options.h"
#include "sluice/status.h"

namespace sluice::source {

/// A non-blank line: bytes [begin, end) of the file, without the line break.
struct Line {
  int64_t number;  // 1-based
  int64_t begin;
  int64_t end;
};

/// The lines of `data` with something besides spaces and tabs, numbered from `first_line`.
std::vector<Line> NonBlankLines(const arrow::Buffer& data, int64_t first_line = 1);
/// How many of them there are (without listing them).
int64_t CountNonBlankLines(const arrow::Buffer& data);
/// The first of them, found without reading past it; nothing when every line is blank.
std::optional<Line> FirstNonBlankLine(const arrow::Buffer& data);

/// Decodes a byte range into a table already conformed to the declared schema.
using RangeParser = std::function<Result<std::shared_ptr<arrow::Table>>(const std::shared_ptr<arrow::Buffer>&)>;

/// Finds and handles the malformed lines of a file the fast path could not decode.
class MalformedLineFinder {
 public:
  /// `salvage` (optional) gives PERMISSIVE's partial row of a malformed line (or a row per record
  /// of a line that holds several, each with the line as its corrupt record); `rescue` (optional)
  /// decodes a line Arrow rejected that is not malformed for Spark (its rows, not counted; an
  /// error when the line is malformed after all).
  MalformedLineFinder(std::shared_ptr<arrow::Buffer> data, std::string path, std::shared_ptr<arrow::Schema> schema,
                      const FileFormatOptions& options, RangeParser parse, RangeParser salvage,
                      RangeParser rescue = nullptr);

  /// `whole_file_error`: why the fast path failed on all of `lines` (not decoded again).
  Result<FileReadResult> Run(const std::vector<Line>& lines, const Status& whole_file_error);

  /// For data rewritten line for line before decoding (json_string_values.h): a malformed
  /// record's text is then taken from `original`, whose non-blank lines are the data's.
  void KeepRecordTextOf(std::shared_ptr<arrow::Buffer> original, std::vector<Line> lines) {
    original_ = std::move(original);
    original_lines_ = std::move(lines);
  }

 private:
  std::shared_ptr<arrow::Buffer> Slice(size_t b, size_t e) const;
  // Left to right, so pieces stay in file order and FAILFAST reports the first bad line.
  Status Visit(size_t b, size_t e, const Status* known_error = nullptr);
  Status OnMalformed(const Line& line, const Status& why);

  std::shared_ptr<arrow::Buffer> data_;
  std::string path_;
  std::shared_ptr<arrow::Schema> schema_;
  const FileFormatOptions& options_;
  RangeParser parse_;
  RangeParser salvage_;
  RangeParser rescue_;
  const std::vector<Line>* lines_ = nullptr;
  std::shared_ptr<arrow::Buffer> original_;
  std::vector<Line> original_lines_;
  std::vector<std::shared_ptr<arrow::Table>> pieces_;
  int64_t malformed_ = 0;
};

}  // namespace sluice::source
