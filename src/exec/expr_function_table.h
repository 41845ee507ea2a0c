// Internal to exec/: the kernels of the function table, one entry per function of
// plan/function_registry.h, grouped in one file per family (expr_fn_<family>.cc). A kernel gets
// its arguments already cast to the CallSignature's arg_types and returns a value of (or
// castable to) sig.out.
#pragma once

#include <arrow/datum.h>

#include <string>
#include <vector>

#include "plan/expr.h"
#include "plan/expr_resolve.h"

namespace sluice::exec::internal {

using FunctionKernel = Result<arrow::Datum> (*)(const plan::Expr& call, const std::vector<arrow::Datum>& args,
                                                const plan::CallSignature& sig);

struct FunctionKernelEntry {
  std::string name;
  FunctionKernel run;
};

/// The kernel of `name`, or null.
FunctionKernel FindFunctionKernel(const std::string& name);
/// Every entry, family by family.
const std::vector<FunctionKernelEntry>& FunctionKernels();

/// The text of a string scalar argument (a pattern, a format, a search string); the kernel has
/// checked that the scalar is valid (non-null).
std::string LiteralText(const arrow::Datum& d);

std::vector<FunctionKernelEntry> MathKernels();
std::vector<FunctionKernelEntry> ConditionalKernels();
std::vector<FunctionKernelEntry> StringKernels();
std::vector<FunctionKernelEntry> RegexKernels();
std::vector<FunctionKernelEntry> DateTimeKernels();
std::vector<FunctionKernelEntry> NestedKernels();
std::vector<FunctionKernelEntry> JsonKernels();

}  // namespace sluice::exec::internal
