#include "util/timestamp_text.h"

#include <arrow/compute/api.h>
#include <arrow/type.h>

namespace sluice::util {

arrow::Result<arrow::Datum> TimestampFromText(const arrow::Datum& text, const std::shared_ptr<arrow::DataType>& type) {
  const auto unit = static_cast<const arrow::TimestampType&>(*type).unit();
  // Arrow parses naive text only into a zone-less timestamp and zoned text only into a zoned one.
  auto parsed = arrow::compute::Cast(text, arrow::timestamp(unit));
  if (!parsed.ok()) parsed = arrow::compute::Cast(text, arrow::timestamp(unit, "UTC"));
  ARROW_ASSIGN_OR_RAISE(auto value, parsed);
  return arrow::compute::Cast(value, type);  // relabels the zone; the instant is kept
}

}  // namespace sluice::util
