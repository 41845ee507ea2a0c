#include "cli/checkpoint_command.h"

#include <nlohmann/json.hpp>

#include "checkpoint/checkpoint.h"
#include "io/file_system.h"
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

}  // namespace sluice::cli
