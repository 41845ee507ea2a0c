#include "cli/pipeline_options.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "conf/sql_conf.h"
#include "util/duration.h"
#include "util/log.h"

namespace sluice::cli {

namespace {

void ReplaceAll(std::string* text, const std::string& from, const std::string& to) {
  for (size_t at = text->find(from); at != std::string::npos; at = text->find(from, at + to.size())) {
    text->replace(at, from.size(), to);
  }
}

}  // namespace

std::string CliWording(std::string message) {
  // Whole phrases first (they already give the SQL spelling beside the API's), then the calls.
  static const std::pair<const char*, const char*> kPhrases[] = {
      {"Add withWatermark(\"<time column>\", \"<delay>\") and group by window(<time column>, ...) (SQL: source "
       "options event_time and watermark, GROUP BY tumble/hop/session)",
       "Set the source options event_time and watermark and GROUP BY tumble/hop/session(<time column>, ...)"},
      {"call withWatermark(eventTimeColumn, delay) before it (SQL: the source options event_time and watermark)",
       "set the source options event_time and watermark"},
      {"call withWatermark on it; SQL: the source options event_time and watermark",
       "set the source options event_time and watermark"},
      {"option(\"checkpointLocation\", dir)", "--checkpoint DIR"},
      {"checkpointLocation must be specified", "--checkpoint must be given"},
      {"a new checkpointLocation", "a new --checkpoint directory (or `sluice checkpoint reset` of this one)"},
      {"Set mode as \"overwrite\" to replace it or \"append\" to add files",
       "Use --mode overwrite to replace it or --mode append to add files"},
  };
  for (const auto& [from, to] : kPhrases) ReplaceAll(&message, from, to);
  for (const char* mode : {"append", "update", "complete"}) {
    ReplaceAll(&message, std::string("outputMode(\"") + mode + "\")", std::string("--output-mode ") + mode);
  }
  return message;
}

int ReportFailure(const Status& st) {
  util::LogError(CliWording(st.message()));
  return 1;
}

Result<sql::SqlText> ReadPipelineFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError("cannot read pipeline file '", path, "'");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return sql::SqlText(path, buffer.str());
}

Status ApplyConf(const std::vector<std::string>& entries, Session* session) {
  for (const auto& entry : entries) {
    size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::Invalid("--conf '", entry, "': expected key=value");
    }
    const std::string key = entry.substr(0, eq);
    const conf::KeyCheck check = conf::CheckSettingKey(key);
    if (check.kind == conf::KeyCheck::Kind::kRefused) return Status::Invalid("--conf ", check.message);
    if (check.kind == conf::KeyCheck::Kind::kNoEffect) util::LogWarning("--conf ", check.message);
    session->setConf(key, entry.substr(eq + 1));
  }
  return Status::OK();
}

Result<Trigger> ParseTrigger(const std::string& text) {
  std::string t = text;
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  if (t == "available-now" || t == "availablenow") return AvailableNow();
  if (t == "once") return Once();
  if (t == "processing-time" || t == "processingtime") return ProcessingTime(0);
  const std::string prefix = "processing-time=";
  if (t.rfind(prefix, 0) == 0) {
    auto ms = util::ParseDurationMs("--trigger processing-time", text.substr(prefix.size()));
    if (!ms.ok()) return ms.status();
    return ProcessingTime(*ms);
  }
  return Status::Invalid("--trigger '", text, "': expected available-now, once or processing-time=<duration> (e.g. 10s)");
}

Result<plan::OutputMode> ParseOutputMode(const std::string& text) {
  auto mode = plan::ParseOutputMode(text);
  if (!mode.ok()) return Status::Invalid("--output-mode: ", mode.status().message());
  return mode;
}

}  // namespace sluice::cli
