// ScanExec: the leaf. It reads nothing itself: the runtime (or a batch query) has already read
// the rows of this run for source i (the batch's recorded offsets, or everything there now);
// the scan checks their schema and hands them on batch by batch.
#include <arrow/api.h>

#include <cctype>
#include <string>

#include "exec/physical_planner.h"

namespace sluice::exec {
namespace {

class ScanExec : public PhysicalOperator {
 public:
  ScanExec(std::shared_ptr<const plan::SourceSpec> source, std::shared_ptr<arrow::Schema> schema, int source_index)
      : PhysicalOperator(std::move(schema), {}), source_(std::move(source)), source_index_(source_index) {}

  std::string Describe() const override {
    const auto& src = *source_;
    std::string line = "ScanExec " + src.format + " " + src.Describe();
    if (src.streaming && src.reads_files) {
      // json: simdjson unless the jsonReader option asks for Arrow's reader (file_source_options.cc).
      std::string reader = "Arrow " + src.format;
      if (src.format == "json") {
        auto r = src.options.Get("jsonReader");
        std::string v;
        for (char c : r.value_or("")) {
          if (c != ' ') v += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        reader = v == "arrow" ? "Arrow json" : "simdjson json";
      }
      return line + " (reads the files of the batch's source-log entries, " + reader + " reader)";
    }
    if (src.streaming) return line + " (rows between the batch's recorded offsets)";
    return line + " (everything there now)";
  }

  Status Finish(ExecContext* ctx, OperatorState*, const BatchConsumer& out) const override {
    const auto& inputs = *ctx->scan_inputs;
    if (static_cast<size_t>(source_index_) >= inputs.size()) {
      return Status::Invalid("plan has more scans than the ", inputs.size(), " inputs given (scan ", source_index_, ")");
    }
    const auto& input = inputs[static_cast<size_t>(source_index_)];
    if (!input->schema()->Equals(*schema(), /*check_metadata=*/false)) {
      return Status::Invalid("source produced schema ", input->schema()->ToString(), " but the plan expects ",
                             schema()->ToString());
    }
    return EmitTable(*input, out);
  }

 private:
  std::shared_ptr<const plan::SourceSpec> source_;
  int source_index_;
};

}  // namespace

Result<OperatorPtr> PlanScanExec(const plan::LogicalPlan& node, std::vector<OperatorPtr>* children, PlannerContext* ctx) {
  if (!children->empty()) return Status::Invalid("a scan takes no input");
  return std::make_unique<ScanExec>(node.source, node.schema, ctx->next_scan_index++);
}

}  // namespace sluice::exec
