// Helpers for integration tests: temp dirs, input files, running the test tools, reading a
// sink's committed rows.
#pragma once

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sluice/sluice.h"
#include "support/status.h"
#include "support/temp_dir.h"

namespace sluice::testing {


/// Writes `content` to `dir/name` via a hidden temp file and rename (the producer convention).
void WriteInputFile(const std::string& dir, const std::string& name, const std::string& content);
/// JSON lines {"id":i,"name":"n<i>","price":i*1.5} for i in [first, first + count).
std::string JsonRows(int64_t first, int64_t count);
/// Writes `text` to `path` (truncating); returns `path`.
std::string WriteText(const std::string& path, const std::string& text);
/// The whole content of a text file ("" when it cannot be read).
std::string ReadText(const std::string& path);
/// Runs a command line; returns its exit status (or 128 + signal).
int RunCommand(const std::string& command_line);
/// Path of a built tool (build/bin/<name>).
std::string ToolPath(const std::string& name);
/// The int64 column `column` of `table`, sorted.
std::vector<int64_t> SortedInts(const std::shared_ptr<arrow::Table>& table, const std::string& column);
/// [first, last) as a vector.
std::vector<int64_t> Range(int64_t first, int64_t last);
/// Rows a file sink directory holds, read by sluice's batch reader (committed files only).
std::shared_ptr<arrow::Table> ReadSinkDir(const std::string& dir, const std::string& format = "parquet");
/// A kill count for a crash test: the environment variable `name` when it holds a positive
/// integer (the sanitizer run sets fewer), else `default_count`; never more than `default_count`.
int KillsFromEnv(const char* name, int default_count);

}  // namespace sluice::testing
