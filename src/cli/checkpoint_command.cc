#include "cli/checkpoint_command.h"

#include <unistd.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "checkpoint/checkpoint.h"
#include "cli/pipeline_options.h"
#include "io/file_system.h"
#include "sink/sink_registry.h"
#include "state/operator_metadata.h"
#include "state/state_store.h"

namespace sluice::cli {

using nlohmann::json;

namespace {

// The state of one query's checkpoint, or nullopt when `dir` holds no `metadata`.
Result<std::optional<json>> DescribeQueryCheckpoint(const std::shared_ptr<io::FileSystem>& fs, const std::string& dir) {
  checkpoint::Checkpoint ckpt(fs, dir);
  ARROW_ASSIGN_OR_RAISE(auto md, ckpt.ReadMetadata());
  if (!md) return std::optional<json>{};
  ARROW_ASSIGN_OR_RAISE(auto last_offsets, ckpt.offsets().LatestId());
  ARROW_ASSIGN_OR_RAISE(auto last_commit, ckpt.commits().LatestId());

  json out = {{"checkpoint", dir}, {"queryId", md->id}};
  out["sources"] = md->fingerprint.sources;
  out["sink"] = md->fingerprint.sink;
  out["lastOffsetsBatch"] = last_offsets ? json(*last_offsets) : json(nullptr);
  out["lastCommittedBatch"] = last_commit ? json(*last_commit) : json(nullptr);
  bool rerun = last_offsets && (!last_commit || *last_commit < *last_offsets);
  out["rerunOnRestart"] = rerun;
  out["nextBatch"] = last_offsets ? (rerun ? *last_offsets : *last_offsets + 1) : 0;
  json ends = json::array();
  if (last_offsets) {
    ARROW_ASSIGN_OR_RAISE(auto seq, ckpt.GetOffsets(*last_offsets));
    for (size_t i = 0; i < seq->offsets.size(); ++i) {
      json s = {{"source", i}, {"endOffset", seq->offsets[i] ? *seq->offsets[i] : json(nullptr)}};
      if (i < md->fingerprint.sources.size()) s["description"] = md->fingerprint.sources[i];
      ends.push_back(s);
    }
    out["batchWatermarkMs"] = seq->batch_watermark_ms;
    for (const char* key : {"spark.sql.shuffle.partitions", "spark.sql.streaming.stateStore.providerClass"}) {
      auto it = seq->conf.find(key);
      if (it != seq->conf.end()) out["conf"][key] = it->second;
    }
  }
  if (last_commit) {
    ARROW_ASSIGN_OR_RAISE(auto commit, ckpt.GetCommit(*last_commit));
    if (commit) out["nextBatchWatermarkMs"] = commit->next_batch_watermark_ms;
  }
  out["sourceEndOffsets"] = ends;
  // Stateful operators: state/<op>/_metadata/metadata and the versions on disk.
  json ops = json::array();
  for (int64_t op = 0;; ++op) {
    ARROW_ASSIGN_OR_RAISE(auto smd, state::ReadOperatorMetadata(fs.get(), dir, op));
    if (!smd) break;
    json o = {{"operatorId", op},
              {"operatorName", smd->operator_name},
              {"numPartitions", smd->num_partitions},
              {"keySchema", smd->key_schema},
              {"valueSchema", smd->value_schema}};
    json latest = json::array();
    for (int p = 0; p < smd->num_partitions; ++p) {
      ARROW_ASSIGN_OR_RAISE(auto provider,
                            state::OpenFileStateStoreProvider(fs, state::StateStoreId{dir, op, p}));
      ARROW_ASSIGN_OR_RAISE(int64_t v, provider->LatestVersion());
      latest.push_back(v);
    }
    o["latestVersionPerPartition"] = latest;
    ops.push_back(std::move(o));
  }
  if (!ops.empty()) out["stateOperators"] = ops;
  return std::optional<json>(std::move(out));
}

}  // namespace

Result<std::string> ShowCheckpoint(const std::string& dir_arg) {
  auto fs = io::LocalFileSystem();
  const std::string dir = io::AbsolutePath(dir_arg);
  ARROW_ASSIGN_OR_RAISE(auto info, fs->Stat(dir));
  if (!info || !info->is_dir) return Status::IOError("Checkpoint directory '", dir, "' does not exist");
  ARROW_ASSIGN_OR_RAISE(auto one, DescribeQueryCheckpoint(fs, dir));
  if (one) return one->dump(2);
  // A `sluice run --checkpoint DIR` root: one checkpoint per sink table, DIR/<table>.
  json queries = json::object();
  ARROW_ASSIGN_OR_RAISE(auto entries, fs->List(dir));
  for (const auto& e : entries) {
    if (!e.is_dir) continue;
    ARROW_ASSIGN_OR_RAISE(auto q, DescribeQueryCheckpoint(fs, e.path));
    if (q) queries[e.name] = std::move(*q);
  }
  if (queries.empty()) {
    return Status::Invalid("'", dir, "' is not a sluice checkpoint: it has no 'metadata' file, and no sub-directory "
                           "holds one (a `sluice run --checkpoint DIR` root keeps one per sink table)");
  }
  return json{{"checkpointRoot", dir}, {"queries", queries}}.dump(2);
}

Status ResetCheckpoint(const ResetArgs& args, std::istream& in, std::ostream& out) {
  auto fs = io::LocalFileSystem();
  const std::string dir = io::AbsolutePath(args.dir);
  checkpoint::Checkpoint ckpt(fs, dir);
  ARROW_ASSIGN_OR_RAISE(auto md, ckpt.ReadMetadata());
  if (!md) {
    return Status::Invalid("'", dir, "' is not a query's checkpoint (it has no 'metadata' file); give one query's "
                           "directory, DIR/<sink table name> of `sluice run --checkpoint DIR`. Nothing was changed.");
  }
  ARROW_ASSIGN_OR_RAISE(auto last_commit, ckpt.commits().LatestId());
  out << "Checkpoint " << dir << " of query " << md->id << " ("
      << (last_commit ? "batches up to " + std::to_string(*last_commit) + " committed" : std::string("no batch committed"))
      << ")\n  sink: " << md->fingerprint.sink << "\n";
  for (const auto& src : md->fingerprint.sources) out << "  source: " << src << "\n";
  out << "Resetting deletes its offsets, commits, source logs and state: the query's next run starts over at "
         "batch 0 and reads its sources from the beginning. The sink keeps what it has and is handed over to the "
         "next run.\n" << std::flush;
  if (!args.yes) {
    if (!args.interactive) {
      return Status::Invalid("Not asked on a terminal, so it cannot confirm; nothing was "
                             "changed. Add --yes to reset ", dir, " without asking.");
    }
    out << "Reset " << dir << "? [y/N] " << std::flush;
    std::string answer;
    std::getline(in, answer);
    if (answer != "y" && answer != "Y" && answer != "yes") {
      return Status::Invalid("Not confirmed; nothing was changed");
    }
  }
  // Held until the reset is done: a running query keeps its checkpoint. The query id must be
  // the one the user confirmed.
  ARROW_ASSIGN_OR_RAISE(auto lock, checkpoint::CheckpointLock::Acquire(dir, "sluice checkpoint reset"));
  ARROW_ASSIGN_OR_RAISE(auto now, ckpt.ReadMetadata());
  if (!now || now->id != md->id) {
    return Status::Invalid("Checkpoint ", dir, " changed while asking (another run started over in it); nothing "
                           "was reset");
  }
  // The sink first: if the reset stops half-way, the old query (its checkpoint still whole) can
  // take its output back (SinkOwner::previous_query_id); then `metadata`, so a half-reset
  // checkpoint is a new query's.
  ARROW_ASSIGN_OR_RAISE(std::string released, sink::ReleaseSink(fs, md->fingerprint.sink, md->id, dir));
  for (const char* entry : {"metadata", "offsets", "commits", "sources", "state", "sink"}) {
    ARROW_RETURN_NOT_OK(fs->DeleteTree(io::JoinPath(dir, entry)));
  }
  out << "Reset " << dir << "; " << released << ".\n" << std::flush;
  return Status::OK();
}

int ResetCheckpointCommand(const ResetArgs& args) {
  ResetArgs a = args;
  a.interactive = ::isatty(STDIN_FILENO) == 1;
  Status st = ResetCheckpoint(a, std::cin, std::cout);
  return st.ok() ? 0 : ReportFailure(st);
}

}  // namespace sluice::cli
