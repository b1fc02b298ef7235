// The model test of column families: a seeded random sequence of puts,
// deletes, batches across families, gets, cross-family MultiGets, scans
// (latest and through snapshots), flushes, per-family compactions, drops
// and re-creations of a family, and reopens, on three families with
// different comparators and filter settings -- checked answer by answer
// against one std::map per family, each ordered by its family's comparator.
//
// Every run prints its seed; SIFT_TEST_SEED=<seed> replays it and
// SIFT_MODEL_OPS=<n> sets the number of operations.

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/column_family.h"
#include "sift/db.h"
#include "sift/env.h"
#include "tests/testutil/model_checks.h"
#include "tests/testutil/test_comparators.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift {
namespace {

using Model = test::ModelMap;

constexpr int kOps = test::SanitizerScaled(12000, 3);

// A family of the run: its options and the state it must show.
struct Family {
  std::string name;
  ColumnFamilyOptions options;
  Model model;
  std::unique_ptr<ColumnFamilyHandle> handle;
};

class FamilyModelRunner {
 public:
  FamilyModelRunner(uint64_t seed, Env* env, std::string path)
      : seed_(seed), rnd_(seed), path_(std::move(path)) {
    db_options_.env = env;
    db_options_.create_if_missing = true;
    db_options_.create_missing_column_families = true;
    ColumnFamilyOptions small;
    small.write_buffer_size = 32 << 10;
    small.max_file_size = 64 << 10;
    small.max_bytes_for_level_base = 256 << 10;
    small.block_size = 1024;
    ColumnFamilyOptions reverse = small;
    reverse.comparator = test::ReverseBytewiseComparator();
    reverse.bloom_filter_fp_chance = 0.1;
    ColumnFamilyOptions tight = small;
    tight.bloom_filter_fp_chance = 0.0001;
    tight.filter_layout = FilterLayout::kRibbon;
    ColumnFamilyOptions none = small;
    none.bloom_filter_fp_chance = 1.0;  // no filter
    AddFamily(kDefaultColumnFamilyName, small);
    AddFamily("reverse", reverse);
    AddFamily("tight", tight);
    AddFamily("nofilter", none);
  }
  ~FamilyModelRunner() { Close(); }

  void Run(int ops) {
    ASSERT_NO_FATAL_FAILURE(Open());
    for (op_ = 0; op_ < ops; ++op_) {
      const uint32_t r = rnd_.Uniform(1000);
      if (r < 300) {
        ASSERT_NO_FATAL_FAILURE(DoPut());
      } else if (r < 380) {
        ASSERT_NO_FATAL_FAILURE(DoDelete());
      } else if (r < 480) {
        ASSERT_NO_FATAL_FAILURE(DoBatch());
      } else if (r < 750) {
        ASSERT_NO_FATAL_FAILURE(DoGet());
      } else if (r < 880) {
        ASSERT_NO_FATAL_FAILURE(DoMultiGet());
      } else if (r < 930) {
        ASSERT_NO_FATAL_FAILURE(DoScan());
      } else if (r < 955) {
        ASSERT_NO_FATAL_FAILURE(DoSnapshotScan());
      } else if (r < 975) {
        last_op_ = "flush";
        ASSERT_TRUE(db_->Flush(Pick().handle.get()).ok()) << Where();
      } else if (r < 988) {
        Family& f = Pick();
        last_op_ = "compact " + f.name;
        ASSERT_TRUE(
            db_->CompactRange(f.handle.get(), std::nullopt, std::nullopt).ok())
            << Where();
      } else if (r < 994) {
        ASSERT_NO_FATAL_FAILURE(DoDropAndCreate());
      } else {
        ASSERT_NO_FATAL_FAILURE(Reopen());
      }
    }
    ASSERT_NO_FATAL_FAILURE(Reopen());
    std::printf("family model: seed %llu, %d ops, %d reopens, %d drops\n",
                static_cast<unsigned long long>(seed_), ops, reopens_, drops_);
  }

 private:
  void AddFamily(const std::string& name, const ColumnFamilyOptions& o) {
    Family f;
    f.name = name;
    f.options = o;
    f.model = Model(test::ComparatorLess{o.comparator});
    families_.push_back(std::move(f));
  }

  std::string Where() const {
    return absl::StrCat("seed ", seed_, " op ", op_, " (", last_op_, ")");
  }
  Family& Pick() {
    return families_[rnd_.Uniform(static_cast<uint32_t>(families_.size()))];
  }
  std::string RandomKey() {
    // A few hot keys (many versions) and a wider space.
    const uint32_t i = rnd_.OneIn(2) ? rnd_.Uniform(32) : rnd_.Uniform(5000);
    return absl::StrFormat("key%05u", i);
  }
  std::string RandomValue() {
    std::string v;
    rnd_.RandomString(rnd_.OneIn(30) ? 500 : rnd_.Skewed(6), &v);
    return absl::StrCat(op_, ":", v);
  }

  void Open() {
    std::vector<ColumnFamilyDescriptor> descriptors;
    for (const Family& f : families_) {
      descriptors.emplace_back(f.name, f.options);
    }
    std::vector<std::unique_ptr<ColumnFamilyHandle>> handles;
    auto db = DB::Open(db_options_, path_, descriptors, &handles);
    ASSERT_TRUE(db.ok()) << Where() << ": " << db.status();
    db_ = *std::move(db);
    ASSERT_EQ(handles.size(), families_.size());
    for (size_t i = 0; i < handles.size(); ++i) {
      families_[i].handle = std::move(handles[i]);
    }
  }
  void Close() {
    for (Family& f : families_) f.handle.reset();
    db_.reset();
  }
  void Reopen() {
    last_op_ = "reopen";
    Close();
    ++reopens_;
    ASSERT_NO_FATAL_FAILURE(Open());
    for (Family& f : families_) {
      std::unique_ptr<Iterator> it =
          db_->NewIterator(ReadOptions(), f.handle.get());
      const absl::Status s = test::CheckScan(it.get(), f.model, true);
      ASSERT_TRUE(s.ok()) << Where() << " family " << f.name << ": " << s;
    }
  }

  void DoPut() {
    Family& f = Pick();
    const std::string k = RandomKey(), v = RandomValue();
    last_op_ = absl::StrCat("put ", f.name, " ", k);
    ASSERT_TRUE(db_->Put(WriteOptions(), f.handle.get(), k, v).ok()) << Where();
    f.model[k] = v;
  }
  void DoDelete() {
    Family& f = Pick();
    const std::string k = RandomKey();
    last_op_ = absl::StrCat("delete ", f.name, " ", k);
    ASSERT_TRUE(db_->Delete(WriteOptions(), f.handle.get(), k).ok()) << Where();
    f.model.erase(k);
  }
  // Entries of several families in one batch: all applied together.
  void DoBatch() {
    WriteBatch batch;
    std::vector<Model> after;
    for (const Family& f : families_) after.push_back(f.model);
    const int n = 1 + static_cast<int>(rnd_.Uniform(12));
    for (int i = 0; i < n; ++i) {
      const size_t fi = rnd_.Uniform(static_cast<uint32_t>(families_.size()));
      ColumnFamilyHandle* h = families_[fi].handle.get();
      const std::string k = RandomKey();
      if (rnd_.OneIn(4)) {
        batch.Delete(h, k);
        after[fi].erase(k);
      } else {
        const std::string v = RandomValue();
        batch.Put(h, k, v);
        after[fi][k] = v;
      }
    }
    last_op_ = absl::StrCat("batch of ", n);
    ASSERT_TRUE(db_->Write(WriteOptions(), &batch).ok()) << Where();
    for (size_t i = 0; i < families_.size(); ++i) {
      families_[i].model = std::move(after[i]);
    }
  }
  void DoGet() {
    Family& f = Pick();
    const std::string k = RandomKey();
    last_op_ = absl::StrCat("get ", f.name, " ", k);
    std::string v;
    const absl::Status s = db_->Get(ReadOptions(), f.handle.get(), k, &v);
    auto it = f.model.find(k);
    if (it == f.model.end()) {
      ASSERT_TRUE(absl::IsNotFound(s)) << Where() << ": " << s;
    } else {
      ASSERT_TRUE(s.ok()) << Where() << ": " << s;
      ASSERT_EQ(v, it->second) << Where();
    }
  }
  // Keys of random families in one MultiGet, at one sequence.
  void DoMultiGet() {
    const int n = 1 + static_cast<int>(rnd_.Uniform(24));
    std::vector<std::string> keys;
    std::vector<size_t> which;
    std::vector<ColumnFamilyHandle*> handles;
    for (int i = 0; i < n; ++i) {
      which.push_back(rnd_.Uniform(static_cast<uint32_t>(families_.size())));
      handles.push_back(families_[which.back()].handle.get());
      keys.push_back(RandomKey());
    }
    const std::vector<std::string_view> views(keys.begin(), keys.end());
    last_op_ = absl::StrCat("multiget of ", n);
    std::vector<std::string> values;
    const std::vector<absl::Status> statuses =
        db_->MultiGet(ReadOptions(), handles, views, &values);
    ASSERT_EQ(statuses.size(), keys.size()) << Where();
    for (int i = 0; i < n; ++i) {
      const Model& m = families_[which[i]].model;
      auto it = m.find(keys[i]);
      if (it == m.end()) {
        ASSERT_TRUE(absl::IsNotFound(statuses[i]))
            << Where() << " key " << keys[i] << ": " << statuses[i];
      } else {
        ASSERT_TRUE(statuses[i].ok()) << Where() << ": " << statuses[i];
        ASSERT_EQ(values[i], it->second) << Where() << " key " << keys[i];
      }
    }
  }
  void DoScan() {
    Family& f = Pick();
    const bool forward = rnd_.OneIn(2);
    last_op_ = absl::StrCat("scan ", f.name, forward ? " forward" : " back");
    std::unique_ptr<Iterator> it =
        db_->NewIterator(ReadOptions(), f.handle.get());
    const absl::Status s = test::CheckScan(it.get(), f.model, forward);
    ASSERT_TRUE(s.ok()) << Where() << ": " << s;
  }
  // A snapshot sees every family as of its sequence, however many writes
  // and flushes follow.
  void DoSnapshotScan() {
    last_op_ = "snapshot scan";
    const Snapshot* snap = db_->GetSnapshot();
    std::vector<Model> then;
    for (const Family& f : families_) then.push_back(f.model);
    for (int i = 0; i < 20; ++i) ASSERT_NO_FATAL_FAILURE(DoPut());
    ASSERT_TRUE(db_->Flush(families_[0].handle.get()).ok()) << Where();
    ReadOptions ro;
    ro.snapshot = snap;
    for (size_t i = 0; i < families_.size(); ++i) {
      std::unique_ptr<Iterator> it =
          db_->NewIterator(ro, families_[i].handle.get());
      const absl::Status s = test::CheckScan(it.get(), then[i], true);
      EXPECT_TRUE(s.ok()) << Where() << " family " << families_[i].name << ": "
                          << s;
    }
    db_->ReleaseSnapshot(snap);
  }
  // Drops a family other than default and creates it again, empty; an
  // iterator opened before the drop still reads what it held.
  void DoDropAndCreate() {
    const size_t fi =
        1 + rnd_.Uniform(static_cast<uint32_t>(families_.size() - 1));
    Family& f = families_[fi];
    last_op_ = "drop and create " + f.name;
    std::unique_ptr<Iterator> held =
        db_->NewIterator(ReadOptions(), f.handle.get());
    ASSERT_TRUE(db_->DropColumnFamily(f.handle.get()).ok()) << Where();
    std::string v;
    ASSERT_TRUE(absl::IsInvalidArgument(
        db_->Get(ReadOptions(), f.handle.get(), "key00001", &v)))
        << Where();
    const absl::Status s = test::CheckScan(held.get(), f.model, true);
    ASSERT_TRUE(s.ok()) << Where() << ": " << s;
    held.reset();
    auto created = db_->CreateColumnFamily(f.options, f.name);
    ASSERT_TRUE(created.ok()) << Where() << ": " << created.status();
    f.handle = *std::move(created);
    f.model.clear();
    ++drops_;
  }

  const uint64_t seed_;
  Random rnd_;
  const std::string path_;
  DBOptions db_options_;
  std::vector<Family> families_;
  std::unique_ptr<DB> db_;
  int op_ = 0;
  int reopens_ = 0;
  int drops_ = 0;
  std::string last_op_ = "open";
};

int OpsFromEnv() { return test::EnvInt("SIFT_MODEL_OPS", kOps); }

TEST(ColumnFamilyModelTest, InMemoryEnv) {
  const uint64_t seed = test::TestSeed(20261204);
  std::unique_ptr<Env> env = NewMemEnv();
  FamilyModelRunner runner(seed, env.get(), "/families");
  runner.Run(OpsFromEnv());
}

TEST(ColumnFamilyModelTest, PosixEnv) {
  const uint64_t seed = test::TestSeed(77);
  const std::string dir = test::TempDir("column_family_model");
  FamilyModelRunner runner(seed, Env::Default(), dir + "/db");
  runner.Run(OpsFromEnv() / 2);
}

}  // namespace
}  // namespace sift
