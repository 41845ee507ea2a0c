// The text of one SQL file and the mapping from libpg_query's byte offsets to what a person
// reads: "pipeline.sql:3:14" plus the line with a caret under the column. Every located error
// of the SQL front end is made here, so they all look the same.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sluice/status.h"

namespace sluice::sql {

/// A 1-based line and column; the column counts characters (UTF-8 code points), not bytes.
struct TextPosition {
  int line = 1;
  int column = 1;
};

/// SQL identifiers and names compare ignoring case: `FoldCase` is their lower-case key,
/// `SameIdentifier` the comparison. `JoinNames` lists names for messages ("a, b, c").
std::string FoldCase(std::string s);
bool SameIdentifier(const std::string& a, const std::string& b);
std::string JoinNames(const std::vector<std::string>& names);

class SqlText {
 public:
  /// `file_name` is used in messages only ("<sql>" for text that is not from a file).
  SqlText(std::string file_name, std::string text);

  const std::string& file_name() const { return file_name_; }
  const std::string& text() const { return text_; }

  /// Position of byte `offset` (clamped to the text).
  TextPosition PositionOf(int offset) const;
  /// "file.sql:3:14".
  std::string Where(int offset) const;
  /// An Invalid status "file.sql:3:14: <message>" followed by the line and a caret. A negative
  /// offset (location unknown) gives the message with the file name only.
  Status ErrorAt(int offset, const std::string& message) const;

  /// The identifier at byte `offset` as written (case kept; a "quoted" one unquoted), or
  /// `fallback` when no identifier starts there. libpg_query folds unquoted identifiers to
  /// lower case; sluice keeps the user's spelling, like Spark.
  std::string IdentifierAt(int offset, const std::string& fallback) const;
  /// A dotted chain of identifiers starting at `offset` ("t.userId" -> {"t", "userId"}), or
  /// `fallback` when the text there does not have exactly fallback.size() parts.
  std::vector<std::string> IdentifierChainAt(int offset, const std::vector<std::string>& fallback) const;
  /// The spelling of the identifier `folded` (lower case, as libpg_query returns it) as written
  /// in bytes [begin, end): the last token there equal to it ignoring case. `folded` if none.
  std::string SpellingIn(const std::string& folded, int begin, int end) const;

  /// The first byte at or after `offset` that is not white space or a comment.
  int SkipBlanks(int offset) const;
  /// The integer literal written at byte `offset`: an optional '-' (white space and comments
  /// may follow it), then decimal digits. nullopt when no such literal starts there or it does
  /// not fit 64 bits.
  std::optional<int64_t> IntegerAt(int offset) const;
  /// The integer value of `name = <integer>` written at `offset` (an option of WITH (...)).
  std::optional<int64_t> AssignedIntegerAt(int offset) const;

 private:
  /// Reads one identifier (plain or "quoted") at `*pos`; advances `*pos` past it.
  bool ReadIdentifier(size_t* pos, std::string* out) const;

  std::string file_name_;
  std::string text_;
  std::vector<size_t> line_starts_;  // byte offset of each line's first character
};

}  // namespace sluice::sql
