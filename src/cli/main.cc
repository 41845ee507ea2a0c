// The `sluice` command.
#include <CLI/CLI.hpp>
#include <arrow/memory_pool.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "cli/batch_command.h"
#include "cli/checkpoint_command.h"
#include "cli/iceberg_command.h"
#include "cli/pipeline_options.h"
#include "cli/run_command.h"

namespace {

// Arrow picks its default memory pool once, on first use, from ARROW_DEFAULT_MEMORY_POOL. Its
// own choice, mimalloc, gives freed memory back and then faults it in again as zeroed 2 MiB huge
// pages: on a pass-through batch of ten JSON files that is 3-4x the CPU time of the work itself,
// all of it in the kernel. jemalloc keeps it (and holds the lowest peak RSS of the three). The
// variable, when set, still wins.
void ChooseMemoryPool() {
  const auto backends = arrow::SupportedMemoryBackendNames();
  if (std::find(backends.begin(), backends.end(), "jemalloc") != backends.end()) {
    setenv("ARROW_DEFAULT_MEMORY_POOL", "jemalloc", /*overwrite=*/0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  ChooseMemoryPool();
  CLI::App app{"sluice: micro-batch stream processing with exactly-once checkpoints"};
  app.require_subcommand(1);
  int rc = 0;

  auto* version = app.add_subcommand("version", "Print the sluice version");
  version->callback([] {
    std::cout << "sluice " << SLUICE_VERSION << "\nmemory pool: " << arrow::default_memory_pool()->backend_name()
              << std::endl;
  });

  sluice::cli::RunArgs run_args;
  auto* run = app.add_subcommand("run", "Run a SQL pipeline's queries as streams (docs/cli.md)");
  run->add_option("PIPELINE", run_args.pipeline, "The pipeline's .sql file")->required();
  run->add_option("--checkpoint", run_args.checkpoint,
                  "Checkpoint root: each query keeps its progress in DIR/<sink table name>; reuse it on restart");
  run->add_option("--trigger", run_args.trigger, "available-now | once | processing-time=<duration> (default: back to back)");
  run->add_option("--output-mode", run_args.output_mode, "append (default) | update | complete");
  run->add_option("--conf", run_args.conf, "Session setting key=value (repeatable; wins over SET in the file)");
  run->add_option("--progress", run_args.progress_file, "Append each batch's progress JSON to FILE, one line per batch");
  run->add_flag("--stats", run_args.stats, "On exit, print the process's sync counts (data and directory syncs) on stderr");
  run->callback([&] { rc = sluice::cli::RunPipeline(run_args); });

  sluice::cli::BatchArgs batch_args;
  auto* batch = app.add_subcommand("batch", "Run a SQL pipeline once over everything its sources hold now");
  batch->add_option("PIPELINE", batch_args.pipeline, "The pipeline's .sql file (or -e)");
  batch->add_option("-e,--execute", batch_args.sql, "The pipeline's SQL statements given inline instead of a file");
  batch->add_flag("--print", batch_args.print, "Print each query's rows instead of writing the sinks");
  batch->add_option("--limit", batch_args.limit, "Print at most N rows of each query (with --print or a console sink)");
  batch->add_option("--mode", batch_args.mode, "When a sink directory is not empty: error (default) | overwrite | append | ignore");
  batch->add_option("--conf", batch_args.conf, "Session setting key=value (repeatable)");
  batch->callback([&] { rc = sluice::cli::RunBatch(batch_args); });

  sluice::cli::ExplainArgs explain_args;
  std::string explain_mode;
  auto* explain = app.add_subcommand("explain", "Print each query's plan, sink and output-mode verdict");
  explain->add_option("PIPELINE", explain_args.pipeline, "The pipeline's .sql file")->required();
  auto* mode_option = explain->add_option("--output-mode", explain_mode, "Check only this output mode");
  explain->add_option("--conf", explain_args.conf, "Session setting key=value (repeatable)");
  explain->add_option("--checkpoint", explain_args.checkpoint,
                      "Checkpoint root of `sluice run`: also say what a restart there would keep, change or refuse");
  explain->callback([&] {
    if (mode_option->count() > 0) explain_args.output_mode = explain_mode;
    rc = sluice::cli::ExplainPipeline(explain_args);
  });

  sluice::cli::AddIcebergCommands(&app, &rc);

  auto* checkpoint = app.add_subcommand("checkpoint", "Inspect or reset a query's checkpoint directory");
  checkpoint->require_subcommand(1);
  auto* show = checkpoint->add_subcommand("show", "Print the checkpoint's state as JSON");
  std::string dir;
  show->add_option("DIR", dir, "Checkpoint directory")->required();
  show->callback([&] {
    auto out = sluice::cli::ShowCheckpoint(dir);
    if (!out.ok()) {
      rc = sluice::cli::ReportFailure(out.status());
      return;
    }
    std::cout << *out << std::endl;
  });

  sluice::cli::ResetArgs reset_args;
  auto* reset = checkpoint->add_subcommand(
      "reset", "Start a query's checkpoint over (asks first) and hand its sink over to the next run");
  reset->add_option("DIR", reset_args.dir, "One query's checkpoint directory")->required();
  reset->add_flag("--yes,-y", reset_args.yes, "Do not ask for confirmation");
  reset->callback([&] { rc = sluice::cli::ResetCheckpointCommand(reset_args); });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the message (or the help); a usage error exits 1 like every other error
    // (docs/cli.md), not with CLI11's own codes (106, 109, ...).
    return app.exit(e) == 0 ? 0 : 1;
  }
  return rc;
}
