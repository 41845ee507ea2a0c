// Kernels of the string functions (typing: plan/function_types_string.cc). Positions count
// characters; a NULL argument gives NULL unless the function says otherwise.
#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/util/base64.h>
#include <openssl/evp.h>

#include <algorithm>

#include "exec/expr_function_table.h"
#include "exec/expr_kernels.h"
#include "exec/expr_rows.h"
#include "util/java_format.h"

namespace sluice::exec::internal {
namespace {

using arrow::Datum;
using plan::CallSignature;
using plan::Expr;

Result<Datum> Replace(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  if (!args[1].scalar()->is_valid || (args.size() == 3 && !args[2].scalar()->is_valid)) {
    return Datum(arrow::MakeNullScalar(arrow::utf8()));
  }
  const std::string search = LiteralText(args[1]);
  if (search.empty()) return args[0];  // Spark: an empty search string changes nothing
  arrow::compute::ReplaceSubstringOptions options(search, args.size() == 3 ? LiteralText(args[2]) : "");
  return Kernel("replace_substring", {args[0]}, &options);
}

std::string_view CharsPrefix(std::string_view s, int64_t chars) { return s.substr(0, Utf8Offset(s, chars)); }

// split_part(str, delim, part): part counts from 1 (negative: from the end); "" when out of
// range; part 0 is an error, as Spark's.
Result<Datum> SplitPart(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(auto rows, RowArgs::Make(args));
  return MapRows<arrow::StringBuilder>(rows, arrow::utf8(), true, [&](int64_t row, arrow::StringBuilder* out) -> Status {
    std::string_view s = rows.Str(0, row), delim = rows.Str(1, row);
    int64_t part = rows.Int(2, row);
    if (part == 0) {
      return Status::Invalid("[INVALID_INDEX_OF_ZERO] The index 0 is invalid. An index shall be either < 0 or > 0 "
                             "(the first element has index 1).");
    }
    std::vector<std::string_view> parts;
    if (delim.empty()) {
      parts.push_back(s);
    } else {
      size_t from = 0;
      for (size_t at; (at = s.find(delim, from)) != std::string_view::npos; from = at + delim.size()) {
        parts.push_back(s.substr(from, at - from));
      }
      parts.push_back(s.substr(from));
    }
    const int64_t n = static_cast<int64_t>(parts.size());
    const int64_t index = part > 0 ? part - 1 : n + part;
    return out->Append(index >= 0 && index < n ? parts[index] : std::string_view());
  });
}

// 1-based character position of `needle` in `hay` at or after character `start` (0-based); 0
// when absent.
int32_t Position(std::string_view hay, std::string_view needle, int64_t start) {
  const size_t from = Utf8Offset(hay, start);
  if (needle.empty()) return 1;  // Spark's UTF8String.indexOf finds "" at 0 from any start
  const size_t at = hay.find(needle, from);
  if (at == std::string_view::npos) return 0;
  return static_cast<int32_t>(Utf8Length(hay.substr(0, at)) + 1);
}

Result<Datum> Instr(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(auto rows, RowArgs::Make(args));
  return MapRows<arrow::Int32Builder>(rows, arrow::int32(), true, [&](int64_t row, arrow::Int32Builder* out) {
    return out->Append(Position(rows.Str(0, row), rows.Str(1, row), 0));
  });
}

// locate(substr, str[, pos]): a NULL or < 1 position gives 0 (Spark's StringLocate).
Result<Datum> Locate(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(auto rows, RowArgs::Make(args));
  return MapRows<arrow::Int32Builder>(rows, arrow::int32(), false, [&](int64_t row, arrow::Int32Builder* out) -> Status {
    if (args.size() == 3 && rows.IsNull(2, row)) return out->Append(0);
    if (rows.IsNull(0, row) || rows.IsNull(1, row)) return out->AppendNull();
    const int64_t pos = args.size() == 3 ? rows.Int(2, row) : 1;
    return out->Append(pos < 1 ? 0 : Position(rows.Str(1, row), rows.Str(0, row), pos - 1));
  });
}

// lpad/rpad(str, len[, pad]): cut to len characters, or padded with `pad` repeated.
Result<Datum> Pad(const std::vector<Datum>& args, bool left) {
  ARROW_ASSIGN_OR_RAISE(auto rows, RowArgs::Make(args));
  return MapRows<arrow::StringBuilder>(rows, arrow::utf8(), true, [&](int64_t row, arrow::StringBuilder* out) {
    std::string_view s = rows.Str(0, row), pad = args.size() == 3 ? rows.Str(2, row) : std::string_view(" ");
    const int64_t len = rows.Int(1, row);
    const int64_t missing = len - Utf8Length(s);
    if (missing <= 0 || pad.empty()) return out->Append(CharsPrefix(s, len));
    std::string fill;
    const int64_t pad_chars = Utf8Length(pad);
    for (int64_t i = 0; i < missing / pad_chars; ++i) fill += pad;
    fill += CharsPrefix(pad, missing % pad_chars);
    return out->Append(left ? fill + std::string(s) : std::string(s) + fill);
  });
}
Result<Datum> Lpad(const Expr&, const std::vector<Datum>& args, const CallSignature&) { return Pad(args, true); }
Result<Datum> Rpad(const Expr&, const std::vector<Datum>& args, const CallSignature&) { return Pad(args, false); }

Result<Datum> Ltrim(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  arrow::compute::TrimOptions options(" ");
  return Kernel("utf8_ltrim", args, &options);
}
Result<Datum> Rtrim(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  arrow::compute::TrimOptions options(" ");
  return Kernel("utf8_rtrim", args, &options);
}

// initcap: lower case, then the first character of every space-separated word in upper case.
Result<Datum> Initcap(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(auto lower, Kernel("utf8_lower", args));
  ARROW_ASSIGN_OR_RAISE(auto upper, Kernel("utf8_upper", args));  // one code point per code point
  ARROW_ASSIGN_OR_RAISE(auto rows, RowArgs::Make({lower, upper}));
  return MapRows<arrow::StringBuilder>(rows, arrow::utf8(), true, [&](int64_t row, arrow::StringBuilder* out) {
    std::string_view lo = rows.Str(0, row), up = rows.Str(1, row);
    std::string text;
    size_t i = 0, j = 0;
    bool word_start = true;
    while (i < lo.size() && j < up.size()) {
      size_t ni = i + 1, nj = j + 1;
      while (ni < lo.size() && (static_cast<unsigned char>(lo[ni]) & 0xC0) == 0x80) ++ni;
      while (nj < up.size() && (static_cast<unsigned char>(up[nj]) & 0xC0) == 0x80) ++nj;
      text += word_start ? up.substr(j, nj - j) : lo.substr(i, ni - i);
      word_start = lo[i] == ' ';
      i = ni;
      j = nj;
    }
    return out->Append(text);
  });
}

Result<Datum> Reverse(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  return Kernel("utf8_reverse", args);
}

Result<Datum> Repeat(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(auto rows, RowArgs::Make(args));
  return MapRows<arrow::StringBuilder>(rows, arrow::utf8(), true, [&](int64_t row, arrow::StringBuilder* out) {
    std::string text;
    for (int64_t i = 0; i < rows.Int(1, row); ++i) text += rows.Str(0, row);
    return out->Append(text);
  });
}

// left(str, n) / right(str, n): "" when n <= 0.
Result<Datum> Side(const std::vector<Datum>& args, bool left) {
  ARROW_ASSIGN_OR_RAISE(auto rows, RowArgs::Make(args));
  return MapRows<arrow::StringBuilder>(rows, arrow::utf8(), true, [&](int64_t row, arrow::StringBuilder* out) {
    std::string_view s = rows.Str(0, row);
    const int64_t n = rows.Int(1, row);
    if (n <= 0) return out->Append(std::string_view());
    return out->Append(left ? CharsPrefix(s, n) : s.substr(Utf8Offset(s, Utf8Length(s) - n)));
  });
}
Result<Datum> Left(const Expr&, const std::vector<Datum>& args, const CallSignature&) { return Side(args, true); }
Result<Datum> Right(const Expr&, const std::vector<Datum>& args, const CallSignature&) { return Side(args, false); }

Result<Datum> ConcatWs(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  if (args.size() == 1) {  // only a separator: "", or NULL when the separator is NULL
    ARROW_ASSIGN_OR_RAISE(auto valid, Kernel("is_valid", {args[0]}));
    return Kernel("if_else", {valid, Datum(std::make_shared<arrow::StringScalar>("")),
                              Datum(arrow::MakeNullScalar(arrow::utf8()))});
  }
  std::vector<Datum> inputs(args.begin() + 1, args.end());
  inputs.push_back(args[0]);  // Arrow takes the separator last
  arrow::compute::JoinOptions options(arrow::compute::JoinOptions::SKIP);
  return Kernel("binary_join_element_wise", inputs, &options);
}

// format_string: the literal format's conversions applied per row (util/java_format.h).
Result<Datum> FormatString(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(auto specs, util::ParseJavaFormat(LiteralText(args[0])));
  ARROW_ASSIGN_OR_RAISE(auto rows, RowArgs::Make(args));
  using Kind = util::JavaFormatSpec::Kind;
  return MapRows<arrow::StringBuilder>(rows, arrow::utf8(), false, [&](int64_t row, arrow::StringBuilder* out) -> Status {
    if (rows.IsNull(0, row)) return out->AppendNull();
    std::string text;
    for (const auto& spec : specs) {
      const size_t a = static_cast<size_t>(spec.arg) + 1;
      if (spec.kind == Kind::kText) {
        text += spec.text;
      } else if (rows.IsNull(a, row)) {
        util::AppendJavaNull(spec, &text);
      } else if (spec.kind == Kind::kInteger) {
        util::AppendJavaInteger(spec, rows.Int(a, row), &text);
      } else if (spec.kind == Kind::kFloating) {
        util::AppendJavaFloating(spec, static_cast<const arrow::DoubleArray&>(rows.array(a)).Value(row), &text);
      } else {
        util::AppendJavaString(spec, std::string(rows.Str(a, row)), &text);
      }
    }
    return out->Append(text);
  });
}

std::string Hex(const unsigned char* bytes, unsigned int n) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < n; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 15];
  }
  return out;
}

Result<Datum> HexDigest(const std::vector<Datum>& args, const EVP_MD* (*md_for)(int64_t bits)) {
  ARROW_ASSIGN_OR_RAISE(auto rows, RowArgs::Make(args));
  return MapRows<arrow::StringBuilder>(rows, arrow::utf8(), true, [&](int64_t row, arrow::StringBuilder* out) -> Status {
    const EVP_MD* md = md_for(args.size() == 2 ? rows.Int(1, row) : 0);
    if (!md) return out->AppendNull();
    std::string_view s = rows.Str(0, row);
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (EVP_Digest(s.data(), s.size(), digest, &n, md, nullptr) != 1) return Status::Invalid("digest failed");
    return out->Append(Hex(digest, n));
  });
}

Result<Datum> Md5(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  return HexDigest(args, [](int64_t) { return EVP_md5(); });
}

// sha2(x, bits): 224, 256 (or 0), 384, 512; NULL for any other bit length.
Result<Datum> Sha2(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  return HexDigest(args, [](int64_t bits) -> const EVP_MD* {
    switch (bits) {
      case 0: case 256: return EVP_sha256();
      case 224: return EVP_sha224();
      case 384: return EVP_sha384();
      case 512: return EVP_sha512();
      default: return nullptr;
    }
  });
}

Result<Datum> Base64(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(auto rows, RowArgs::Make(args));
  return MapRows<arrow::StringBuilder>(rows, arrow::utf8(), true, [&](int64_t row, arrow::StringBuilder* out) {
    return out->Append(arrow::util::base64_encode(rows.Str(0, row)));
  });
}

// unbase64(str): NULL for text that is not base64.
Result<Datum> Unbase64(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(auto rows, RowArgs::Make(args));
  return MapRows<arrow::BinaryBuilder>(rows, arrow::binary(), true, [&](int64_t row, arrow::BinaryBuilder* out) -> Status {
    auto decoded = arrow::util::base64_decode(rows.Str(0, row));
    if (!decoded.ok()) return out->AppendNull();
    return out->Append(*decoded);
  });
}

}  // namespace

std::vector<FunctionKernelEntry> StringKernels() {
  return {{"replace", Replace}, {"split_part", SplitPart}, {"instr", Instr},     {"locate", Locate},
          {"lpad", Lpad},       {"rpad", Rpad},            {"ltrim", Ltrim},     {"rtrim", Rtrim},
          {"initcap", Initcap}, {"reverse", Reverse},      {"repeat", Repeat},   {"left", Left},
          {"right", Right},     {"concat_ws", ConcatWs},   {"md5", Md5},         {"sha2", Sha2},
          {"base64", Base64},   {"unbase64", Unbase64}, {"format_string", FormatString}};
}

}  // namespace sluice::exec::internal
