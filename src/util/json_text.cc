// JSON text of Arrow values as Spark's JSON generator (Jackson) writes them.
#include "util/json_text.h"

#include <arrow/array.h>
#include <arrow/record_batch.h>
#include <arrow/type.h>
#include <arrow/util/base64.h>
#include <arrow/util/checked_cast.h>

#include <cmath>

#include "util/value_text.h"

namespace sluice::util {
namespace {

using arrow::internal::checked_cast;

template <typename T>
void AppendFloating(T v, std::string* out) {
  std::string s = std::is_same_v<T, float> ? FormatFloatJava(static_cast<float>(v)) : FormatDoubleJava(v);
  if (std::isfinite(v)) {
    *out += s;
  } else {
    AppendJsonString(s, out);  // Jackson quotes non-numeric numbers
  }
}

Status AppendJsonArray(const arrow::Array& values, int64_t offset, int64_t length, bool ignore_nulls,
                       std::string* out) {
  out->push_back('[');
  for (int64_t k = 0; k < length; ++k) {
    if (k) out->push_back(',');
    ARROW_RETURN_NOT_OK(AppendJsonValue(values, offset + k, ignore_nulls, out));
  }
  out->push_back(']');
  return Status::OK();
}

}  // namespace

// The fields of one object: `names[f]` -> `columns[f]` at row i.
Status AppendJsonObject(const std::vector<std::string>& names, const std::vector<const arrow::Array*>& columns,
                        int64_t i, bool ignore_nulls, std::string* out) {
  out->push_back('{');
  bool first = true;
  for (size_t f = 0; f < columns.size(); ++f) {
    if (columns[f]->IsNull(i) && ignore_nulls) continue;
    if (!first) out->push_back(',');
    first = false;
    AppendJsonString(names[f], out);
    out->push_back(':');
    Status st = AppendJsonValue(*columns[f], i, ignore_nulls, out);
    if (!st.ok()) return st.WithMessage("field '", names[f], "': ", st.message());
  }
  out->push_back('}');
  return Status::OK();
}


Status AppendJsonValue(const arrow::Array& a, int64_t i, bool ignore_nulls, std::string* out) {
  if (a.IsNull(i)) {
    *out += "null";
    return Status::OK();
  }
  switch (a.type_id()) {
    case arrow::Type::BOOL:
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
    case arrow::Type::UINT8:
    case arrow::Type::UINT16:
    case arrow::Type::UINT32:
    case arrow::Type::UINT64:
    case arrow::Type::DECIMAL128:
    case arrow::Type::DECIMAL256: {
      ARROW_ASSIGN_OR_RAISE(auto text, FormatShowCell(a, i));
      *out += text;
      return Status::OK();
    }
    case arrow::Type::FLOAT:
      AppendFloating(checked_cast<const arrow::FloatArray&>(a).Value(i), out);
      return Status::OK();
    case arrow::Type::DOUBLE:
      AppendFloating(checked_cast<const arrow::DoubleArray&>(a).Value(i), out);
      return Status::OK();
    case arrow::Type::STRING:
      AppendJsonString(checked_cast<const arrow::StringArray&>(a).GetView(i), out);
      return Status::OK();
    case arrow::Type::LARGE_STRING:
      AppendJsonString(checked_cast<const arrow::LargeStringArray&>(a).GetView(i), out);
      return Status::OK();
    case arrow::Type::STRING_VIEW:
      AppendJsonString(checked_cast<const arrow::StringViewArray&>(a).GetView(i), out);
      return Status::OK();
    case arrow::Type::BINARY:
      AppendJsonString(arrow::util::base64_encode(checked_cast<const arrow::BinaryArray&>(a).GetView(i)), out);
      return Status::OK();
    case arrow::Type::LARGE_BINARY:
      AppendJsonString(arrow::util::base64_encode(checked_cast<const arrow::LargeBinaryArray&>(a).GetView(i)), out);
      return Status::OK();
    case arrow::Type::DATE32:
    case arrow::Type::DATE64: {
      ARROW_ASSIGN_OR_RAISE(auto text, FormatShowCell(a, i));
      AppendJsonString(text, out);
      return Status::OK();
    }
    case arrow::Type::TIMESTAMP: {
      const auto& type = checked_cast<const arrow::TimestampType&>(*a.type());
      AppendJsonString(FormatTimestamp(checked_cast<const arrow::TimestampArray&>(a).Value(i), type.unit(),
                                       !type.timezone().empty(), TimestampStyle::kIso),
                       out);
      return Status::OK();
    }
    case arrow::Type::LIST: {
      const auto& l = checked_cast<const arrow::ListArray&>(a);
      return AppendJsonArray(*l.values(), l.value_offset(i), l.value_length(i), ignore_nulls, out);
    }
    case arrow::Type::LARGE_LIST: {
      const auto& l = checked_cast<const arrow::LargeListArray&>(a);
      return AppendJsonArray(*l.values(), l.value_offset(i), l.value_length(i), ignore_nulls, out);
    }
    case arrow::Type::FIXED_SIZE_LIST: {
      const auto& l = checked_cast<const arrow::FixedSizeListArray&>(a);
      return AppendJsonArray(*l.values(), l.value_offset(i), l.value_length(i), ignore_nulls, out);
    }
    case arrow::Type::MAP: {
      // Spark writes a map as an object whose keys are the keys' string forms.
      const auto& m = checked_cast<const arrow::MapArray&>(a);
      out->push_back('{');
      for (int64_t k = 0; k < m.value_length(i); ++k) {
        int64_t j = m.value_offset(i) + k;
        if (m.items()->IsNull(j) && ignore_nulls) continue;
        if (out->back() != '{') out->push_back(',');
        ARROW_ASSIGN_OR_RAISE(auto key, FormatShowCell(*m.keys(), j));
        AppendJsonString(key, out);
        out->push_back(':');
        ARROW_RETURN_NOT_OK(AppendJsonValue(*m.items(), j, ignore_nulls, out));
      }
      out->push_back('}');
      return Status::OK();
    }
    case arrow::Type::STRUCT: {
      const auto& s = checked_cast<const arrow::StructArray&>(a);
      std::vector<std::string> names;
      std::vector<std::shared_ptr<arrow::Array>> owned;
      std::vector<const arrow::Array*> columns;
      for (int f = 0; f < s.num_fields(); ++f) {
        names.push_back(s.struct_type()->field(f)->name());
        owned.push_back(s.field(f));
        columns.push_back(owned.back().get());
      }
      return AppendJsonObject(names, columns, i, ignore_nulls, out);
    }
    case arrow::Type::DICTIONARY: {
      const auto& d = checked_cast<const arrow::DictionaryArray&>(a);
      return AppendJsonValue(*d.dictionary(), d.GetValueIndex(i), ignore_nulls, out);
    }
    default:
      return Status::NotImplemented("there is no JSON form for values of type ", a.type()->ToString());
  }
}

}  // namespace sluice::util
