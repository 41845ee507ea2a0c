#include "sql/sql_text.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace sluice::sql {
namespace {

bool IsIdentStart(unsigned char c) { return std::isalpha(c) || c == '_' || c >= 0x80; }
bool IsIdentChar(unsigned char c) { return std::isalnum(c) || c == '_' || c == '$' || c >= 0x80; }

}  // namespace

std::string FoldCase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool SameIdentifier(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

SqlText::SqlText(std::string file_name, std::string text) : file_name_(std::move(file_name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

TextPosition SqlText::PositionOf(int offset) const {
  size_t off = static_cast<size_t>(std::clamp<int>(offset, 0, static_cast<int>(text_.size())));
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), off);
  size_t line_index = static_cast<size_t>(it - line_starts_.begin()) - 1;
  size_t start = line_starts_[line_index];
  int column = 1;
  for (size_t i = start; i < off; ++i) {
    if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++column;
  }
  return {static_cast<int>(line_index) + 1, column};
}

std::string SqlText::Where(int offset) const {
  TextPosition p = PositionOf(offset);
  return file_name_ + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
}

Status SqlText::ErrorAt(int offset, const std::string& message) const {
  if (offset < 0) return Status::Invalid(file_name_, ": ", message);
  TextPosition p = PositionOf(offset);
  size_t start = line_starts_[static_cast<size_t>(p.line - 1)];
  size_t end = text_.find('\n', start);
  std::string line = text_.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  std::string caret(static_cast<size_t>(p.column - 1), ' ');
  // Keep tabs so the caret lines up under the same character.
  for (size_t i = 0, col = 0; i < line.size() && col < caret.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) continue;
    if (line[i] == '\t') caret[col] = '\t';
    ++col;
  }
  return Status::Invalid(Where(offset), ": ", message, "\n  ", line, "\n  ", caret, "^");
}

bool SqlText::ReadIdentifier(size_t* pos, std::string* out) const {
  size_t i = *pos;
  if (i >= text_.size()) return false;
  if (text_[i] == '"') {
    std::string ident;
    for (++i; i < text_.size(); ++i) {
      if (text_[i] == '"') {
        if (i + 1 < text_.size() && text_[i + 1] == '"') {
          ident += '"';
          ++i;
          continue;
        }
        *out = ident;
        *pos = i + 1;
        return true;
      }
      ident += text_[i];
    }
    return false;
  }
  if (!IsIdentStart(static_cast<unsigned char>(text_[i]))) return false;
  size_t b = i;
  while (i < text_.size() && IsIdentChar(static_cast<unsigned char>(text_[i]))) ++i;
  *out = text_.substr(b, i - b);
  *pos = i;
  return true;
}

int SqlText::SkipBlanks(int offset) const {
  size_t i = static_cast<size_t>(std::max(offset, 0));
  while (i < text_.size()) {
    if (std::isspace(static_cast<unsigned char>(text_[i]))) {
      ++i;
    } else if (text_.compare(i, 2, "--") == 0) {
      while (i < text_.size() && text_[i] != '\n') ++i;
    } else if (text_.compare(i, 2, "/*") == 0) {
      size_t end = text_.find("*/", i + 2);
      i = end == std::string::npos ? text_.size() : end + 2;
    } else {
      break;
    }
  }
  return static_cast<int>(i);
}

std::optional<int64_t> SqlText::IntegerAt(int offset) const {
  if (offset < 0 || static_cast<size_t>(offset) >= text_.size()) return std::nullopt;
  size_t i = static_cast<size_t>(offset);
  const bool negative = text_[i] == '-';
  if (negative) i = static_cast<size_t>(SkipBlanks(static_cast<int>(i + 1)));
  size_t digits = i;
  while (i < text_.size() && std::isdigit(static_cast<unsigned char>(text_[i]))) ++i;
  if (i == digits) return std::nullopt;
  // A digit run followed by '.', 'e' or an identifier character is not an integer literal.
  if (i < text_.size() && (text_[i] == '.' || IsIdentChar(static_cast<unsigned char>(text_[i])))) return std::nullopt;
  // Accumulate negatively so that INT64_MIN is representable.
  int64_t value = 0;
  for (size_t k = digits; k < i; ++k) {
    const int d = text_[k] - '0';
    if (value < (std::numeric_limits<int64_t>::min() + d) / 10) return std::nullopt;
    value = value * 10 - d;
  }
  if (!negative) {
    if (value == std::numeric_limits<int64_t>::min()) return std::nullopt;
    value = -value;
  }
  return value;
}

std::optional<int64_t> SqlText::AssignedIntegerAt(int offset) const {
  if (offset < 0) return std::nullopt;
  size_t pos = static_cast<size_t>(offset);
  std::string name;
  if (!ReadIdentifier(&pos, &name)) return std::nullopt;
  size_t eq = static_cast<size_t>(SkipBlanks(static_cast<int>(pos)));
  if (eq >= text_.size() || text_[eq] != '=') return std::nullopt;
  return IntegerAt(SkipBlanks(static_cast<int>(eq + 1)));
}

std::string SqlText::IdentifierAt(int offset, const std::string& fallback) const {
  if (offset < 0) return fallback;
  size_t pos = static_cast<size_t>(offset);
  std::string ident;
  if (!ReadIdentifier(&pos, &ident)) return fallback;
  // Guard against a location that points somewhere else than the identifier we were given.
  return SameIdentifier(ident, fallback) ? ident : fallback;
}

std::vector<std::string> SqlText::IdentifierChainAt(int offset, const std::vector<std::string>& fallback) const {
  if (offset < 0) return fallback;
  std::vector<std::string> parts;
  size_t pos = static_cast<size_t>(offset);
  while (parts.size() < fallback.size()) {
    std::string ident;
    if (!ReadIdentifier(&pos, &ident) || !SameIdentifier(ident, fallback[parts.size()])) return fallback;
    parts.push_back(ident);
    while (pos < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos]))) ++pos;
    if (pos >= text_.size() || text_[pos] != '.') break;
    ++pos;
    while (pos < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos]))) ++pos;
  }
  return parts.size() == fallback.size() ? parts : fallback;
}

std::string SqlText::SpellingIn(const std::string& folded, int begin, int end) const {
  size_t i = static_cast<size_t>(std::max(begin, 0));
  size_t stop = std::min(static_cast<size_t>(std::max(end, 0)), text_.size());
  std::string found = folded;
  while (i < stop) {
    char c = text_[i];
    if (c == '\'') {  // string literal: skip ('' is an escaped quote)
      for (++i; i < stop; ++i) {
        if (text_[i] != '\'') continue;
        if (i + 1 < stop && text_[i + 1] == '\'') {
          ++i;
          continue;
        }
        break;
      }
      ++i;
    } else if (c == '-' && i + 1 < stop && text_[i + 1] == '-') {  // line comment
      while (i < stop && text_[i] != '\n') ++i;
    } else if (IsIdentStart(static_cast<unsigned char>(c))) {
      size_t b = i;
      while (i < stop && (IsIdentChar(static_cast<unsigned char>(text_[i])) || text_[i] == '.')) ++i;
      std::string token = text_.substr(b, i - b);
      if (SameIdentifier(token, folded)) found = token;
    } else {
      ++i;
    }
  }
  return found;
}

}  // namespace sluice::sql
