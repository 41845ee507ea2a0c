#include "source/json_line_shape.h"

#include "source/json_value_builder.h"

#include <arrow/util/value_parsing.h>
#include <simdjson.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <bit>
#include <cstring>

namespace sluice::source {
namespace {

constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kHigh = 0x8080808080808080ULL;

uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

uint32_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Bytes of `x` below `n` (n <= 128), flagged by their high bit. Only the lowest flag is sure
// (a borrow can flag a byte above a true one), and only the lowest is used.
constexpr uint64_t Below(uint64_t x, uint8_t n) { return (x - kOnes * n) & ~x & kHigh; }
constexpr uint64_t Equal(uint64_t x, uint8_t c) { return Below(x ^ (kOnes * c), 1); }

// Key tokens are short: two overlapping loads, memcmp beyond 16 bytes.
[[gnu::always_inline]] inline bool SameBytes(const char* a, const char* b, size_t n) {
  if (n >= 8 && n <= 16) return Load64(a) == Load64(b) && Load64(a + n - 8) == Load64(b + n - 8);
  if (n >= 4 && n < 8) return Load32(a) == Load32(b) && Load32(a + n - 4) == Load32(b + n - 4);
  return std::memcmp(a, b, n) == 0;
}

// The first byte at or after `p` that may end or interrupt a string's plain text (a quote, a
// backslash, a control byte or a non-ASCII byte), read a block at a time; when none is found
// before fewer than a block's bytes remain before `readable_end`, the first byte not read (the
// caller goes on byte by byte).
const char* NextSpecial(const char* p, const char* readable_end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i space = _mm_set1_epi8(0x20);
  while (p + 16 <= readable_end) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // Signed bytes: below 0x20 is a control byte or (negative) a non-ASCII one.
    const __m128i special = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                         _mm_cmplt_epi8(v, space));
    const auto mask = static_cast<unsigned>(_mm_movemask_epi8(special));
    if (mask != 0) return p + std::countr_zero(mask);
    p += 16;
  }
#endif
  while (p + 8 <= readable_end) {
    const uint64_t x = Load64(p);
    const uint64_t flags = Equal(x, '"') | Equal(x, '\\') | Below(x, 0x20) | (x & kHigh);
    if (flags != 0) return p + (std::countr_zero(flags) >> 3);
    p += 8;
  }
  return p;
}

// ClosingQuote's way past a non-ASCII byte at `p`: on to the closing quote, then the whole
// text checked as UTF-8.
[[gnu::noinline]] const char* ClosingQuoteAfterNonAscii(const char* text, const char* p, const char* end,
                                                        const char* readable_end) {
  while (true) {
    const auto c = static_cast<unsigned char>(*p);
    if (c == '"') break;
    if (c == '\\' || c < 0x20) return nullptr;
    p = NextSpecial(p + 1, readable_end);
    if (p >= end) return nullptr;
  }
  return simdjson::validate_utf8(text, static_cast<size_t>(p - text)) ? p : nullptr;
}

// The closing quote of a string whose text starts at `p`, or null: the string holds an escape,
// a control byte or bytes that are not UTF-8, or does not close before `end`.
inline const char* ClosingQuote(const char* p, const char* end, const char* readable_end) {
  const char* const text = p;
  while (true) {
    p = NextSpecial(p, readable_end);
    if (p >= end) return nullptr;
    const auto c = static_cast<unsigned char>(*p);
    if (c == '"') return p;
    if (c == '\\' || c < 0x20) return nullptr;
    if (c >= 0x80) return ClosingQuoteAfterNonAscii(text, p, end, readable_end);
    ++p;  // a plain byte, reached one at a time near the end of the buffer
  }
}

// How many of the 8 bytes in `x` (read from memory, first byte lowest) are decimal digits before
// the first that is not, and the value of those digits. A digit byte is 0x3N with N <= 9: its
// high nibble is 3, and so is the high nibble of the byte plus 6 (no carry out of the low
// nibble). A carry out of a byte (0xFA and above, not a digit) can only touch bytes above it,
// so the first byte that is not a digit is found right; the bytes from it on are shifted out
// before the value is read.
inline int LeadingDigits(uint64_t x, uint64_t* value) {
  constexpr uint64_t kHighNibbles = 0xF0F0F0F0F0F0F0F0ULL;
  const uint64_t nibbles = (x & kHighNibbles) | (((x + 0x0606060606060606ULL) & kHighNibbles) >> 4);
  const uint64_t other = nibbles ^ 0x3333333333333333ULL;  // a zero byte for each digit
  constexpr uint64_t kLow7 = 0x7F7F7F7F7F7F7F7FULL;
  const uint64_t flagged = (((other & kLow7) + kLow7) | other) & kHigh;  // each byte not a digit
  const int n = flagged == 0 ? 8 : std::countr_zero(flagged) >> 3;
  if (n == 0) return 0;
  // The digits as byte values 0-9, moved up so that zero bytes lead (they read as leading
  // zeros), then combined in pairs, fours and the eight.
  uint64_t d = (x - 0x3030303030303030ULL) << (8 * (8 - n));
  d = d * 10 + (d >> 8);
  constexpr uint64_t kPairs = 0x000000FF000000FFULL;
  d = ((d & kPairs) * (100 + (1000000ULL << 32)) + ((d >> 16) & kPairs) * (1 + (10000ULL << 32))) >> 32;
  *value = d;
  return n;
}

// An integer literal of at most 18 digits (no leading zero, not "-0": simdjson reads "-0" as a
// double); `*pp` moves past it. What follows is the caller's to check. Bytes up to
// `readable_end` may be read: where 8 can be, the first 8 digits are read at once.
bool ReadInteger(const char** pp, const char* end, const char* readable_end, int64_t* out) {
  const char* p = *pp;
  const bool negative = p < end && *p == '-';
  if (negative) ++p;
  const char* digits = p;
  const char* limit = end - p > 19 ? p + 19 : end;  // a 19th digit is one too many
  uint64_t v = 0;
  if (readable_end - p >= 8) {
    uint64_t first = 0;
    const int n = LeadingDigits(Load64(p), &first);
    if (n <= limit - p) {  // else the line ends among them: byte by byte below
      v = first;
      p += n;
      if (n < 8) limit = p;  // a byte that is not a digit follows
    }
  }
  for (; p < limit && static_cast<unsigned>(*p - '0') < 10; ++p) v = v * 10 + static_cast<unsigned>(*p - '0');
  if (p == digits || p - digits > 18 || (*digits == '0' && (p - digits > 1 || negative))) return false;
  *out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  *pp = p;
  return true;
}

bool ReadLiteral(const char** pp, const char* end, std::string_view word) {
  if (static_cast<size_t>(end - *pp) < word.size() || std::memcmp(*pp, word.data(), word.size()) != 0) return false;
  *pp += word.size();
  return true;
}

int FractionDigits(arrow::TimeUnit::type unit) {
  switch (unit) {
    case arrow::TimeUnit::SECOND:
      return 0;
    case arrow::TimeUnit::MILLI:
      return 3;
    case arrow::TimeUnit::MICRO:
      return 6;
    default:
      return 9;
  }
}

constexpr int64_t kPow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};

}  // namespace

Result<ValueKind> KindOf(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::STRING:
      return ValueKind::kString;
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
      return ValueKind::kInteger;
    case arrow::Type::DOUBLE:
      return ValueKind::kDouble;
    case arrow::Type::BOOL:
      return ValueKind::kBoolean;
    case arrow::Type::TIMESTAMP:
      return ValueKind::kTimestamp;
    default:
      return Status::NotImplemented("type ", type.ToString(), " is decoded by Arrow's reader");
  }
}

bool Appended(Status st, Status* error) {
  if (st.ok()) return true;
  *error = std::move(st);
  return false;
}

ColumnBuilder MakeColumnBuilder(const arrow::Field& field) {
  ColumnBuilder c;
  c.name = field.name();
  c.type = field.type();
  auto kind = KindOf(*c.type);
  c.kind = kind.ok() ? *kind : ValueKind::kNested;
  std::tie(c.min, c.max) = JsonIntegerRange(c.type->id());
  if (c.kind == ValueKind::kString) c.values = FlatColumnBuilder(FlatColumnBuilder::Layout::kString);
  if (c.kind == ValueKind::kBoolean) c.values = FlatColumnBuilder(FlatColumnBuilder::Layout::kBoolean);
  return c;
}

Status AppendNull(ColumnBuilder* c) {
  if (c->kind == ValueKind::kNested) return c->nested->AppendNull();
  return c->values.AppendNull();
}

bool LineLayouts::Learn(const std::vector<std::pair<std::string_view, int>>& keys,
                        const std::vector<ColumnBuilder>& columns, std::string_view line) {
  if (staged_ > 0) return false;  // their layouts are found by position
  for (const auto& c : columns) {
    if (c.kind == ValueKind::kNested) return false;
  }
  Layout layout;
  std::vector<uint8_t> filled(columns.size(), 0);
  for (const auto& [key, column] : keys) {
    for (const char ch : key) {
      if (ch == '"' || ch == '\\' || static_cast<unsigned char>(ch) < 0x20) return false;
    }
    layout.fields.push_back(Field{"\"" + std::string(key) + "\":", column, ""});  // its lead below
    if (column >= 0) filled[static_cast<size_t>(column)] = 1;
  }
  // The spacing, from where the line's first two keys are (a guess: a wrong one only misses).
  if (!layout.fields.empty()) {
    const std::string& first = layout.fields[0].token;
    layout.colon_space = line.size() > first.size() + 1 && line[0] == '{' &&
                         line.compare(1, first.size(), first) == 0 && line[1 + first.size()] == ' ';
  }
  if (layout.fields.size() > 1) layout.comma_space = line.find(", " + layout.fields[1].token) != line.npos;
  for (const auto& held : layouts_) {
    auto same = [](const Field& a, const Field& b) { return a.token == b.token && a.column == b.column; };
    if (held.colon_space == layout.colon_space && held.comma_space == layout.comma_space &&
        std::equal(held.fields.begin(), held.fields.end(), layout.fields.begin(), layout.fields.end(), same)) {
      return false;
    }
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    if (!filled[i]) layout.absent.push_back(static_cast<int>(i));
  }
  if (layouts_.size() == kMaxLayouts) {
    auto oldest = std::min_element(layouts_.begin(), layouts_.end(), [](const Layout& a, const Layout& b) {
      return a.last_matched < b.last_matched;
    });
    layouts_.erase(oldest);
  }
  for (size_t k = 0; k < layout.fields.size(); ++k) {
    Field& f = layout.fields[k];
    f.lead = (k == 0 ? "" : layout.comma_space ? ", " : ",") + f.token + (layout.colon_space ? " " : "");
  }
  layout.last_matched = ++matches_;
  stride_ = std::max(stride_, layout.fields.size());
  values_.resize(stride_ * (kStagedLines + 1));  // and a row for the line matched when kStagedLines are
  seconds_.resize(columns.size());
  layouts_.push_back(std::move(layout));
  return true;
}

const char* LineLayouts::Match(const char* line, const char* end, const char* readable_end,
                               const std::vector<ColumnBuilder>& columns) {
  if (layouts_.size() == 1) return MatchOne(line, end, readable_end, columns);
  const char* p = line;
  if (layouts_.empty() || p == end || *p++ != '{') return nullptr;
  uint32_t live = (1u << layouts_.size()) - 1;  // the layouts whose keys so far are the line's
  for (size_t k = 0;; ++k) {
    if (p == end) return nullptr;
    if (*p == '}') {
      for (size_t i = 0; i < layouts_.size(); ++i) {
        if ((live >> i & 1) == 0 || layouts_[i].fields.size() != k) continue;
        matched_ = i;
        layouts_[i].last_matched = ++matches_;
        return p + 1;
      }
      return nullptr;
    }
    // The bytes a layout has before its k-th value: a comma after the first (and a space), the
    // key's token (and a space), and then no space. Two layouts that both match took the same
    // bytes; the same key fills the same column in every layout.
    const char* value = nullptr;
    const bool several = layouts_.size() > 1;
    auto key_at = [&](const Layout& layout) -> const Field* {
      if (k >= layout.fields.size()) return nullptr;
      const char* q = p;
      if (k > 0 && (q == end || *q++ != ',' || (layout.comma_space && (q == end || *q++ != ' ')))) return nullptr;
      const Field& f = layout.fields[k];
      const size_t n = f.token.size();
      if (static_cast<size_t>(end - q) < n || !SameBytes(q, f.token.data(), n)) return nullptr;
      q += n;
      if (layout.colon_space && (q == end || *q++ != ' ')) return nullptr;
      if (q == end || (several && *q == ' ')) return nullptr;  // (one layout: its value read fails)
      value = q;
      return &f;
    };
    const Field* f = nullptr;
    if (!several) {  // the usual case
      f = key_at(layouts_[0]);
    } else {
      for (size_t i = 0; i < layouts_.size(); ++i) {
        if ((live >> i & 1) == 0) continue;
        const Field* g = key_at(layouts_[i]);
        if (!g) live &= ~(1u << i);
        if (!f) f = g;
      }
    }
    if (!f) return nullptr;
    p = value;
    if (!ReadField(*f, k, &p, end, readable_end, columns)) return nullptr;
  }
}

// The same answer as the walk above gives with one layout: the lead of each key (its comma,
// token and spaces) compared in one piece, then the value, and the closing brace after the last.
const char* LineLayouts::MatchOne(const char* line, const char* end, const char* readable_end,
                                  const std::vector<ColumnBuilder>& columns) {
  const char* p = line;
  if (p == end || *p++ != '{') return nullptr;
  Layout& layout = layouts_[0];
  for (size_t k = 0; k < layout.fields.size(); ++k) {
    const Field& f = layout.fields[k];
    const size_t n = f.lead.size();
    if (static_cast<size_t>(end - p) < n || !SameBytes(p, f.lead.data(), n)) return nullptr;
    p += n;
    if (!ReadField(f, k, &p, end, readable_end, columns)) return nullptr;
  }
  if (p == end || *p != '}') return nullptr;
  matched_ = 0;
  layout.last_matched = ++matches_;
  return p + 1;
}

inline bool LineLayouts::ReadField(const Field& field, size_t k, const char** p, const char* end,
                                   const char* readable_end, const std::vector<ColumnBuilder>& columns) {
  const ColumnBuilder* c = field.column >= 0 ? &columns[static_cast<size_t>(field.column)] : nullptr;
  Value& v = values_[static_cast<size_t>(staged_) * stride_ + k];
  if (!ReadValue(c, p, end, readable_end, &v)) return false;
  return !c || c->kind != ValueKind::kTimestamp || v.null ||
         ReadTimestamp(field.column, static_cast<const arrow::TimestampType&>(*c->type), v.text, &v.integer);
}

bool LineLayouts::ReadValue(const ColumnBuilder* c, const char** pp, const char* end,
                          const char* readable_end, Value* out) {
  out->null = false;
  const char* p = *pp;
  if (p == end) return false;
  if (*p == 'n') {
    out->null = true;
    return ReadLiteral(pp, end, "null");
  }
  auto read_string = [&]() {
    if (*p != '"') return false;
    const char* close = ClosingQuote(p + 1, end, readable_end);
    if (!close) return false;
    out->text = std::string_view(p + 1, static_cast<size_t>(close - p - 1));
    *pp = close + 1;
    return true;
  };
  auto read_boolean = [&]() {
    out->integer = *p == 't';
    return ReadLiteral(pp, end, *p == 't' ? "true" : "false");
  };
  if (!c) {  // a key no column has: any string, integer or boolean is checked and left
    if (*p == '"') return read_string();
    if (*p == 't' || *p == 'f') return read_boolean();
    return ReadInteger(pp, end, readable_end, &out->integer);
  }
  switch (c->kind) {
    case ValueKind::kString:
    case ValueKind::kTimestamp:
      return read_string();
    case ValueKind::kInteger:
      return ReadInteger(pp, end, readable_end, &out->integer) && out->integer >= c->min && out->integer <= c->max;
    case ValueKind::kDouble:
      // simdjson reads an integer literal as int64; the parsed path converts it like this.
      if (!ReadInteger(pp, end, readable_end, &out->integer)) return false;
      out->number = static_cast<double>(out->integer);
      return true;
    case ValueKind::kBoolean:
      return (*p == 't' || *p == 'f') && read_boolean();
    case ValueKind::kNested:
      return false;
  }
  return false;
}

// Arrow's ISO-8601 parser gives "YYYY-MM-DD[T ]hh:mm:ss" plus, for ".f" with no more digits
// than the unit holds, the digits scaled to the unit: so a timestamp of that form is its cached
// seconds plus its fraction. Any other form is parsed whole by Arrow's parser.
bool LineLayouts::ReadTimestamp(int column, const arrow::TimestampType& type, std::string_view s, int64_t* out) {
  constexpr size_t kSeconds = 19;
  const int unit_digits = FractionDigits(type.unit());
  const size_t digits = s.size() > kSeconds ? s.size() - kSeconds - 1 : 0;
  auto parse_whole = [&] { return arrow::internal::ParseValue<arrow::TimestampType>(type, s.data(), s.size(), out); };
  const bool sized = s.size() == kSeconds ||
                     (s.size() > kSeconds + 1 && s[kSeconds] == '.' && digits <= static_cast<size_t>(unit_digits));
  if (!sized) return parse_whole();
  int64_t fraction = 0;
  for (size_t i = kSeconds + 1; i < s.size(); ++i) {
    const auto d = static_cast<unsigned>(s[i] - '0');
    if (d >= 10) return parse_whole();
    fraction = fraction * 10 + d;
  }
  SecondsCache& cache = seconds_[static_cast<size_t>(column)];
  // The 19 bytes compared in three loads (the last two overlap).
  const char* p = s.data();
  const bool cached = cache.prefix.size() == kSeconds && Load64(p) == Load64(cache.prefix.data()) &&
                      Load64(p + 8) == Load64(cache.prefix.data() + 8) &&
                      Load32(p + 15) == Load32(cache.prefix.data() + 15);
  if (!cached) {  // (a prefix cached was checked as this one is now)
    // The seconds must be spelled hh:mm:ss: Arrow's parser also reads "hh:mm-00" (a zone offset)
    // in 19 bytes, which the whole text with a fraction is not.
    auto digit = [&](size_t i) { return static_cast<unsigned>(s[i] - '0') < 10; };
    if (!(s[13] == ':' && s[16] == ':' && digit(11) && digit(12) && digit(14) && digit(15) && digit(17) && digit(18))) {
      return parse_whole();
    }
    int64_t seconds = 0;
    if (!arrow::internal::ParseValue<arrow::TimestampType>(type, s.data(), kSeconds, &seconds)) return false;
    cache.prefix.assign(s.data(), kSeconds);
    cache.value = seconds;
  }
  fraction *= kPow10[static_cast<size_t>(unit_digits) - digits];
  return !__builtin_add_overflow(cache.value, fraction, out);
}

bool LineLayouts::Append(std::vector<ColumnBuilder>* columns, const std::vector<uint8_t>& stored, Status* error) {
  // After the flush, the matched line's values are row 0.
  return Flush(columns, error) && AppendLines(layouts_[matched_], 1, &stored, columns, error);
}

bool LineLayouts::Stage(std::vector<ColumnBuilder>* columns, Status* error) {
  if (staged_ > 0 && staged_layout_ != matched_ && !Flush(columns, error)) return false;
  staged_layout_ = matched_;
  ++staged_;
  return staged_ < kStagedLines || Flush(columns, error);
}

bool LineLayouts::Flush(std::vector<ColumnBuilder>* columns, Status* error) {
  if (staged_ == 0) return true;
  if (!AppendLines(layouts_[staged_layout_], staged_, nullptr, columns, error)) return false;
  // A line matched after the staged ones has its values in the row after theirs: row 0 now.
  std::copy_n(values_.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(staged_) * stride_), stride_,
              values_.begin());
  staged_ = 0;
  return true;
}

namespace {

// Appends the `rows` values at `v` (one every `stride`) to `c`, with `value` taking a value's
// part of the column's kind: in one pass when none is null and the room reserved holds them.
template <typename Get>
bool AppendRows(ColumnBuilder* c, const auto* v, size_t stride, int rows, Get value, Status* error) {
  bool nulls = false;
  for (int r = 0; r < rows; ++r) nulls |= v[static_cast<size_t>(r) * stride].null;
  if (!nulls && c->values.TryAppendAll(rows, [&](int64_t r) { return value(v[static_cast<size_t>(r) * stride]); })) {
    return true;
  }
  for (int r = 0; r < rows; ++r, v += stride) {
    if (v->null ? !Appended(AppendNull(c), error) : !AppendValue(c, value(*v), error)) return false;
  }
  return true;
}

}  // namespace

bool LineLayouts::AppendLines(const Layout& layout, int rows, const std::vector<uint8_t>* stored,
                              std::vector<ColumnBuilder>* columns, Status* error) const {
  auto marked = [&](int column) { return stored == nullptr || (*stored)[static_cast<size_t>(column)] != 0; };
  for (size_t k = 0; k < layout.fields.size(); ++k) {
    const int column = layout.fields[k].column;
    if (column < 0 || !marked(column)) continue;
    ColumnBuilder& c = (*columns)[static_cast<size_t>(column)];
    const Value* v = &values_[k];
    bool ok = true;
    switch (c.kind) {
      case ValueKind::kString:
        ok = AppendRows(&c, v, stride_, rows, [](const Value& x) { return x.text; }, error);
        break;
      case ValueKind::kInteger:
      case ValueKind::kTimestamp:
        ok = AppendRows(&c, v, stride_, rows, [](const Value& x) { return x.integer; }, error);
        break;
      case ValueKind::kDouble:
        ok = AppendRows(&c, v, stride_, rows, [](const Value& x) { return x.number; }, error);
        break;
      case ValueKind::kBoolean:
        ok = AppendRows(&c, v, stride_, rows, [](const Value& x) { return x.integer != 0; }, error);
        break;
      case ValueKind::kNested:
        break;  // never learned
    }
    if (!ok) return false;
  }
  for (const int column : layout.absent) {
    if (!marked(column)) continue;
    ColumnBuilder& c = (*columns)[static_cast<size_t>(column)];
    for (int r = 0; r < rows; ++r) {
      if (!Appended(AppendNull(&c), error)) return false;
    }
  }
  return true;
}

}  // namespace sluice::source
