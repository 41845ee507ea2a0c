// Where a table's files live, and how their locations are written and read.
//
// Readers disagree about '%' in an Iceberg location: PyIceberg (pyarrow) and Hadoop's Path take
// the characters after "file://" literally, a URI parser percent-decodes them, and PyIceberg cuts
// a location at a raw '#' or '?'. Only [A-Za-z0-9._-] and '/' read the same everywhere.
//
// - Directory names: the sql catalog places a new table at <warehouse>/<ns>.db/<table> with the
//   namespace and the table name passed through LocationDirName, so a table's location holds
//   nothing a reader could decode differently, whatever its name. The catalog keeps the real
//   names; a stored location is never recomputed.
// - File URIs: new tables record "file://" + the absolute path, character for character (as
//   Iceberg's Java and Python writers do), and every file below a table extends the location
//   as the metadata records it (TableFileAt). Tables sluice wrote before this had their paths
//   percent-encoded (io::PathToUri); their new files keep that form.
// - Reading: LocalPath takes a URI literally, and percent-decodes it only when the literal path
//   does not exist but the decoded one does (files in the older, encoded form).
#pragma once

#include <string>

#include "iceberg/metadata.h"
#include "io/file_system.h"

namespace sluice::iceberg {

/// The directory name for a namespace or table `name`: the name itself when it is non-empty,
/// not made of dots only, and all its bytes are in [A-Za-z0-9._-]; otherwise every byte outside
/// [A-Za-z0-9.-] as "_XX" (uppercase hex of the UTF-8 byte; '_' itself is "_5F"), cut at 200
/// characters, then "-" and 8 lowercase hex digits of murmur3_x86_32 (seed 0) of the name.
/// Distinct names give distinct directories: the escape is reversible and the hash suffix keeps
/// escaped names apart from safe ones (only a safe name spelled exactly like another name's
/// escaped form, hash included, could collide; names cut at 200 then differ by their hashes).
/// Examples: "events" -> "events", "my events" -> "my_20events-<hash>", "日本" ->
/// "_E6_97_A5_E6_9C_AC-<hash>".
std::string LocationDirName(const std::string& name);

/// "file://" + `abs_path`, unescaped: the form a new table's location and files are recorded in.
std::string FileUri(const std::string& abs_path);

/// The local path of a file named by `uri` as a table's metadata records it ("file:///abs",
/// "file:/abs" or a plain path): the characters literally, unless that path does not exist and
/// the percent-decoded one does.
std::string LocalPath(io::FileSystem* fs, const std::string& uri);

/// The URI of local `path` in the form a table at `location` records its files in: `path`
/// percent-encoded (io::PathToUri) for a location sluice once wrote so, else FileUri(path).
std::string FileUriFor(io::FileSystem* fs, const std::string& location, const std::string& path);

/// A file below a table's location: where it is on the file system, and its URI for the
/// table's metadata.
struct TableFile {
  std::string path;
  std::string uri;
};

/// The file at `rel` ("data/x.parquet", "metadata/y.avro") below `metadata.location`. The URI
/// is the location as recorded + "/" + `rel`; for a location sluice once wrote percent-encoded
/// (its literal path does not exist, the decoded one does) it is the encoded form of the path.
TableFile TableFileAt(io::FileSystem* fs, const TableMetadata& metadata, const std::string& rel);

}  // namespace sluice::iceberg
