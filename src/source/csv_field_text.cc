// Spark's text forms of CSV values (csv_field_text.h).
#include "source/csv_field_text.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <cctype>

#include "util/calendar.h"

namespace sluice::source {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Java's String.trim: bytes up to ' ' at both ends (Spark's text-to-number and -timestamp
// parsers trim so).
std::string_view TrimControl(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  return s;
}

// Consumes a run of ASCII digits from the front of `s`; its length.
size_t TakeDigits(std::string_view* s) {
  size_t n = 0;
  while (n < s->size() && IsDigit((*s)[n])) ++n;
  s->remove_prefix(n);
  return n;
}

// The decimal parts of a number in Java's BigDecimal / Double syntax: digits with an optional
// point (at least one digit), then an optional exponent. Consumed from the front of `s`.
struct DecimalParts {
  std::string_view integer, fraction;
  int64_t exponent = 0;
};
std::optional<DecimalParts> TakeDecimal(std::string_view* s) {
  DecimalParts d;
  std::string_view rest = *s;
  const char* begin = rest.data();
  d.integer = std::string_view(begin, TakeDigits(&rest));
  if (!rest.empty() && rest[0] == '.') {
    rest.remove_prefix(1);
    const char* f = rest.data();
    d.fraction = std::string_view(f, TakeDigits(&rest));
  }
  if (d.integer.empty() && d.fraction.empty()) return std::nullopt;
  if (!rest.empty() && (rest[0] == 'e' || rest[0] == 'E')) {
    rest.remove_prefix(1);
    bool negative = false;
    if (!rest.empty() && (rest[0] == '+' || rest[0] == '-')) {
      negative = rest[0] == '-';
      rest.remove_prefix(1);
    }
    std::string_view digits = rest;
    const size_t n = TakeDigits(&rest);
    if (n == 0 || n > 9) return std::nullopt;  // Java takes an int exponent
    for (size_t i = 0; i < n; ++i) d.exponent = d.exponent * 10 + (digits[i] - '0');
    if (negative) d.exponent = -d.exponent;
  }
  *s = rest;
  return d;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

// Whether `s` is an integer Java's Integer/Long.parseLong reads (an optional sign, then ASCII
// digits, no spaces) within [-limit - 1, limit].
bool IsJavaIntegerText(std::string_view s, uint64_t limit) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || !std::all_of(s.begin(), s.end(), IsDigit)) return false;
  while (s.size() > 1 && s[0] == '0') s.remove_prefix(1);
  if (s.size() > 19) return false;
  uint64_t v = 0;
  for (char c : s) v = v * 10 + static_cast<uint64_t>(c - '0');
  return v <= limit + (negative ? 1 : 0);
}

// The precision of `s` as Spark infers a decimal: the text read as a Java BigDecimal with scale
// 0 (no digits after the point once the exponent is applied) and at most 38 digits; else none
// (Spark then tries DOUBLE: a negative scale or a wider number is not a decimal type).
std::optional<int> SparkDecimalPrecision(std::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  auto d = TakeDecimal(&s);
  if (!d || !s.empty() || d->exponent != static_cast<int64_t>(d->fraction.size())) return std::nullopt;
  std::string digits = std::string(d->integer) + std::string(d->fraction);
  const size_t first = digits.find_first_not_of('0');
  const int precision = first == std::string::npos ? 1 : static_cast<int>(digits.size() - first);
  if (precision > 38) return std::nullopt;
  return precision;
}

// Whether Spark reads `s` as a DOUBLE: Java's Double.parseDouble (trimmed; an optional sign;
// NaN, Infinity or a decimal number with an optional f/F/d/D suffix), or the CSV options'
// NaN, Inf and -Inf.
bool IsSparkDoubleText(std::string_view s) {
  if (s == "NaN" || s == "Inf" || s == "-Inf") return true;
  s = TrimControl(s);
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  if (s == "NaN" || s == "Infinity") return true;
  if (!TakeDecimal(&s)) return false;
  return s.empty() || (s.size() == 1 && std::string_view("fFdD").find(s[0]) != std::string_view::npos);
}

// Whether `s` is a date of Spark's default dateFormat yyyy-MM-dd, read strictly.
bool IsSparkDateText(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!IsDigit(s[i])) return false;
  }
  const int year = std::stoi(std::string(s.substr(0, 4)));
  const int month = (s[5] - '0') * 10 + (s[6] - '0'), day = (s[8] - '0') * 10 + (s[9] - '0');
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= util::DaysInMonth(year, month);
}

bool IsSparkBooleanText(std::string_view s) { return EqualsIgnoreCase(s, "true") || EqualsIgnoreCase(s, "false"); }

std::optional<int64_t> SparkTimestampMicros(std::string_view s) {
  s = TrimControl(s);
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  auto number = [&](size_t min_digits, size_t max_digits) -> std::optional<int64_t> {
    std::string_view digits = s;
    const size_t n = TakeDigits(&s);
    if (n < min_digits || n > max_digits) return std::nullopt;
    int64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = v * 10 + (digits[i] - '0');
    return v;
  };
  auto take = [&](char c) {
    if (s.empty() || s[0] != c) return false;
    s.remove_prefix(1);
    return true;
  };
  const auto year = number(4, 7);
  if (!year) return std::nullopt;
  int64_t month = 1, day = 1, hour = 0, minute = 0, second = 0, micros = 0, offset_seconds = 0;
  bool full_date = false;
  if (take('-')) {
    auto m = number(1, 2);
    if (!m) return std::nullopt;
    month = *m;
    if (take('-')) {
      auto d = number(1, 2);
      if (!d) return std::nullopt;
      day = *d;
      full_date = true;
    }
  }
  if (month < 1 || month > 12 || day < 1) return std::nullopt;
  if (day > util::DaysInMonth(*year, static_cast<int>(month))) return std::nullopt;
  if (full_date && !s.empty() && (s[0] == ' ' || s[0] == 'T')) {
    s.remove_prefix(1);
    auto h = number(1, 2);
    if (!h) return std::nullopt;
    hour = *h;
    bool seconds = false;
    if (take(':')) {
      auto mi = number(1, 2);
      if (!mi) return std::nullopt;
      minute = *mi;
      if (take(':')) {
        auto se = number(1, 2);
        if (!se) return std::nullopt;
        second = *se;
        seconds = true;
        if (take('.')) {
          std::string_view digits = s;
          const size_t n = TakeDigits(&s);
          for (size_t i = 0; i < 6; ++i) micros = micros * 10 + (i < n ? digits[i] - '0' : 0);
        }
      }
    }
    if (hour > 23 || minute > 59 || second > 59) return std::nullopt;
    if (seconds && !s.empty()) {  // a zone
      if (s[0] == ' ') s.remove_prefix(1);
      if (s == "Z") s = "";
      for (std::string_view name : {"UTC", "GMT", "UT"}) {
        if (s.substr(0, name.size()) == name) {
          s.remove_prefix(name.size());
          break;
        }
      }
      if (!s.empty()) {
        const bool negative = s[0] == '-';
        if (!take('+') && !take('-')) return std::nullopt;
        std::string_view digits = s;
        const size_t n = TakeDigits(&s);
        int64_t oh = 0, om = 0;
        if (n == 1 || n == 2) {
          oh = std::stoi(std::string(digits.substr(0, n)));
          if (take(':')) {
            auto m = number(2, 2);
            if (!m) return std::nullopt;
            om = *m;
          }
        } else if (n == 4) {
          oh = std::stoi(std::string(digits.substr(0, 2)));
          om = std::stoi(std::string(digits.substr(2, 2)));
        } else {
          return std::nullopt;
        }
        if (oh > 18 || om > 59) return std::nullopt;
        offset_seconds = (negative ? -1 : 1) * (oh * 3600 + om * 60);
      }
    }
  }
  if (!s.empty()) return std::nullopt;
  const int64_t days = util::DaysFromCivil(*year, static_cast<int>(month), static_cast<int>(day));
  return ((days * 24 + hour) * 60 + minute) * 60'000'000 + (second - offset_seconds) * 1'000'000 + micros;
}

Result<std::shared_ptr<arrow::Array>> SparkTimestampsFromText(const arrow::StringArray& text,
                                                              const std::shared_ptr<arrow::DataType>& type) {
  arrow::TimestampBuilder micros(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"), arrow::default_memory_pool());
  for (int64_t r = 0; r < text.length(); ++r) {
    if (text.IsNull(r)) {
      ARROW_RETURN_NOT_OK(micros.AppendNull());
      continue;
    }
    const std::optional<int64_t> v = SparkTimestampMicros(text.GetView(r));
    if (!v) return Status::Invalid("'", text.GetView(r), "' is not a timestamp");
    ARROW_RETURN_NOT_OK(micros.Append(*v));
  }
  ARROW_ASSIGN_OR_RAISE(auto out, micros.Finish());
  if (out->type()->Equals(*type)) return out;
  ARROW_ASSIGN_OR_RAISE(auto cast, arrow::compute::Cast(*out, type));
  return cast;
}

std::string ArrowNumberText(std::string_view text, arrow::Type::type id) {
  std::string_view s = TrimControl(text);
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  if (id == arrow::Type::DOUBLE || id == arrow::Type::FLOAT) {
    if (s.size() > 1 && std::string_view("fFdD").find(s.back()) != std::string_view::npos &&
        (IsDigit(s[s.size() - 2]) || s[s.size() - 2] == '.')) {
      s.remove_suffix(1);
    }
  }
  return std::string(s);
}

std::vector<std::string> EveryCaseOf(const std::string& word) {
  std::vector<std::string> out;
  for (unsigned mask = 0; mask < (1u << word.size()); ++mask) {
    std::string w = word;
    for (size_t i = 0; i < w.size(); ++i) {
      if (mask & (1u << i)) w[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[i])));
    }
    out.push_back(std::move(w));
  }
  return out;
}

std::vector<std::string> SparkCsvHeaderNames(std::vector<std::string> names) {
  std::vector<std::string> folded;
  for (std::string n : names) {
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
    folded.push_back(std::move(n));
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty()) {
      names[i] = "_c" + std::to_string(i);
    } else if (std::count(folded.begin(), folded.end(), folded[i]) > 1) {
      names[i] += std::to_string(i);
    }
  }
  return names;
}

Result<std::shared_ptr<arrow::Table>> WithArrowNumberText(const std::shared_ptr<arrow::Table>& text,
                                                          const arrow::Schema& schema) {
  ARROW_ASSIGN_OR_RAISE(auto combined, text->CombineChunks());
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns = combined->columns();
  for (int i = 0; i < combined->num_columns(); ++i) {
    auto want = schema.GetFieldByName(combined->schema()->field(i)->name());
    const auto id = want ? want->type()->id() : arrow::Type::NA;
    if (!(arrow::is_integer(id) || arrow::is_floating(id) || arrow::is_decimal(id))) continue;
    if (columns[i]->num_chunks() != 1 || columns[i]->type()->id() != arrow::Type::STRING) continue;
    const auto& values = static_cast<const arrow::StringArray&>(*columns[i]->chunk(0));
    arrow::StringBuilder numbers;
    for (int64_t r = 0; r < values.length(); ++r) {
      ARROW_RETURN_NOT_OK(values.IsNull(r) ? numbers.AppendNull()
                                           : numbers.Append(ArrowNumberText(values.GetView(r), id)));
    }
    ARROW_ASSIGN_OR_RAISE(auto rewritten, numbers.Finish());
    columns[i] = std::make_shared<arrow::ChunkedArray>(rewritten);
  }
  return arrow::Table::Make(combined->schema(), std::move(columns), combined->num_rows());
}

}  // namespace sluice::source
