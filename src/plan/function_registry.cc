// The function table: the families' entries, looked up by name.
#include "plan/function_registry.h"

#include <unordered_map>

namespace sluice::plan {

const std::vector<FunctionTyping>& RegisteredFunctions() {
  static const std::vector<FunctionTyping> kAll = [] {
    std::vector<FunctionTyping> all;
    for (auto family : {MathFunctionTypings, ConditionalFunctionTypings, StringFunctionTypings, DateTimeFunctionTypings,
                        NestedFunctionTypings, JsonFunctionTypings}) {
      for (auto& f : family()) all.push_back(std::move(f));
    }
    return all;
  }();
  return kAll;
}

const FunctionTyping* FindFunctionTyping(const std::string& name) {
  static const std::unordered_map<std::string, const FunctionTyping*> kByName = [] {
    std::unordered_map<std::string, const FunctionTyping*> m;
    for (const auto& f : RegisteredFunctions()) m.emplace(f.name, &f);
    return m;
  }();
  auto it = kByName.find(name);
  return it == kByName.end() ? nullptr : it->second;
}

}  // namespace sluice::plan
