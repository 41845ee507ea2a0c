// Typing of the string functions. Positions and lengths are integers (cast to BIGINT for the
// kernels) and may be columns; regular expressions, replace's search text and sha2's bit length
// are literals (the kernels compile them once per batch). A NULL string argument gives NULL,
// except in concat_ws, which skips NULL values.
#include <arrow/api.h>

#include <optional>

#include "plan/function_registry.h"
#include "util/java_format.h"

namespace sluice::plan {
namespace {

using DataTypePtr = std::shared_ptr<arrow::DataType>;

// Every argument a string; the result a string (or `out`).
Result<CallSignature> Strings(const Expr& call, const arrow::FieldVector& args, DataTypePtr out) {
  CallSignature sig{{}, std::move(out), AnyNullable(args)};
  for (size_t i = 0; i < args.size(); ++i) {
    ARROW_RETURN_NOT_OK(StringArg(call, args, i).status());
    sig.arg_types.push_back(arrow::utf8());
  }
  return sig;
}

Result<CallSignature> StringToString(const Expr& call, const arrow::FieldVector& args) {
  return Strings(call, args, arrow::utf8());
}

Result<CallSignature> StringToInt(const Expr& call, const arrow::FieldVector& args) {
  return Strings(call, args, arrow::int32());
}

// Arguments: strings at `string_positions`, integers elsewhere.
Result<CallSignature> Mixed(const Expr& call, const arrow::FieldVector& args, std::initializer_list<size_t> integers,
                            DataTypePtr out) {
  CallSignature sig{{}, std::move(out), AnyNullable(args)};
  for (size_t i = 0; i < args.size(); ++i) {
    if (std::find(integers.begin(), integers.end(), i) != integers.end()) {
      ARROW_RETURN_NOT_OK(IntegerArg(call, args, i));
      sig.arg_types.push_back(arrow::int64());
    } else {
      ARROW_RETURN_NOT_OK(StringArg(call, args, i).status());
      sig.arg_types.push_back(arrow::utf8());
    }
  }
  return sig;
}

// replace(str, search[, replacement]): search and replacement are literals.
Result<CallSignature> Replace(const Expr& call, const arrow::FieldVector& args) {
  for (size_t i = 1; i < args.size(); ++i) ARROW_RETURN_NOT_OK(LiteralArg(call, i, IsStringType, "string").status());
  return StringToString(call, args);
}

// regexp_replace(str, regex, replacement), regexp_like(str, regex): literal patterns.
Result<CallSignature> RegexpReplace(const Expr& call, const arrow::FieldVector& args) {
  ARROW_RETURN_NOT_OK(LiteralArg(call, 1, IsStringType, "string").status());
  ARROW_RETURN_NOT_OK(LiteralArg(call, 2, IsStringType, "string").status());
  return StringToString(call, args);
}

Result<CallSignature> RegexpLike(const Expr& call, const arrow::FieldVector& args) {
  ARROW_RETURN_NOT_OK(LiteralArg(call, 1, IsStringType, "string").status());
  return Strings(call, args, arrow::boolean());
}

// regexp_extract(str, regex[, group = 1]): an empty string when the pattern does not match.
Result<CallSignature> RegexpExtract(const Expr& call, const arrow::FieldVector& args) {
  ARROW_RETURN_NOT_OK(LiteralArg(call, 1, IsStringType, "string").status());
  if (args.size() == 3) ARROW_RETURN_NOT_OK(LiteralArg(call, 2, IsIntegerType, "integer").status());
  return Mixed(call, args, {2}, arrow::utf8());
}

Result<CallSignature> SplitPart(const Expr& call, const arrow::FieldVector& args) {
  return Mixed(call, args, {2}, arrow::utf8());
}

// locate(substr, str[, pos]): 1-based, 0 when absent.
Result<CallSignature> Locate(const Expr& call, const arrow::FieldVector& args) {
  return Mixed(call, args, {2}, arrow::int32());
}

// lpad/rpad(str, len[, pad = ' ']).
Result<CallSignature> Pad(const Expr& call, const arrow::FieldVector& args) {
  return Mixed(call, args, {1}, arrow::utf8());
}

// repeat(str, n), left(str, n), right(str, n).
Result<CallSignature> StringAndCount(const Expr& call, const arrow::FieldVector& args) {
  return Mixed(call, args, {1}, arrow::utf8());
}

// concat_ws(sep, s1, s2, ...): NULL values are skipped; NULL only when sep is NULL.
Result<CallSignature> ConcatWs(const Expr& call, const arrow::FieldVector& args) {
  ARROW_ASSIGN_OR_RAISE(auto sig, StringToString(call, args));
  sig.nullable = args[0]->nullable();
  return sig;
}

// md5, sha2, base64 read bytes: a string is read as its UTF-8 bytes, as Spark's implicit cast.
Result<DataTypePtr> BytesArg(const Expr& call, const arrow::FieldVector& args, size_t i) {
  const auto& t = *args[i]->type();
  if (IsStringType(t) || IsNullType(t) || t.id() == arrow::Type::BINARY) return arrow::binary();
  return TypeMismatch(call.name, call, {args[i]});
}

Result<CallSignature> Digest(const Expr& call, const arrow::FieldVector& args) {
  ARROW_ASSIGN_OR_RAISE(auto in, BytesArg(call, args, 0));
  CallSignature sig{{in}, arrow::utf8(), args[0]->nullable()};
  if (args.size() == 2) {  // sha2(x, bits): an unsupported bit length gives NULL
    ARROW_RETURN_NOT_OK(LiteralArg(call, 1, IsIntegerType, "integer").status());
    sig.arg_types.push_back(arrow::int64());
    sig.nullable = true;
  }
  return sig;
}

Result<CallSignature> Base64(const Expr& call, const arrow::FieldVector& args) {
  ARROW_ASSIGN_OR_RAISE(auto in, BytesArg(call, args, 0));
  return CallSignature{{in}, arrow::utf8(), args[0]->nullable()};
}

Result<CallSignature> Unbase64(const Expr& call, const arrow::FieldVector& args) {
  ARROW_RETURN_NOT_OK(StringArg(call, args, 0).status());
  return CallSignature{{arrow::utf8()}, arrow::binary(), true};
}

// format_string(format, args...): the format a literal (its conversions type the arguments:
// %d/%x/%o integers, %f/%e/%g numbers, %b booleans, %s anything but dates and timestamps,
// read as CAST(x AS STRING)). NULL arguments print "null" (Java's Formatter), so the result
// is NULL only for a NULL format.
Result<CallSignature> FormatString(const Expr& call, const arrow::FieldVector& args) {
  ARROW_ASSIGN_OR_RAISE(auto pattern, LiteralArg(call, 0, IsStringType, "string"));
  ARROW_ASSIGN_OR_RAISE(auto specs, util::ParseJavaFormat(pattern->ToString()));
  CallSignature sig{{arrow::utf8()}, arrow::utf8(), false};
  std::vector<std::optional<util::JavaFormatSpec::Kind>> kinds(args.size() - 1);
  for (const auto& spec : specs) {
    if (spec.kind == util::JavaFormatSpec::Kind::kText) continue;
    if (spec.arg < 0 || static_cast<size_t>(spec.arg) + 1 >= args.size()) {
      return Status::Invalid("format_string: the format '", pattern->ToString(), "' refers to argument ", spec.arg + 1,
                             ", but ", args.size() - 1, " are given, in ", call.ToString());
    }
    auto& kind = kinds[static_cast<size_t>(spec.arg)];
    if (kind && *kind != spec.kind) {
      return Status::Invalid("format_string: argument ", spec.arg + 1, " is formatted by conversions of two kinds in '",
                             pattern->ToString(), "'; give it once per kind, in ", call.ToString());
    }
    kind = spec.kind;
  }
  for (size_t i = 1; i < args.size(); ++i) {
    const auto& t = *args[i]->type();
    const auto& kind = kinds[i - 1];
    using Kind = util::JavaFormatSpec::Kind;
    bool ok = true;
    DataTypePtr as = args[i]->type();
    if (!kind) {
      as = args[i]->type();  // not formatted: passed through untouched
    } else if (*kind == Kind::kInteger) {
      ok = IsIntegerType(t) || IsNullType(t);
      as = arrow::int64();
    } else if (*kind == Kind::kFloating) {
      ok = (IsNumericType(t) && !IsIntegerType(t)) || IsNullType(t);
      as = arrow::float64();
    } else if (*kind == Kind::kBoolean) {
      ok = t.id() == arrow::Type::BOOL || IsNullType(t);
      as = arrow::utf8();
    } else {
      ok = !IsTemporalType(t);
      as = arrow::utf8();
    }
    if (!ok) {
      return Status::TypeError("format_string: argument ", i, " (", call.args[i]->ToString(), ", ", TypeName(t),
                               ") does not fit its conversion in '", pattern->ToString(),
                               "' (%d/%x/%o take integers, %f/%e/%g floating point or decimal numbers, %b booleans; "
                               "format dates and timestamps with date_format and %s), in ", call.ToString());
    }
    sig.arg_types.push_back(as);
  }
  return sig;
}

}  // namespace

std::vector<FunctionTyping> StringFunctionTypings() {
  return {
      {"replace", 2, 3, "replace(str, search[, replacement])", Replace},
      {"regexp_replace", 3, 3, "regexp_replace(str, regex, replacement)", RegexpReplace},
      {"regexp_extract", 2, 3, "regexp_extract(str, regex[, group])", RegexpExtract},
      {"regexp_like", 2, 2, "regexp_like(str, regex)", RegexpLike},
      {"split_part", 3, 3, "split_part(str, delimiter, part)", SplitPart},
      {"instr", 2, 2, "instr(str, substr)", StringToInt},
      {"locate", 2, 3, "locate(substr, str[, pos])", Locate},
      {"lpad", 2, 3, "lpad(str, len[, pad])", Pad},
      {"rpad", 2, 3, "rpad(str, len[, pad])", Pad},
      {"ltrim", 1, 1, "ltrim(str)", StringToString},
      {"rtrim", 1, 1, "rtrim(str)", StringToString},
      {"initcap", 1, 1, "initcap(str)", StringToString},
      {"reverse", 1, 1, "reverse(str)", StringToString},
      {"repeat", 2, 2, "repeat(str, n)", StringAndCount},
      {"left", 2, 2, "left(str, n)", StringAndCount},
      {"right", 2, 2, "right(str, n)", StringAndCount},
      {"concat_ws", 1, SIZE_MAX, "concat_ws(sep, s1, s2, ...)", ConcatWs},
      {"md5", 1, 1, "md5(x)", Digest},
      {"sha2", 2, 2, "sha2(x, bits)", Digest},
      {"base64", 1, 1, "base64(x)", Base64},
      {"unbase64", 1, 1, "unbase64(str)", Unbase64},
      {"format_string", 1, SIZE_MAX, "format_string(format, arg1, ...)", FormatString},
  };
}

}  // namespace sluice::plan
