// Table directory names and file URIs (iceberg/location.h): the name -> directory mapping is
// injective and leaves safe names alone; URIs are read literally, and percent-decoded only
// for files a table recorded in the older, encoded form.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <set>

#include "iceberg/data_file.h"
#include "iceberg/location.h"
#include "iceberg/metadata.h"
#include "iceberg/partition_spec.h"
#include "iceberg/schema.h"
#include "iceberg/snapshot_update.h"
#include "iceberg/table_ops.h"
#include "support/status.h"
#include "support/temp_dir.h"

namespace sluice::iceberg {
namespace {

using sluice::testing::TempDir;

bool OnlyUnreservedBytes(const std::string& s) {
  for (unsigned char c : s) {
    if (!std::isalnum(c) && c != '.' && c != '_' && c != '-') return false;
  }
  return !s.empty();
}

std::string HashSuffix(const std::string& name) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "-%08x", static_cast<unsigned>(static_cast<uint32_t>(Murmur3Hash32(name))));
  return buf;
}

TEST(IcebergLocation, SafeNamesKeepTheirDirectory) {
  for (const std::string name : {"events", "my_table", "a-b", "v2.final", "A_B-c.D", "_", "-", "x.y.z"}) {
    EXPECT_EQ(LocationDirName(name), name);
  }
}

TEST(IcebergLocation, OtherNamesAreEscapedWithAHashOfTheName) {
  EXPECT_EQ(LocationDirName("my events"), "my_20events" + HashSuffix("my events"));
  EXPECT_EQ(LocationDirName("a_b c"), "a_5Fb_20c" + HashSuffix("a_b c"));
  EXPECT_EQ(LocationDirName("50%"), "50_25" + HashSuffix("50%"));
  EXPECT_EQ(LocationDirName("caf\xC3\xA9"), "caf_C3_A9" + HashSuffix("caf\xC3\xA9"));
  EXPECT_EQ(LocationDirName(".."), ".." + HashSuffix(".."));  // never the parent directory
  EXPECT_EQ(LocationDirName(""), HashSuffix(""));
  // The hash is Iceberg's murmur3_x86_32 (spec test vector: "iceberg" -> 1210000089).
  EXPECT_EQ(Murmur3Hash32("iceberg"), 1210000089);
}

TEST(IcebergLocation, EveryNameGetsItsOwnDirectoryThatNeedsNoEscaping) {
  // Every string of up to 3 bytes over an alphabet mixing safe bytes, the escape character,
  // the hex digits it produces, '-' (the hash separator) and bytes that need escaping.
  const std::string alphabet = std::string("a_2F0-. %") + "\xC3" + "\xA9";
  std::vector<std::string> names = {""};
  for (int len = 1; len <= 3; ++len) {
    std::vector<std::string> longer;
    for (const auto& prefix : names) {
      if (prefix.size() + 1 != static_cast<size_t>(len)) continue;
      for (char c : alphabet) longer.push_back(prefix + c);
    }
    names.insert(names.end(), longer.begin(), longer.end());
  }
  // Safe names resembling an escaped form (without its hash), and long names cut at 200.
  for (const std::string n : {"a_20b", "a b", "a%20b", "a_5F20b", "a_20b-00000000", "\xF0\x9F\x98\x80",
                              "\xE6\x97\xA5\xE6\x9C\xAC", "_E6_97_A5_E6_9C_AC"}) {
    names.push_back(n);
  }
  names.push_back(std::string(300, ' ') + "x");
  names.push_back(std::string(300, ' ') + "y");
  std::set<std::string> unique_names(names.begin(), names.end());
  std::set<std::string> dirs;
  for (const auto& n : unique_names) {
    const std::string dir = LocationDirName(n);
    EXPECT_TRUE(OnlyUnreservedBytes(dir)) << "'" << n << "' -> '" << dir << "'";
    EXPECT_NE(dir, ".");
    EXPECT_NE(dir, "..");
    EXPECT_LE(dir.size(), 209u) << n;
    EXPECT_TRUE(dirs.insert(dir).second) << "'" << n << "' shares directory '" << dir << "'";
  }
  EXPECT_EQ(dirs.size(), unique_names.size());
  EXPECT_GT(unique_names.size(), 1000u);
  // The one way to collide (documented): a safe name spelled exactly as another name's
  // directory, hash included, is its own directory.
  EXPECT_EQ(LocationDirName(LocationDirName("a b")), LocationDirName("a b"));
}

TEST(IcebergLocation, UrisAreReadLiterallyUnlessOnlyTheDecodedFileExists) {
  TempDir dir;
  auto fs = io::LocalFileSystem();
  // Written by another engine: a directory literally named "a%41b", and one named "aAb".
  std::filesystem::create_directories(dir.Sub("a%41b"));
  std::filesystem::create_directories(dir.Sub("aAb"));
  EXPECT_EQ(LocalPath(fs.get(), "file://" + dir.Sub("a%41b")), dir.Sub("a%41b"));
  EXPECT_EQ(LocalPath(fs.get(), "file:" + dir.Sub("a%41b")), dir.Sub("a%41b"));
  // Written by sluice before: "sp ace" recorded as "sp%20ace".
  std::filesystem::create_directories(dir.Sub("sp ace"));
  EXPECT_EQ(LocalPath(fs.get(), io::PathToUri(dir.Sub("sp ace"))), dir.Sub("sp ace"));
  // Neither exists: the literal path (what the error then names).
  EXPECT_EQ(LocalPath(fs.get(), "file://" + dir.Sub("no%20such")), dir.Sub("no%20such"));
  EXPECT_EQ(LocalPath(fs.get(), "/plain/pa%20th"), "/plain/pa%20th");
}

// A table keeps the form its location is recorded in: a literal location gets literal file
// URIs (also for URL-encoded partition directories), a percent-encoded one encoded file URIs;
// both read back.
TEST(IcebergLocation, NewFilesExtendTheLocationAsRecorded) {
  TempDir dir;
  auto fs = io::LocalFileSystem();
  auto arrow_schema = arrow::schema({arrow::field("id", arrow::int64())});
  auto schema = *SchemaFromArrow(*arrow_schema);
  arrow::Int64Builder b;
  ASSERT_OK(b.AppendValues({1, 2, 3}));
  auto rows = arrow::Table::Make(arrow_schema, {*b.Finish()});

  struct Case {
    std::string location;
    std::string expected_dir;  // on the file system
    std::string expected_uri_prefix;
  };
  std::filesystem::create_directories(dir.Sub("plain"));
  std::filesystem::create_directories(dir.Sub("old table"));
  const std::vector<Case> cases = {
      {FileUri(dir.Sub("plain")), dir.Sub("plain"), FileUri(dir.Sub("plain")) + "/data/s=a%2Fb/"},
      {io::PathToUri(dir.Sub("old table")), dir.Sub("old table"),
       io::PathToUri(dir.Sub("old table")) + "/data/s=a%252Fb/"},
  };
  for (const auto& c : cases) {
    auto meta = NewTableMetadata(c.location, schema, {}, NowMs());
    const TableFile at = TableFileAt(fs.get(), meta, "data/s=a%2Fb/f.parquet");
    EXPECT_EQ(at.path, c.expected_dir + "/data/s=a%2Fb/f.parquet");
    EXPECT_EQ(at.uri, c.expected_uri_prefix + "f.parquet");
    ASSERT_OK(fs->MakeDirs(TableFileAt(fs.get(), meta, "data/s=a%2Fb").path));
    SnapshotChange change;
    change.added = {*WriteDataFile(fs.get(), at, *rows, schema)};
    auto next = ApplySnapshotChange(fs.get(), meta, c.location + "/metadata/v1.metadata.json", change);
    ASSERT_OK(next);
    EXPECT_EQ(next->CurrentSnapshot()->manifest_list.rfind(c.location + "/metadata/snap-", 0), 0u)
        << next->CurrentSnapshot()->manifest_list;
    auto read = ReadCurrentSnapshot(fs.get(), *next);
    ASSERT_OK(read);
    EXPECT_EQ((*read)->num_rows(), 3);
  }
  EXPECT_TRUE(std::filesystem::exists(dir.Sub("plain/data/s=a%2Fb/f.parquet")));
  EXPECT_TRUE(std::filesystem::exists(dir.Sub("old table/data/s=a%2Fb/f.parquet")));
}

}  // namespace
}  // namespace sluice::iceberg
