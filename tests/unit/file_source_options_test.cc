// Option and schema validation of the file source: names, values and error texts.
#include <gtest/gtest.h>

#include "file_source_test_util.h"
#include "source/file_source.h"
#include "source/file_source_options.h"

namespace sluice::source {
namespace {

using testing::Spec;

std::shared_ptr<arrow::Schema> AB() {
  return arrow::schema({arrow::field("a", arrow::int64()), arrow::field("b", arrow::utf8())});
}

std::string ErrorOf(const plan::SourceSpec& spec) { return ValidateFileSourceSpec(spec).message(); }

TEST(FileSourceOptions, MaxFilesPerTriggerMustBePositive) {
  for (std::string bad : {"0", "-3", "abc", "1.5"}) {
    EXPECT_EQ(ErrorOf(Spec("json", "/in", AB(), {{"maxFilesPerTrigger", bad}})),
              "Invalid value '" + bad + "' for option 'maxFilesPerTrigger', must be a positive integer");
  }
  auto opts = ParseFileSourceOptions(Spec("json", "/in", AB(), {{"MAXFILESPERTRIGGER", "7"}}));
  ASSERT_TRUE(opts.ok()) << opts.status();
  EXPECT_EQ(opts->max_files_per_trigger, 7);
}

TEST(FileSourceOptions, UnknownOptionIsNamedWithValidOnes) {
  std::string msg = ErrorOf(Spec("json", "/in", AB(), {{"maxFilesPerTriger", "1"}}));
  EXPECT_NE(msg.find("Unknown option 'maxFilesPerTriger'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("maxFilesPerTrigger"), std::string::npos) << msg;
  EXPECT_NE(msg.find("columnNameOfCorruptRecord"), std::string::npos) << msg;
  // csv-only options are unknown to json
  EXPECT_NE(ErrorOf(Spec("json", "/in", AB(), {{"header", "true"}})).find("Unknown option 'header'"), std::string::npos);
  EXPECT_TRUE(ValidateFileSourceSpec(Spec("csv", "/in", AB(), {{"Header", "true"}, {"SEP", ";"}})).ok());
}

TEST(FileSourceOptions, BadValuesNameOptionAndValue) {
  EXPECT_EQ(ErrorOf(Spec("json", "/in", AB(), {{"mode", "lenient"}})),
            "Invalid value 'lenient' for option 'mode', must be one of PERMISSIVE, DROPMALFORMED, FAILFAST");
  EXPECT_EQ(ErrorOf(Spec("json", "/in", AB(), {{"latestFirst", "yes"}})),
            "Invalid value 'yes' for option 'latestFirst', must be true or false");
  EXPECT_NE(ErrorOf(Spec("json", "/in", AB(), {{"maxFileAge", "7 fortnights"}}))
                .find("Invalid value '7 fortnights' for option 'maxFileAge'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Spec("csv", "/in", AB(), {{"sep", "::"}})).find("Invalid value '::' for option 'sep'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Spec("json", "/in", AB(), {{"maxBytesPerTrigger", "0"}})).find("option 'maxBytesPerTrigger'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Spec("json", "/in", AB(), {{"cleanSource", "move"}})).find("option 'cleanSource'"),
            std::string::npos);
}

TEST(FileSourceOptions, ArchiveNeedsSourceArchiveDirOutsideTheInput) {
  EXPECT_EQ(ErrorOf(Spec("json", "/in", AB(), {{"cleanSource", "archive"}})),
            "Archive mode must be used with 'sourceArchiveDir' option.");
  EXPECT_NE(ErrorOf(Spec("json", "/in", AB(), {{"cleanSource", "archive"}, {"sourceArchiveDir", "/in/old"}}))
                .find("must not be inside the source path"),
            std::string::npos);
  EXPECT_TRUE(ValidateFileSourceSpec(Spec("json", "/in", AB(), {{"cleanSource", "ARCHIVE"}, {"sourceArchiveDir", "/arch"}})).ok());
}

TEST(FileSourceOptions, StreamingNeedsSchemaExceptText) {
  std::string msg = ErrorOf(Spec("json", "/in", nullptr));
  EXPECT_EQ(msg.rfind("Schema must be specified when creating a streaming source DataFrame for format json", 0), 0u)
      << msg;
  EXPECT_TRUE(ValidateFileSourceSpec(Spec("text", "/in", nullptr)).ok());
  EXPECT_TRUE(ValidateFileSourceSpec(Spec("json", "/in", nullptr, {}, /*streaming=*/false)).ok());
  EXPECT_NE(ErrorOf(Spec("avro", "/in", AB())).find("Unsupported file source format 'avro'"), std::string::npos);
}

TEST(FileSourceOptions, SchemaRules) {
  auto bad_corrupt = arrow::schema({arrow::field("a", arrow::int64()), arrow::field("_corrupt_record", arrow::int64())});
  EXPECT_NE(ErrorOf(Spec("json", "/in", bad_corrupt)).find("must be string type"), std::string::npos);
  auto two = arrow::schema({arrow::field("a", arrow::utf8()), arrow::field("b", arrow::utf8())});
  EXPECT_NE(ErrorOf(Spec("text", "/in", two)).find("single string column"), std::string::npos);
  auto nested = arrow::schema({arrow::field("a", arrow::list(arrow::int64()))});
  EXPECT_NE(ErrorOf(Spec("csv", "/in", nested)).find("column 'a'"), std::string::npos);
}

TEST(FileSourceOptions, DurationsAndMaxFileAgeRule) {
  EXPECT_EQ(*ParseDurationMs("maxFileAge", "7d"), 7LL * 24 * 3600 * 1000);
  EXPECT_EQ(*ParseDurationMs("maxFileAge", "1h"), 3600LL * 1000);
  EXPECT_EQ(*ParseDurationMs("maxFileAge", "30 min"), 30LL * 60 * 1000);
  EXPECT_EQ(*ParseDurationMs("maxFileAge", "500"), 500);
  EXPECT_EQ(*ParseDurationMs("maxFileAge", "2 DAYS"), 2LL * 24 * 3600 * 1000);
  auto bytes = ParseFileSourceOptions(Spec("json", "/in", AB(), {{"maxBytesPerTrigger", "10m"}}));
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(bytes->max_bytes_per_trigger, 10LL << 20);
  auto opts = ParseFileSourceOptions(Spec("json", "/in", AB(), {{"latestFirst", "true"}, {"maxFilesPerTrigger", "1"}}));
  ASSERT_TRUE(opts.ok());
  EXPECT_FALSE(opts->max_file_age_enabled());
  opts = ParseFileSourceOptions(Spec("json", "/in", AB(), {{"latestFirst", "true"}}));
  EXPECT_TRUE(opts->max_file_age_enabled());
}

}  // namespace
}  // namespace sluice::source
