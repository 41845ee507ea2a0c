// A compactible log's next compaction entry, written ahead in the background and named by its
// batch (checkpoint/compaction_writer.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "checkpoint/compaction_writer.h"
#include "support/counting_file_system.h"
#include "support/status.h"
#include "support/temp_dir.h"

namespace sluice::checkpoint {
namespace {

namespace fs = std::filesystem;

using sluice::testing::CountingFileSystem;
using sluice::testing::TempDir;

std::string ReadText(const std::string& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string EntryLine(int64_t id) { return "{\"entry\":" + std::to_string(id) + "}"; }

// Every name in `dir`, hidden ones included (a temp file left behind would show).
std::set<std::string> NamesIn(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

// The text of a compaction entry through `id` (one line per entry, entries without a line skipped).
std::string TextThrough(int64_t id) {
  std::string text = "v1\n";
  for (int64_t i = 0; i <= id; ++i) {
    if (i % 3 == 1) continue;  // these entries have no lines
    if (text.size() > 3) text += '\n';
    text += EntryLine(i);
  }
  return text;
}

std::string LinesOfEntry(int64_t id) { return id % 3 == 1 ? std::string() : EntryLine(id); }

// A new log's entries 0..8 and its first compaction, 9 (written whole: nothing is ahead yet).
Status WriteFirstCompaction(CompactionWriter* writer, io::EntrySync sync) {
  writer->Reset("v1\n", -1);
  for (int64_t id = 0; id < 9; ++id) writer->Append(id, LinesOfEntry(id));
  return writer->WriteCompaction(9, LinesOfEntry(9), sync, 19);
}

TEST(CompactionWriter, TheNextEntryIsWrittenAheadUnnamedAndItsBatchOnlyNamesIt) {
  TempDir tmp;
  auto counting = std::make_shared<CountingFileSystem>();
  const std::string dir = tmp.Sub("log");
  {
    CompactionWriter writer(counting, dir);
    ASSERT_OK(WriteFirstCompaction(&writer, io::EntrySync::kNow));
    EXPECT_EQ(counting->Calls("WriteAtomic", "9.compact"), 1);
    EXPECT_EQ(ReadText(dir + "/9.compact"), TextThrough(9));

    writer.WaitForBackground();
    EXPECT_TRUE(writer.WrittenAhead(19));
    EXPECT_EQ(counting->Calls("OpenNewFileUncached", "19.compact"), 1);
    EXPECT_EQ(NamesIn(dir), (std::set<std::string>{"9.compact"}));  // nothing named ahead of its batch

    for (int64_t id = 10; id < 19; ++id) writer.Append(id, LinesOfEntry(id));
    counting->Reset();
    ASSERT_OK(writer.WriteCompaction(19, LinesOfEntry(19), io::EntrySync::kNow, 29));
    EXPECT_EQ(counting->Calls("WriteAtomic"), 0);  // named, not written again
    EXPECT_EQ(counting->Calls("OpenNewFileUncached", "19.compact"), 0);  // (29 is being started meanwhile)
    EXPECT_EQ(ReadText(dir + "/19.compact"), TextThrough(19));
    EXPECT_EQ(writer.through(), 19);

    for (int64_t id = 20; id < 29; ++id) writer.Append(id, LinesOfEntry(id));
    ASSERT_OK(writer.WriteCompaction(29, LinesOfEntry(29), io::EntrySync::kNow, 39));
    EXPECT_EQ(counting->Calls("WriteAtomic"), 0);
    EXPECT_EQ(ReadText(dir + "/29.compact"), TextThrough(29));
    writer.Append(30, LinesOfEntry(30));
  }
  // The writer's end gave up entry 39, written ahead: it is not there, nor a temp file.
  EXPECT_EQ(NamesIn(dir), (std::set<std::string>{"9.compact", "19.compact", "29.compact"}));
}

TEST(CompactionWriter, ResetOrAnotherSyncGivesUpTheFileWrittenAhead) {
  TempDir tmp;
  auto counting = std::make_shared<CountingFileSystem>();
  const std::string dir = tmp.Sub("log");
  CompactionWriter writer(counting, dir);
  ASSERT_OK(WriteFirstCompaction(&writer, io::EntrySync::kDeferred));

  // Lines left the set (a sink's delete): the text is made again, the file ahead is dropped.
  writer.Reset("v1\n{\"other\":1}", 18);
  EXPECT_FALSE(writer.WrittenAhead(19));
  counting->Reset();
  ASSERT_OK(writer.WriteCompaction(19, "{\"other\":2}", io::EntrySync::kDeferred, 29));
  EXPECT_EQ(counting->Calls("WriteAtomicDeferred", "19.compact"), 1);
  EXPECT_EQ(ReadText(dir + "/19.compact"), "v1\n{\"other\":1}\n{\"other\":2}");

  // Written ahead for a deferred entry; a compaction asked to sync at once is written whole.
  for (int64_t id = 20; id < 29; ++id) writer.Append(id, "");
  writer.WaitForBackground();
  EXPECT_TRUE(writer.WrittenAhead(29));
  counting->Reset();
  ASSERT_OK(writer.WriteCompaction(29, "", io::EntrySync::kNow, 39));
  EXPECT_EQ(counting->Calls("WriteAtomic", "29.compact"), 1);
  EXPECT_EQ(ReadText(dir + "/29.compact"), "v1\n{\"other\":1}\n{\"other\":2}");
  ASSERT_OK(counting->SyncDeferred());
  writer.WaitForBackground();
  EXPECT_EQ(NamesIn(dir), (std::set<std::string>{"9.compact", "19.compact", "29.compact"}));
}

TEST(CompactionWriter, ASkippedEntryOrAnExistingEntryIsRefusedAndTheTextForgotten) {
  TempDir tmp;
  const std::string dir = tmp.Sub("log");
  CompactionWriter writer(io::LocalFileSystem(), dir);
  writer.Reset("v1\n", -1);
  writer.Append(0, EntryLine(0));
  writer.Append(2, EntryLine(2));  // entry 1 never came: the text cannot be trusted any more
  EXPECT_FALSE(writer.through().has_value());
  Status st = writer.WriteCompaction(9, EntryLine(9), io::EntrySync::kNow, 19);
  EXPECT_TRUE(st.IsInvalid()) << st.ToString();
  EXPECT_NE(st.ToString().find(dir), std::string::npos) << st.ToString();
  EXPECT_FALSE(fs::exists(dir + "/9.compact"));

  // Another writer made entry 19 meanwhile: create-only, whether written ahead or whole.
  writer.Reset("v1\n", 8);
  ASSERT_OK(writer.WriteCompaction(9, EntryLine(9), io::EntrySync::kNow, 19));
  for (int64_t id = 10; id < 19; ++id) writer.Append(id, "");
  writer.WaitForBackground();
  ASSERT_TRUE(writer.WrittenAhead(19));
  { std::ofstream(dir + "/19.compact") << "v1\n{\"theirs\":1}"; }
  st = writer.WriteCompaction(19, EntryLine(19), io::EntrySync::kNow, 29);
  EXPECT_TRUE(st.IsAlreadyExists()) << st.ToString();
  EXPECT_NE(st.ToString().find("another query"), std::string::npos) << st.ToString();
  EXPECT_EQ(ReadText(dir + "/19.compact"), "v1\n{\"theirs\":1}");
  EXPECT_FALSE(writer.through().has_value());
}

}  // namespace
}  // namespace sluice::checkpoint
