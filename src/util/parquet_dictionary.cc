#include "util/parquet_dictionary.h"

#include <algorithm>

#include <arrow/compute/api_aggregate.h>
#include <arrow/compute/exec.h>
#include <arrow/table.h>
#include <arrow/type_traits.h>

#include "util/compute_init.h"

namespace sluice::util {
namespace {

// Types written as one Parquet leaf whose dictionary the writer would build.
bool Candidate(const arrow::DataType& type) {
  if (type.id() == arrow::Type::BOOL || type.id() == arrow::Type::NA) return false;
  return arrow::is_primitive(type.id()) || arrow::is_base_binary_like(type.id()) ||
         arrow::is_fixed_size_binary(type.id());
}

}  // namespace

bool DictionaryDoesNotPay(int64_t distinct, int64_t values) {
  return values > 0 && distinct * 4 >= values * 3;
}

Status DisableDictionaryWhereItDoesNotPay(const arrow::Table& rows, parquet::WriterProperties::Builder* props) {
  if (rows.num_rows() < kMinRowsToSample) return Status::OK();
  ARROW_RETURN_NOT_OK(EnsureComputeInitialized());
  const int64_t sample = std::min<int64_t>(rows.num_rows(), kDictionarySampleRows);
  for (int i = 0; i < rows.num_columns(); ++i) {
    const auto& field = rows.schema()->field(i);
    if (!Candidate(*field->type())) continue;
    auto values = rows.column(i)->Slice(0, sample);
    const int64_t valid = values->length() - values->null_count();
    // A type the kernel does not count keeps the writer's default: the sample only tunes the
    // encoding, it never fails a write.
    auto distinct = arrow::compute::CallFunction("count_distinct", {values});
    if (!distinct.ok() || !DictionaryDoesNotPay(distinct->scalar_as<arrow::Int64Scalar>().value, valid)) continue;
    // The writer looks a column up by its dotted path; a top-level leaf's is its name.
    props->disable_dictionary(field->name());
  }
  return Status::OK();
}

}  // namespace sluice::util
