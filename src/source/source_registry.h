// Source kinds: the one table of the formats readStream()/read() accept. Each kind registers
// its name, what it reads (files under a path, a table name, nothing), whether it streams
// and/or reads as a batch, and its functions. Everything that dispatches on a source format
// (the readers, the SQL connectors, explain) asks this table.
//
// Adding a source: its file(s) in src/source/, and one entry in the list in source_registry.cc
// (or RegisterSourceKind before the first query).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "source/source.h"

namespace sluice::source {

struct SourceKind {
  enum class Path {
    kDirectory,  // load(path): files under a directory (json, csv, parquet, text)
    kTableName,  // load(name): a table of a catalog (iceberg)
    kNone,       // load(): generated rows (rate, socket) or rows from code (memory)
  };

  std::string name;  // lower case, as in format("...")
  Path path = Path::kNone;
  bool streaming = false;  // readStream()
  bool batch = false;      // read()
  /// False for kinds created only by code (memory: MemoryStream), not by format(name).
  bool user_visible = true;

  /// Checks options (names and values) without touching the filesystem; may be null.
  std::function<Status(const plan::SourceSpec&)> validate;
  /// The schema of the rows: declared, fixed by the kind, or inferred from the data.
  std::function<Result<std::shared_ptr<arrow::Schema>>(const plan::SourceSpec&,
                                                       const std::shared_ptr<io::FileSystem>&)>
      schema;
  /// Null when !streaming.
  std::function<Result<std::unique_ptr<Source>>(const plan::SourceSpec&, const SourceContext&)> make_stream;
  /// Null when !batch.
  std::function<Result<std::shared_ptr<arrow::Table>>(const plan::SourceSpec&, const std::shared_ptr<io::FileSystem>&)>
      read_batch;

  bool file_format() const { return path == Path::kDirectory; }
};

/// The kind named `name` (case-insensitive), or null.
const SourceKind* FindSourceKind(const std::string& name);
/// The kind named `name`; an unknown name is an error naming `where` and listing the known kinds.
Result<const SourceKind*> LookupSourceKind(const std::string& name, const std::string& where);
/// Names of the user-visible kinds (optionally only those reading files), in registration order.
std::vector<std::string> SourceKindNames(bool files_only = false);
/// "json, csv, parquet, text": SourceKindNames joined for messages.
std::string SourceKindList(bool files_only = false);
/// Adds a kind or replaces the one with the same name. Thread-safe; call before starting queries.
void RegisterSourceKind(SourceKind kind);

}  // namespace sluice::source
