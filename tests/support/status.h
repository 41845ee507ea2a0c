// Status assertions for every test binary, in Arrow's style:
//   ASSERT_OK(expr) / EXPECT_OK(expr)   expr is a Status or a Result; on failure they print the
//                                       expression and the whole error, and accept more with <<.
//   ASSERT_OK_AND_ASSIGN(lhs, expr)     unwraps a Result into lhs (a declaration or a variable).
// Message checks use gmock matchers: EXPECT_THAT(st.message(), HasSubstr("...")).
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

// A for statement rather than if/else: usable as the body of an unbraced if without a dangling
// else. The body runs once, on failure (FAIL() returns; after ADD_FAILURE() the status is reset).
#define SLUICE_CHECK_STATUS_(expr, on_failure)                                                  \
  for (::arrow::Status _sluice_st = ::arrow::ToStatus(expr); !_sluice_st.ok(); _sluice_st = {}) \
  on_failure << #expr << ": " << _sluice_st.ToString()

#define ASSERT_OK(expr) SLUICE_CHECK_STATUS_(expr, FAIL())
#define EXPECT_OK(expr) SLUICE_CHECK_STATUS_(expr, ADD_FAILURE())

#define SLUICE_CONCAT_INNER(a, b) a##b
#define SLUICE_CONCAT(a, b) SLUICE_CONCAT_INNER(a, b)
#define ASSERT_OK_AND_ASSIGN(lhs, rexpr) ASSERT_OK_AND_ASSIGN_IMPL(SLUICE_CONCAT(_res_, __LINE__), lhs, rexpr)
#define ASSERT_OK_AND_ASSIGN_IMPL(res, lhs, rexpr)                    \
  auto&& res = (rexpr);                                               \
  ASSERT_TRUE(res.ok()) << #rexpr << ": " << res.status().ToString(); \
  lhs = std::move(res).ValueUnsafe();
