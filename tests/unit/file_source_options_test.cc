// Option and schema validation of the file source: names, values and error texts.
#include <gtest/gtest.h>

#include "file_source_test_util.h"
#include "source/file_source.h"
#include "source/file_source_options.h"
#include "support/status.h"

namespace sluice::source {
namespace {

using ::testing::HasSubstr;

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
  ASSERT_OK(opts);
  EXPECT_EQ(opts->max_files_per_trigger, 7);
}

TEST(FileSourceOptions, UnknownOptionIsNamedWithValidOnes) {
  std::string msg = ErrorOf(Spec("json", "/in", AB(), {{"maxFilesPerTriger", "1"}}));
  EXPECT_THAT(msg, HasSubstr("Unknown option 'maxFilesPerTriger'"));
  EXPECT_THAT(msg, HasSubstr("maxFilesPerTrigger"));
  EXPECT_THAT(msg, HasSubstr("columnNameOfCorruptRecord"));
  // csv-only options are unknown to json
  EXPECT_THAT(ErrorOf(Spec("json", "/in", AB(), {{"header", "true"}})), HasSubstr("Unknown option 'header'"));
  EXPECT_OK(ValidateFileSourceSpec(Spec("csv", "/in", AB(), {{"Header", "true"}, {"SEP", ";"}})));
}

TEST(FileSourceOptions, BadValuesNameOptionAndValue) {
  EXPECT_EQ(ErrorOf(Spec("json", "/in", AB(), {{"mode", "lenient"}})),
            "Invalid value 'lenient' for option 'mode', must be one of PERMISSIVE, DROPMALFORMED, FAILFAST");
  EXPECT_EQ(ErrorOf(Spec("json", "/in", AB(), {{"latestFirst", "yes"}})),
            "Invalid value 'yes' for option 'latestFirst', must be true or false");
  EXPECT_THAT(ErrorOf(Spec("json", "/in", AB(), {{"maxFileAge", "7 fortnights"}})),
              HasSubstr("Invalid value '7 fortnights' for option 'maxFileAge'"));
  EXPECT_THAT(ErrorOf(Spec("csv", "/in", AB(), {{"sep", "::"}})), HasSubstr("Invalid value '::' for option 'sep'"));
  EXPECT_THAT(ErrorOf(Spec("json", "/in", AB(), {{"maxBytesPerTrigger", "0"}})),
              HasSubstr("option 'maxBytesPerTrigger'"));
  EXPECT_THAT(ErrorOf(Spec("json", "/in", AB(), {{"cleanSource", "move"}})), HasSubstr("option 'cleanSource'"));
}

TEST(FileSourceOptions, JsonReaderChoosesTheDecoderOfJsonOnly) {
  auto plain = ParseFileSourceOptions(Spec("json", "/in", AB(), {}));
  ASSERT_OK(plain);
  EXPECT_EQ(plain->format.json_reader, JsonReader::kSimdjson);
  auto arrow = ParseFileSourceOptions(Spec("json", "/in", AB(), {{"jsonreader", " Arrow"}}));
  ASSERT_OK(arrow);
  EXPECT_EQ(arrow->format.json_reader, JsonReader::kArrow);
  EXPECT_EQ(ErrorOf(Spec("json", "/in", AB(), {{"jsonReader", "rapidjson"}})),
            "Invalid value 'rapidjson' for option 'jsonReader', must be simdjson or arrow");
  EXPECT_THAT(ErrorOf(Spec("csv", "/in", AB(), {{"jsonReader", "arrow"}})), HasSubstr("Unknown option 'jsonReader'"));
}

TEST(FileSourceOptions, ArchiveNeedsSourceArchiveDirOutsideTheInput) {
  EXPECT_EQ(ErrorOf(Spec("json", "/in", AB(), {{"cleanSource", "archive"}})),
            "Archive mode must be used with 'sourceArchiveDir' option.");
  EXPECT_THAT(ErrorOf(Spec("json", "/in", AB(), {{"cleanSource", "archive"}, {"sourceArchiveDir", "/in/old"}})),
              HasSubstr("must not be inside the source path"));
  EXPECT_OK(
      ValidateFileSourceSpec(Spec("json", "/in", AB(), {{"cleanSource", "ARCHIVE"}, {"sourceArchiveDir", "/arch"}})));
}

TEST(FileSourceOptions, StreamingNeedsSchemaExceptText) {
  std::string msg = ErrorOf(Spec("json", "/in", nullptr));
  EXPECT_EQ(msg.rfind("Schema must be specified when creating a streaming source DataFrame for format json", 0), 0u)
      << msg;
  EXPECT_OK(ValidateFileSourceSpec(Spec("text", "/in", nullptr)));
  EXPECT_OK(ValidateFileSourceSpec(Spec("json", "/in", nullptr, {}, /*streaming=*/false)));
  EXPECT_THAT(ErrorOf(Spec("avro", "/in", AB())), HasSubstr("Unsupported file source format 'avro'"));
}

TEST(FileSourceOptions, SchemaRules) {
  auto bad_corrupt = arrow::schema({arrow::field("a", arrow::int64()), arrow::field("_corrupt_record", arrow::int64())});
  EXPECT_THAT(ErrorOf(Spec("json", "/in", bad_corrupt)), HasSubstr("must be string type"));
  auto two = arrow::schema({arrow::field("a", arrow::utf8()), arrow::field("b", arrow::utf8())});
  EXPECT_THAT(ErrorOf(Spec("text", "/in", two)), HasSubstr("single string column"));
  auto nested = arrow::schema({arrow::field("a", arrow::list(arrow::int64()))});
  EXPECT_THAT(ErrorOf(Spec("csv", "/in", nested)), HasSubstr("column 'a'"));
}

// A JSON MAP column: string keys only (as Spark), refused with jsonReader = arrow (named), and
// only beside columns the simdjson reader decodes.
TEST(FileSourceOptions, JsonMapColumnRules) {
  auto map = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("m", arrow::map(arrow::utf8(), arrow::int32())),
                            arrow::field("_corrupt_record", arrow::utf8())});
  EXPECT_OK(ValidateFileSourceSpec(Spec("json", "/in", map)));
  EXPECT_OK(ValidateFileSourceSpec(Spec("json", "/in", map, {{"jsonReader", "simdjson"}})));
  const std::string arrow_reader = ErrorOf(Spec("json", "/in", map, {{"jsonReader", "arrow"}}));
  EXPECT_THAT(arrow_reader, HasSubstr("Column 'm'"));
  EXPECT_THAT(arrow_reader, HasSubstr("jsonReader = arrow"));
  // Nested inside an array, too; without a map the option is fine.
  auto in_list = arrow::schema({arrow::field("l", arrow::list(arrow::map(arrow::utf8(), arrow::utf8())))});
  EXPECT_THAT(ErrorOf(Spec("json", "/in", in_list, {{"jsonReader", "arrow"}})), HasSubstr("Column 'l'"));
  EXPECT_OK(ValidateFileSourceSpec(Spec("json", "/in", AB(), {{"jsonReader", "arrow"}})));

  auto int_key = arrow::schema({arrow::field("k", arrow::map(arrow::int32(), arrow::utf8()))});
  const std::string key = ErrorOf(Spec("json", "/in", int_key));
  EXPECT_THAT(key, HasSubstr("column 'k'"));
  EXPECT_THAT(key, HasSubstr("can only contain STRING as a key type for a MAP"));

  auto with_decimal = arrow::schema({arrow::field("m", arrow::map(arrow::utf8(), arrow::int64())),
                                     arrow::field("x", arrow::decimal128(5, 2))});
  EXPECT_THAT(ErrorOf(Spec("json", "/in", with_decimal)), HasSubstr("column 'x'"));
  EXPECT_OK(ValidateFileSourceSpec(Spec("json", "/in", arrow::schema({with_decimal->field(1)}))));
}

TEST(FileSourceOptions, DurationsAndMaxFileAgeRule) {
  ASSERT_OK_AND_ASSIGN(auto aged, ParseFileSourceOptions(Spec("json", "/in", AB(), {{"maxFileAge", "2 DAYS"}})));
  EXPECT_EQ(aged.max_file_age_ms, 2LL * 24 * 3600 * 1000);
  auto bytes = ParseFileSourceOptions(Spec("json", "/in", AB(), {{"maxBytesPerTrigger", "10m"}}));
  ASSERT_OK(bytes);
  EXPECT_EQ(bytes->max_bytes_per_trigger, 10LL << 20);
  auto opts = ParseFileSourceOptions(Spec("json", "/in", AB(), {{"latestFirst", "true"}, {"maxFilesPerTrigger", "1"}}));
  ASSERT_OK(opts);
  EXPECT_FALSE(opts->max_file_age_enabled());
  opts = ParseFileSourceOptions(Spec("json", "/in", AB(), {{"latestFirst", "true"}}));
  EXPECT_TRUE(opts->max_file_age_enabled());
}

}  // namespace
}  // namespace sluice::source
