// Kernels of the regular-expression functions on Arrow's RE2 kernels (typing:
// plan/function_types_string.cc). Patterns are Java's syntax as far as RE2 shares it (no
// look-around or back-references: those patterns are refused); replacements use Java's $n.
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <cctype>

#include "exec/expr_function_table.h"
#include "exec/expr_kernels.h"

namespace sluice::exec::internal {
namespace {

using arrow::Datum;
using plan::CallSignature;
using plan::Expr;

// Java's replacement text ($1 a group, \$ a dollar) as RE2's (\1 a group, \\ a backslash).
std::string Re2Replacement(const std::string& java) {
  std::string out;
  for (size_t i = 0; i < java.size(); ++i) {
    const char c = java[i];
    if (c == '\\' && i + 1 < java.size()) {
      const char next = java[++i];
      out += next == '\\' ? std::string("\\\\") : std::string(1, next);
    } else if (c == '$' && i + 1 < java.size() && std::isdigit(static_cast<unsigned char>(java[i + 1]))) {
      out += '\\';
      out += java[++i];
    } else {
      out += c;
    }
  }
  return out;
}

Result<Datum> RegexpReplace(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  arrow::compute::ReplaceSubstringOptions options(LiteralText(args[1]), Re2Replacement(LiteralText(args[2])));
  return Kernel("replace_substring_regex", {args[0]}, &options);
}

Result<Datum> RegexpLike(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  arrow::compute::MatchSubstringOptions options(LiteralText(args[1]));
  return Kernel("match_substring_regex", {args[0]}, &options);
}

// `pattern` with every capturing group named g1, g2, ... and the whole match named g0 (Arrow's
// extract_regex reports named groups only); `groups` receives the number of capturing groups.
std::string NameGroups(const std::string& pattern, int* groups) {
  std::string out = "(?P<g0>";
  bool in_class = false;
  *groups = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      out += c;
      out += pattern[++i];
      continue;
    }
    if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[i++];  // "[]...]" starts with a literal ]
    } else if (c == '(' && (i + 1 >= pattern.size() || pattern[i + 1] != '?')) {
      out += "(?P<g" + std::to_string(++*groups) + ">";
      continue;
    }
    out += c;
  }
  return out + ")";
}

// regexp_extract(str, regex[, group = 1]): "" when the pattern does not match (or the group
// took no part in the match).
Result<Datum> RegexpExtract(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  const std::string pattern = LiteralText(args[1]);
  int64_t index = 1;
  if (args.size() == 3) index = static_cast<const arrow::Int64Scalar&>(*args[2].scalar()).value;
  int groups = 0;
  const std::string named = NameGroups(pattern, &groups);
  if (index < 0 || index > groups) {
    return Status::Invalid("[INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX] The value of parameter(s) `idx` in "
                           "`regexp_extract` is invalid: Expects group index between 0 and ", groups, ", but got ",
                           index, ".");
  }
  arrow::compute::ExtractRegexOptions options(named);
  ARROW_ASSIGN_OR_RAISE(auto matched, Kernel("extract_regex", {args[0]}, &options));
  arrow::compute::StructFieldOptions field({static_cast<int>(index)});
  ARROW_ASSIGN_OR_RAISE(auto group, Kernel("struct_field", {matched}, &field));
  // No match: "" for a non-null input.
  ARROW_ASSIGN_OR_RAISE(auto valid, Kernel("is_valid", {args[0]}));
  ARROW_ASSIGN_OR_RAISE(auto filled, Kernel("coalesce", {group, Datum(std::make_shared<arrow::StringScalar>(""))}));
  return Kernel("if_else", {valid, filled, Datum(arrow::MakeNullScalar(arrow::utf8()))});
}

}  // namespace

std::vector<FunctionKernelEntry> RegexKernels() {
  return {{"regexp_replace", RegexpReplace}, {"regexp_extract", RegexpExtract}, {"regexp_like", RegexpLike}};
}

}  // namespace sluice::exec::internal
