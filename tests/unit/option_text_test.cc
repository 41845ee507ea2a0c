// option(key, bool|double|integer) passes the value on as Spark spells it.
#include "api/option_text.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sluice/sluice.h"
#include "support/status.h"
#include "support/temp_dir.h"

namespace sluice {
namespace {

TEST(OptionTextTest, BooleansAndNumbersAreSpelledAsInSpark) {
  EXPECT_EQ(api::OptionText(true), "true");
  EXPECT_EQ(api::OptionText(false), "false");
  EXPECT_EQ(api::OptionText(0.5), "0.5");
  EXPECT_EQ(api::OptionText(10.0), "10.0");
  EXPECT_EQ(api::OptionText(-2.25), "-2.25");
  EXPECT_EQ(api::OptionText(0.0), "0.0");
  EXPECT_EQ(api::OptionText(1e20), "1.0E20");
  EXPECT_EQ(api::OptionText(1.5e-5), "1.5E-5");
  EXPECT_EQ(api::OptionText(0.1), "0.1");
}

TEST(OptionTextTest, ReaderAcceptsBoolAndNumberOptions) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.Sub("in"));
  std::ofstream(dir.Sub("in/a.csv")) << "id,name\n1,a\n2,b\n";
  auto session = Session::Make();
  // Before the bool overload, `true` became "1" and the csv source refused it.
  ASSERT_OK_AND_ASSIGN(auto df, session->read()
                                    .format("csv")
                                    .schema("id BIGINT, name STRING")
                                    .option("header", true)
                                    .option("maxFilesPerTrigger", 10)
                                    .load(dir.Sub("in")));
  ASSERT_OK_AND_ASSIGN(auto rows, df.collect());
  EXPECT_EQ(rows->num_rows(), 2);

  auto refused = session->readStream().format("csv").schema("id BIGINT").option("maxFilesPerTrigger", 0.5).load(dir.Sub("in"));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("'0.5'"), std::string::npos) << refused.status();
}

}  // namespace
}  // namespace sluice
