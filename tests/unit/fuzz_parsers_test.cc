// Deterministic mutation fuzzing of the readers and parsers that take bytes from disk or from a
// user: JSON lines, CSV, the checkpoint's offsets / commits / log files, the file sink log, and
// the SQL front end. Each seed is mutated (bit flips, byte overwrites and insertions, cuts,
// duplicated spans) by a fixed-seed generator, so a failure is reproducible from its iteration
// number. Properties: nothing crashes (the ASan build checks memory too), every input gives a
// result or an error Status, and checkpoint errors never carry a raw control byte (damaged files
// are described, not echoed to the terminal).
//
// SLUICE_FUZZ_ITERATIONS sets the mutations per target (default 300, about a second in all);
// `make fuzz` runs many more.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "checkpoint/file_sink_log.h"
#include "checkpoint/metadata_log.h"
#include "source/file_readers.h"
#include "sql/sql_script.h"
#include "support/status.h"
#include "support/temp_dir.h"

namespace sluice {
namespace {

int Iterations() {
  const char* env = std::getenv("SLUICE_FUZZ_ITERATIONS");
  const int n = env ? std::atoi(env) : 0;
  return n > 0 ? n : 300;
}

std::string Mutate(const std::string& seed, std::mt19937_64& rng) {
  std::string s = seed;
  auto pick = [&](size_t n) { return n == 0 ? size_t{0} : static_cast<size_t>(rng() % n); };
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    switch (rng() % 6) {
      case 0:  // flip a bit
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1 << (rng() % 8));
        break;
      case 1:  // overwrite a byte with anything, control bytes and invalid UTF-8 included
        if (!s.empty()) s[pick(s.size())] = static_cast<char>(rng() % 256);
        break;
      case 2:  // insert a byte
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(pick(s.size() + 1)), static_cast<char>(rng() % 256));
        break;
      case 3:  // cut the tail (a torn write)
        s.resize(pick(s.size() + 1));
        break;
      case 4: {  // duplicate a span
        if (s.empty()) break;
        const size_t at = pick(s.size());
        const size_t len = 1 + pick(std::min<size_t>(16, s.size() - at));
        s.insert(pick(s.size() + 1), s.substr(at, len));
        break;
      }
      default:  // delete a byte
        if (!s.empty()) s.erase(pick(s.size()), 1);
    }
  }
  return s;
}

// Runs `target` on `iterations` mutations of each seed (and the seeds themselves).
void Fuzz(const std::vector<std::string>& seeds, uint64_t seed_value,
          const std::function<void(const std::string&, int)>& target) {
  std::mt19937_64 rng(seed_value);
  const int n = Iterations();
  for (const auto& s : seeds) target(s, -1);
  for (int i = 0; i < n; ++i) target(Mutate(seeds[static_cast<size_t>(i) % seeds.size()], rng), i);
}

bool HasControlByte(const std::string& message) {
  for (char c : message) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) return true;
  }
  return false;
}

void ExpectDescribed(const Status& st, int iteration) {
  if (st.ok()) return;
  EXPECT_FALSE(HasControlByte(st.message())) << "iteration " << iteration << ": " << st.ToString();
}

TEST(Fuzz, JsonAndCsvReadersNeverCrashAndKeepStringsValidUtf8) {
  auto schema = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("name", arrow::utf8()),
                               arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")),
                               arrow::field("_corrupt_record", arrow::utf8())});
  const std::vector<std::string> json = {
      "{\"id\":1,\"name\":\"a\",\"ts\":\"2024-01-01 00:00:00\"}\n{\"id\":2,\"name\":\"b\\u00e9\"}\n",
      "{\"id\":3}\n\n{\"name\":null,\"ts\":\"2024-01-01T00:00:00.123456789Z\"}\r\n"};
  const std::vector<std::string> csv = {"id,name,ts\n1,a,2024-01-01 00:00:00\n2,\"b,c\",\n",
                                        "id,name,ts\n3,\"say \"\"hi\"\"\",2024-01-01T00:00:00Z\n"};
  for (auto mode : {source::ParseMode::kPermissive, source::ParseMode::kDropMalformed, source::ParseMode::kFailFast}) {
    source::FileFormatOptions options;
    options.mode = mode;
    auto check = [&](const Result<source::FileReadResult>& r, int i) {
      if (!r.ok()) return;
      ASSERT_TRUE(r->table->ValidateFull().ok()) << "iteration " << i << ": " << r->table->ValidateFull().ToString();
    };
    options.format = "json";
    Fuzz(json, 1, [&](const std::string& input, int i) {
      check(source::ReadJsonLines(arrow::Buffer::FromString(input), "/fuzz/a.json", schema, options, false), i);
    });
    options.format = "csv";
    options.header = true;
    Fuzz(csv, 2, [&](const std::string& input, int i) {
      check(source::ReadCsv(arrow::Buffer::FromString(input), "/fuzz/a.csv", schema, options, false), i);
    });
  }
}

TEST(Fuzz, CheckpointParsersDescribeDamageWithoutEchoingIt) {
  const std::vector<std::string> offsets = {
      "{\"batchWatermarkMs\":0,\"batchTimestampMs\":1700000000000,\"conf\":{\"spark.sql.shuffle.partitions\":\"2\"}}\n"
      "{\"logOffset\":3}\n-"};
  Fuzz(offsets, 3, [](const std::string& input, int i) {
    auto r = checkpoint::OffsetSeq::Parse(input, "/ckpt/offsets/3");
    ExpectDescribed(r.status(), i);
  });
  Fuzz({"{\"nextBatchWatermarkMs\":5000}"}, 4, [](const std::string& input, int i) {
    auto r = checkpoint::CommitEntry::Parse(input, "/ckpt/commits/3");
    ExpectDescribed(r.status(), i);
  });
  Fuzz({"{\"path\":\"file:///out/part-0.parquet\",\"size\":10,\"isDir\":false,\"modificationTime\":1,"
        "\"blockReplication\":1,\"blockSize\":1,\"action\":\"add\"}"},
       5, [](const std::string& input, int i) {
         auto r = checkpoint::SinkFileStatus::FromJson(input, "/out/_spark_metadata/0");
         ExpectDescribed(r.status(), i);
       });
  testing::TempDir dir;
  auto fs = io::LocalFileSystem();
  checkpoint::MetadataLog log(fs, dir.Sub("log"));
  ASSERT_OK(log.Add(0, "{\"logOffset\":0}"));
  Fuzz({"v1\n{\"logOffset\":0}"}, 6, [&](const std::string& input, int i) {
    ASSERT_OK(fs->WriteAtomic(dir.Sub("log/0"), input, /*overwrite=*/true));
    auto r = log.Get(0);
    ExpectDescribed(r.status(), i);
  });
}

TEST(Fuzz, SqlFrontEndNeverCrashes) {
  const std::vector<std::string> sql = {
      "SET spark.sql.shuffle.partitions = 2;\n"
      "CREATE TABLE events (id BIGINT, name TEXT, ts TIMESTAMP) WITH (connector = 'files', format = 'json', "
      "path = '/in');\n"
      "CREATE TABLE out () WITH (connector = 'files', format = 'parquet', path = '/out');\n"
      "INSERT INTO out SELECT id, upper(name) AS n, window_start FROM events "
      "WHERE id > 0 AND name LIKE 'a%' GROUP BY id, name, window(ts, '10 seconds');\n",
      "SELECT `id`, \"Odd \"\"Name\"\", CAST(x AS DECIMAL(10, 2)) FROM t -- comment\n/* block */;"};
  Fuzz(sql, 7, [](const std::string& input, int) { (void)sql::ParseScript(sql::SqlText("fuzz.sql", input)); });
}

}  // namespace
}  // namespace sluice
