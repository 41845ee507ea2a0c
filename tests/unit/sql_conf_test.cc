// Session settings: one setting per key whatever its spelling (spark.X / sluice.X), the value
// set last wins, and docs/configuration.md lists every key sluice reads.
#include "conf/sql_conf.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sluice/session.h"

namespace sluice::conf {
namespace {

TEST(SqlConfTest, BothSpellingsNameOneSetting) {
  EXPECT_EQ(SettingName("spark.sql.shuffle.partitions"), "sql.shuffle.partitions");
  EXPECT_EQ(SettingName("sluice.sql.shuffle.partitions"), "sql.shuffle.partitions");
  EXPECT_EQ(SettingName("custom.key"), "custom.key");
  EXPECT_EQ(SettingName("spark."), "spark.");
  EXPECT_EQ(CatalogKey("lake", "uri"), "spark.sql.catalog.lake.uri");
}

TEST(SqlConfTest, TheValueSetLastWinsWhicheverSpellingEachWriteUsed) {
  Settings s;
  s.Set("spark.sql.shuffle.partitions", "2");
  s.Set("sluice.sql.shuffle.partitions", "3");
  EXPECT_EQ(s.GetOr("spark.sql.shuffle.partitions", ""), "3");
  EXPECT_EQ(s.GetOr("sluice.sql.shuffle.partitions", ""), "3");
  s.Set("spark.sql.shuffle.partitions", "4");
  EXPECT_EQ(s.GetOr("sluice.sql.shuffle.partitions", ""), "4");
  EXPECT_FALSE(s.Get("spark.sql.streaming.minBatchesToRetain").has_value());
  EXPECT_EQ(s.GetOr("sluice.sql.streaming.minBatchesToRetain", "100"), "100");
  // Keys stay case-sensitive, as in Spark.
  EXPECT_FALSE(s.Get("spark.sql.SHUFFLE.partitions").has_value());
}

TEST(SqlConfTest, SessionConfFollowsTheRule) {
  auto session = Session::Make();
  session->setConf("sluice.sql.catalog.lake.type", "sql");
  EXPECT_EQ(session->conf("spark.sql.catalog.lake.type"), "sql");
  session->setConf("spark.sql.catalog.lake.type", "hadoop");
  EXPECT_EQ(session->conf("sluice.sql.catalog.lake.type"), "hadoop");
  EXPECT_EQ(session->conf("spark.sql.catalog.other.type", "none"), "none");
}

TEST(SqlConfTest, EveryKeyIsDocumentedWithItsDefault) {
  std::ifstream in(std::string(SLUICE_SOURCE_DIR) + "/docs/configuration.md");
  ASSERT_TRUE(in) << "docs/configuration.md is missing";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  for (const ConfEntry& e : AllConfEntries()) {
    const std::string row_start = "| `" + std::string(e.key) + "` |";
    const auto at = doc.find(row_start);
    ASSERT_NE(at, std::string::npos) << e.key << " is not in the table of docs/configuration.md";
    const std::string row = doc.substr(at, doc.find('\n', at) - at);
    const std::string def = e.default_value;
    if (!def.empty()) {
      EXPECT_NE(row.find(def), std::string::npos) << e.key << ": the default '" << def << "' differs";
    }
  }
}

TEST(SqlConfTest, CommandLineKeysAreCheckedWithADidYouMean) {
  EXPECT_EQ(CheckSettingKey("spark.sql.shuffle.partitions").kind, KeyCheck::Kind::kKnown);
  EXPECT_EQ(CheckSettingKey("sluice.sql.shuffle.partitions").kind, KeyCheck::Kind::kKnown);
  EXPECT_EQ(CheckSettingKey("sluice.sql.catalog.lake.uri").kind, KeyCheck::Kind::kKnown);
  EXPECT_EQ(CheckSettingKey("spark.sql.ansi.enabled").kind, KeyCheck::Kind::kKnown);
  // Near misses of a key sluice reads are refused, naming the key meant.
  for (const char* typo : {"spark.sql.shuffle.partition", "spark.sql.shuffle.partitons", "spark.SQL.Shuffle.Partitions"}) {
    const KeyCheck c = CheckSettingKey(typo);
    EXPECT_EQ(c.kind, KeyCheck::Kind::kRefused) << typo;
    EXPECT_NE(c.message.find("did you mean 'spark.sql.shuffle.partitions'?"), std::string::npos) << c.message;
  }
  const KeyCheck uri = CheckSettingKey("sluice.sql.catalog.lake.uir");
  EXPECT_EQ(uri.kind, KeyCheck::Kind::kRefused);
  EXPECT_NE(uri.message.find("did you mean 'sluice.sql.catalog.lake.uri'?"), std::string::npos) << uri.message;
  // Unknown sluice keys are refused; other Spark keys only warn.
  const KeyCheck unknown = CheckSettingKey("sluice.streaming.turbo");
  EXPECT_EQ(unknown.kind, KeyCheck::Kind::kRefused);
  EXPECT_NE(unknown.message.find("'sluice.streaming.turbo'"), std::string::npos);
  const KeyCheck spark = CheckSettingKey("spark.sql.adaptive.enabled");
  EXPECT_EQ(spark.kind, KeyCheck::Kind::kNoEffect);
  EXPECT_NE(spark.message.find("has no effect in sluice"), std::string::npos);
  EXPECT_EQ(CheckSettingKey("spark.sql.catalog.lake").kind, KeyCheck::Kind::kNoEffect);  // Spark's catalog class
}

}  // namespace
}  // namespace sluice::conf
