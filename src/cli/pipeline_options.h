// Command-line pieces shared by `sluice run`, `sluice batch` and `sluice explain`: reading the
// pipeline file, --conf k=v, --trigger and --output-mode values.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "plan/output_mode.h"
#include "sluice/session.h"
#include "sluice/status.h"
#include "sluice/trigger.h"
#include "sql/sql_text.h"

namespace sluice::cli {

/// The pipeline file's text, named by the path given (so messages read "pipeline.sql:3:14").
Result<sql::SqlText> ReadPipelineFile(const std::string& path);

/// Applies "key=value" settings to `session`; an entry without '=' is an error naming it.
Status ApplyConf(const std::vector<std::string>& entries, Session* session);

/// "available-now" | "once" | "processing-time=<duration>" (10s, 500ms, 1 minute; a bare
/// number is milliseconds) | "processing-time" (= 0: back to back).
Result<Trigger> ParseTrigger(const std::string& text);

/// Reports a command's failure through the log seam (stderr: "sluice: <message>", in CliWording)
/// and returns the command's exit code, 1.
int ReportFailure(const Status& st);

/// `message` with the C++/Python API's spellings of what the command line sets another way
/// replaced by the command line's: outputMode("update") -> --output-mode update,
/// option("checkpointLocation", dir) -> --checkpoint DIR, withWatermark(...) -> the source options
/// event_time and watermark, save mode "overwrite" -> --mode overwrite. Every message a command
/// prints about a query goes through it; the library keeps the API's spellings.
std::string CliWording(std::string message);

/// --output-mode: "append" | "update" | "complete" (case-insensitive).
Result<plan::OutputMode> ParseOutputMode(const std::string& text);


}  // namespace sluice::cli
