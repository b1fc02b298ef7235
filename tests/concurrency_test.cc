// Writers and readers on one DB while flushes and compactions run, with
// invariants every reader checks (CI also runs this under ThreadSanitizer,
// selected by the "concurrency" label):
//  - each writer owns its keys and writes each with increasing versions, so
//    a reader never sees a key's version go backwards, by Get or iterator;
//  - a batch writes a pair of keys with one value: a snapshot or an
//    iterator always shows the pair equal;
//  - a read at a snapshot gives the same answer every time.
// SIFT_CONCURRENCY_SECONDS sets the duration (default 3).
// Further tests pin the per-thread read view cache (db/read_view.h): a read
// after a flush or compaction never uses a thread's stale cached view, an
// idle thread's cached view does not keep obsolete files, a destroyed DB's
// cached views go with it, and per-thread statistics add up exactly.

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift {
namespace {

constexpr int kWriters = 2;
constexpr int kReaders = 2;
constexpr int kKeysPerWriter = 300;

int Seconds() {
  const char* env = std::getenv("SIFT_CONCURRENCY_SECONDS");
  int n;
  if (env != nullptr && absl::SimpleAtoi(env, &n) && n > 0) return n;
  return 3;
}

std::string OwnedKey(int writer, int i) {
  return absl::StrFormat("o%d-%05d", writer, i);
}
std::string PairKey(int writer, char which) {
  return absl::StrFormat("p%d-%c", writer, which);
}
// A version, padded so that values fill blocks and memtables.
std::string Encode(uint64_t version) {
  return absl::StrFormat("%012u:%060d", version, 0);
}
uint64_t Decode(std::string_view v) {
  uint64_t n = 0;
  EXPECT_TRUE(
      absl::SimpleAtoi(absl::string_view(v.data(), v.size()).substr(0, 12), &n))
      << v;
  return n;
}

class ConcurrencyTest : public ::testing::Test {
 protected:
  ConcurrencyTest() : env_(NewMemEnv()) {
    options_.env = env_.get();
    options_.create_if_missing = true;
    options_.write_buffer_size = 32 << 10;
    options_.max_bytes_for_level_base = 10 * options_.write_buffer_size;
    options_.max_file_size = 32 << 10;
    auto db = DB::Open(options_, "/db");
    EXPECT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
  }

  void Writer(int w, uint64_t seed);
  void Reader(int r, uint64_t seed);
  void Maintenance();
  // Checks one reader's view of the owned keys; last holds the highest
  // version this reader has seen per key.
  void CheckOwned(const std::string& key, std::string_view value,
                  std::map<std::string, uint64_t>* last);
  void CheckSnapshot(Random* rnd);
  void CheckIterator(Random* rnd, std::map<std::string, uint64_t>* last);

  std::unique_ptr<Env> env_;
  Options options_;
  std::unique_ptr<DB> db_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> reads_{0}, writes_{0}, iterations_{0};
  // Final versions per writer, written by that writer only.
  std::vector<uint64_t> final_[kWriters];
};

void ConcurrencyTest::Writer(int w, uint64_t seed) {
  Random rnd(seed);
  std::vector<uint64_t>& versions = final_[w];
  versions.assign(kKeysPerWriter, 0);
  uint64_t round = 0;
  while (!stop_.load()) {
    ++round;
    const int i = static_cast<int>(rnd.Uniform(kKeysPerWriter));
    absl::Status s;
    if (rnd.OneIn(10)) {
      // A batch: the pair, one owned key, and a tombstone.
      WriteBatch batch;
      batch.Put(PairKey(w, 'x'), Encode(round));
      batch.Put(PairKey(w, 'y'), Encode(round));
      batch.Put(OwnedKey(w, i), Encode(++versions[i]));
      batch.Delete(absl::StrFormat("junk%d-%d", w, rnd.Uniform(100)));
      s = db_->Write(WriteOptions(), &batch);
    } else if (rnd.OneIn(5)) {
      s = db_->Put(WriteOptions(),
                   absl::StrFormat("junk%d-%d", w, rnd.Uniform(100)),
                   Encode(round));
    } else {
      s = db_->Put(WriteOptions(), OwnedKey(w, i), Encode(++versions[i]));
    }
    ASSERT_TRUE(s.ok()) << s;
    writes_.fetch_add(1, std::memory_order_relaxed);
  }
}

void ConcurrencyTest::CheckOwned(const std::string& key, std::string_view value,
                                 std::map<std::string, uint64_t>* last) {
  const uint64_t v = Decode(value);
  uint64_t& seen = (*last)[key];
  ASSERT_GE(v, seen) << key << " went back from version " << seen;
  seen = v;
}

void ConcurrencyTest::CheckSnapshot(Random* rnd) {
  const Snapshot* snap = db_->GetSnapshot();
  ReadOptions ro;
  ro.snapshot = snap;
  const int w = static_cast<int>(rnd->Uniform(kWriters));
  const std::string key =
      OwnedKey(w, static_cast<int>(rnd->Uniform(kKeysPerWriter)));
  std::string first, x, y, again;
  const absl::Status s1 = db_->Get(ro, key, &first);
  // The pair is written only by batches: at one snapshot it is equal.
  const absl::Status sx = db_->Get(ro, PairKey(w, 'x'), &x);
  const absl::Status sy = db_->Get(ro, PairKey(w, 'y'), &y);
  ASSERT_EQ(sx.code(), sy.code());
  if (sx.ok()) {
    ASSERT_EQ(x, y);
  }
  std::this_thread::yield();  // let flushes and compactions move on
  const absl::Status s2 = db_->Get(ro, key, &again);
  ASSERT_EQ(s1.code(), s2.code()) << key;
  if (s1.ok()) {
    ASSERT_EQ(first, again) << key;
  }
  db_->ReleaseSnapshot(snap);
}

void ConcurrencyTest::CheckIterator(Random* rnd,
                                    std::map<std::string, uint64_t>* last) {
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  std::map<std::string, std::string> pairs;
  const bool forward = rnd->OneIn(2);
  for (forward ? it->SeekToFirst() : it->SeekToLast(); it->Valid();
       forward ? it->Next() : it->Prev()) {
    const std::string key(it->key());
    if (key[0] == 'o') {
      ASSERT_NO_FATAL_FAILURE(CheckOwned(key, it->value(), last));
    } else if (key[0] == 'p') {
      pairs[key] = std::string(it->value());
    }
  }
  ASSERT_TRUE(it->status().ok()) << it->status();
  for (int w = 0; w < kWriters; ++w) {
    ASSERT_EQ(pairs.count(PairKey(w, 'x')), pairs.count(PairKey(w, 'y')));
    if (pairs.count(PairKey(w, 'x'))) {
      ASSERT_EQ(pairs[PairKey(w, 'x')], pairs[PairKey(w, 'y')]);
    }
  }
  iterations_.fetch_add(1, std::memory_order_relaxed);
}

void ConcurrencyTest::Reader(int r, uint64_t seed) {
  Random rnd(seed);
  std::map<std::string, uint64_t> last;
  std::string v;
  while (!stop_.load()) {
    const uint32_t op = rnd.Uniform(100);
    if (op < 80) {
      const std::string key =
          OwnedKey(static_cast<int>(rnd.Uniform(kWriters)),
                   static_cast<int>(rnd.Uniform(kKeysPerWriter)));
      const absl::Status s = db_->Get(ReadOptions(), key, &v);
      if (s.ok()) {
        ASSERT_NO_FATAL_FAILURE(CheckOwned(key, v, &last));
      } else {
        ASSERT_TRUE(absl::IsNotFound(s)) << s;
        ASSERT_EQ(last[key], 0u) << key << " vanished";
      }
    } else if (op < 95) {
      ASSERT_NO_FATAL_FAILURE(CheckSnapshot(&rnd));
    } else {
      ASSERT_NO_FATAL_FAILURE(CheckIterator(&rnd, &last));
    }
    reads_.fetch_add(1, std::memory_order_relaxed);
  }
  (void)r;
}

void ConcurrencyTest::Maintenance() {
  int round = 0;
  while (!stop_.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    absl::Status s;
    if (++round % 10 == 0) {
      s = db_->CompactRange(std::nullopt, std::nullopt);
    } else if (round % 3 == 0) {
      s = db_->Flush();
    } else {
      s = db_->CompactRange(OwnedKey(0, 100), OwnedKey(1, 100));
    }
    ASSERT_TRUE(s.ok()) << s;
  }
}

TEST_F(ConcurrencyTest, ReadersSeeConsistentStateWhileWritersFlushAndCompact) {
  const uint64_t seed = test::TestSeed(1234);
  const int seconds = Seconds();
  std::printf(
      "ConcurrencyTest: seed %llu, %d s (SIFT_TEST_SEED, "
      "SIFT_CONCURRENCY_SECONDS)\n",
      static_cast<unsigned long long>(seed), seconds);
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([this, w, seed] { Writer(w, seed + w); });
  }
  for (int r = 0; r < kReaders; ++r) {
    threads.emplace_back([this, r, seed] { Reader(r, seed + 100 + r); });
  }
  threads.emplace_back([this] { Maintenance(); });
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  stop_.store(true);
  for (std::thread& t : threads) t.join();
  std::printf("%llu writes, %llu reads, %llu full scans\n",
              static_cast<unsigned long long>(writes_.load()),
              static_cast<unsigned long long>(reads_.load()),
              static_cast<unsigned long long>(iterations_.load()));
  EXPECT_GT(writes_.load(), 1000u);
  EXPECT_GT(reads_.load(), 1000u);
  EXPECT_GT(iterations_.load(), 0u);

  // Afterwards every owned key holds its writer's last version.
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  EXPECT_GT(db_->GetStatistics().Get(kCompactions), 0u);
  std::string v;
  for (int w = 0; w < kWriters; ++w) {
    for (int i = 0; i < kKeysPerWriter; ++i) {
      const absl::Status s = db_->Get(ReadOptions(), OwnedKey(w, i), &v);
      if (final_[w][i] == 0) {
        EXPECT_TRUE(absl::IsNotFound(s));
      } else {
        ASSERT_TRUE(s.ok()) << s;
        EXPECT_EQ(Decode(v), final_[w][i]);
      }
    }
  }
}

// Counts the table files in dir.
int TableFiles(Env* env, const std::string& dir) {
  auto children = env->GetChildren(dir);
  EXPECT_TRUE(children.ok()) << children.status();
  int n = 0;
  for (const std::string& name : *children) {
    if (name.size() > 4 && name.substr(name.size() - 4) == ".sst") ++n;
  }
  return n;
}

int LiveTableFiles(DB* db) {
  int n = 0;
  for (int level = 0; level < 7; ++level) {
    const auto p =
        db->GetProperty(absl::StrFormat("sift.num-files-at-level%d", level));
    int files = 0;
    if (p.has_value() && absl::SimpleAtoi(*p, &files)) n += files;
  }
  return n;
}

// A writer publishes a round only after its Put returned and the memtable
// it went to was flushed or compacted away: every reader that then reads
// must see that round, which a thread still using its cached view from
// before the flush would not (the round lives only in newer memtables or
// files). Readers use Get and iterators alike.
TEST_F(ConcurrencyTest, ReadersNeverUseStaleCachedViews) {
  const uint64_t seed = test::TestSeed(77);
  std::printf("ReadersNeverUseStaleCachedViews: seed %llu (SIFT_TEST_SEED)\n",
              static_cast<unsigned long long>(seed));
  constexpr int kKeys = 64;
  constexpr int kRounds = 150;
  std::atomic<uint64_t> published{0};
  std::atomic<uint64_t> checks{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&, r] {
      Random rnd(seed + r);
      std::string v;
      while (!stop_.load()) {
        const uint64_t round = published.load(std::memory_order_acquire);
        const std::string key = absl::StrFormat("k%03d", rnd.Uniform(kKeys));
        if (rnd.OneIn(8)) {
          std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
          it->Seek(key);
          ASSERT_TRUE(round == 0 || (it->Valid() && it->key() == key)) << key;
          if (round > 0) {
            ASSERT_GE(Decode(it->value()), round) << key;
          }
          ASSERT_TRUE(it->status().ok()) << it->status();
        } else {
          const absl::Status s = db_->Get(ReadOptions(), key, &v);
          if (round == 0) continue;
          ASSERT_TRUE(s.ok()) << key << ": " << s;
          ASSERT_GE(Decode(v), round) << key << " read from a stale view";
        }
        checks.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  Random rnd(seed);
  for (uint64_t round = 1; round <= kRounds; ++round) {
    for (int k = 0; k < kKeys; ++k) {
      ASSERT_TRUE(
          db_->Put(WriteOptions(), absl::StrFormat("k%03d", k), Encode(round))
              .ok());
    }
    if (round % 25 == 0) {
      ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
    } else {
      ASSERT_TRUE(db_->Flush().ok());
    }
    published.store(round, std::memory_order_release);
    std::this_thread::yield();
  }
  stop_.store(true);
  for (std::thread& t : readers) t.join();
  std::printf("%llu checked reads\n",
              static_cast<unsigned long long>(checks.load()));
  EXPECT_GT(checks.load(), 0u);
}

// A thread that read once and went idle must not keep the files of the
// Version it read from: a compaction deletes its inputs at once.
TEST_F(ConcurrencyTest, IdleReaderDoesNotPinObsoleteFiles) {
  for (int f = 0; f < 4; ++f) {
    for (int k = 0; k < 50; ++k) {
      ASSERT_TRUE(
          db_->Put(WriteOptions(), absl::StrFormat("k%03d", k), Encode(f + 1))
              .ok());
    }
    ASSERT_TRUE(db_->Flush().ok());
  }
  std::atomic<bool> read{false};
  std::thread idle([&] {
    std::string v;
    EXPECT_TRUE(db_->Get(ReadOptions(), "k001", &v).ok());
    read.store(true);
    while (!stop_.load()) std::this_thread::yield();
  });
  while (!read.load()) std::this_thread::yield();
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  EXPECT_EQ(TableFiles(env_.get(), "/db"), LiveTableFiles(db_.get()));
  stop_.store(true);
  idle.join();
}

// Threads that cached views of a DB outlive it; the DB's destructor drops
// those views, and a new DB opened at the same path (often at the same
// address) is read through fresh views. Under ASan this also checks that
// nothing is freed twice or leaked, whichever of DB and thread goes first.
TEST_F(ConcurrencyTest, DestroyedDbDropsViewsCachedByLiveThreads) {
  constexpr int kThreads = 3;
  constexpr int kGenerations = 4;
  std::atomic<int> generation{0};  // the value of "key" in the open DB
  std::atomic<int> done{0};        // threads finished with this generation
  ASSERT_TRUE(db_->Put(WriteOptions(), "key", Encode(0)).ok());
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int g = 0; g < kGenerations; ++g) {
        while (generation.load() != g) std::this_thread::yield();
        std::string v;
        for (int i = 0; i < 100; ++i) {
          ASSERT_TRUE(db_->Get(ReadOptions(), "key", &v).ok());
          ASSERT_EQ(Decode(v), static_cast<uint64_t>(g));
        }
        done.fetch_add(1);
      }
    });
  }
  for (int g = 0; g < kGenerations; ++g) {
    while (done.load() != kThreads * (g + 1)) std::this_thread::yield();
    if (g + 1 == kGenerations) break;
    const void* old_address = db_.get();
    db_.reset();  // the threads still hold views of it
    ASSERT_TRUE(DestroyDB("/db", options_).ok());
    auto db = DB::Open(options_, "/db");
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = *std::move(db);
    std::printf("generation %d: %s address\n", g + 1,
                old_address == db_.get() ? "same" : "new");
    ASSERT_TRUE(db_->Put(WriteOptions(), "key", Encode(g + 1)).ok());
    generation.store(g + 1);
  }
  for (std::thread& t : threads) t.join();
  db_.reset();  // after the threads exited
}

// Each thread adds to its own statistics shard: with the main thread and
// many threads that came and went before, N threads x M Gets still count
// exactly N x M reads.
TEST_F(ConcurrencyTest, StatisticsCountEveryGetAcrossThreads) {
  ASSERT_TRUE(db_->Put(WriteOptions(), "a", "1").ok());
  std::string v;
  ASSERT_TRUE(db_->Get(ReadOptions(), "a", &v).ok());
  for (int i = 0; i < 70; ++i) {  // threads that used shards and exited
    std::thread([&] {
      std::string w;
      EXPECT_TRUE(db_->Get(ReadOptions(), "a", &w).ok());
    }).join();
  }
  constexpr int kThreads = 8;
  constexpr int kGets = 20000;
  const uint64_t before = db_->GetStatistics().Get(kNumberKeysRead);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::string w;
      for (int i = 0; i < kGets; ++i) {
        db_->Get(ReadOptions(), i % 2 == 0 ? "a" : "missing", &w).IgnoreError();
      }
      (void)t;
    });
  }
  for (int i = 0; i < kGets; ++i) {
    db_->Get(ReadOptions(), "a", &v).IgnoreError();
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(db_->GetStatistics().Get(kNumberKeysRead) - before,
            static_cast<uint64_t>(kThreads + 1) * kGets);
}

}  // namespace
}  // namespace sift
