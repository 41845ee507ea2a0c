// The library's view of the public API objects (include/sluice/): what a Column, DataFrame,
// Session, StreamingQuery or StreamingQueryManager holds inside. The public headers keep these
// opaque (each class has a private `Impl` and befriends detail::Access); code in src/ and the
// tests reach them through the functions below. Not installed.
#pragma once

#include <memory>

#include "plan/expr.h"
#include "plan/logical_plan.h"
#include "sluice/column.h"
#include "sluice/dataframe.h"
#include "sluice/query_manager.h"
#include "sluice/session.h"
#include "sluice/streaming_query.h"

namespace sluice {

namespace io {
class FileSystem;
}
namespace runtime {
class QueryExecution;
class QueryRegistry;
struct QueryConfig;
struct RestartCheck;
}  // namespace runtime
namespace sink {
class MemoryTables;
}

struct Column::Impl {
  std::shared_ptr<const plan::Expr> expr;
};

struct DataFrame::Impl {
  std::shared_ptr<const plan::LogicalPlan> plan;
};

struct StreamingQuery::Impl {
  std::shared_ptr<runtime::QueryExecution> execution;
};

struct StreamingQueryManager::Impl {
  std::shared_ptr<runtime::QueryRegistry> registry;
};

namespace detail {

struct Access {
  static Column MakeColumn(std::shared_ptr<const plan::Expr> expr) {
    return Column(std::make_shared<const Column::Impl>(Column::Impl{std::move(expr)}));
  }
  static const std::shared_ptr<const plan::Expr>& ExprOf(const Column& c) { return c.impl_->expr; }

  static DataFrame MakeDataFrame(std::shared_ptr<Session> session, std::shared_ptr<const plan::LogicalPlan> plan) {
    return DataFrame(std::move(session), std::make_shared<const DataFrame::Impl>(DataFrame::Impl{std::move(plan)}),
                     Status::OK());
  }
  static DataFrame MakeDataFrame(std::shared_ptr<Session> session, Status error) {
    return DataFrame(std::move(session), nullptr, std::move(error));
  }
  /// Null when the DataFrame holds an error.
  static std::shared_ptr<const plan::LogicalPlan> PlanOf(const DataFrame& df) {
    return df.impl_ ? df.impl_->plan : nullptr;
  }

  static std::shared_ptr<Session> MakeSession(std::shared_ptr<io::FileSystem> fs);
  static const std::shared_ptr<io::FileSystem>& FileSystemOf(const Session& s);
  static const std::shared_ptr<runtime::QueryRegistry>& RegistryOf(const Session& s);
  static const std::shared_ptr<sink::MemoryTables>& MemoryTablesOf(const Session& s);

  static StreamingQuery MakeQuery(std::shared_ptr<runtime::QueryExecution> execution) {
    return StreamingQuery(std::make_shared<StreamingQuery::Impl>(StreamingQuery::Impl{std::move(execution)}));
  }
  static const std::shared_ptr<runtime::QueryExecution>& ExecutionOf(const StreamingQuery& q) {
    return q.impl_->execution;
  }
  /// What writer.start() would run, everything checked; `dry_run` creates and changes nothing
  /// (no sink preparation such as an Iceberg table's creation, no temporary checkpoint).
  static Result<runtime::QueryConfig> StreamConfig(const DataStreamWriter& writer, bool dry_run);
  /// What a start of `writer` would make of its existing checkpoint (`sluice explain --checkpoint`).
  static Result<runtime::RestartCheck> CheckRestart(const DataStreamWriter& writer);

  static StreamingQueryManager MakeManager(std::shared_ptr<runtime::QueryRegistry> registry) {
    return StreamingQueryManager(
        std::make_shared<StreamingQueryManager::Impl>(StreamingQueryManager::Impl{std::move(registry)}));
  }
};

}  // namespace detail

namespace api {
// Short spellings for the library's own code.
inline Column MakeColumn(std::shared_ptr<const plan::Expr> expr) { return detail::Access::MakeColumn(std::move(expr)); }
inline const std::shared_ptr<const plan::Expr>& ExprOf(const Column& c) { return detail::Access::ExprOf(c); }
inline std::shared_ptr<const plan::LogicalPlan> PlanOf(const DataFrame& df) { return detail::Access::PlanOf(df); }
/// The physical operators `df` runs, one per line (explain's "Physical Plan" section).
std::string PhysicalPlanText(const DataFrame& df);
inline DataFrame MakeDataFrame(std::shared_ptr<Session> session, std::shared_ptr<const plan::LogicalPlan> plan) {
  return detail::Access::MakeDataFrame(std::move(session), std::move(plan));
}
inline DataFrame MakeDataFrame(std::shared_ptr<Session> session, Status error) {
  return detail::Access::MakeDataFrame(std::move(session), std::move(error));
}
/// A session whose checkpoint, source-log and sink writes all go through `fs` (tests inject faults).
inline std::shared_ptr<Session> MakeSession(std::shared_ptr<io::FileSystem> fs) {
  return detail::Access::MakeSession(std::move(fs));
}
inline const std::shared_ptr<io::FileSystem>& FileSystemOf(const Session& s) { return detail::Access::FileSystemOf(s); }
Result<runtime::RestartCheck> CheckRestartOf(const DataStreamWriter& writer);
}  // namespace api

}  // namespace sluice
