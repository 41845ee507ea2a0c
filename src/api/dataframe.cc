// DataFrame transformations (plan building) and batch actions.
#include "sluice/dataframe.h"

#include <arrow/api.h>

#include "exec/plan_executor.h"
#include "plan/logical_plan.h"
#include "sink/file_sink.h"
#include "sluice/session.h"
#include "source/source.h"

namespace sluice {

using plan::Expr;
using plan::ExprPtr;
using plan::LogicalPlan;

DataFrame::DataFrame(std::shared_ptr<Session> session, std::shared_ptr<const plan::LogicalPlan> plan)
    : session_(std::move(session)), plan_(std::move(plan)) {}

DataFrame::DataFrame(std::shared_ptr<Session> session, Status error)
    : session_(std::move(session)), status_(std::move(error)) {}

bool DataFrame::isStreaming() const { return plan_ && plan_->IsStreaming(); }

std::shared_ptr<arrow::Schema> DataFrame::schema() const { return plan_ ? plan_->schema : nullptr; }

DataFrame DataFrame::Derive(Result<std::shared_ptr<const plan::LogicalPlan>> plan) const {
  if (!status_.ok()) return *this;
  if (!plan.ok()) return DataFrame(session_, plan.status());
  return DataFrame(session_, *plan);
}

namespace {

std::vector<ExprPtr> ExpandStars(const std::vector<Column>& columns, const arrow::Schema& schema) {
  std::vector<ExprPtr> out;
  for (const auto& c : columns) {
    if (plan::IsStar(*c.expr())) {
      for (const auto& f : schema.fields()) out.push_back(Expr::Column(f->name()));
    } else {
      out.push_back(c.expr());
    }
  }
  return out;
}

}  // namespace

DataFrame DataFrame::select(std::vector<Column> columns) const {
  if (!status_.ok()) return *this;
  return Derive(LogicalPlan::Project(plan_, ExpandStars(columns, *plan_->schema)));
}

DataFrame DataFrame::select(const std::vector<std::string>& names) const {
  std::vector<Column> cols;
  for (const auto& n : names) cols.push_back(col(n));
  return select(cols);
}

DataFrame DataFrame::filter(const Column& condition) const {
  if (!status_.ok()) return *this;
  return Derive(LogicalPlan::Filter(plan_, condition.expr()));
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
    keys.push_back(k.expr());
    const Expr* inner = k.expr().get();
    if (inner->kind == Expr::Kind::kAlias && !inner->args.empty()) inner = inner->args[0].get();
    if (inner->kind == Expr::Kind::kCall && plan::IsWindowFunction(inner->name)) {
      select.push_back(Expr::Column("window_start"));
      select.push_back(Expr::Column("window_end"));
    } else {
      select.push_back(Expr::Column(plan::OutputName(*k.expr())));
    }
  }
  for (const auto& a : aggregates) select.push_back(a.expr());
  auto plan = plan::PlanAggregation(df_.plan(), keys, select);
  if (!plan.ok()) return DataFrame(df_.session(), plan.status());
  return DataFrame(df_.session(), *plan);
}

DataFrame GroupedData::count() const { return agg({sluice::count(col("*")).alias("count")}); }

DataFrame DataFrame::withWatermark(const std::string& event_time, const std::string& delay) const {
  if (!status_.ok()) return *this;
  return Derive(LogicalPlan::Watermark(plan_, event_time, delay));
}

DataFrame DataFrame::dropDuplicates(const std::vector<std::string>& columns) const {
  if (!status_.ok()) return *this;
  return Derive(LogicalPlan::Deduplicate(plan_, columns, false));
}

DataFrame DataFrame::dropDuplicatesWithinWatermark(const std::vector<std::string>& columns) const {
  if (!status_.ok()) return *this;
  return Derive(LogicalPlan::Deduplicate(plan_, columns, true));
}

DataFrame DataFrame::withColumn(const std::string& name, const Column& value) const {
  if (!status_.ok()) return *this;
  std::vector<ExprPtr> exprs;
  bool replaced = false;
  for (const auto& f : plan_->schema->fields()) {
    if (f->name() == name) {
      exprs.push_back(Expr::Alias(value.expr(), name));
      replaced = true;
    } else {
      exprs.push_back(Expr::Column(f->name()));
    }
  }
  if (!replaced) exprs.push_back(Expr::Alias(value.expr(), name));
  return Derive(LogicalPlan::Project(plan_, std::move(exprs)));
}

DataFrame DataFrame::withColumnRenamed(const std::string& existing, const std::string& name) const {
  if (!status_.ok()) return *this;
  if (plan_->schema->GetFieldIndex(existing) < 0) return *this;  // Spark: a no-op for a missing column
  std::vector<ExprPtr> exprs;
  for (const auto& f : plan_->schema->fields()) {
    auto c = Expr::Column(f->name());
    exprs.push_back(f->name() == existing ? Expr::Alias(c, name) : c);
  }
  return Derive(LogicalPlan::Project(plan_, std::move(exprs)));
}

DataFrame DataFrame::drop(const std::vector<std::string>& names) const {
  if (!status_.ok()) return *this;
  std::vector<ExprPtr> exprs;
  for (const auto& f : plan_->schema->fields()) {
    if (std::find(names.begin(), names.end(), f->name()) == names.end()) exprs.push_back(Expr::Column(f->name()));
  }
  return Derive(LogicalPlan::Project(plan_, std::move(exprs)));
}

Result<std::shared_ptr<arrow::Table>> DataFrame::collect() const {
  ARROW_RETURN_NOT_OK(status_);
  if (isStreaming()) {
    return Status::Invalid("Queries with streaming sources must be executed with writeStream().start()");
  }
  std::vector<std::shared_ptr<arrow::Table>> inputs;
  for (const auto* scan : plan_->Scans()) {
    ARROW_ASSIGN_OR_RAISE(auto rows, source::ReadStatic(*scan->source, session_->fs()));
    inputs.push_back(std::move(rows));
  }
  return exec::ExecutePlan(*plan_, inputs);
}

std::string DataFrame::explain() const {
  if (!status_.ok()) return "Error: " + status_.ToString();
  return plan_->ToString();
}

DataStreamWriter DataFrame::writeStream() const { return DataStreamWriter(*this); }
DataFrameWriter DataFrame::write() const { return DataFrameWriter(*this); }

DataFrameWriter::DataFrameWriter(DataFrame df) : df_(std::move(df)) {}
DataFrameWriter& DataFrameWriter::format(const std::string& f) { format_ = f; return *this; }
DataFrameWriter& DataFrameWriter::option(const std::string& key, const std::string& value) {
  options_[key] = value;
  return *this;
}
DataFrameWriter& DataFrameWriter::mode(const std::string& m) { mode_ = m; return *this; }

Status DataFrameWriter::save(const std::string& path) {
  ARROW_ASSIGN_OR_RAISE(auto rows, df_.collect());
  plan::Options opts;
  for (const auto& [k, v] : options_) opts.Set(k, v);
  return sink::WriteFilesOnce(df_.session()->fs(), format_, opts, mode_, path, rows);
}

}  // namespace sluice
