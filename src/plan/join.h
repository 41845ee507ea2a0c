// Joins in the logical plan: the join types, how a join condition splits into hash keys and a
// residual predicate, the output columns, and Spark's rules for which joins a stream may take
// part in (UnsupportedOperationChecker). The physical operators are exec/hash_join_exec.cc
// (stream-static, batch) and exec/stream_join_exec.cc (stream-stream).
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>
#include <vector>

#include "plan/expr.h"

namespace sluice::plan {

enum class JoinType { kInner, kLeftOuter, kRightOuter, kFullOuter, kLeftSemi, kLeftAnti };

/// Spark's spellings: inner; left, leftouter, left_outer; right, rightouter, right_outer; full,
/// outer, fullouter, full_outer; semi, leftsemi, left_semi; anti, leftanti, left_anti
/// (case-insensitive). Errors list them.
Result<JoinType> ParseJoinType(const std::string& how);
/// "inner", "left_outer", ... (explain and fingerprints).
const char* JoinTypeName(JoinType type);

/// One output column of a join: a column of the left input, of the right input, or (a key of
/// a join on column names) coalesce(left, right), which is the key whichever side matched.
struct JoinOutputColumn {
  enum class From { kLeft, kRight, kCoalesce };
  From from;
  int left = -1;
  int right = -1;
};

/// Everything the join operator needs, resolved. Keys are equalities `left_keys[i] =
/// right_keys[i]` (NULL never equals anything), each pair cast to their common type; the
/// residual is evaluated over a left row followed by a right row (schema `pair_schema`) and
/// decides, after the keys matched, whether the two rows join.
struct JoinSpec {
  JoinType type = JoinType::kInner;
  /// Non-empty for a join on column names (Spark's `using`): the names, in order.
  std::vector<std::string> using_columns;
  /// The condition as given (null for a join on column names); for plan text.
  ExprPtr condition;
  std::vector<ExprPtr> left_keys;
  std::vector<ExprPtr> right_keys;
  ExprPtr residual;  // may be null
  std::shared_ptr<arrow::Schema> pair_schema;
  std::vector<JoinOutputColumn> output;
  /// The most bytes the build (static) side may hold; 0 = no limit.
  int64_t max_build_bytes = 0;
  /// Which input the hash table is built from: the static one (0 = left, 1 = right).
  int build_side = 1;

  /// "Join left_outer, using [id]" or "Join inner, (a = b)".
  std::string ToString() const;
  /// Whether the output keeps probe rows without a match (null-extended) / build rows without one.
  bool KeepsUnmatchedLeft() const { return type == JoinType::kLeftOuter || type == JoinType::kFullOuter; }
  bool KeepsUnmatchedRight() const { return type == JoinType::kRightOuter || type == JoinType::kFullOuter; }
  bool LeftOnly() const { return type == JoinType::kLeftSemi || type == JoinType::kLeftAnti; }
};

/// Resolves a join of `left` and `right` on column names (`using_columns` non-empty) or on a
/// boolean `condition` over the left columns followed by the right ones (null: a cross join).
/// A column name both inputs have is refused for a condition join (name the join columns with
/// `on` names or rename one side first). Returns the spec and the output schema.
Result<std::shared_ptr<JoinSpec>> ResolveJoin(const arrow::Schema& left, const arrow::Schema& right, JoinType type,
                                              const std::vector<std::string>& using_columns, ExprPtr condition,
                                              std::shared_ptr<arrow::Schema>* output_schema);

/// Spark's rules for joins with streams, and the build side: exactly one streaming input
/// (stream-static) takes inner with either side static, left outer/semi/anti with the stream
/// on the left, right outer with the stream on the right; full outer is refused; the reason is
/// named. Two streams (stream-stream) take every type but left anti; their watermark and
/// output-mode rules are checked at start (plan/stream_join_eviction.h). Two batch inputs take
/// every type.
Status CheckStreamingJoin(JoinType type, bool left_streaming, bool right_streaming, int* build_side);

}  // namespace sluice::plan
