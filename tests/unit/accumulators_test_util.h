// Shared by the accumulator tests: an aggregate call over column "v" and an int64 column.
#pragma once

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plan/aggregate.h"
#include "support/status.h"

namespace sluice::exec::test {

/// `fn(v) AS r` with the given argument and result types.
inline plan::AggCall Call(const std::string& fn, std::shared_ptr<arrow::DataType> arg,
                          std::shared_ptr<arrow::DataType> out, plan::EvalMode mode = plan::EvalMode::kAnsi) {
  plan::AggCall c;
  c.fn = fn;
  c.arg = plan::Expr::Column("v");
  c.name = "r";
  c.arg_type = std::move(arg);
  c.out_type = std::move(out);
  c.mode = mode;
  return c;
}

/// An int64 array; std::nullopt is a null.
inline std::shared_ptr<arrow::Array> Int64s(const std::vector<std::optional<int64_t>>& values) {
  arrow::Int64Builder b;
  for (const auto& v : values) EXPECT_OK(v ? b.Append(*v) : b.AppendNull());
  return b.Finish().ValueOrDie();
}

}  // namespace sluice::exec::test
