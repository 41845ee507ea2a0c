// DataFrame transformations (plan building) and batch actions.
#include "sluice/dataframe.h"

#include <arrow/api.h>

#include <chrono>

#include "api/access.h"
#include "api/option_text.h"
#include "conf/sql_conf.h"
#include "exec/plan_executor.h"
#include "plan/current_time.h"
#include "plan/generate.h"
#include "plan/logical_plan.h"
#include "sink/sink_registry.h"
#include "sluice/session.h"
#include "source/source.h"
#include "util/numbers.h"

namespace sluice {

using plan::Expr;
using plan::ExprPtr;
using plan::LogicalPlan;

DataFrame::DataFrame(std::shared_ptr<Session> session, std::shared_ptr<const Impl> impl, Status status)
    : session_(std::move(session)), impl_(std::move(impl)), status_(std::move(status)) {}

bool DataFrame::isStreaming() const { return impl_ && impl_->plan->IsStreaming(); }

std::shared_ptr<arrow::Schema> DataFrame::schema() const { return impl_ ? impl_->plan->schema : nullptr; }

namespace {

// The DataFrame over `plan` (or its error), unless `df` already holds an error.
DataFrame Derive(const DataFrame& df, Result<std::shared_ptr<const plan::LogicalPlan>> plan) {
  if (!df.ok()) return df;
  if (!plan.ok()) return api::MakeDataFrame(df.session(), plan.status());
  return api::MakeDataFrame(df.session(), *plan);
}

std::vector<ExprPtr> ExpandStars(const std::vector<Column>& columns, const arrow::Schema& schema) {
  std::vector<ExprPtr> out;
  for (const auto& c : columns) {
    if (plan::IsStar(*api::ExprOf(c))) {
      for (const auto& f : schema.fields()) out.push_back(Expr::Column(f->name()));
    } else {
      out.push_back(api::ExprOf(c));
    }
  }
  return out;
}

}  // namespace

DataFrame DataFrame::select(std::vector<Column> columns) const {
  if (!status_.ok()) return *this;
  return Derive(*this, plan::PlanSelectList(impl_->plan, ExpandStars(columns, *impl_->plan->schema)));
}

DataFrame DataFrame::select(const std::vector<std::string>& names) const {
  std::vector<Column> cols;
  for (const auto& n : names) cols.push_back(col(n));
  return select(cols);
}

DataFrame DataFrame::filter(const Column& condition) const {
  if (!status_.ok()) return *this;
  return Derive(*this, LogicalPlan::Filter(impl_->plan, api::ExprOf(condition)));
}

GroupedData DataFrame::groupBy(std::vector<Column> columns) const { return GroupedData(*this, std::move(columns)); }

GroupedData DataFrame::groupBy(const std::vector<std::string>& names) const {
  std::vector<Column> cols;
  for (const auto& n : names) cols.push_back(col(n));
  return groupBy(std::move(cols));
}

DataFrame GroupedData::agg(std::vector<Column> aggregates) const {
  if (!df_.ok()) return df_;
  std::vector<ExprPtr> keys;
  std::vector<ExprPtr> select;
  for (const auto& k : keys_) {
    keys.push_back(api::ExprOf(k));
    const Expr* inner = api::ExprOf(k).get();
    if (inner->kind == Expr::Kind::kAlias && !inner->args.empty()) inner = inner->args[0].get();
    if (inner->kind == Expr::Kind::kCall && plan::IsWindowFunction(inner->name)) {
      select.push_back(Expr::Column("window_start"));
      select.push_back(Expr::Column("window_end"));
    } else {
      select.push_back(Expr::Column(plan::OutputName(*api::ExprOf(k))));
    }
  }
  for (const auto& a : aggregates) select.push_back(api::ExprOf(a));
  auto plan = plan::PlanAggregation(api::PlanOf(df_), keys, select);
  if (!plan.ok()) return api::MakeDataFrame(df_.session(), plan.status());
  return api::MakeDataFrame(df_.session(), *plan);
}

DataFrame GroupedData::count() const { return agg({sluice::count(col("*")).alias("count")}); }

DataFrame DataFrame::withWatermark(const std::string& event_time, const std::string& delay) const {
  if (!status_.ok()) return *this;
  return Derive(*this, LogicalPlan::Watermark(impl_->plan, event_time, delay));
}

DataFrame DataFrame::dropDuplicates(const std::vector<std::string>& columns) const {
  if (!status_.ok()) return *this;
  return Derive(*this, LogicalPlan::Deduplicate(impl_->plan, columns, false));
}

DataFrame DataFrame::orderBy(std::vector<SortOrder> keys) const {
  if (!status_.ok()) return *this;
  std::vector<plan::SortKey> plan_keys;
  for (const auto& k : keys) {
    plan_keys.push_back({api::ExprOf(k.column), k.ascending, k.nulls_first.value_or(k.ascending)});
  }
  return Derive(*this, LogicalPlan::Sort(impl_->plan, std::move(plan_keys)));
}

DataFrame DataFrame::limit(int64_t n) const {
  if (!status_.ok()) return *this;
  return Derive(*this, LogicalPlan::Limit(impl_->plan, n));
}

DataFrame DataFrame::unionAll(const DataFrame& other) const {
  if (!ok()) return *this;
  if (!other.ok()) return other;
  return Derive(*this, LogicalPlan::Union(impl_->plan, api::PlanOf(other)));
}

DataFrame DataFrame::dropDuplicatesWithinWatermark(const std::vector<std::string>& columns) const {
  if (!status_.ok()) return *this;
  return Derive(*this, LogicalPlan::Deduplicate(impl_->plan, columns, true));
}

DataFrame DataFrame::withColumn(const std::string& name, const Column& value) const {
  if (!status_.ok()) return *this;
  std::vector<ExprPtr> exprs;
  bool replaced = false;
  for (const auto& f : impl_->plan->schema->fields()) {
    if (f->name() == name) {
      exprs.push_back(Expr::Alias(api::ExprOf(value), name));
      replaced = true;
    } else {
      exprs.push_back(Expr::Column(f->name()));
    }
  }
  if (!replaced) exprs.push_back(Expr::Alias(api::ExprOf(value), name));
  return Derive(*this, LogicalPlan::Project(impl_->plan, std::move(exprs)));
}

DataFrame DataFrame::withColumnRenamed(const std::string& existing, const std::string& name) const {
  if (!status_.ok()) return *this;
  if (impl_->plan->schema->GetFieldIndex(existing) < 0) return *this;  // Spark: a no-op for a missing column
  std::vector<ExprPtr> exprs;
  for (const auto& f : impl_->plan->schema->fields()) {
    auto c = Expr::Column(f->name());
    exprs.push_back(f->name() == existing ? Expr::Alias(c, name) : c);
  }
  return Derive(*this, LogicalPlan::Project(impl_->plan, std::move(exprs)));
}

DataFrame DataFrame::drop(const std::vector<std::string>& names) const {
  if (!status_.ok()) return *this;
  std::vector<ExprPtr> exprs;
  for (const auto& f : impl_->plan->schema->fields()) {
    if (std::find(names.begin(), names.end(), f->name()) == names.end()) exprs.push_back(Expr::Column(f->name()));
  }
  return Derive(*this, LogicalPlan::Project(impl_->plan, std::move(exprs)));
}

namespace {

// The join of `left` and `right` (plan/join.h), with the static side's size limit read from the
// session's sluice.sql.join.maxBuildSideBytes.
DataFrame JoinFrames(const DataFrame& left, const DataFrame& right, const std::vector<std::string>& on,
                     ExprPtr condition, const std::string& how) {
  if (!left.ok()) return left;
  if (!right.ok()) return right;
  auto type = plan::ParseJoinType(how);
  if (!type.ok()) return api::MakeDataFrame(left.session(), type.status());
  const std::string limit_text = left.session()->conf(conf::kJoinMaxBuildSideBytes.key,
                                                      conf::kJoinMaxBuildSideBytes.default_value);
  auto limit = util::ParseInt64(limit_text, conf::kJoinMaxBuildSideBytes.key);
  if (limit.ok() && *limit < 0) {
    limit = Status::Invalid(conf::kJoinMaxBuildSideBytes.key, ": must be a number of bytes >= 0, not ", limit_text);
  }
  if (!limit.ok()) return api::MakeDataFrame(left.session(), limit.status());
  return Derive(left, LogicalPlan::Join(api::PlanOf(left), api::PlanOf(right), *type, on, std::move(condition), *limit));
}

}  // namespace

DataFrame DataFrame::join(const DataFrame& other, const std::vector<std::string>& on, const std::string& how) const {
  return JoinFrames(*this, other, on, nullptr, how);
}

DataFrame DataFrame::join(const DataFrame& other, const Column& condition, const std::string& how) const {
  return JoinFrames(*this, other, {}, api::ExprOf(condition), how);
}

Result<std::shared_ptr<arrow::Table>> DataFrame::collect() const {
  ARROW_RETURN_NOT_OK(status_);
  if (isStreaming()) {
    return Status::Invalid("Queries with streaming sources must be executed with writeStream().start()");
  }
  std::vector<std::shared_ptr<arrow::Table>> inputs;
  for (const auto* scan : impl_->plan->Scans()) {
    ARROW_ASSIGN_OR_RAISE(auto rows, source::ReadStatic(*scan->source, api::FileSystemOf(*session_)));
    inputs.push_back(std::move(rows));
  }
  // A batch query's current_timestamp() is the time it starts (Spark's ComputeCurrentTime).
  const int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  return exec::ExecutePlan(*plan::BindCurrentTime(impl_->plan, now_ms), inputs);
}

namespace api {
std::string PhysicalPlanText(const DataFrame& df) { return exec::DescribePhysicalPlan(*PlanOf(df)); }
}  // namespace api

std::string DataFrame::explain() const {
  if (!status_.ok()) return "Error: " + status_.ToString();
  return impl_->plan->ToString();
}

DataStreamWriter DataFrame::writeStream() const { return DataStreamWriter(*this); }
DataFrameWriter DataFrame::write() const { return DataFrameWriter(*this); }

DataFrameWriter::DataFrameWriter(DataFrame df) : df_(std::move(df)) {}
DataFrameWriter& DataFrameWriter::format(const std::string& f) { format_ = f; return *this; }
DataFrameWriter& DataFrameWriter::option(const std::string& key, const std::string& value) {
  options_[key] = value;
  return *this;
}
DataFrameWriter& DataFrameWriter::option(const std::string& key, int64_t value) {
  return option(key, std::to_string(value));
}
DataFrameWriter& DataFrameWriter::option(const std::string& key, double value) {
  return option(key, api::OptionText(value));
}
DataFrameWriter& DataFrameWriter::option(const std::string& key, bool value) {
  return option(key, api::OptionText(value));
}
DataFrameWriter& DataFrameWriter::mode(const std::string& m) { mode_ = m; return *this; }

Status DataFrameWriter::save(const std::string& path) {
  const sink::SinkKind* kind = sink::FindSinkKind(format_);
  if (!kind || !kind->batch) {
    return Status::Invalid("write().format('", format_, "') cannot be saved as a batch; valid formats: ",
                           sink::SinkKindList(/*batch_only=*/true));
  }
  ARROW_ASSIGN_OR_RAISE(auto rows, df_.collect());
  sink::SinkSpec spec;
  spec.format = kind->name;
  for (const auto& [k, v] : options_) spec.options.Set(k, v);
  if (kind->prepare) {  // e.g. Iceberg: the table's catalog settings from the session conf
    if (!kind->file_format) spec.options.Set("path", path);
    auto session = df_.session();
    auto conf = [&session](const std::string& key) { return session->conf(key); };
    ARROW_RETURN_NOT_OK(kind->prepare(&spec, conf, *rows->schema(), api::FileSystemOf(*session)));
  }
  return kind->write_batch(api::FileSystemOf(*df_.session()), spec, mode_, path, rows);
}

}  // namespace sluice
