// Decimal numbers written as text, read exactly: Spark's CAST(text AS DECIMAL(p, s)) reads the
// text as a Java BigDecimal (any number of digits), then rounds it half up to the scale.
#pragma once

#include <arrow/util/decimal.h>

#include <cstdint>
#include <string_view>

namespace sluice::util {

enum class DecimalText { kOk, kMalformed, kOutOfRange };

/// `s` (an optional sign, digits with an optional point, an optional exponent `e[+-]digits`;
/// no spaces) as DECIMAL(precision, scale) in `*out`: every digit of the text read, the value
/// rounded half up (away from zero) to `scale` fractional digits. kMalformed when `s` is not such
/// a number (or its exponent does not fit in 32 bits, as in Java); kOutOfRange when the rounded
/// value needs more than `precision` digits.
DecimalText ParseDecimalText(std::string_view s, int32_t precision, int32_t scale, arrow::Decimal128* out);

}  // namespace sluice::util
