// Status assertions for every test binary: ASSERT_OK(expr) on a Status or Result, and
// ASSERT_OK_AND_ASSIGN(lhs, expr) that unwraps a Result; both print the failing expression and
// the whole error.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>
#include <gtest/gtest.h>

#define ASSERT_OK(expr)                                       \
  do {                                                        \
    ::arrow::Status _st = ::arrow::ToStatus(expr);            \
    ASSERT_TRUE(_st.ok()) << #expr << ": " << _st.ToString(); \
  } while (0)

#define EXPECT_OK(expr)                                       \
  do {                                                        \
    ::arrow::Status _st = ::arrow::ToStatus(expr);            \
    EXPECT_TRUE(_st.ok()) << #expr << ": " << _st.ToString(); \
  } while (0)

#define SLUICE_CONCAT_INNER(a, b) a##b
#define SLUICE_CONCAT(a, b) SLUICE_CONCAT_INNER(a, b)
#define ASSERT_OK_AND_ASSIGN(lhs, rexpr) ASSERT_OK_AND_ASSIGN_IMPL(SLUICE_CONCAT(_res_, __LINE__), lhs, rexpr)
#define ASSERT_OK_AND_ASSIGN_IMPL(res, lhs, rexpr)                    \
  auto&& res = (rexpr);                                               \
  ASSERT_TRUE(res.ok()) << #rexpr << ": " << res.status().ToString(); \
  lhs = std::move(res).ValueUnsafe();
