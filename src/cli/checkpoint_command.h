// `sluice checkpoint show DIR` and `sluice checkpoint reset DIR`.
#pragma once

#include <istream>
#include <ostream>
#include <string>

#include "sluice/status.h"

namespace sluice::cli {

/// The checkpoint's state as pretty JSON: query id, latest offsets and commit batch ids, the
/// end offsets per source, and whether a restart will re-run a batch.
Result<std::string> ShowCheckpoint(const std::string& dir);

struct ResetArgs {
  std::string dir;
  bool yes = false;          // --yes: do not ask
  bool interactive = false;  // stdin is a terminal (asking is possible)
};

/// Starts one query's checkpoint over: prints what it holds, asks on `in` unless args.yes
/// (refuses, changing nothing, when not interactive), releases the sink's ownership record
/// (sink::ReleaseSink) and deletes the checkpoint's logs and state. Refuses while a run holds it.
Status ResetCheckpoint(const ResetArgs& args, std::istream& in, std::ostream& out);
/// The command: ResetCheckpoint on the process's stdin/stdout; exit status 0 or 1.
int ResetCheckpointCommand(const ResetArgs& args);

}  // namespace sluice::cli
