// What `sluice run` prints for each batch (cli/run_monitor.h): the line's content, and that each
// line reaches the stream in one write.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "cli/run_monitor.h"
#include "support/status.h"
#include "support/write_recorder.h"

namespace sluice::cli {
namespace {

const char* kProgress =
    R"({"id":"q","name":"out","batchId":3,"numInputRows":460000,"processedRowsPerSecond":4220183.4,)"
    R"("sources":[{"metrics":{"numFilesOutstanding":"40"}}]})";

TEST(RunMonitor, PrintsEachBatchAsOneLineInOneWrite) {
  testing::WriteRecorder recorder;
  std::ostream out(&recorder);
  ASSERT_OK_AND_ASSIGN(auto monitor, RunMonitor::Make("", /*live=*/false, &out));
  monitor->onQueryProgress({kProgress});
  monitor->Finish();
  EXPECT_THAT(recorder.chunks(),
              ::testing::ElementsAre("sluice: out batch 3: 460000 rows (4220183 rows/s, 40 files pending)\n"));
}

TEST(RunMonitor, RedrawsTheLiveLineInOneWrite) {
  testing::WriteRecorder recorder;
  std::ostream out(&recorder);
  ASSERT_OK_AND_ASSIGN(auto monitor, RunMonitor::Make("", /*live=*/true, &out));
  monitor->onQueryProgress({kProgress});
  ASSERT_EQ(recorder.chunks().size(), 1u);
  EXPECT_EQ(recorder.chunks()[0], "\r\033[Kout: batch 3, 460000 rows, 4220183 rows/s, 40 files pending");
  monitor->Finish();
  EXPECT_EQ(recorder.chunks().back(), "\n");
}

}  // namespace
}  // namespace sluice::cli
