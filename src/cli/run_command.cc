#include "cli/run_command.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <iostream>
#include <thread>

#include "cli/pipeline_options.h"
#include "cli/run_monitor.h"
#include "io/file_system.h"
#include "cli/pipeline_launch.h"
#include "sql/sql_pipeline.h"
#include "util/log.h"

namespace sluice::cli {
namespace {

void StopAll(std::vector<StreamingQuery>& queries) {
  for (auto& q : queries) (void)q.stop();
}

void PrintStats(const RunArgs& args) {
  if (!args.stats) return;
  const io::SyncCounts syncs = io::LocalSyncCounts();
  std::cerr << "stats: {\"fileSyncs\":" << syncs.file_syncs << ",\"dirSyncs\":" << syncs.dir_syncs
            << ",\"writeBacksStarted\":" << syncs.write_backs << "}" << std::endl;
}

}  // namespace

int RunPipeline(const RunArgs& args) {
  auto text = ReadPipelineFile(args.pipeline);
  if (!text.ok()) return ReportFailure(text.status());
  auto trigger = ParseTrigger(args.trigger);
  if (!trigger.ok()) return ReportFailure(trigger.status());
  auto output_mode = ParseOutputMode(args.output_mode);
  if (!output_mode.ok()) return ReportFailure(output_mode.status());

  auto session = Session::Make();
  auto pipeline = sql::CompilePipeline(session, *text, sql::ExecutionMode::kStreaming);
  if (!pipeline.ok()) return ReportFailure(pipeline.status());
  // Command-line settings win over the file's SET statements.
  Status conf = ApplyConf(args.conf, session.get());
  if (!conf.ok()) return ReportFailure(conf);
  if (pipeline->queries.empty()) {
    return ReportFailure(Status::Invalid(args.pipeline, ": no INSERT INTO or SELECT to run"));
  }

  auto monitor = RunMonitor::Make(args.progress_file, ::isatty(STDERR_FILENO) == 1, &std::cerr);
  if (!monitor.ok()) return ReportFailure(monitor.status());
  session->streams().addListener(*monitor);

  // SIGINT/SIGTERM are taken synchronously by this thread (sigtimedwait below); blocking them
  // before the queries start makes every query thread inherit the mask. SIGUSR1 is how a
  // query's end wakes this thread (below).
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  cli::StreamOptions options;
  options.checkpoint_root = args.checkpoint;
  options.trigger = *trigger;
  options.output_mode = plan::OutputModeName(*output_mode);
  for (const auto& q : pipeline->queries) options.pipeline_query_names.push_back(q.name);
  std::vector<StreamingQuery> running;
  for (const auto& q : pipeline->queries) {
    auto started = cli::StartStreamingQuery(q, options);
    if (!started.ok()) {
      StopAll(running);
      (*monitor)->Finish();
      return ReportFailure(started.status());
    }
    running.push_back(*started);
  }
  // One waiter per query signals this thread when the query has ended, so the run exits right
  // after its last batch instead of at the next 100 ms poll (which is kept as a fallback).
  std::vector<std::thread> waiters;
  const pthread_t self = pthread_self();
  for (const auto& q : running) {
    waiters.emplace_back([query = q, self]() mutable {
      (void)query.awaitTermination();
      pthread_kill(self, SIGUSR1);
    });
  }

  int exit_code = 0;
  bool stopping = false;
  while (true) {
    struct timespec wait = {0, 100 * 1000 * 1000};
    int sig = sigtimedwait(&signals, nullptr, &wait);
    if (sig == SIGINT || sig == SIGTERM) {
      if (!stopping) util::LogInfo(sig == SIGINT ? "SIGINT" : "SIGTERM", ", stopping");
      stopping = true;
      StopAll(running);
    }
    bool all_done = true;
    for (size_t i = 0; i < running.size(); ++i) {
      if (running[i].isActive()) {
        all_done = false;
        continue;
      }
      if (auto err = running[i].exception()) {
        (*monitor)->Finish();
        util::LogError("query '", pipeline->queries[i].name, "' (", pipeline->queries[i].statement_where,
                       ") failed: ", CliWording(err->message()));
        exit_code = 1;
      }
    }
    if (exit_code != 0) {
      StopAll(running);
      break;
    }
    if (all_done) break;
  }
  for (auto& w : waiters) w.join();  // every query has ended or been stopped
  sigset_t wakeups;  // drop a wake-up sent after the loop ended: none stays pending
  sigemptyset(&wakeups);
  sigaddset(&wakeups, SIGUSR1);
  const struct timespec no_wait = {0, 0};
  while (sigtimedwait(&wakeups, nullptr, &no_wait) == SIGUSR1) {
  }
  (*monitor)->Finish();
  PrintStats(args);
  return exit_code;
}

}  // namespace sluice::cli
