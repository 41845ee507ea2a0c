// The source and sink kind registries: what each built-in kind declares, unknown names listed
// with the known ones, a sink added by one registration working end to end, and the registry
// both are kept in.
#include <gtest/gtest.h>

#include <mutex>

#include "sink/sink_registry.h"
#include "sluice/sluice.h"
#include "source/source_registry.h"
#include "support/status.h"
#include "util/kind_registry.h"

namespace sluice {
namespace {

TEST(SourceKindTest, BuiltInKindsDeclareWhatTheyRead) {
  const auto* json = source::FindSourceKind("JSON");
  ASSERT_NE(json, nullptr);
  EXPECT_EQ(json->name, "json");
  EXPECT_TRUE(json->file_format());
  EXPECT_TRUE(json->streaming && json->batch);

  const auto* rate = source::FindSourceKind("rate-micro-batch");
  ASSERT_NE(rate, nullptr);
  EXPECT_FALSE(rate->file_format());
  EXPECT_TRUE(rate->streaming);
  EXPECT_FALSE(rate->batch);

  const auto* iceberg = source::FindSourceKind("iceberg");
  ASSERT_NE(iceberg, nullptr);
  EXPECT_EQ(iceberg->path, source::SourceKind::Path::kTableName);
  EXPECT_FALSE(iceberg->streaming);

  EXPECT_EQ(source::SourceKindList(/*files_only=*/true), "json, csv, parquet, text");
  EXPECT_EQ(source::FindSourceKind("jsonl"), nullptr);
}

TEST(SourceKindTest, UnknownFormatsListTheKnownOnes) {
  auto session = Session::Make();
  auto r = session->readStream().format("avro").schema("id BIGINT").load("/tmp");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("Unknown source format 'avro'"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("json, csv, parquet, text, rate, rate-micro-batch, socket, iceberg, kafka"),
            std::string::npos)
      << r.status();
  // memory is created by MemoryStream only.
  EXPECT_EQ(r.status().message().find("memory"), std::string::npos) << r.status();

  auto batch_of_stream = session->read().format("rate").load("/tmp");
  ASSERT_FALSE(batch_of_stream.ok());
  EXPECT_NE(batch_of_stream.status().message().find("can only be read as a stream"), std::string::npos)
      << batch_of_stream.status();
}

TEST(SinkKindTest, BuiltInKindsDeclareHowTheyWrite) {
  const auto* parquet = sink::FindSinkKind("Parquet");
  ASSERT_NE(parquet, nullptr);
  EXPECT_TRUE(parquet->file_format && parquet->batch && parquet->needs_checkpoint);
  const auto* memory = sink::FindSinkKind("memory");
  ASSERT_NE(memory, nullptr);
  EXPECT_FALSE(memory->needs_checkpoint);
  EXPECT_FALSE(memory->batch);
  EXPECT_EQ(sink::SinkKindList(/*batch_only=*/true), "parquet, json, csv, iceberg");
  EXPECT_EQ(sink::SinkKindList(), "parquet, json, csv, console, memory, iceberg, kafka");
}

TEST(SinkKindTest, UnknownSinkFormatListsTheKnownOnes) {
  auto session = Session::Make();
  MemoryStream input(session, "id BIGINT");
  auto q = input.toDF().writeStream().format("kafkaa").start();
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("Unknown sink format 'kafkaa'. Valid formats: parquet, json, csv, console, "
                                      "memory, iceberg, kafka (or foreachBatch(fn))"),
            std::string::npos)
      << q.status();
  // foreachBatch is chosen by foreachBatch(fn), not by name.
  auto by_name = input.toDF().writeStream().format("foreachBatch").start();
  ASSERT_FALSE(by_name.ok());
  EXPECT_NE(by_name.status().message().find("Unknown sink format"), std::string::npos) << by_name.status();

  auto batch = input.toDF().write().format("console").save("/tmp/x");
  ASSERT_FALSE(batch.ok());
  EXPECT_NE(batch.message().find("valid formats: parquet, json, csv"), std::string::npos) << batch;
}

// A sink that remembers the ids of the batches it was given.
class RecordingSink final : public sink::Sink {
 public:
  explicit RecordingSink(std::shared_ptr<std::vector<int64_t>> rows) : rows_(std::move(rows)) {}
  std::string Description() const override { return "RecordingSink"; }
  bool idempotent() const override { return false; }
  Status AddBatch(int64_t /*batch_id*/, const std::shared_ptr<arrow::Table>& rows) override {
    rows_->push_back(rows->num_rows());
    return Status::OK();
  }

 private:
  std::shared_ptr<std::vector<int64_t>> rows_;
};

TEST(SinkKindTest, ARegisteredSinkKindRunsAQuery) {
  auto rows = std::make_shared<std::vector<int64_t>>();
  sink::SinkKind kind;
  kind.name = "recording";
  kind.needs_checkpoint = false;
  kind.validate = [](const sink::SinkSpec& spec) { return spec.options.CheckKnown({"tag"}, "recording sink"); };
  kind.make = [rows](const sink::SinkSpec&, const sink::SinkContext&) -> Result<std::unique_ptr<sink::Sink>> {
    return std::make_unique<RecordingSink>(rows);
  };
  sink::RegisterSinkKind(kind);

  auto session = Session::Make();
  MemoryStream input(session, "id BIGINT");
  ASSERT_OK(input.addJson(R"([{"id": 1}, {"id": 2}, {"id": 3}])"));
  auto bad = input.toDF().writeStream().format("recording").option("tga", "x").start();
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("Unknown option 'tga' for the recording sink"), std::string::npos)
      << bad.status();
  ASSERT_OK_AND_ASSIGN(auto q, input.toDF().writeStream().format("Recording").option("tag", "t").trigger(AvailableNow()).start());
  ASSERT_OK(q.awaitTermination());
  EXPECT_EQ(*rows, std::vector<int64_t>({3}));
}

struct Named {
  std::string name;
  int version = 0;
  bool listed = true;
};

TEST(KindRegistryTest, FindsAnyCaseListsInOrderAndReplacesInPlaceKeepingTheOldAlive) {
  util::KindRegistry<Named> r({{"alpha", 1}, {"Beta", 1, false}, {"gamma", 1}});
  ASSERT_NE(r.Find("ALPHA"), nullptr);
  EXPECT_EQ(r.Find("beta")->name, "Beta");
  EXPECT_EQ(r.Find("delta"), nullptr);
  EXPECT_EQ(r.Names([](const Named&) { return true; }), (std::vector<std::string>{"alpha", "Beta", "gamma"}));
  EXPECT_EQ(r.Names([](const Named& k) { return k.listed; }), (std::vector<std::string>{"alpha", "gamma"}));

  const Named* old = r.Find("alpha");
  r.Register({"ALPHA", 2});  // the same name in another case: replaced where it stood
  EXPECT_EQ(r.Find("alpha")->version, 2);
  EXPECT_EQ(old->name, "alpha");  // still valid for whoever held it
  EXPECT_EQ(old->version, 1);
  r.Register({"delta", 1});
  EXPECT_EQ(r.Names([](const Named&) { return true; }),
            (std::vector<std::string>{"ALPHA", "Beta", "gamma", "delta"}));
}

}  // namespace
}  // namespace sluice
