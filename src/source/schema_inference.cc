// The schema of a batch read without a declared one: the loop over the files (what is skipped,
// what is an error), json and csv folded by their SchemaInference, parquet's schemas unified.
#include "source/schema_inference.h"

#include <arrow/api.h>

#include "source/file_readers.h"
#include "util/log.h"

namespace sluice::source {

Result<std::shared_ptr<arrow::Schema>> InferSchemaOfFiles(const plan::SourceSpec& spec, const FileSourceOptions& opts,
                                                          const std::shared_ptr<io::FileSystem>& fs,
                                                          const std::vector<std::string>& files) {
  if (files.empty()) {
    return Status::Invalid("Unable to infer schema for ", spec.format, " at ",
                           io::PathToUri(io::AbsolutePath(io::UriToPath(spec.path))),
                           ": there are no data files. It must be specified manually.");
  }
  // json and csv fold every record of every file (Spark's rules); parquet unifies the files'
  // schemas; text is one column.
  std::unique_ptr<SchemaInference> inference;
  if (opts.format.format == "json") inference = MakeJsonSchemaInference(opts.format);
  if (opts.format.format == "csv") inference = MakeCsvSchemaInference(opts.format);
  std::vector<std::shared_ptr<arrow::Schema>> schemas;
  for (const auto& f : files) {
    // As reading does (ReadDataFiles): a 0-byte Parquet file has no rows and no schema, so Spark
    // skips it; a file that cannot be read is skipped only with ignoreCorruptFiles /
    // ignoreMissingFiles, and otherwise named with the option that would skip it.
    ARROW_ASSIGN_OR_RAISE(auto info, fs->Stat(f));
    if (!info) {
      if (opts.format.ignore_missing_files) {
        util::LogWarning("Skipped ", io::PathToUri(f), " while inferring the schema: it no longer exists");
        continue;
      }
      return Status::IOError("File ", io::PathToUri(f), " was listed but no longer exists (deleted after it was "
                             "listed?); set the source option ignoreMissingFiles = true (or "
                             "spark.sql.files.ignoreMissingFiles) to skip such files");
    }
    if (opts.format.format == "parquet" && info->size == 0) continue;
    Status added;
    if (inference) {
      added = inference->AddFile(fs.get(), f);
    } else {
      auto s = InferDataFileSchema(fs.get(), f, opts.format);
      if (s.ok()) schemas.push_back(std::move(*s));
      added = s.status();
    }
    if (!added.ok() && added.IsIOError()) {
      if (opts.format.ignore_corrupt_files) {
        util::LogWarning("Skipped ", io::PathToUri(f), " while inferring the schema: ", added.message());
        continue;
      }
      return added.WithMessage("Cannot infer the schema: ", added.message(),
                               "; set the source option ignoreCorruptFiles = true (or "
                               "spark.sql.files.ignoreCorruptFiles) to skip files that cannot be read");
    }
    ARROW_RETURN_NOT_OK(added);
  }
  if (inference) {
    auto finished = inference->Finish();
    if (!finished.ok()) {
      return finished.status().WithMessage("Cannot infer the schema of the ", spec.format, " files at ",
                                           io::PathToUri(io::AbsolutePath(io::UriToPath(spec.path))), ": ",
                                           finished.status().message());
    }
    std::shared_ptr<arrow::Schema> schema = std::move(*finished);
    if (schema && schema->num_fields() > 0) return schema;
  }
  if (schemas.empty()) {
    return Status::Invalid("Unable to infer schema for ", spec.format, " at ",
                           io::PathToUri(io::AbsolutePath(io::UriToPath(spec.path))), ": none of its ", files.size(),
                           inference ? " file(s) holds a record to infer it from (empty, blank or skipped)"
                                     : " file(s) has a schema (empty or skipped)",
                           ". It must be specified manually.");
  }
  auto merge = arrow::Field::MergeOptions::Permissive();
  auto unified = arrow::UnifySchemas(schemas, merge);
  if (!unified.ok()) {
    return Status::Invalid("Cannot merge the schemas of the ", spec.format, " files under ", spec.path, ": ",
                           unified.status().message());
  }
  return *unified;
}

}  // namespace sluice::source
