// The function table: every typed function has a kernel (and no kernel lacks a typing), SQL
// accepts each by name, and arity and unknown-name errors say what is allowed.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "exec/expr_function_table.h"
#include "plan/function_registry.h"
#include "sql/sql_functions.h"
#include "support/status.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

TEST(FunctionTable, EveryTypedFunctionHasExactlyOneKernel) {
  std::set<std::string> typed, kernels;
  for (const auto& f : plan::RegisteredFunctions()) EXPECT_TRUE(typed.insert(f.name).second) << "twice: " << f.name;
  for (const auto& k : exec::internal::FunctionKernels()) EXPECT_TRUE(kernels.insert(k.name).second) << "twice: " << k.name;
  EXPECT_EQ(typed, kernels);
  EXPECT_GE(typed.size(), 50u);
}

TEST(FunctionTable, SqlAcceptsEveryRegisteredFunction) {
  auto names = sql::SqlFunctionNames();
  for (const auto& f : plan::RegisteredFunctions()) {
    EXPECT_TRUE(std::find(names.begin(), names.end(), f.name) != names.end()) << f.name;
  }
  for (const char* alias : {"power", "ceiling", "signum", "mod", "nvl", "ifnull", "rlike", "position", "printf", "trunc",
                            "array_agg", "approx_percentile"}) {
    EXPECT_TRUE(std::find(names.begin(), names.end(), alias) != names.end()) << alias;
  }
}

TEST(FunctionTable, ArityAndUnknownNamesAreReported) {
  auto x = plan::Expr::Column("x");
  auto schema = arrow::schema({arrow::field("x", arrow::float64())});
  auto wrong = plan::ResolveExpr(*plan::Expr::Call("round", {x, x, x}), *schema);
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.status().message(), HasSubstr("function round takes 1..2 argument(s) but got 3"));
  auto unknown = plan::ResolveExpr(*plan::Expr::Call("rounds", {x}), *schema);
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("Unknown function 'rounds'"));
  EXPECT_THAT(unknown.status().message(), HasSubstr("bround"));
}

}  // namespace
}  // namespace sluice
