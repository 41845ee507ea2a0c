// Java Formatter patterns as Spark's format_string/printf: pieces, flags, widths, precisions,
// Java's texts for null, NaN and infinities, and the specs refused with a reason.
#include <gtest/gtest.h>

#include "support/status.h"
#include "util/java_format.h"

namespace sluice::util {
namespace {

using ::testing::HasSubstr;

// Formats `pattern` with one value per conversion: integers, doubles or strings by the spec.
std::string Format(const std::string& pattern, const std::vector<std::string>& values) {
  auto specs = ParseJavaFormat(pattern).ValueOrDie();
  std::string out;
  for (const auto& s : specs) {
    if (s.kind == JavaFormatSpec::Kind::kText) {
      out += s.text;
      continue;
    }
    const std::string& v = values.at(static_cast<size_t>(s.arg));
    if (v == "<null>") {
      AppendJavaNull(s, &out);
    } else if (s.kind == JavaFormatSpec::Kind::kInteger) {
      AppendJavaInteger(s, std::stoll(v), &out);
    } else if (s.kind == JavaFormatSpec::Kind::kFloating) {
      AppendJavaFloating(s, std::stod(v), &out);
    } else {
      AppendJavaString(s, v, &out);
    }
  }
  return out;
}

TEST(JavaFormat, ConversionsFlagsWidthsAndPrecisionsAsJava) {
  EXPECT_EQ(Format("Hello World %d %s", {"100", "days"}), "Hello World 100 days");
  EXPECT_EQ(Format("[%5d|%-5d|%05d|%+d]", {"42", "42", "42", "42"}), "[   42|42   |00042|+42]");
  EXPECT_EQ(Format("%x %X %o %#x", {"255", "255", "8", "255"}), "ff FF 10 0xff");
  EXPECT_EQ(Format("%x", {"-1"}), "ffffffffffffffff");
  EXPECT_EQ(Format("%.2f|%8.3f|%e|%.3g", {"3.14159", "2.5", "1234.5", "0.5"}), "3.14|   2.500|1.234500e+03|0.500");
  // Half up on the shortest decimal digits, as Java (C would give 100.12, -2.2, 0.1).
  EXPECT_EQ(Format("%.2f %.1f %.1f %.0f %.2e", {"100.125", "-2.25", "0.15", "9.5", "9.995"}), "100.13 -2.3 0.2 10 1.00e+01");
  EXPECT_EQ(Format("[%08.2f|%+.1f|%-7.1f|%f]", {"-3.14159", "2", "0.05", "0.000001234"}), "[-0003.14|+2.0|0.1    |0.000001]");
  EXPECT_EQ(Format("%.2s|%S|%-4s|", {"abcdef", "up", "x"}), "ab|UP|x   |");
  EXPECT_EQ(Format("%2$s-%1$s-%s", {"a", "b"}), "b-a-a");
  EXPECT_EQ(Format("100%% done%n", {}), "100% done\n");
}

TEST(JavaFormat, NullNanAndInfinityPrintJavasText) {
  // As Java (and Spark): the precision cuts "null" too, and '0' pads it with spaces.
  EXPECT_EQ(Format("%s %d %5.1f %b|%8.2f|%05d", {"<null>", "<null>", "<null>", "<null>", "<null>", "<null>"}),
            "null null     n false|      nu| null");
  EXPECT_EQ(Format("%f %f %.1f", {"nan", "inf", "-inf"}), "NaN Infinity -Infinity");
}

TEST(JavaFormat, UnsupportedSpecsAreRefusedNamingThem) {
  EXPECT_THAT(ParseJavaFormat("%,d").status().message(), HasSubstr("'%,d'"));
  EXPECT_THAT(ParseJavaFormat("%tY").status().message(), HasSubstr("unsupported conversion"));
  EXPECT_THAT(ParseJavaFormat("%-d").status().message(), HasSubstr("needs a width"));
  EXPECT_THAT(ParseJavaFormat("%.2d").status().message(), HasSubstr("precision"));
  EXPECT_THAT(ParseJavaFormat("abc %").status().message(), HasSubstr("no conversion character"));
}

}  // namespace
}  // namespace sluice::util
