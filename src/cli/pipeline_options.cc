#include "cli/pipeline_options.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "conf/sql_conf.h"
#include "util/duration.h"
#include "util/log.h"

namespace sluice::cli {

int ReportFailure(const Status& st) {
  util::LogError(st.message());
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
