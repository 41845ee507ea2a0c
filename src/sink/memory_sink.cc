// The memory sink (tests, notebooks): a named in-session table. Recognises a redone batch by
// its id, so a redo replaces nothing and duplicates nothing.
#include <arrow/api.h>

#include "sink/memory_sink.h"

namespace sluice::sink {

bool MemoryTables::Apply(const std::string& name, int64_t batch_id, const std::shared_ptr<arrow::Table>& rows,
                         bool complete) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry& e = tables_[name];
  if (batch_id <= e.last_batch) return false;
  if (complete) e.parts.clear();
  e.parts.push_back(rows);
  e.schema = rows->schema();
  e.last_batch = batch_id;
  return true;
}

Result<std::shared_ptr<arrow::Table>> MemoryTables::Get(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = tables_.find(name);
  if (it == tables_.end()) {
    std::string names;
    for (const auto& [n, e] : tables_) names += (names.empty() ? "" : ", ") + n;
    return Status::KeyError("No memory table named '", name, "'. Memory tables: [", names, "]");
  }
  if (it->second.parts.empty()) return arrow::Table::MakeEmpty(it->second.schema);
  return arrow::ConcatenateTables(it->second.parts);
}

namespace {

class MemorySink final : public Sink {
 public:
  MemorySink(std::shared_ptr<MemoryTables> tables, std::string name, bool complete)
      : tables_(tables), name_(std::move(name)), complete_(complete) {}
  std::string Description() const override { return "MemorySink"; }
  bool idempotent() const override { return true; }
  Status AddBatch(int64_t batch_id, const std::shared_ptr<arrow::Table>& rows) override {
    tables_->Apply(name_, batch_id, rows, complete_);
    return Status::OK();
  }

 private:
  std::shared_ptr<MemoryTables> tables_;
  std::string name_;
  bool complete_;
};

class ForeachBatchSink final : public Sink {
 public:
  explicit ForeachBatchSink(ForeachBatchFn fn) : fn_(std::move(fn)) {}
  std::string Description() const override { return "ForeachBatchSink"; }
  bool idempotent() const override { return false; }
  Status AddBatch(int64_t batch_id, const std::shared_ptr<arrow::Table>& rows) override {
    Status st = fn_(rows, batch_id);
    if (!st.ok()) return st.WithMessage("foreachBatch function failed on batch ", batch_id, ": ", st.message());
    return st;
  }

 private:
  ForeachBatchFn fn_;
};

}  // namespace

Status ValidateMemorySinkSpec(const SinkSpec& spec) {
  if (spec.query_name.empty()) {
    return Status::Invalid("The memory sink needs a query name: call queryName(\"<table>\") on writeStream()");
  }
  return spec.options.CheckKnown({}, "memory sink");
}

Result<std::unique_ptr<Sink>> MakeMemorySink(const SinkSpec& spec, const SinkContext& ctx) {
  ARROW_RETURN_NOT_OK(ValidateMemorySinkSpec(spec));
  if (!ctx.memory_tables) return Status::Invalid("The memory sink needs the session's memory tables");
  return std::make_unique<MemorySink>(ctx.memory_tables, spec.query_name, spec.output_mode == plan::OutputMode::kComplete);
}

Result<std::unique_ptr<Sink>> MakeForeachBatchSink(const SinkSpec& spec) {
  if (!spec.foreach_batch) return Status::Invalid("foreachBatch sink without a function");
  return std::make_unique<ForeachBatchSink>(spec.foreach_batch);
}

}  // namespace sluice::sink
