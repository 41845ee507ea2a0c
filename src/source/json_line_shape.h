// A JSON line read without a parser when it has the layout of a line before it.
//
// The lines of a JSON-lines file nearly always give the same keys in the same order, written
// the same way (no escapes; no spaces, or one after each colon and comma as Python's json.dumps
// writes), or one of a few such layouts where keys are optional.
// Once the simdjson decoder (json_simdjson_reader.h) has parsed a line, LineLayouts holds its
// layout: the key tokens (`"name":`) in order, each with the column it fills or none. A later
// line is read by comparing it byte for byte with the layouts held and reading each value in
// place. Only a line that is valid JSON with values the columns take exactly as the simdjson
// path takes them is read so; any other byte sequence (spaces, an escape, another key order, a
// fraction where an integer is declared, a nested value, an integer of 19 digits or more, "-0",
// a timestamp Arrow's ISO-8601 parser does not read) is a miss, and the line is parsed as
// before. So a line gives the same values (or is declined the same way) whichever way it is
// read. Non-ASCII string bytes are checked to be UTF-8, control bytes in strings are a miss.
//
// One instance per thread (the decoder of one line range).
#pragma once

#include <arrow/api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/status.h"
#include "source/flat_column_builder.h"

namespace sluice::source {

// kNested: any type JsonValueBuilderDecodes that is not flat (only in a schema with a MAP).
enum class ValueKind { kString, kInteger, kDouble, kBoolean, kTimestamp, kNested };

/// The column a type decodes into, or NotImplemented for a type the decoder leaves to Arrow.
Result<ValueKind> KindOf(const arrow::DataType& type);

/// One declared column being built. Integers of every width are collected as int64 (in the
/// declared width's range) and cast at the end; the range check makes the cast exact.
struct ColumnBuilder {
  std::string name;
  std::shared_ptr<arrow::DataType> type;
  ValueKind kind = ValueKind::kString;
  int64_t min = 0;
  int64_t max = 0;
  int64_t last_row = -1;  // the row that last set this column (a second set in one row = duplicate key)
  FlatColumnBuilder values;                // the flat kinds' values (kInteger and kTimestamp as int64)
  std::unique_ptr<arrow::ArrayBuilder> nested;
};

/// The builder of a declared field: its kind (kNested for a type no flat kind takes), the range
/// of its integers and an empty builder of the kind's layout. (`nested` is the caller's to make.)
ColumnBuilder MakeColumnBuilder(const arrow::Field& field);

/// The ordinary path's outcome: true when it went well, else false with `*error` set.
[[gnu::noinline]] bool Appended(Status st, Status* error);

/// Appends `v` to `c`'s values: in the room reserved when it holds (no Status made), else
/// growing it. False: the append failed (a string column past 2 GiB), with `*error` set.
template <typename T>
inline bool AppendValue(ColumnBuilder* c, T v, Status* error) {
  return c->values.TryAppend(v) || Appended(c->values.Append(v), error);
}

/// `c`'s null. (Grows the builder as needed.)
Status AppendNull(ColumnBuilder* c);

/// The layouts of a few lines of a range: usually one, several where keys are optional.
class LineLayouts {
 public:
  static constexpr size_t kMaxLayouts = 4;

  /// Layouts held.
  size_t size() const { return layouts_.size(); }

  /// Learns the layout of a line just decoded by the parser: its keys in order (as the parser
  /// gave them, unescaped), each with the index of the column it filled or -1, and from `line`
  /// (its text, when given) whether one space follows each colon and each comma (as Python's
  /// json.dumps writes). With kMaxLayouts held, the one matched least recently is dropped. False,
  /// and nothing learned, while lines are staged (Flush first), when the layout is held already,
  /// a key holds a byte a token cannot match as is (a quote, a backslash, a control byte) or a
  /// column is nested.
  bool Learn(const std::vector<std::pair<std::string_view, int>>& keys, const std::vector<ColumnBuilder>& columns,
             std::string_view line = {});

  /// Whether the bytes from `line` on start with one object of a layout held whose values all
  /// fit their columns, ending before `end`: then the end of the object (past its `}`), and the
  /// values are held for Append; else null. The layouts are followed together, key by key (a
  /// value is read once, whichever layouts share the keys before it). The object holds no line
  /// break (no token or value takes one). `readable_end`: bytes up to it may be read (the end of
  /// the file's buffer). Reads nothing of `columns` but their kinds and ranges.
  const char* Match(const char* line, const char* end, const char* readable_end,
                    const std::vector<ColumnBuilder>& columns);

  /// Appends the matched line's values to the columns `stored` marks (one byte per column), and
  /// nulls to the marked columns its layout lacks, after the lines staged (Flush). False: an
  /// append failed, with `*error` set.
  bool Append(std::vector<ColumnBuilder>* columns, const std::vector<uint8_t>& stored, Status* error);

  /// Keeps the matched line's values for all of its columns to be appended later, column by
  /// column, with the lines staged before it (Flush): a column's values are then appended in
  /// one loop, not one value of each column in turn. Flushes by itself when kStagedLines are
  /// staged, or first when the line has another layout than the lines staged. The caller
  /// flushes before anything else is appended to `columns` (a parsed line) and before it reads
  /// them; the text the values point into must outlive the flush. False: an append failed,
  /// with `*error` set.
  bool Stage(std::vector<ColumnBuilder>* columns, Status* error);

  /// Appends the staged lines (see Stage). False: an append failed, with `*error` set.
  bool Flush(std::vector<ColumnBuilder>* columns, Status* error);

  /// Lines staged and not yet appended.
  int staged() const { return staged_; }

  static constexpr int kStagedLines = 64;

 private:
  struct Field {
    std::string token;  // `"key":`
    int column = -1;
    std::string lead;  // the bytes before its value: the comma (after the first key), the token, the spaces
  };
  struct Layout {
    std::vector<Field> fields;
    bool colon_space = false;  // `"key": value`
    bool comma_space = false;  // `value, "key"`
    std::vector<int> absent;   // columns no key of the layout fills
    int64_t last_matched = 0;  // on the clock `matches_`
  };
  struct Value {
    std::string_view text;
    int64_t integer = 0;  // integers, timestamps and booleans (0 or 1)
    double number = 0;
    bool null = false;
  };
  // A timestamp's text up to its seconds, and its value: the lines of a file share it for a
  // second of events, so only the fraction is read for most lines.
  struct SecondsCache {
    std::string prefix;
    int64_t value = 0;
  };

  // A value at `*p` the column (or, null, a key no column has) takes, read into `*out`; `*p`
  // moves past it.
  static bool ReadValue(const ColumnBuilder* c, const char** p, const char* end, const char* readable_end, Value* out);
  bool ReadTimestamp(int column, const arrow::TimestampType& type, std::string_view s, int64_t* out);
  // Appends the first `rows` lines of values_ (of `layout`) to the columns `stored` marks (all
  // when null), a column at a time, and nulls to the marked columns the layout lacks.
  bool AppendLines(const Layout& layout, int rows, const std::vector<uint8_t>* stored,
                   std::vector<ColumnBuilder>* columns, Status* error) const;
  // Match with one layout held: each key's lead compared whole.
  const char* MatchOne(const char* line, const char* end, const char* readable_end,
                       const std::vector<ColumnBuilder>& columns);
  // The value of `field` at `*p`, into the line's k-th value; false: a miss.
  bool ReadField(const Field& field, size_t k, const char** p, const char* end, const char* readable_end,
                 const std::vector<ColumnBuilder>& columns);

  std::vector<Layout> layouts_;
  // The staged lines' values and then the matched line's, a row of `stride_` (the most keys of
  // a layout held) for each line, by key position.
  std::vector<Value> values_;
  size_t stride_ = 0;
  int staged_ = 0;              // lines staged: the matched line's values are row `staged_`
  size_t staged_layout_ = 0;    // their layout
  std::vector<SecondsCache> seconds_;  // by column
  size_t matched_ = 0;                 // the layout of the line matched last
  int64_t matches_ = 0;
};

}  // namespace sluice::source
