// The parsed documents of consecutive lines of a JSON-lines file, many lines at a time: the
// simdjson decoder's way to give each line its document without a stage-1 pass per line.
#pragma once

#include <simdjson.h>

#include <cstdint>

namespace sluice::source {

/// The documents of consecutive lines, from one simdjson document stream over many lines (stage
/// 1 runs once per batch of 256 KiB, not once per line). A line gets the stream's document only
/// when that document is exactly the line: it starts at the line's first byte, is an object, and
/// only whitespace follows it on the line. Then every byte the stream read before it was a whole
/// line's object or blank, so the document is what parsing the line alone gives. Anything else
/// (an error anywhere in the batch, two values or part of one on a line, a scalar) is left to the
/// caller to parse alone, and a stream starts again some lines later.
class LineDocuments {
 public:
  LineDocuments();

  /// The document of the line at bytes [b, e) of `file` (`file_size` bytes; whole lines up to
  /// `range_end` follow it), or false: the caller parses the line alone. Lines are asked for in
  /// order; `*out` stays valid until the next call.
  bool Next(const char* file, int64_t file_size, int64_t range_end, int64_t b, int64_t e, simdjson::dom::element* out);

 private:
  bool Start(const char* file, int64_t file_size, int64_t range_end, int64_t b);
  bool Miss(int64_t e);

  simdjson::dom::parser parser_;
  simdjson::dom::document_stream stream_;
  simdjson::dom::document_stream::iterator it_;
  bool active_ = false;
  bool advance_ = false;   // the document given last is used up: step past it first
  int64_t base_ = 0;       // offset in the file of the stream's first byte
  int64_t resume_at_ = 0;  // no stream starts before this offset
};

}  // namespace sluice::source
