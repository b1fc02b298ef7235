// DeleteRange: fragmenting range tombstones, the range-deletion block, and
// the DB honouring tombstones in the memtable, in tables, across flush,
// compaction, reopen, snapshots and iterators. The randomized coverage is
// in model_test.cc (DeleteRange against the model).

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "db/write_batch_internal.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/sst_file_writer.h"
#include "sift/write_batch.h"
#include "table/range_del_block.h"
#include "table/range_tombstone.h"
#include "table/table.h"
#include "table/table_builder.h"
#include "tests/testutil/counting_env.h"
#include "tests/testutil/db_files.h"
#include "tests/testutil/test_comparators.h"
#include "tests/testutil/testutil.h"

namespace sift {
namespace {

using Fragment = FragmentedRangeTombstones::Fragment;

std::string Key(int i) { return absl::StrFormat("k%04d", i); }

TEST(RangeTombstoneFragmentTest, OverlapsAreCutIntoDisjointFragments) {
  // [b, f)@5 and [d, h)@9 and [d, e)@3: cut at b, d, e, f, h.
  const FragmentedRangeTombstones t(
      {{"b", "f", 5}, {"d", "h", 9}, {"d", "e", 3}});
  const std::vector<Fragment>& f = t.fragments();
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].begin, "b");
  EXPECT_EQ(f[0].end, "d");
  EXPECT_EQ(f[0].seqs, (std::vector<SequenceNumber>{5}));
  EXPECT_EQ(f[1].begin, "d");
  EXPECT_EQ(f[1].end, "e");
  EXPECT_EQ(f[1].seqs, (std::vector<SequenceNumber>{9, 5, 3}));
  EXPECT_EQ(f[2].begin, "e");
  EXPECT_EQ(f[2].end, "f");
  EXPECT_EQ(f[2].seqs, (std::vector<SequenceNumber>{9, 5}));
  EXPECT_EQ(f[3].begin, "f");
  EXPECT_EQ(f[3].end, "h");
  EXPECT_EQ(f[3].seqs, (std::vector<SequenceNumber>{9}));
}

TEST(RangeTombstoneFragmentTest, CoveringSequencesAtAReadSequence) {
  const FragmentedRangeTombstones t(
      {{"b", "f", 5}, {"d", "h", 9}, {"d", "e", 3}});
  EXPECT_EQ(t.MaxCoveringSeq("a", 100), 0u);  // before every range
  EXPECT_EQ(t.MaxCoveringSeq("b", 100), 5u);  // begin is inside
  EXPECT_EQ(t.MaxCoveringSeq("d", 100), 9u);  // newest of three
  EXPECT_EQ(t.MaxCoveringSeq("d", 8), 5u);    // 9 is not visible at 8
  EXPECT_EQ(t.MaxCoveringSeq("d", 4), 3u);
  EXPECT_EQ(t.MaxCoveringSeq("d", 2), 0u);
  EXPECT_EQ(t.MaxCoveringSeq("g", 100), 9u);
  EXPECT_EQ(t.MaxCoveringSeq("h", 100), 0u);     // end is outside
  EXPECT_EQ(t.MinCoveringSeqAbove("d", 4), 5u);  // oldest newer than 4
  EXPECT_EQ(t.MinCoveringSeqAbove("d", 9), 0u);
  EXPECT_EQ(t.MinCoveringSeqAbove("d", 0), 3u);
}

TEST(RangeTombstoneFragmentTest, EmptyRangesDropAndEqualNeighboursMerge) {
  const FragmentedRangeTombstones t(
      {{"c", "c", 7}, {"e", "a", 7}, {"a", "c", 4}, {"c", "f", 4}});
  ASSERT_EQ(t.fragments().size(), 1u);
  EXPECT_EQ(t.fragments()[0].begin, "a");
  EXPECT_EQ(t.fragments()[0].end, "f");
  EXPECT_EQ(t.ToTombstones(), (std::vector<RangeTombstone>{{"a", "f", 4}}));
  EXPECT_TRUE(FragmentedRangeTombstones({{"x", "x", 1}}).empty());
}

TEST(RangeDelBlockTest, RoundTripsAndRejectsDamage) {
  std::vector<RangeTombstone> in = {
      {"m", "q", 3}, {"a", "c", 9}, {"a", "z", 2}};
  const std::string block = EncodeRangeDelBlock(in);
  std::vector<RangeTombstone> out;
  ASSERT_TRUE(DecodeRangeDelBlock(block, "f.sst", 7, &out).ok());
  // table/FORMAT.md's worked example.
  EXPECT_EQ(test::Hex(EncodeRangeDelBlock({{"a", "c", 5}})),
            "00 09 01 61 02 05 00 00 00 00 00 00 63 00 00 00 00 01 00 00 00");
  // Sorted by begin, then newest first.
  EXPECT_EQ(out, (std::vector<RangeTombstone>{
                     {"a", "c", 9}, {"a", "z", 2}, {"m", "q", 3}}));
  // An empty range is damage, named with the file and offset.
  const std::string bad = EncodeRangeDelBlock({{"q", "m", 3}});
  const absl::Status s = DecodeRangeDelBlock(bad, "f.sst", 7, &out);
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_NE(s.message().find("f.sst"), std::string::npos) << s;
  EXPECT_NE(s.message().find("offset 7"), std::string::npos) << s;
}

TEST(RangeDelBlockTest, TableKeepsTombstonesFragmentedAndVerifies) {
  std::unique_ptr<Env> env = NewMemEnv();
  Options options;
  {
    auto file = env->NewWritableFile("/t.sst");
    ASSERT_TRUE(file.ok());
    TableBuilder builder(options, file->get());
    std::string ikey;
    AppendInternalKey(&ikey, "b", 1, kTypeValue);
    ASSERT_TRUE(builder.Add(ikey, "v").ok());
    builder.AddRangeTombstone({"a", "d", 5});
    builder.AddRangeTombstone({"c", "f", 6});
    ASSERT_TRUE(builder.Finish().ok());
    EXPECT_EQ(builder.properties().num_range_deletions, 2u);
    ASSERT_TRUE((*file)->Close().ok());
  }
  auto size = env->GetFileSize("/t.sst");
  auto file = env->NewRandomAccessFile("/t.sst");
  ASSERT_TRUE(file.ok());
  auto table = Table::Open("/t.sst", *std::move(file), *size, nullptr,
                           BytewiseComparator());
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ((*table)->properties().num_range_deletions, 2u);
  EXPECT_EQ((*table)->range_tombstones().fragments().size(), 3u);
  EXPECT_EQ((*table)->range_tombstones().MaxCoveringSeq("c", 100), 6u);
  EXPECT_TRUE((*table)->VerifyChecksum().ok());
}

class RangeDeleteDBTest : public testing::Test {
 protected:
  RangeDeleteDBTest() : env_(NewMemEnv()), counting_(env_.get()) {
    options_.env = &counting_;
    options_.create_if_missing = true;
    options_.bloom_filter_fp_chance = 0.01;
    Open();
  }

  void Open() {
    auto db = DB::Open(options_, "/db");
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
  }
  void Reopen() {
    db_.reset();
    Open();
  }

  std::string Get(std::string_view key, const Snapshot* snap = nullptr) {
    ReadOptions ro;
    ro.snapshot = snap;
    std::string v;
    const absl::Status s = db_->Get(ro, key, &v);
    if (absl::IsNotFound(s)) return "NOT_FOUND";
    return s.ok() ? v : std::string(s.message());
  }

  void Put(int i) {
    ASSERT_TRUE(db_->Put(WriteOptions(), Key(i), "v" + Key(i)).ok());
  }
  void DeleteRange(int begin, int end) {
    ASSERT_TRUE(db_->DeleteRange(WriteOptions(), Key(begin), Key(end)).ok());
  }

  // DB::MultiGet of keys 0..n-1, each as Get() spells its result.
  std::vector<std::string> MultiGet(int n, const Snapshot* snap = nullptr) {
    ReadOptions ro;
    ro.snapshot = snap;
    std::vector<std::string> keys;
    for (int i = 0; i < n; ++i) keys.push_back(Key(i));
    std::vector<std::string_view> views(keys.begin(), keys.end());
    std::vector<std::string> values;
    const std::vector<absl::Status> st = db_->MultiGet(ro, views, &values);
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) {
      out.push_back(absl::IsNotFound(st[i]) ? "NOT_FOUND"
                    : st[i].ok()            ? values[i]
                                            : std::string(st[i].message()));
    }
    return out;
  }
  std::vector<std::string> GetAll(int n, const Snapshot* snap = nullptr) {
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) out.push_back(Get(Key(i), snap));
    return out;
  }

  // An SstFileWriter table of Key(i) -> "x" + Key(i) for i in [from, to).
  std::string WriteExternal(const std::string& name, int from, int to) {
    const std::string path = "/" + name;
    SstFileWriter w(options_);
    EXPECT_TRUE(w.Open(path).ok());
    for (int i = from; i < to; ++i) {
      EXPECT_TRUE(w.Put(Key(i), "x" + Key(i)).ok());
    }
    EXPECT_TRUE(w.Finish().ok());
    return path;
  }

  // Keys 0..n-1 except those in [begin, end).
  static std::vector<std::string> Expected(int n, int begin, int end,
                                           bool forward) {
    std::vector<std::string> keys;
    for (int i = 0; i < n; ++i) {
      if (i < begin || i >= end) keys.push_back(Key(i));
    }
    if (!forward) std::reverse(keys.begin(), keys.end());
    return keys;
  }

  void CheckState(int n, int begin, int end) {
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(Get(Key(i)), i >= begin && i < end ? "NOT_FOUND" : "v" + Key(i))
          << Key(i);
    }
    EXPECT_EQ(test::DbKeys(db_.get(), true), Expected(n, begin, end, true));
    EXPECT_EQ(test::DbKeys(db_.get(), false), Expected(n, begin, end, false));
  }

  std::unique_ptr<Env> env_;
  CountingEnv counting_;
  Options options_;
  std::unique_ptr<DB> db_;
};

TEST_F(RangeDeleteDBTest, RefusesEmptyOrReversedRangesNamingBoth) {
  const absl::Status s = db_->DeleteRange(WriteOptions(), "m", "c");
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("'m'"), std::string::npos) << s;
  EXPECT_NE(s.message().find("'c'"), std::string::npos) << s;
  EXPECT_TRUE(
      absl::IsInvalidArgument(db_->DeleteRange(WriteOptions(), "m", "m")));
  WriteBatch batch;
  batch.Put("a", "1");
  batch.DeleteRange("z", "a");
  EXPECT_TRUE(absl::IsInvalidArgument(batch.status()));
  EXPECT_TRUE(absl::IsInvalidArgument(db_->Write(WriteOptions(), &batch)));
  EXPECT_EQ(Get("a"), "NOT_FOUND");  // the batch was refused whole
}

TEST_F(RangeDeleteDBTest, HonouredInMemtableTablesAndAfterCompaction) {
  for (int i = 0; i < 100; ++i) Put(i);
  DeleteRange(20, 50);
  CheckState(100, 20, 50);  // memtable
  ASSERT_TRUE(db_->Flush().ok());
  CheckState(100, 20, 50);  // one table holds both
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  CheckState(100, 20, 50);
  // A key written after the range deletion is back.
  Put(30);
  EXPECT_EQ(Get(Key(30)), "v" + Key(30));
}

TEST_F(RangeDeleteDBTest, BatchDeletesEarlierEntriesNotLaterOnes) {
  WriteBatch batch;
  batch.Put(Key(1), "old");
  batch.DeleteRange(Key(0), Key(5));
  batch.Put(Key(2), "new");
  ASSERT_TRUE(db_->Write(WriteOptions(), &batch).ok());
  EXPECT_EQ(Get(Key(1)), "NOT_FOUND");
  EXPECT_EQ(Get(Key(2)), "new");
}

TEST_F(RangeDeleteDBTest, WalReplayRestoresRangeDeletions) {
  for (int i = 0; i < 50; ++i) Put(i);
  ASSERT_TRUE(db_->Flush().ok());
  DeleteRange(10, 40);  // only in the WAL and memtable
  Reopen();
  CheckState(50, 10, 40);
  Reopen();  // and again, from the table recovery wrote
  CheckState(50, 10, 40);
}

// The critical rule: a newer file whose filter rules the key out may still
// hold a tombstone covering it, so its "no" must not let an older file's
// value through.
TEST_F(RangeDeleteDBTest, NewerFileFilterNoDoesNotHideItsTombstone) {
  Put(5);
  ASSERT_TRUE(db_->Flush().ok());
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  ASSERT_EQ(test::FilesAtLevel(db_.get(), 0), 0);
  // The newer file: a point key elsewhere and a tombstone over k0005, which
  // is not in its filter.
  ASSERT_TRUE(db_->Put(WriteOptions(), "zzz", "x").ok());
  DeleteRange(0, 10);
  ASSERT_TRUE(db_->Flush().ok());
  ASSERT_EQ(test::TotalFilesInLevels(db_.get()), 2);
  EXPECT_EQ(Get(Key(5)), "NOT_FOUND");
  EXPECT_EQ(Get("zzz"), "x");
  EXPECT_EQ(test::DbKeys(db_.get(), true), std::vector<std::string>{"zzz"});
  Reopen();
  EXPECT_EQ(Get(Key(5)), "NOT_FOUND");
}

TEST_F(RangeDeleteDBTest, SnapshotsKeepSeeingWhatWasThere) {
  for (int i = 0; i < 40; ++i) Put(i);
  ASSERT_TRUE(db_->Flush().ok());
  const Snapshot* before = db_->GetSnapshot();
  DeleteRange(10, 30);
  ASSERT_TRUE(db_->Flush().ok());
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  // The snapshot still sees every key, latest reads see the deletion.
  EXPECT_EQ(Get(Key(15), before), "v" + Key(15));
  EXPECT_EQ(test::DbKeys(db_.get(), true, before), Expected(40, 0, 0, true));
  EXPECT_EQ(test::DbKeys(db_.get(), false, before), Expected(40, 0, 0, false));
  CheckState(40, 10, 30);
  db_->ReleaseSnapshot(before);
  // Nothing needs the covered keys or the tombstone now: CompactRange
  // rewrites the bottom file holding a tombstone, dropping both.
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  CheckState(40, 10, 30);
  for (const std::string& path : test::ListTableFiles(env_.get(), "/db")) {
    auto props = test::ReadTableProperties(env_.get(), path);
    ASSERT_TRUE(props.ok()) << props.status();
    EXPECT_EQ(props->num_range_deletions, 0u) << path;
    EXPECT_EQ(props->num_entries, 20u) << path;
  }
}

TEST_F(RangeDeleteDBTest, SeeksAndStepsSkipDeletedKeysBothWays) {
  for (int i = 0; i < 60; i += 2) Put(i);
  ASSERT_TRUE(db_->Flush().ok());
  for (int i = 1; i < 60; i += 2) Put(i);  // memtable
  DeleteRange(10, 20);
  ASSERT_TRUE(db_->Flush().ok());
  DeleteRange(40, 45);  // memtable
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  it->Seek(Key(12));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(20));
  it->Prev();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(9));
  it->Next();
  EXPECT_EQ(it->key(), Key(20));
  it->Seek(Key(41));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(45));
  it->Prev();
  EXPECT_EQ(it->key(), Key(39));
  EXPECT_TRUE(it->status().ok());
}

// A file wholly inside a newer tombstone is dropped by compaction without a
// block of it being read.
TEST_F(RangeDeleteDBTest, CompactionDropsCoveredFileUnread) {
  for (int i = 20; i < 40; ++i) Put(i);
  ASSERT_TRUE(db_->Flush().ok());
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  const std::vector<std::string> old_files =
      test::ListTableFiles(env_.get(), "/db");
  ASSERT_EQ(old_files.size(), 1u);
  Put(0);
  Put(99);
  DeleteRange(10, 50);
  ASSERT_TRUE(db_->Flush().ok());
  counting_.Reset();
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  const std::string old_name = old_files[0].substr(old_files[0].rfind('/'));
  EXPECT_EQ(counting_.ReadsOf(old_name), 0u);
  EXPECT_EQ(test::DbKeys(db_.get(), true),
            (std::vector<std::string>{Key(0), Key(99)}));
  EXPECT_EQ(test::TotalFilesInLevels(db_.get()), 1);
}

// MultiGet applies the same tombstones as Get, from the memtable, a newer
// file whose filter says "no", and older files, at the latest sequence and
// at a snapshot from before some of them.
TEST_F(RangeDeleteDBTest, MultiGetAgreesWithGet) {
  for (int i = 0; i < 60; ++i) Put(i);
  ASSERT_TRUE(db_->Flush().ok());
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  ASSERT_TRUE(db_->Put(WriteOptions(), "zzz", "x").ok());
  DeleteRange(5, 15);  // in a level-0 file holding only "zzz" as a key
  ASSERT_TRUE(db_->Flush().ok());
  const Snapshot* snap = db_->GetSnapshot();
  Put(7);               // newer than the tombstone: visible again
  DeleteRange(30, 40);  // memtable
  Put(35);
  const std::vector<std::string> latest = GetAll(60);
  EXPECT_EQ(latest[4], "v" + Key(4));
  EXPECT_EQ(latest[5], "NOT_FOUND");
  EXPECT_EQ(latest[7], "v" + Key(7));
  EXPECT_EQ(latest[30], "NOT_FOUND");
  EXPECT_EQ(latest[35], "v" + Key(35));
  EXPECT_EQ(MultiGet(60), latest);
  const std::vector<std::string> at_snap = GetAll(60, snap);
  EXPECT_EQ(at_snap[7], "NOT_FOUND");
  EXPECT_EQ(at_snap[30], "v" + Key(30));
  EXPECT_EQ(MultiGet(60, snap), at_snap);
  db_->ReleaseSnapshot(snap);
  Reopen();  // the memtable's tombstone now comes from the WAL
  EXPECT_EQ(GetAll(60), latest);
  EXPECT_EQ(MultiGet(60), latest);
}

// An ingested file's keys have its global sequence: a later DeleteRange
// hides them, and a file ingested over an older tombstone is newer than
// it. A snapshot from before the ingest sees none of its keys.
TEST_F(RangeDeleteDBTest, IngestedKeysAgainstRangeTombstones) {
  for (int i = 0; i < 40; ++i) Put(i);
  DeleteRange(20, 30);  // in the memtable: the ingest flushes it first
  const Snapshot* before = db_->GetSnapshot();
  ASSERT_TRUE(db_->IngestExternalFiles({WriteExternal("a.sst", 25, 28)},
                                       IngestOptions())
                  .ok());
  ASSERT_TRUE(db_->IngestExternalFiles({WriteExternal("b.sst", 50, 60)},
                                       IngestOptions())
                  .ok());
  DeleteRange(52, 55);
  auto live = [](int i) {
    return i < 20 || (i >= 25 && i < 28) || (i >= 30 && i < 40) ||
           (i >= 50 && (i < 52 || i >= 55));
  };
  std::vector<std::string> live_keys;
  for (int i = 0; i < 60; ++i) {
    if (live(i)) live_keys.push_back(Key(i));
  }
  auto expect = [&](const std::vector<std::string>& got) {
    for (int i = 0; i < 60; ++i) {
      const std::string want = !live(i)                        ? "NOT_FOUND"
                               : i < 40 && (i < 25 || i >= 28) ? "v" + Key(i)
                                                               : "x" + Key(i);
      EXPECT_EQ(got[i], want) << Key(i);
    }
    EXPECT_EQ(test::DbKeys(db_.get(), true), live_keys);
  };
  expect(GetAll(60));
  expect(MultiGet(60));
  // Before the ingests: the old keys, none of the ingested ones.
  const std::vector<std::string> old = GetAll(60, before);
  for (int i = 0; i < 60; ++i) {
    EXPECT_EQ(old[i],
              i < 20 || (i >= 30 && i < 40) ? "v" + Key(i) : "NOT_FOUND")
        << Key(i);
  }
  EXPECT_EQ(MultiGet(60, before), old);
  db_->ReleaseSnapshot(before);
  ASSERT_TRUE(db_->Flush().ok());
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  expect(GetAll(60));
  expect(MultiGet(60));
  Reopen();
  expect(GetAll(60));
}

// A memtable whose only overlap with an ingested file is a range tombstone
// is flushed first, so the tombstone's file sits above the ingested one,
// as it would for a point key.
TEST_F(RangeDeleteDBTest, IngestFlushesAnOverlappingMemTableTombstone) {
  Put(0);
  DeleteRange(20, 30);
  ASSERT_TRUE(db_->IngestExternalFiles({WriteExternal("a.sst", 25, 28)},
                                       IngestOptions())
                  .ok());
  // Flushed: the tombstone's table and the ingested one (unflushed, the
  // ingested file alone).
  EXPECT_EQ(test::TotalFilesInLevels(db_.get()), 2);
  EXPECT_EQ(Get(Key(25)), "x" + Key(25));
  EXPECT_EQ(Get(Key(0)), "v" + Key(0));
}

// Range tombstones are cut and compared bytewise: under another comparator
// DeleteRange is refused, naming it, and nothing is written.
TEST(RangeDeleteComparatorTest, RefusedUnderAnotherComparator) {
  std::unique_ptr<Env> env = NewMemEnv();
  Options options;
  options.env = env.get();
  options.create_if_missing = true;
  options.comparator = test::ReverseBytewiseComparator();
  auto db = DB::Open(options, "/db");
  ASSERT_TRUE(db.ok()) << db.status();
  ASSERT_TRUE((*db)->Put(WriteOptions(), "b", "1").ok());
  const absl::Status s = (*db)->DeleteRange(WriteOptions(), "a", "c");
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find(options.comparator->Name()), std::string::npos)
      << s;
  WriteBatch batch;
  batch.Put("d", "2");
  batch.DeleteRange("a", "c");
  EXPECT_TRUE(absl::IsInvalidArgument((*db)->Write(WriteOptions(), &batch)));
  std::string v;
  EXPECT_TRUE((*db)->Get(ReadOptions(), "b", &v).ok());
  EXPECT_TRUE(absl::IsNotFound((*db)->Get(ReadOptions(), "d", &v)));
}

}  // namespace
}  // namespace sift
