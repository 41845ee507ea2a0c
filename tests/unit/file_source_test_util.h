// Helpers shared by the file source tests: a fresh temp dir, files with chosen mtimes, specs,
// and tables rendered as rows of text.
#pragma once

#include <arrow/api.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/file_system.h"
#include "support/temp_dir.h"
#include "plan/logical_plan.h"
#include "source/schema_inference.h"

namespace sluice::source::testing {

using sluice::testing::TempDir;

/// Writes `content` to `path` (creating parents) and sets its mtime to `mtime_ms`.
inline void WriteFile(const std::string& path, const std::string& content, int64_t mtime_ms = 1'700'000'000'000) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << content;
  struct timespec times[2];
  times[0].tv_sec = times[1].tv_sec = mtime_ms / 1000;
  times[0].tv_nsec = times[1].tv_nsec = (mtime_ms % 1000) * 1'000'000;
  ::utimensat(AT_FDCWD, path.c_str(), times, 0);
}

inline plan::SourceSpec Spec(const std::string& format, const std::string& path, std::shared_ptr<arrow::Schema> schema,
                             std::vector<std::pair<std::string, std::string>> options = {}, bool streaming = true) {
  plan::SourceSpec spec;
  spec.format = format;
  spec.path = path;
  spec.schema = std::move(schema);
  spec.streaming = streaming;
  for (const auto& [k, v] : options) spec.options.Set(k, v);
  return spec;
}

/// The schema `inference` makes of files with `contents`, written in that order into a fresh
/// directory as part-<i>.<ext>; null when they hold nothing to infer from.
inline Result<std::shared_ptr<arrow::Schema>> InferFromContents(SchemaInference& inference,
                                                                const std::vector<std::string>& contents,
                                                                const std::string& ext) {
  TempDir dir;
  for (size_t i = 0; i < contents.size(); ++i) {
    const std::string path = dir.Sub("part-" + std::to_string(i) + "." + ext);
    WriteFile(path, contents[i]);
    ARROW_RETURN_NOT_OK(inference.AddFile(io::LocalFileSystem().get(), path));
  }
  return inference.Finish();
}

/// Each row as "v1|v2|...", nulls as "null".
inline std::vector<std::string> Rows(const std::shared_ptr<arrow::Table>& table) {
  std::vector<std::string> out;
  if (!table) return out;
  for (int64_t r = 0; r < table->num_rows(); ++r) {
    std::string row;
    for (int c = 0; c < table->num_columns(); ++c) {
      if (c) row += "|";
      auto scalar = table->column(c)->GetScalar(r).ValueOrDie();
      row += scalar->is_valid ? scalar->ToString() : "null";
    }
    out.push_back(row);
  }
  return out;
}

/// The local filesystem the readers are given.
inline std::shared_ptr<io::FileSystem> LocalFs() { return io::LocalFileSystem(); }

/// a BIGINT, b STRING, c DOUBLE.
inline std::shared_ptr<arrow::Schema> ABC() {
  return arrow::schema({arrow::field("a", arrow::int64()), arrow::field("b", arrow::utf8()),
                        arrow::field("c", arrow::float64())});
}

}  // namespace sluice::source::testing
