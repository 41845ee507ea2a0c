// Which text of a CSV field Spark's CSV reader takes as which type (without dateFormat /
// timestampFormat, in the US locale): the tests of CSV schema inference
// (csv_schema_inference.cc) and the forms the CSV reader (file_record_readers.cc) must read
// beyond what Arrow's CSV reader reads. Java's number parsing rules, as Spark calls them.
#pragma once

#include <arrow/array.h>
#include <arrow/table.h>
#include <arrow/type_fwd.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/status.h"

namespace sluice::source {

/// Java's Integer/Long.parseLong: an optional sign, then ASCII digits (no spaces), within
/// [-max - 1, max].
bool IsJavaIntegerText(std::string_view text, uint64_t max);

/// The precision of the DECIMAL(p, 0) Spark infers for `text`: a Java BigDecimal whose scale
/// is 0 (`1.`, `15e0`, `1.5e1`) and that has at most 38 digits; nothing otherwise.
std::optional<int> SparkDecimalPrecision(std::string_view text);

/// A DOUBLE for Spark: Java's Double.parseDouble (trimmed; an optional sign; NaN, Infinity or
/// a decimal number with an optional f/F/d/D suffix), or the CSV options' NaN, Inf and -Inf.
bool IsSparkDoubleText(std::string_view text);

/// A DATE of Spark's default pattern yyyy-MM-dd, read strictly (a real day, two-digit fields).
bool IsSparkDateText(std::string_view text);

/// true/false in any case.
bool IsSparkBooleanText(std::string_view text);

/// A TIMESTAMP in Spark's lenient forms: the text trimmed; an optional '+'; a year of 4 to 7
/// digits, then optionally -month and -day (1 or 2 digits each); after a full date, optionally
/// ' ' or 'T' and hour[:minute[:second[.fraction]]] (1 or 2 digits each, any number of fraction
/// digits, cut to microseconds); after the seconds, optionally a space and a zone: Z, UTC, GMT
/// or UT, alone or followed by an offset, or an offset +h, +hh, +hhmm, +hh:mm (or -). Its
/// microseconds since the epoch, UTC (text without a zone is UTC); nothing otherwise. A named
/// region (America/New_York), which Spark reads, is not read here.
std::optional<int64_t> SparkTimestampMicros(std::string_view text);

/// `text` (strings and nulls) as timestamps of `type` by SparkTimestampMicros; an error naming
/// the first text that is not one.
Result<std::shared_ptr<arrow::Array>> SparkTimestampsFromText(const arrow::StringArray& text,
                                                              const std::shared_ptr<arrow::DataType>& type);

/// A number Spark reads for a column of type `id` (an integer, decimal or floating type)
/// rewritten as Arrow's number parsing reads it: trimmed, without a leading '+', for floating
/// types also without a f/F/d/D suffix. Other text is returned as is.
std::string ArrowNumberText(std::string_view text, arrow::Type::type id);

/// Every spelling of `word` in upper and lower case letters (Spark reads booleans ignoring
/// case; Arrow's reader matches its true/false texts exactly).
std::vector<std::string> EveryCaseOf(const std::string& word);

/// A CSV header's names as Spark names the columns: an empty name is _c<index>, and a name
/// given more than once (ignoring case) gets its index appended to each of its copies
/// (`a,A,a,,b`: a0, A1, a2, _c3, b).
std::vector<std::string> SparkCsvHeaderNames(std::vector<std::string> names);

/// `text` (string columns) with each column that `schema` gives a number type rewritten by
/// ArrowNumberText, so that converting it to `schema` reads the numbers as Spark does.
Result<std::shared_ptr<arrow::Table>> WithArrowNumberText(const std::shared_ptr<arrow::Table>& text,
                                                          const arrow::Schema& schema);

}  // namespace sluice::source
