// Kernels of the nested-value functions (typing: plan/function_types_nested.cc). Structs are
// built by Arrow's make_struct and read by struct_field; arrays are Arrow list arrays and maps
// Arrow map arrays, read through their offsets and gathered with Take, so no element is copied
// one by one.
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include "exec/expr_function_table.h"
#include "exec/expr_kernels.h"
#include "plan/function_registry.h"

namespace sluice::exec::internal {
namespace {

using arrow::Datum;
using plan::CallSignature;
using plan::Expr;

// The arguments as arrays of one common length (scalars repeated); `all_scalar` when every
// argument was a scalar (then the arrays have one row and the result is read back as a scalar).
struct Broadcast {
  std::vector<std::shared_ptr<arrow::Array>> arrays;
  int64_t length = 1;
  bool all_scalar = true;
};

Result<Broadcast> BroadcastArgs(const std::vector<Datum>& args) {
  Broadcast out;
  for (const auto& a : args) {
    if (a.is_array()) {
      out.length = a.length();
      out.all_scalar = false;
    }
  }
  for (const auto& a : args) {
    if (a.is_array()) {
      out.arrays.push_back(a.make_array());
    } else {
      ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(*a.scalar(), out.length));
      out.arrays.push_back(std::move(array));
    }
  }
  return out;
}

Result<Datum> Finish(const Broadcast& b, std::shared_ptr<arrow::Array> result) {
  if (b.all_scalar) {
    ARROW_ASSIGN_OR_RAISE(auto scalar, result->GetScalar(0));
    return Datum(std::move(scalar));
  }
  return Datum(std::move(result));
}

bool Ansi(const Expr& call) { return call.mode == plan::EvalMode::kAnsi; }

Result<Datum> MakeStruct(const std::vector<Datum>& values, const CallSignature& sig) {
  std::vector<std::string> names;
  for (const auto& f : sig.out->fields()) names.push_back(f->name());
  arrow::compute::MakeStructOptions options(std::move(names));
  return Kernel("make_struct", values, &options);
}

Result<Datum> Struct(const Expr&, const std::vector<Datum>& args, const CallSignature& sig) { return MakeStruct(args, sig); }

Result<Datum> NamedStruct(const Expr&, const std::vector<Datum>& args, const CallSignature& sig) {
  std::vector<Datum> values;
  for (size_t i = 1; i < args.size(); i += 2) values.push_back(args[i]);
  return MakeStruct(values, sig);
}

// Each element of row i of `list` (`elements`: its values, or a map's keys) compared with
// value[i] by Arrow's equal, in one kernel call; entry p - first is element p's result.
struct ElementMatches {
  std::shared_ptr<arrow::BooleanArray> equal;
  int64_t first = 0;
};

Result<ElementMatches> MatchElements(const arrow::ListArray& list, const std::shared_ptr<arrow::Array>& elements,
                                     const std::shared_ptr<arrow::Array>& value, int64_t length) {
  const int64_t first = length == 0 ? 0 : list.value_offset(0);
  const int64_t last = length == 0 ? 0 : list.value_offset(length);
  arrow::Int64Builder parents;
  ARROW_RETURN_NOT_OK(parents.Reserve(last - first));
  for (int64_t i = 0; i < length; ++i) {
    for (int64_t p = list.value_offset(i); p < list.value_offset(i + 1); ++p) parents.UnsafeAppend(i);
  }
  ARROW_ASSIGN_OR_RAISE(auto parent_array, parents.Finish());
  ARROW_ASSIGN_OR_RAISE(auto needles, arrow::compute::Take(value, parent_array));
  ARROW_ASSIGN_OR_RAISE(auto equal, Kernel("equal", {Datum(elements->Slice(first, last - first)), needles}));
  return ElementMatches{std::static_pointer_cast<arrow::BooleanArray>(equal.make_array()), first};
}

// For each row of a map array, the position (in the map's keys) of the first entry whose key
// equals the row's key; NULL when the map or the key is NULL or no key equals it.
Result<std::shared_ptr<arrow::Int64Array>> FindMapKeys(const Broadcast& b) {
  const auto& map = static_cast<const arrow::MapArray&>(*b.arrays[0]);
  const auto& key = b.arrays[1];
  ARROW_ASSIGN_OR_RAISE(auto match, MatchElements(map, map.keys(), key, b.length));
  const auto& equal = match.equal;
  const int64_t first = match.first;
  arrow::Int64Builder positions;
  ARROW_RETURN_NOT_OK(positions.Reserve(b.length));
  for (int64_t i = 0; i < b.length; ++i) {
    int64_t found = -1;
    if (!map.IsNull(i) && !key->IsNull(i)) {
      for (int64_t p = map.value_offset(i); p < map.value_offset(i + 1) && found < 0; ++p) {
        if (equal->IsValid(p - first) && equal->Value(p - first)) found = p;
      }
    }
    if (found < 0) {
      positions.UnsafeAppendNull();
    } else {
      positions.UnsafeAppend(found);
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto out, positions.Finish());
  return std::static_pointer_cast<arrow::Int64Array>(out);
}

// m['k'], m[k], element_at(m, k): the value of the first entry with that key, else NULL.
Result<Datum> MapValue(const std::vector<Datum>& args, const CallSignature& sig) {
  ARROW_ASSIGN_OR_RAISE(Broadcast b, BroadcastArgs(args));
  ARROW_ASSIGN_OR_RAISE(auto positions, FindMapKeys(b));
  const auto& map = static_cast<const arrow::MapArray&>(*b.arrays[0]);
  ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(map.items(), positions));
  ARROW_ASSIGN_OR_RAISE(auto out, SparkCast(taken, sig.out));
  return Finish(b, out.make_array());
}

bool IsMap(const Datum& d) { return d.type()->id() == arrow::Type::MAP; }

Result<Datum> GetField(const Expr& call, const std::vector<Datum>& args, const CallSignature& sig) {
  if (args[0].type()->id() == arrow::Type::NA) return Datum(arrow::MakeNullScalar(sig.out));
  if (IsMap(args[0])) return MapValue(args, sig);
  ARROW_ASSIGN_OR_RAISE(int index, plan::FindStructField(call, *args[0].type(), LiteralText(args[1])));
  arrow::compute::StructFieldOptions options({index});
  return Kernel("struct_field", {args[0]}, &options);
}

// array(a, b, ...): row i holds a[i], b[i], ...: the arguments laid end to end, then gathered.
Result<Datum> Array(const Expr&, const std::vector<Datum>& args, const CallSignature& sig) {
  const auto element = static_cast<const arrow::ListType&>(*sig.out).value_type();
  ARROW_ASSIGN_OR_RAISE(Broadcast b, BroadcastArgs(args));
  const int64_t n = b.length, k = static_cast<int64_t>(args.size());
  std::shared_ptr<arrow::Array> values;
  if (k == 0) {
    ARROW_ASSIGN_OR_RAISE(values, arrow::MakeEmptyArray(element));
  } else {
    ARROW_ASSIGN_OR_RAISE(auto all, arrow::Concatenate(b.arrays));
    arrow::Int64Builder indices;
    ARROW_RETURN_NOT_OK(indices.Reserve(n * k));
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < k; ++j) indices.UnsafeAppend(j * n + i);
    }
    ARROW_ASSIGN_OR_RAISE(auto index_array, indices.Finish());
    ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(all, index_array));
    values = taken.make_array();
  }
  arrow::Int32Builder offsets;
  ARROW_RETURN_NOT_OK(offsets.Reserve(n + 1));
  for (int64_t i = 0; i <= n; ++i) offsets.UnsafeAppend(static_cast<int32_t>(i * k));
  ARROW_ASSIGN_OR_RAISE(auto offset_array, offsets.Finish());
  ARROW_ASSIGN_OR_RAISE(auto list, arrow::ListArray::FromArrays(sig.out, *offset_array, *values));
  return Finish(b, list);
}

// element_at (1-based, negative from the end) and get_item (0-based): the element of each row.
Result<Datum> ElementAt(const Expr& call, const std::vector<Datum>& args, const CallSignature& sig) {
  if (IsMap(args[0])) return MapValue(args, sig);
  ARROW_ASSIGN_OR_RAISE(Broadcast b, BroadcastArgs(args));
  const auto& list = static_cast<const arrow::ListArray&>(*b.arrays[0]);
  const auto& index = static_cast<const arrow::Int32Array&>(*b.arrays[1]);
  const bool one_based = call.name == "element_at";
  arrow::Int64Builder positions;
  ARROW_RETURN_NOT_OK(positions.Reserve(b.length));
  for (int64_t i = 0; i < b.length; ++i) {
    if (list.IsNull(i) || index.IsNull(i)) {
      positions.UnsafeAppendNull();
      continue;
    }
    const int64_t size = list.value_length(i);
    int64_t at = index.Value(i);
    if (one_based && at == 0) {
      return Status::Invalid("[INVALID_INDEX_OF_ZERO] The index 0 is invalid. An index shall be either < 0 or > 0 "
                             "(the first element has index 1).");
    }
    int64_t pos = one_based ? (at > 0 ? at - 1 : size + at) : at;
    if (pos < 0 || pos >= size) {
      if (Ansi(call)) {
        return Status::Invalid(one_based ? "[INVALID_ARRAY_INDEX_IN_ELEMENT_AT]" : "[INVALID_ARRAY_INDEX]",
                               " The index ", at, " is out of bounds. The array has ", size,
                               " elements. Set spark.sql.ansi.enabled to false to get NULL instead.");
      }
      positions.UnsafeAppendNull();
      continue;
    }
    positions.UnsafeAppend(list.value_offset(i) + pos);
  }
  ARROW_ASSIGN_OR_RAISE(auto position_array, positions.Finish());
  ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(list.values(), position_array));
  ARROW_ASSIGN_OR_RAISE(auto out, SparkCast(taken, sig.out));
  return Finish(b, out.make_array());
}

// A map's entries as a list array of its keys or of its values (offsets and nulls shared).
Result<std::shared_ptr<arrow::Array>> MapAsList(const arrow::MapArray& map, bool keys) {
  const auto& values = keys ? map.keys() : map.items();
  return std::make_shared<arrow::ListArray>(arrow::list(values->type()), map.length(), map.value_offsets(), values,
                                            map.null_bitmap(), map.null_count(), map.offset());
}

Result<Datum> MapKeysOrValues(const Expr& call, const std::vector<Datum>& args, const CallSignature& sig) {
  if (!IsMap(args[0])) return Datum(arrow::MakeNullScalar(sig.out));
  ARROW_ASSIGN_OR_RAISE(Broadcast b, BroadcastArgs(args));
  ARROW_ASSIGN_OR_RAISE(auto list, MapAsList(static_cast<const arrow::MapArray&>(*b.arrays[0]),
                                             call.name == "map_keys"));
  ARROW_ASSIGN_OR_RAISE(auto out, SparkCast(list, sig.out));
  return Finish(b, out.make_array());
}

Result<Datum> MapContainsKey(const Expr&, const std::vector<Datum>& args, const CallSignature& sig) {
  if (!IsMap(args[0])) return Datum(arrow::MakeNullScalar(sig.out));
  ARROW_ASSIGN_OR_RAISE(Broadcast b, BroadcastArgs(args));
  ARROW_ASSIGN_OR_RAISE(auto positions, FindMapKeys(b));
  arrow::BooleanBuilder out;
  ARROW_RETURN_NOT_OK(out.Reserve(b.length));
  for (int64_t i = 0; i < b.length; ++i) {
    if (b.arrays[0]->IsNull(i) || b.arrays[1]->IsNull(i)) {
      out.UnsafeAppendNull();
    } else {
      out.UnsafeAppend(positions->IsValid(i));
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto result, out.Finish());
  return Finish(b, result);
}

Result<Datum> Size(const Expr& call, const std::vector<Datum>& args, const CallSignature&) {
  Datum list = args[0];
  if (IsMap(list)) {
    ARROW_ASSIGN_OR_RAISE(Broadcast b, BroadcastArgs({list}));
    ARROW_ASSIGN_OR_RAISE(auto keys, MapAsList(static_cast<const arrow::MapArray&>(*b.arrays[0]), true));
    ARROW_ASSIGN_OR_RAISE(list, Finish(b, keys));
  }
  ARROW_ASSIGN_OR_RAISE(auto lengths, Kernel("list_value_length", {list}));
  if (call.mode != plan::EvalMode::kLegacy) return lengths;
  return Kernel("coalesce", {lengths, Datum(std::make_shared<arrow::Int32Scalar>(-1))});  // legacy sizeOfNull
}

// array_contains: true when an element equals the value; else NULL when an element (or the
// value) is NULL; else false. Each element is compared with its row's value in one kernel call.
Result<Datum> ArrayContains(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(Broadcast b, BroadcastArgs(args));
  const auto& list = static_cast<const arrow::ListArray&>(*b.arrays[0]);
  ARROW_ASSIGN_OR_RAISE(auto match, MatchElements(list, list.values(), b.arrays[1], b.length));
  const auto& equal = match.equal;
  const int64_t first = match.first;
  arrow::BooleanBuilder out;
  ARROW_RETURN_NOT_OK(out.Reserve(b.length));
  for (int64_t i = 0; i < b.length; ++i) {
    if (list.IsNull(i) || b.arrays[1]->IsNull(i)) {
      out.UnsafeAppendNull();
      continue;
    }
    bool found = false, saw_null = false;
    for (int64_t p = list.value_offset(i); p < list.value_offset(i + 1) && !found; ++p) {
      if (equal->IsNull(p - first)) {
        saw_null = true;
      } else {
        found = equal->Value(p - first);
      }
    }
    if (!found && saw_null) {
      out.UnsafeAppendNull();
    } else {
      out.UnsafeAppend(found);
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto result, out.Finish());
  return Finish(b, result);
}

// split(str, regex[, limit]) on Arrow's RE2 split: limit > 0 allows limit - 1 splits.
Result<Datum> Split(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  int64_t limit = -1;
  if (args.size() == 3) limit = static_cast<const arrow::Int64Scalar&>(*args[2].scalar()).value;
  arrow::compute::SplitPatternOptions options(LiteralText(args[1]), limit > 0 ? limit - 1 : -1);
  return Kernel("split_pattern_regex", {args[0]}, &options);
}

}  // namespace

std::vector<FunctionKernelEntry> NestedKernels() {
  return {{"struct", Struct},           {"named_struct", NamedStruct}, {"get_field", GetField},
          {"array", Array},             {"element_at", ElementAt},     {"get_item", ElementAt},
          {"size", Size},               {"cardinality", Size},         {"array_contains", ArrayContains},
          {"map_keys", MapKeysOrValues}, {"map_values", MapKeysOrValues}, {"map_contains_key", MapContainsKey},
          {"split", Split}};
}

}  // namespace sluice::exec::internal
