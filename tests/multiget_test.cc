// DB::MultiGet: the answers of a loop of Get at one sequence, from every
// place a key can live (memtable, immutable memtable, level 0, deeper
// levels), under snapshots, other comparators and on a read-only DB; one
// sequence for the whole batch while another thread writes; statistics counted
// as Get counts them.

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "tests/testutil/db_files.h"
#include "tests/testutil/gate_env.h"
#include "tests/testutil/test_comparators.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift {
namespace {

using test::GateEnv;
using Model = std::map<std::string, std::string>;

constexpr int kUniverse = 2000;  // keys the equivalence test writes

std::string Key(int i) { return absl::StrFormat("k%05d", i); }

class MultiGetTest : public ::testing::Test {
 protected:
  MultiGetTest() : base_(NewMemEnv()), gate_(base_.get()) {
    options_.env = &gate_;
    options_.create_if_missing = true;
    // Small memtables and files: a few thousand keys fill every place a key
    // can be read from.
    options_.write_buffer_size = 32 << 10;
    options_.max_file_size = 8 << 10;
    // Level-0 files stay until there are many.
    options_.level0_compaction_trigger = 8;
    options_.level0_slowdown_writes_trigger = 16;
    options_.level0_stop_writes_trigger = 24;
  }

  void Open() {
    db_.reset();
    auto db = DB::Open(options_, "/db");
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
  }

  // `ops` random puts (70%) and deletes of keys in [0, kUniverse), applied
  // to the DB and to model.
  void RandomWrites(Random* rnd, int ops, Model* model) {
    std::string value;
    for (int i = 0; i < ops; ++i) {
      const std::string k = Key(static_cast<int>(rnd->Uniform(kUniverse)));
      absl::Status s;
      if (rnd->Uniform(10) < 7) {
        rnd->RandomString(1 + rnd->Uniform(60), &value);
        s = db_->Put(WriteOptions(), k, value);
        (*model)[k] = value;
      } else {
        s = db_->Delete(WriteOptions(), k);
        model->erase(k);
      }
      ASSERT_TRUE(s.ok()) << s;
    }
  }

  // Builds a DB with keys in every place, then checks random batches
  // against loops of Get and against models (seed: the writes and batches).
  void RunEquivalence(uint64_t seed);

  std::unique_ptr<Env> base_;
  GateEnv gate_;
  Options options_;
  std::unique_ptr<DB> db_;
};

// A batch of up to 64 keys: mostly written ones, some never written (before,
// between and after them), and repeats of keys already in the batch.
std::vector<std::string> RandomBatch(Random* rnd) {
  std::vector<std::string> batch(rnd->Uniform(65));
  for (size_t i = 0; i < batch.size(); ++i) {
    const uint32_t kind = rnd->Uniform(10);
    if (kind == 0 && i > 0) {
      batch[i] = batch[rnd->Uniform(static_cast<uint32_t>(i))];
    } else if (kind == 1) {
      batch[i] = Key(static_cast<int>(rnd->Uniform(kUniverse))) + "+";
    } else if (kind == 2) {
      batch[i] = rnd->OneIn(2) ? "a" : Key(kUniverse + 5);
    } else {
      batch[i] = Key(static_cast<int>(rnd->Uniform(kUniverse)));
    }
  }
  return batch;
}

// MultiGet of batch at snapshot (null: the latest) answers as a loop of
// Get there does, and, given a model of that state, as the model does.
void ExpectAsGets(DB* db, const Snapshot* snapshot,
                  const std::vector<std::string>& batch,
                  const Model* model = nullptr) {
  ReadOptions ro;
  ro.snapshot = snapshot;
  const std::vector<std::string_view> keys(batch.begin(), batch.end());
  // A reused vector, longer than the batch, holding old values.
  std::vector<std::string> values(batch.size() + 3, "stale");
  const std::vector<absl::Status> statuses = db->MultiGet(ro, keys, &values);
  ASSERT_EQ(statuses.size(), batch.size());
  ASSERT_EQ(values.size(), batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    std::string value;
    const absl::Status s = db->Get(ro, batch[i], &value);
    ASSERT_EQ(statuses[i], s) << "key " << batch[i] << " at " << i;
    ASSERT_EQ(values[i], value) << "key " << batch[i] << " at " << i;
    if (model != nullptr) {
      const auto it = model->find(batch[i]);
      ASSERT_EQ(s.ok(), it != model->end()) << batch[i] << ": " << s;
      if (s.ok()) {
        ASSERT_EQ(value, it->second) << batch[i];
      }
    }
  }
}

TEST_F(MultiGetTest, AnswersAsALoopOfGetFixedSeeds) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    const uint64_t s = test::TestSeed(seed);
    std::printf("multiget: seed %llu\n", static_cast<unsigned long long>(s));
    ASSERT_NO_FATAL_FAILURE(RunEquivalence(s)) << "seed " << s;
    db_.reset();
    ASSERT_TRUE(DestroyDB("/db", options_).ok());
  }
}

TEST_F(MultiGetTest, AnswersAsALoopOfGetFreshSeed) {
  const uint64_t seed = test::TestSeed(
      std::random_device()() ^
      static_cast<uint64_t>(
          std::chrono::system_clock::now().time_since_epoch().count()));
  std::printf("multiget: fresh seed %llu (replay: SIFT_TEST_SEED=%llu)\n",
              static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(seed));
  ASSERT_NO_FATAL_FAILURE(RunEquivalence(seed)) << "seed " << seed;
}

void MultiGetTest::RunEquivalence(uint64_t seed) {
  Random rnd(seed);
  Model model;
  ASSERT_NO_FATAL_FAILURE(Open());
  DB* db = db_.get();
  // A compacted level, then flushes: the first may be pushed to a level
  // below 0, the others overlap it and stay at level 0, newest first.
  ASSERT_NO_FATAL_FAILURE(RandomWrites(&rnd, 3000, &model));
  ASSERT_TRUE(db->CompactRange(std::nullopt, std::nullopt).ok());
  const Snapshot* old = db->GetSnapshot();
  const Model old_model = model;
  for (int i = 0; i < 5; ++i) {
    ASSERT_NO_FATAL_FAILURE(RandomWrites(&rnd, 200, &model));
    ASSERT_TRUE(db->Flush().ok());
  }
  ASSERT_TRUE(db->WaitForCompaction().ok());
  const std::string files = *db->GetProperty("sift.sstables");
  ASSERT_GE(test::FilesAtLevel(db, 0), 2) << files;
  int deeper = 0;
  for (int level = 1; level < kStatisticsLevels; ++level) {
    deeper += test::FilesAtLevel(db, level) > 1 ? 1 : 0;
  }
  ASSERT_GT(deeper, 0) << files;
  const Snapshot* mid = db->GetSnapshot();
  const Model mid_model = model;
  // An immutable memtable: its flush waits at the gate while the batches
  // run; then a few writes into the new memtable.
  ASSERT_NO_FATAL_FAILURE(RandomWrites(&rnd, 150, &model));
  gate_.Arm(GateEnv::Op::kNewWritableFile, ".sst");
  std::thread flusher([db] { EXPECT_TRUE(db->Flush().ok()); });
  ASSERT_TRUE(gate_.WaitUntilHeld());
  ASSERT_NO_FATAL_FAILURE(RandomWrites(&rnd, 100, &model));

  for (int i = 0; i < 150; ++i) {
    const std::vector<std::string> batch = RandomBatch(&rnd);
    switch (rnd.Uniform(4)) {
      case 0:
        ASSERT_NO_FATAL_FAILURE(ExpectAsGets(db, nullptr, batch, &model));
        break;
      case 1:
        ASSERT_NO_FATAL_FAILURE(ExpectAsGets(db, old, batch, &old_model));
        break;
      case 2:
        ASSERT_NO_FATAL_FAILURE(ExpectAsGets(db, mid, batch, &mid_model));
        break;
      default: {
        const Snapshot* now = db->GetSnapshot();
        ASSERT_NO_FATAL_FAILURE(ExpectAsGets(db, now, batch, &model));
        db->ReleaseSnapshot(now);
      }
    }
  }
  gate_.Open();
  flusher.join();
  for (int i = 0; i < 20; ++i) {
    ASSERT_NO_FATAL_FAILURE(
        ExpectAsGets(db, old, RandomBatch(&rnd), &old_model));
    ASSERT_NO_FATAL_FAILURE(
        ExpectAsGets(db, nullptr, RandomBatch(&rnd), &model));
  }
  db->ReleaseSnapshot(old);
  db->ReleaseSnapshot(mid);

  // The same from a read-only DB over the same files and log.
  auto read_only = DB::OpenForReadOnly(options_, "/db");
  ASSERT_TRUE(read_only.ok()) << read_only.status();
  for (int i = 0; i < 20; ++i) {
    ASSERT_NO_FATAL_FAILURE(
        ExpectAsGets(read_only->get(), nullptr, RandomBatch(&rnd), &model));
  }
}

// Files, blocks and the batch's sort follow Options::comparator: orders
// unlike bytewise catch any bytewise compare left on the path.
TEST_F(MultiGetTest, AnswersAsALoopOfGetUnderOtherComparators) {
  for (const Comparator* cmp :
       {test::ReverseBytewiseComparator(), test::NumericSuffixComparator()}) {
    options_.comparator = cmp;
    const uint64_t s = test::TestSeed(4);
    std::printf("multiget: %s, seed %llu\n", cmp->Name(),
                static_cast<unsigned long long>(s));
    ASSERT_NO_FATAL_FAILURE(RunEquivalence(s)) << cmp->Name() << " seed " << s;
    db_.reset();
    ASSERT_TRUE(DestroyDB("/db", options_).ok());
  }
}

TEST_F(MultiGetTest, EmptyBatch) {
  ASSERT_NO_FATAL_FAILURE(Open());
  std::vector<std::string> values = {"old", "older"};
  const std::vector<absl::Status> statuses =
      db_->MultiGet(ReadOptions(), {}, &values);
  EXPECT_TRUE(statuses.empty());
  EXPECT_TRUE(values.empty());
}

// A writer writes batches that give every key of a group one value (or
// delete them all); flushes and compactions run meanwhile. A MultiGet of
// the group, keys in any order and repeated, sees one batch whole: every
// key with the same value, or every key absent.
TEST_F(MultiGetTest, NeverSeesHalfABatch) {
  options_.write_buffer_size = 8 << 10;
  options_.max_file_size = 4 << 10;
  ASSERT_NO_FATAL_FAILURE(Open());
  constexpr int kGroup = 24;
  constexpr int kBatches = 1500;
  std::atomic<bool> done{false};
  std::atomic<bool> stop{false};  // the reader failed
  std::thread writer([&] {
    const std::string pad(40, '.');
    for (int b = 0; b < kBatches && !stop.load(); ++b) {
      WriteBatch batch;
      for (int k = 0; k < kGroup; ++k) {
        if (b % 7 == 6) {
          batch.Delete(Key(k));
        } else {
          batch.Put(Key(k), absl::StrFormat("batch%06d%s", b, pad));
        }
      }
      const absl::Status s = db_->Write(WriteOptions(), &batch);
      if (!s.ok()) {
        ADD_FAILURE() << s;
        break;
      }
    }
    done.store(true);
  });
  const uint64_t seed = test::TestSeed(11);
  std::printf("multiget: seed %llu\n", static_cast<unsigned long long>(seed));
  Random rnd(seed);
  std::vector<std::string> group;
  for (int k = 0; k < kGroup; ++k) group.push_back(Key(k));
  std::vector<std::string> values;
  int reads = 0;
  std::string failure;
  while (failure.empty() && (!done.load() || reads == 0)) {
    // The group shuffled, plus a few repeats.
    std::vector<std::string_view> keys(group.begin(), group.end());
    for (size_t i = keys.size() - 1; i > 0; --i) {
      std::swap(keys[i], keys[rnd.Uniform(static_cast<uint32_t>(i + 1))]);
    }
    for (int r = 0; r < 4; ++r) keys.push_back(keys[rnd.Uniform(kGroup)]);
    const std::vector<absl::Status> statuses =
        db_->MultiGet(ReadOptions(), keys, &values);
    ++reads;
    if (!statuses[0].ok() && !absl::IsNotFound(statuses[0])) {
      failure = statuses[0].ToString();
    }
    for (size_t i = 1; i < keys.size() && failure.empty(); ++i) {
      // The same answer: both found with one value, or both absent.
      if (statuses[i].code() != statuses[0].code() || values[i] != values[0]) {
        failure = absl::StrFormat("read %d: %s = %s %s, but %s = %s %s", reads,
                                  keys[0], statuses[0].ToString(), values[0],
                                  keys[i], statuses[i].ToString(), values[i]);
      }
    }
  }
  stop.store(true);
  writer.join();
  ASSERT_EQ(failure, "");
  std::printf("multiget: %d batch reads beside %d writes\n", reads, kBatches);
  const std::string files = *db_->GetProperty("sift.sstables");
  EXPECT_GT(test::TotalFilesInLevels(db_.get()), 0) << files;
}

// The counters of a batch are those of a loop of Get over the same keys:
// misses over a flushed DB are mostly "filter useful", hits true
// positives, so the observed FP rate does not depend on the call.
TEST_F(MultiGetTest, CountsAsGetCounts) {
  ASSERT_NO_FATAL_FAILURE(Open());
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(db_->Put(WriteOptions(), Key(i), "v").ok());
  }
  ASSERT_TRUE(db_->Flush().ok());
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  std::vector<std::string> misses, hits;
  for (int i = 0; i < 200; ++i) {
    misses.push_back(Key(5 * i) + "+");  // inside the files' key ranges
    hits.push_back(Key(5 * i));
  }
  constexpr Ticker kCounted[] = {kBloomFilterChecked,
                                 kBloomFilterUseful,
                                 kBloomFilterFullPositive,
                                 kBloomFilterFullTruePositive,
                                 kNumberKeysRead,
                                 kNumberKeysFound,
                                 kMemtableHit,
                                 kMemtableMiss};
  for (const auto* batch : {&misses, &hits}) {
    const std::vector<std::string_view> keys(batch->begin(), batch->end());
    const Statistics before = db_->GetStatistics();
    std::vector<std::string> values;
    db_->MultiGet(ReadOptions(), keys, &values);
    const Statistics mid = db_->GetStatistics();
    std::string value;
    for (std::string_view k : keys) {
      db_->Get(ReadOptions(), k, &value).IgnoreError();
    }
    const Statistics after = db_->GetStatistics();
    for (Ticker t : kCounted) {
      EXPECT_EQ(mid.Get(t) - before.Get(t), after.Get(t) - mid.Get(t))
          << TickerName(t) << (batch == &misses ? " (misses)" : " (hits)");
    }
    EXPECT_EQ(mid.Get(kNumberKeysRead) - before.Get(kNumberKeysRead), 200u);
    if (batch == &misses) {
      EXPECT_GT(mid.Get(kBloomFilterUseful) - before.Get(kBloomFilterUseful),
                180u);
      EXPECT_EQ(mid.Get(kNumberKeysFound), before.Get(kNumberKeysFound));
    } else {
      EXPECT_EQ(mid.Get(kBloomFilterFullTruePositive) -
                    before.Get(kBloomFilterFullTruePositive),
                200u);
      EXPECT_EQ(mid.Get(kNumberKeysFound) - before.Get(kNumberKeysFound), 200u);
    }
  }
}

}  // namespace
}  // namespace sift
