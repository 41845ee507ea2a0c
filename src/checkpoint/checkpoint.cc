#include "checkpoint/checkpoint.h"

#include "io/uuid.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>

#include "util/strings.h"

namespace sluice::checkpoint {

using nlohmann::json;

// ---- OffsetSeq / CommitEntry ------------------------------------------------------------

std::string OffsetSeq::Serialize() const {
  json meta = {{"batchWatermarkMs", batch_watermark_ms}, {"batchTimestampMs", batch_timestamp_ms}};
  json c = json::object();
  for (const auto& [k, v] : conf) c[k] = v;
  meta["conf"] = c;
  std::string out = meta.dump();
  for (const auto& o : offsets) out += "\n" + (o ? o->dump() : std::string("-"));
  return out;
}

namespace {

// A whole-number field of a log entry's JSON (`fallback` when absent). json::value would convert
// a fraction or an out-of-range number unchecked; such an entry is corrupt.
Result<int64_t> WholeNumber(const json& j, const char* key, const char* log, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end()) return 0;
  if (it->is_number_integer() && !(it->is_number_unsigned() && it->get<uint64_t>() > INT64_MAX)) {
    return it->get<int64_t>();
  }
  return Status::Invalid(log, " entry '", where, "' is corrupt: ", key, " is not a whole number of milliseconds");
}

}  // namespace

Result<OffsetSeq> OffsetSeq::Parse(const std::string& body, const std::string& where) {
  auto lines = SplitLines(body);
  OffsetSeq seq;
  try {
    if (!lines.empty() && !lines[0].empty()) {
      json meta = json::parse(lines[0]);
      if (!meta.is_object()) return Status::Invalid("Offsets log entry '", where, "' is corrupt: its first line is not "
                                                    "a JSON object");
      ARROW_ASSIGN_OR_RAISE(seq.batch_watermark_ms, WholeNumber(meta, "batchWatermarkMs", "Offsets log", where));
      ARROW_ASSIGN_OR_RAISE(seq.batch_timestamp_ms, WholeNumber(meta, "batchTimestampMs", "Offsets log", where));
      if (meta.contains("conf")) {
        for (auto& [k, v] : meta["conf"].items()) seq.conf[k] = v.is_string() ? v.get<std::string>() : v.dump();
      }
    }
    for (size_t i = 1; i < lines.size(); ++i) {
      if (lines[i] == "-") {
        seq.offsets.emplace_back(std::nullopt);
      } else {
        seq.offsets.emplace_back(json::parse(lines[i]));
      }
    }
  } catch (const json::exception& e) {
    return Status::Invalid("Offsets log entry '", where, "' is corrupt: ", util::JsonErrorWithoutInput(e.what()));
  }
  return seq;
}

std::string CommitEntry::Serialize() const { return json{{"nextBatchWatermarkMs", next_batch_watermark_ms}}.dump(); }

Result<CommitEntry> CommitEntry::Parse(const std::string& body, const std::string& where) {
  CommitEntry entry;
  if (body.empty()) return entry;
  try {
    json j = json::parse(SplitLines(body)[0]);
    if (!j.is_object()) return Status::Invalid("Commit log entry '", where, "' is corrupt: it is not a JSON object");
    ARROW_ASSIGN_OR_RAISE(entry.next_batch_watermark_ms, WholeNumber(j, "nextBatchWatermarkMs", "Commit log", where));
  } catch (const json::exception& e) {
    return Status::Invalid("Commit log entry '", where, "' is corrupt: ", util::JsonErrorWithoutInput(e.what()));
  }
  return entry;
}

// ---- CheckpointLock ----------------------------------------------------------------------

namespace {
std::string HostName() {
  char buf[256] = {0};
  ::gethostname(buf, sizeof(buf) - 1);
  return buf;
}
}  // namespace

Result<std::unique_ptr<CheckpointLock>> CheckpointLock::Acquire(const std::string& dir, const std::string& run_id) {
  std::string path = io::JoinPath(dir, "lock");
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError("cannot open checkpoint lock '", path, "': ", std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    std::string holder;
    char buf[512];
    ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
    if (n > 0) holder.assign(buf, static_cast<size_t>(n));
    ::close(fd);
    if (err != EWOULDBLOCK) return Status::IOError("cannot lock checkpoint '", path, "': ", std::strerror(err));
    std::string who = "another run";
    try {
      json h = json::parse(holder);
      who = "pid " + std::to_string(h.value("pid", 0)) + " on host " + h.value("host", std::string("?")) +
            " (run " + h.value("runId", std::string("?")) + ")";
    } catch (const json::exception&) {
    }
    return Status::Invalid("Checkpoint '", dir, "' is in use by ", who,
                           ". Only one run may use a checkpoint at a time; stop that run first.");
  }
  // We hold the lock; a file left by a dead run is simply overwritten.
  std::string me = json{{"pid", static_cast<int64_t>(::getpid())}, {"host", HostName()}, {"runId", run_id}}.dump();
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size())) {
    int err = errno;
    ::close(fd);
    return Status::IOError("cannot write checkpoint lock '", path, "': ", std::strerror(err));
  }
  ::fsync(fd);
  return std::unique_ptr<CheckpointLock>(new CheckpointLock(fd));
}

CheckpointLock::~CheckpointLock() {
  if (fd_ >= 0) {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
}

// ---- Checkpoint ----------------------------------------------------------------------------

Checkpoint::Checkpoint(std::shared_ptr<io::FileSystem> fs, std::string dir)
    : fs_(fs),
      dir_(std::move(dir)),
      offsets_(fs, io::JoinPath(dir_, "offsets")),
      commits_(fs, io::JoinPath(dir_, "commits")) {}

std::string Checkpoint::SourceDir(size_t index) const {
  return io::JoinPath(io::JoinPath(dir_, "sources"), std::to_string(index));
}

Result<std::optional<QueryMetadata>> Checkpoint::ReadMetadata() const {
  std::string path = io::JoinPath(dir_, "metadata");
  ARROW_ASSIGN_OR_RAISE(auto info, fs_->Stat(path));
  if (!info) return std::optional<QueryMetadata>{};
  ARROW_ASSIGN_OR_RAISE(std::string text, fs_->ReadFile(path));
  auto lines = SplitLines(text);
  if (lines.size() < 2 || lines[0] != "v1") {
    return Status::Invalid("Checkpoint metadata '", path, "' is corrupt or of an unknown version (expected 'v1' then JSON)");
  }
  QueryMetadata md;
  try {
    json j = json::parse(lines[1]);
    md.id = j.at("id").get<std::string>();
    md.fingerprint.sources = j.value("sources", std::vector<std::string>{});
    md.fingerprint.sink = j.value("sink", std::string());
    md.fingerprint.plan = j.value("plan", std::string());
  } catch (const json::exception& e) {
    return Status::Invalid("Checkpoint metadata '", path, "' is corrupt: ", util::JsonErrorWithoutInput(e.what()));
  }
  return std::optional<QueryMetadata>(md);
}


Result<QueryMetadata> MatchFingerprint(const std::string& dir, const QueryMetadata& existing,
                                       const QueryFingerprint& fp) {
  const auto& old = existing.fingerprint;
  auto refuse = [&](const std::string& what, const std::string& was, const std::string& now) {
    return Status::Invalid("Checkpoint '", dir, "' belongs to a different query (id ", existing.id, "): its ", what,
                           " was\n  ", was, "\nbut this query's is\n  ", now,
                           "\nUse a new checkpointLocation for a different query, or restore the original one.");
  };
  if (old.sources.size() != fp.sources.size()) {
    return refuse("number of sources", std::to_string(old.sources.size()), std::to_string(fp.sources.size()));
  }
  for (size_t i = 0; i < fp.sources.size(); ++i) {
    if (old.sources[i] == fp.sources[i]) continue;
    Status refused = refuse("source " + std::to_string(i), old.sources[i], fp.sources[i]);
    // A source described as "<source> [<schema>]" whose schema alone changed: most likely one
    // inferred from its files again (spark.sql.streaming.schemaInference), from new files.
    const size_t a = old.sources[i].rfind(" ["), b = fp.sources[i].rfind(" [");
    if (a != std::string::npos && a == b && old.sources[i].compare(0, a, fp.sources[i], 0, b) == 0) {
      return refused.WithMessage(refused.message(), " Only the source's schema differs: a schema inferred from the "
                                 "files (spark.sql.streaming.schemaInference) is inferred again when a query starts; "
                                 "declare the first one to go on with this checkpoint.");
    }
    return refused;
  }
  if (old.sink != fp.sink) return refuse("sink", old.sink, fp.sink);
  QueryMetadata md = existing;
  if (old.plan != fp.plan) {
    md.previous_plan = old.plan;
    md.fingerprint.plan = fp.plan;
  }
  return md;
}

Result<QueryMetadata> Checkpoint::LoadOrCreateMetadata(const QueryFingerprint& fp) {
  ARROW_ASSIGN_OR_RAISE(auto existing, ReadMetadata());
  if (existing) return MatchFingerprint(dir_, *existing, fp);
  QueryMetadata md{io::RandomUuid(), fp};
  ARROW_RETURN_NOT_OK(fs_->MakeDirs(dir_));
  json j = {{"id", md.id}, {"sources", fp.sources}, {"sink", fp.sink}, {"plan", fp.plan}};
  Status st = fs_->WriteAtomic(io::JoinPath(dir_, "metadata"), "v1\n" + j.dump(), /*overwrite=*/false);
  if (st.IsAlreadyExists()) {
    return Status::Invalid("Multiple streaming queries are concurrently using checkpoint '", dir_, "'");
  }
  ARROW_RETURN_NOT_OK(st);
  return md;
}

Status Checkpoint::UpdatePlan(const QueryMetadata& md) {
  const auto& fp = md.fingerprint;
  json j = {{"id", md.id}, {"sources", fp.sources}, {"sink", fp.sink}, {"plan", fp.plan}};
  return fs_->WriteAtomic(io::JoinPath(dir_, "metadata"), "v1\n" + j.dump(), /*overwrite=*/true);
}

Result<std::optional<OffsetSeq>> Checkpoint::GetOffsets(int64_t batch_id) const {
  ARROW_ASSIGN_OR_RAISE(auto body, offsets_.Get(batch_id));
  if (!body) return std::optional<OffsetSeq>{};
  ARROW_ASSIGN_OR_RAISE(auto seq, OffsetSeq::Parse(*body, offsets_.PathOf(batch_id)));
  return std::optional<OffsetSeq>(std::move(seq));
}

Result<std::optional<CommitEntry>> Checkpoint::GetCommit(int64_t batch_id) const {
  ARROW_ASSIGN_OR_RAISE(auto body, commits_.Get(batch_id));
  if (!body) return std::optional<CommitEntry>{};
  ARROW_ASSIGN_OR_RAISE(auto entry, CommitEntry::Parse(*body, commits_.PathOf(batch_id)));
  return std::optional<CommitEntry>(entry);
}

Result<bool> Checkpoint::CommitIsWhole(int64_t batch_id) const {
  const std::string path = commits_.PathOf(batch_id);
  ARROW_ASSIGN_OR_RAISE(auto info, fs_->Stat(path));
  if (!info) return true;
  ARROW_ASSIGN_OR_RAISE(std::string text, fs_->ReadFile(path));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return !text.empty() && text.back() == '}';
}

Status Checkpoint::Purge(int64_t latest_batch_id, int min_batches_to_retain) {
  // Keeps `min_batches_to_retain` entries before the latest one, so offsets/N-1 (needed to
  // re-run N) always survives.
  int64_t threshold = latest_batch_id - std::max(min_batches_to_retain, 1);
  if (threshold <= 0) return Status::OK();
  ARROW_RETURN_NOT_OK(offsets_.PurgeBefore(threshold));
  return commits_.PurgeBefore(threshold);
}

}  // namespace sluice::checkpoint
