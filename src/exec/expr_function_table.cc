// The kernel table: the families' entries, looked up by name.
#include "exec/expr_function_table.h"

#include <arrow/scalar.h>

#include <unordered_map>

namespace sluice::exec::internal {

const std::vector<FunctionKernelEntry>& FunctionKernels() {
  static const std::vector<FunctionKernelEntry> kAll = [] {
    std::vector<FunctionKernelEntry> all;
    for (auto family : {MathKernels, ConditionalKernels, StringKernels, RegexKernels, DateTimeKernels, NestedKernels, JsonKernels}) {
      for (auto& k : family()) all.push_back(std::move(k));
    }
    return all;
  }();
  return kAll;
}

std::string LiteralText(const arrow::Datum& d) {
  return static_cast<const arrow::StringScalar&>(*d.scalar()).value->ToString();
}

FunctionKernel FindFunctionKernel(const std::string& name) {
  static const std::unordered_map<std::string, FunctionKernel> kByName = [] {
    std::unordered_map<std::string, FunctionKernel> m;
    for (const auto& k : FunctionKernels()) m.emplace(k.name, k.run);
    return m;
  }();
  auto it = kByName.find(name);
  return it == kByName.end() ? nullptr : it->second;
}

}  // namespace sluice::exec::internal
