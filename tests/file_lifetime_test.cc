// The file-lifetime rule as a table (db/file_lifetime.h): which file of the
// DB directory DeleteObsoleteFiles may delete, given what it captured under
// the DB mutex; and PendingOutput, which holds a number from deletion
// until it is dropped.

#include "db/file_lifetime.h"

#include <set>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace sift {
namespace {

// A capture: tables 5 and 7 live (7's replacement filter 9 too), number 12
// pending; numbers up to 19 handed out; log 15 is being written, the
// MANIFEST's log number is 14; CURRENT names MANIFEST-13, MANIFEST-16 is
// being written.
LiveFiles Capture() {
  LiveFiles live;
  live.files = {5, 7, 9, 12};
  live.next_file_number = 20;
  live.log_number = 14;
  live.current_log = 15;
  live.durable_manifest = 13;
  live.manifest = 16;
  return live;
}

TEST(LiveFilesTest, ObsoleteTable) {
  const LiveFiles live = Capture();
  struct Case {
    uint64_t number;
    FileType type;
    bool obsolete;
  } cases[] = {
      {5, FileType::kTable, false},    // named by a live Version
      {6, FileType::kTable, true},     // named by none, not pending
      {9, FileType::kFilter, false},   // a live table's replacement filter
      {8, FileType::kFilter, true},    // a replaced filter
      {12, FileType::kTable, false},   // pending: being written
      {12, FileType::kFilter, false},  // pending: a filter being written
      {20, FileType::kTable, false},   // made after the capture
      {25, FileType::kFilter, false},  // made after the capture
      {13, FileType::kLog, true},      // below the log number
      {14, FileType::kLog, false},     // the log number's own
      {15, FileType::kLog, false},     // being written
      {12, FileType::kManifest, true},
      {13, FileType::kManifest, false},  // CURRENT names it
      {16, FileType::kManifest, false},  // being written
      {15, FileType::kTemp, true},
      {16, FileType::kTemp, false},
      {1, FileType::kCurrent, false},
      {1, FileType::kLock, false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(live.Obsolete(c.number, c.type), c.obsolete)
        << "number " << c.number << " type " << static_cast<int>(c.type);
  }
}

TEST(LiveFilesTest, PinnedLogsStayForACheckpoint) {
  LiveFiles live = Capture();
  EXPECT_TRUE(live.Obsolete(11, FileType::kLog));
  live.pinned_logs = 11;
  EXPECT_FALSE(live.Obsolete(11, FileType::kLog));
  EXPECT_FALSE(live.Obsolete(13, FileType::kLog));
  EXPECT_TRUE(live.Obsolete(10, FileType::kLog));
}

TEST(PendingOutputTest, HoldsItsNumberUntilDroppedOrReleased) {
  PendingOutputs pending;
  auto numbers = [&] {
    std::set<uint64_t> s;
    pending.AddTo(&s);
    return s;
  };
  {
    PendingOutput a = pending.Reserve(3);
    PendingOutput b = pending.Reserve(4);
    EXPECT_EQ(a.number(), 3u);
    EXPECT_EQ(numbers(), (std::set<uint64_t>{3, 4}));
    b.Release();
    EXPECT_EQ(numbers(), (std::set<uint64_t>{3}));
    b.Release();  // twice is once
    EXPECT_EQ(pending.size(), 1u);
    // Moved: one holder, released once.
    std::vector<PendingOutput> held;
    held.push_back(std::move(a));
    EXPECT_EQ(a.number(), 0u);  // emptied by the move
    EXPECT_EQ(numbers(), (std::set<uint64_t>{3}));
    PendingOutput c = pending.Reserve(5);
    c = std::move(held.back());  // drops 5, takes 3
    EXPECT_EQ(numbers(), (std::set<uint64_t>{3}));
    held.clear();
    EXPECT_EQ(numbers(), (std::set<uint64_t>{3}));
  }
  EXPECT_EQ(pending.size(), 0u);
}

}  // namespace
}  // namespace sift
