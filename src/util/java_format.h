// Java's java.util.Formatter patterns, as Spark's format_string / printf use them: the parsed
// conversions of a pattern (plan/ types the arguments from them) and the formatting of one
// conversion (exec/ formats each row). Supported: %[index$][flags][width][.precision]conv with
// flags - + space 0 #, and conversions s S d x X o f e E g G b B c %% n. Not supported (refused
// by Parse, naming the spec): the ',' and '(' flags, dates (%t), hash codes (%h), %a.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sluice/status.h"

namespace sluice::util {

struct JavaFormatSpec {
  enum class Kind { kText, kString, kInteger, kFloating, kBoolean, kChar };
  Kind kind = Kind::kText;
  std::string text{};      // kText: the literal text (%% and %n already resolved)
  int arg = -1;            // the 0-based argument it formats
  std::string flags{};     // of "-+ 0#"
  int width = -1;          // -1: none
  int precision = -1;      // -1: none
  char conversion = 's';   // s S d x X o f e E g G b B c
};

/// The pieces of `pattern`; errors name the pattern and the offending spec.
Result<std::vector<JavaFormatSpec>> ParseJavaFormat(const std::string& pattern);

/// Appends one conversion of a value (nullopt: Java's null, printed "null", or "false" for %b).
void AppendJavaString(const JavaFormatSpec& spec, const std::optional<std::string>& v, std::string* out);
void AppendJavaInteger(const JavaFormatSpec& spec, int64_t v, std::string* out);
void AppendJavaFloating(const JavaFormatSpec& spec, double v, std::string* out);
void AppendJavaNull(const JavaFormatSpec& spec, std::string* out);

}  // namespace sluice::util
