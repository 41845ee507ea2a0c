// Partial aggregates ("buffers") of the aggregate functions, their merge and their byte form
// in state. One Accumulators object per group key holds one Acc per aggregate call.
#pragma once

#include <arrow/type_fwd.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "plan/aggregate.h"

namespace sluice::exec {

// One aggregate call's partial state.
struct Acc {
  bool has = false;       // sum/min/max/first/last: a value was seen
  int64_t count = 0;      // count, avg's count
  int64_t i = 0;          // integer sum
  double d = 0;           // floating sum, avg's sum (non-decimal argument); the moments aggregates' mean
  double m2 = 0;          // the moments aggregates' sum of squared deviations from the mean
  __int128 dec = 0;       // decimal sum, avg's sum of a decimal argument (unscaled, argument's scale)
  std::string v;          // min/max/first/last/max_by/min_by: the value in row_codec encoding
  std::set<std::string> distinct;  // count/sum/avg(DISTINCT), collect_set: encoded values
  std::string ord{};               // max_by/min_by: the encoded ordering of `v` (has: one was seen)
  std::vector<std::string> list{};  // collect_list: encoded values in arrival order
  std::string registers{};          // approx_count_distinct: one byte per HyperLogLog++ register
  std::map<std::string, int64_t> counts{};  // percentile_approx: encoded value -> occurrences

  /// Back to a fresh Acc's state, keeping the capacity of its strings and containers (Decode
  /// runs once per emitted or updated key; assigning Acc{} built and copied each member).
  void Clear() {
    has = false;
    count = i = 0;
    d = m2 = 0;
    dec = 0;
    v.clear();
    distinct.clear();
    ord.clear();
    list.clear();
    registers.clear();
    counts.clear();
  }
};

/// How to read one aggregate call's argument column and fold rows into its Acc.
class AccumulatorSet {
 public:
  explicit AccumulatorSet(const std::vector<plan::AggCall>& aggs);

  /// OK when every call names an aggregate with an accumulator; else Invalid naming the first
  /// that has none (the planner refuses unknown names, so this is a plan built by hand).
  Status status() const;
  size_t size() const { return aggs_->size(); }
  /// True when every call is a count: a value is then one 8-byte count per call (Encode).
  bool CountsOnly() const {
    return unknown_.empty() && std::all_of(fns_.begin(), fns_.end(), [](Fn f) { return f == Fn::kCount; });
  }
  /// Folds row `row` of the argument arrays into `accs`: one array per aggregate call, then one
  /// per call with an ordering argument (max_by/min_by), in call order. Fails only
  /// under ANSI mode, when a BIGINT sum overflows ([ARITHMETIC_OVERFLOW], naming the call);
  /// allocates nothing on that path.
  Status Update(std::vector<Acc>* accs, const std::vector<std::shared_ptr<arrow::Array>>& args, int64_t row) const;
  /// Folds `later` (rows that arrived after) into `earlier`; fails as Update does.
  Status Merge(std::vector<Acc>* earlier, const std::vector<Acc>& later) const;
  void Encode(const std::vector<Acc>& accs, std::string* out) const;
  Status Decode(std::string_view bytes, size_t* pos, std::vector<Acc>* accs) const;
  /// Appends each aggregate's final value to builders[i]. A decimal sum or average that does
  /// not fit its result type fails under ANSI ([NUMERIC_VALUE_OUT_OF_RANGE]) and is NULL otherwise.
  Status Finish(const std::vector<Acc>& accs, const std::vector<std::unique_ptr<arrow::ArrayBuilder>>& builders,
                size_t first_builder) const;

 private:
  enum class Fn {
    kCount, kCountDistinct, kSum, kAvg, kMin, kMax, kFirst, kLast, kMoments, kSumDistinct, kAvgDistinct, kMaxBy,
    kMinBy, kCollectList, kCollectSet, kApproxCountDistinct, kPercentileApprox
  };
  Status FinishOne(size_t i, const Acc& a, arrow::ArrayBuilder* b) const;
  const std::vector<plan::AggCall>* aggs_;
  std::vector<Fn> fns_;            // aggs_[i].fn, resolved once (Update runs per row)
  std::string unknown_;            // the first call's name with no accumulator (empty: none)
  std::vector<size_t> ordering_;   // max_by/min_by: the index of the ordering array in Update's args
};

}  // namespace sluice::exec
