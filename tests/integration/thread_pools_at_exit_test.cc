// The process's exit waits for the tasks a registered pool is running (util/thread_pools.h):
// returning from main no longer destroys static objects under a pool thread still inside a task.
#include <gtest/gtest.h>

#include <filesystem>

#include "integration/test_util.h"

namespace sluice::testing {
namespace {

TEST(ThreadPoolsAtExit, TheExitWaitsForARegisteredPoolsRunningTaskAndOnlyForThose) {
  TempDir dir;
  // Registered: the task, still sleeping when main returns, finishes before the process ends.
  ASSERT_EQ(RunCommand(ToolPath("pool_exit") + " waited " + dir.Sub("waited")), 0);
  EXPECT_TRUE(std::filesystem::exists(dir.Sub("waited")));
  // Not registered (the tool's control): the process ends under the task, which never finishes.
  ASSERT_EQ(RunCommand(ToolPath("pool_exit") + " bare " + dir.Sub("bare")), 0);
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("bare")));
}

}  // namespace
}  // namespace sluice::testing
