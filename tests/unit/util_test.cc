// The small shared helpers of src/util: checked number parsing, the duration parser, string
// helpers and the logger seam.
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "support/log_capture.h"
#include "support/status.h"
#include "support/write_recorder.h"
#include "util/duration.h"
#include "util/log.h"
#include "util/numbers.h"
#include "util/strings.h"

namespace sluice::util {
namespace {

using ::testing::HasSubstr;

TEST(CheckedNumbers, ParseWholeTextOnly) {
  EXPECT_EQ(*ParseInt64("42", "n"), 42);
  EXPECT_EQ(*ParseInt64("-9223372036854775808", "n"), INT64_MIN);
  EXPECT_EQ(*ParseInt32("2147483647", "n"), INT32_MAX);
  EXPECT_DOUBLE_EQ(*ParseDouble("-2.5e3", "x"), -2500.0);
  for (const char* bad : {"", " 1", "1 ", "1x", "0x10", "+-1", "1.5"}) {
    auto r = ParseInt64(bad, "option 'n'");
    ASSERT_FALSE(r.ok()) << "'" << bad << "'";
    EXPECT_EQ(r.status().message(), std::string("option 'n': '") + bad + "' is not an integer");
  }
  EXPECT_FALSE(ParseDouble("1.5.2", "x").ok());
  EXPECT_FALSE(ParseDouble("", "x").ok());
}

TEST(CheckedNumbers, OutOfRangeIsAnErrorNotAnException) {
  auto big = ParseInt64("99999999999999999999", "file 'v.json'");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().message(), "file 'v.json': '99999999999999999999' is out of range for a 64-bit integer");
  EXPECT_THAT(ParseInt32("2147483648", "p").status().message(), HasSubstr("out of range for a 32-bit integer"));
  EXPECT_THAT(ParseDouble("1e999", "x").status().message(), HasSubstr("out of range"));
  EXPECT_EQ(CheckedMultiply(INT64_MAX / 2, 2), INT64_MAX - 1);
  EXPECT_FALSE(CheckedMultiply(INT64_MAX / 2 + 1, 2).has_value());
  EXPECT_FALSE(CheckedMultiply(INT64_MIN, -1).has_value());
}

TEST(Durations, UnitsSpacesAndCase) {
  EXPECT_EQ(*ParseDurationMs("maxFileAge", "7d"), 7LL * 24 * 3600 * 1000);
  EXPECT_EQ(*ParseDurationMs("maxFileAge", "1h"), 3600LL * 1000);
  EXPECT_EQ(*ParseDurationMs("maxFileAge", "30 min"), 30LL * 60 * 1000);
  EXPECT_EQ(*ParseDurationMs("maxFileAge", "500"), 500);
  EXPECT_EQ(*ParseDurationMs("maxFileAge", "2 DAYS"), 2LL * 24 * 3600 * 1000);
  EXPECT_EQ(*ParseDurationMs("x", " 10 seconds "), 10000);
  EXPECT_EQ(*ParseDurationMs("x", "1w"), 7LL * 24 * 3600 * 1000);
}

TEST(Durations, ErrorsNameTheOptionAndTheText) {
  EXPECT_EQ(ParseDurationMs("maxFileAge", "7 fortnights").status().message(),
            "Invalid value '7 fortnights' for option 'maxFileAge', must be a duration such as 7d, 12h, 30m, 10s or "
            "500ms");
  EXPECT_FALSE(ParseDurationMs("x", "d").ok());
  EXPECT_FALSE(ParseDurationMs("x", "-5s").ok());
  EXPECT_FALSE(ParseDurationMs("x", "").ok());
  // Too many digits for int64, and digits that fit but overflow once scaled.
  for (const char* big : {"99999999999999999999d", "106751991167301d", "9223372036854775808"}) {
    auto r = ParseDurationMs("--older-than", big);
    ASSERT_FALSE(r.ok()) << big;
    EXPECT_THAT(r.status().message(),
                HasSubstr(std::string("Invalid value '") + big + "' for option '--older-than': too large"));
  }
  EXPECT_EQ(*ParseDurationMs("x", "106751991167d"), 106751991167LL * 86400000);  // the largest whole day count
  EXPECT_THAT(ParseDurationMs("x", "106751991168d").status().message(), HasSubstr("at most 106751991167 d"));
}

TEST(Strings, CaseAndTrim) {
  EXPECT_EQ(ToLower("MiXeD-1"), "mixed-1");
  EXPECT_EQ(ToUpper("MiXeD-1"), "MIXED-1");
  EXPECT_EQ(Trim(" \t\r\n a b \n"), "a b");
  EXPECT_EQ(Trim("   "), "");
  EXPECT_EQ(Concat("a", 1, '-', 2.5), "a1-2.5");
}

TEST(Logging, ReplaceableSinkGetsLevelAndMessage) {
  {
    testing::LogCapture log;
    LogWarning("could not delete ", "/x", ": ", 3);
    LogError("failed");
    LogDebug("dropped below the default level");
    EXPECT_EQ(log.Text(), "warning: could not delete /x: 3\nerror: failed\n");
  }
  testing::LogCapture outer;
  {
    testing::LogCapture inner;
    LogInfo("to the inner sink");
  }
  LogInfo("back to the outer sink");
  EXPECT_EQ(outer.Text(), "info: back to the outer sink\n");
}

TEST(Logging, MinimumLevelFiltersAndMessagesFromThreadsAllArrive) {
  testing::LogCapture log;
  SetMinLogLevel(LogLevel::kError);
  LogWarning("hidden");
  SetMinLogLevel(LogLevel::kDebug);
  LogDebug("shown");
  SetMinLogLevel(LogLevel::kInfo);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 100; ++i) LogInfo("thread ", t, " message ", i);
    });
  }
  for (auto& th : threads) th.join();
  const auto entries = log.entries();
  ASSERT_EQ(entries.size(), 401u);
  EXPECT_EQ(entries[0].second, "shown");
}

// An embedding application sees the library's messages through the public header alone.
TEST(Logging, PublicSinkReceivesLibraryMessagesAndIsRestored) {
  testing::LogCapture before;
  std::vector<std::string> seen;
  sluice::LogSink previous = sluice::SetLogSink([&seen](sluice::LogLevel level, std::string_view message) {
    seen.push_back(std::string(sluice::LogLevelName(level)) + " " + std::string(message));
  });
  sluice::SetMinLogLevel(sluice::LogLevel::kWarning);
  LogInfo("filtered out");
  LogWarning("disk ", 3, " is slow");
  sluice::SetMinLogLevel(sluice::LogLevel::kInfo);
  sluice::LogSink mine = sluice::SetLogSink(std::move(previous));
  LogWarning("not mine any more");
  EXPECT_THAT(seen, ::testing::ElementsAre("warning disk 3 is slow"));
  ASSERT_TRUE(static_cast<bool>(mine));
  EXPECT_EQ(before.Text(), "warning: not mine any more\n");
}

// The default sink writes a whole line to stderr at once: the CLI's progress lines go to stderr
// from another thread, and pieces of two lines must not mix.
TEST(Logging, TheStderrSinkWritesEachLineInOneWrite) {
  testing::WriteRecorder recorder;
  std::streambuf* stderr_buffer = std::cerr.rdbuf(&recorder);
  sluice::LogSink previous = sluice::SetLogSink(nullptr);  // back to the default: stderr
  LogWarning("could not delete ", "/x");
  LogInfo("done");
  sluice::SetLogSink(std::move(previous));
  std::cerr.rdbuf(stderr_buffer);
  EXPECT_THAT(recorder.chunks(), ::testing::ElementsAre("sluice: warning: could not delete /x\n", "sluice: done\n"));
}

}  // namespace
}  // namespace sluice::util
