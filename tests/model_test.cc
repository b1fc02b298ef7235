// The model test: a seeded random sequence of puts, deletes, range deletes,
// batches, gets and MultiGets (latest and through snapshots), iterators in
// both directions, flushes, compactions, ingested SSTables, checkpoints
// (opened and compared with the model) and reopens -- each reopen with the
// filter fp chance switched among 0.01, 0.1 and 1.0 and the filter layout
// switched -- checked answer by answer against a std::map. The same run
// under user comparators (a reverse order, a numeric one) checks that every
// ordered structure follows Options::comparator.
//
// Metamorphic, as Pebble's test: the operation stream is a function of the
// seed, the key space and the comparator alone (never of the DB's answers
// or of the sizes), so one seed run under two option sets performs the same
// operations. Each run keeps an op log, one line per operation with what
// the DB answered; SameOpsUnderTwoConfigurationsGiveTheSameLog compares the
// logs of two configurations line by line.
//
// Every run prints its seed; SIFT_TEST_SEED=<seed> replays it exactly and
// SIFT_MODEL_OPS=<n> sets the number of operations (a long run, e.g.
// 200000, exercises many flushes and compactions at these small sizes).
// SIFT_MODEL_LOG=<file> writes the op log of each run to <file>.<test>, so
// two runs (another seed, another binary) can be diffed.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/sst_file_writer.h"
#include "tests/testutil/model_checks.h"
#include "tests/testutil/test_comparators.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift {
namespace {

using Model = test::ModelMap;

// Operations of the longest run; a third under a sanitizer, whose errors
// show on the paths every run takes rather than on the count.
constexpr int kOps = test::SanitizerScaled(30000, 3);

int OpsFromEnv(int fallback) {
  const char* env = std::getenv("SIFT_MODEL_OPS");
  int n;
  if (env != nullptr && absl::SimpleAtoi(env, &n) && n > 0) return n;
  return fallback;
}

struct LiveSnapshot {
  const Snapshot* snapshot;
  Model model;  // the state the snapshot must show
};

// An iterator kept open across later writes, flushes and compactions; it
// must still show the state of its creation when it is finally walked.
struct HeldIterator {
  std::unique_ptr<Iterator> iter;
  Model model;
  int created_at = 0;
};

class ModelRunner {
 public:
  // A 64 KiB memtable and 128 KiB files: small enough that a few thousand
  // operations flush and compact many times.
  static Options DefaultSizes() {
    Options o;
    o.write_buffer_size = 64 << 10;
    o.max_bytes_for_level_base = 10 * o.write_buffer_size;
    o.max_file_size = 128 << 10;
    // Small blocks: more index entries and block boundaries per file.
    o.block_size = 1024;
    return o;
  }

  ModelRunner(uint64_t seed, Env* env, std::string path,
              const Options& sizes = DefaultSizes(), uint32_t key_space = 20000)
      : seed_(seed),
        rnd_(seed),
        path_(std::move(path)),
        key_space_(key_space),
        options_(sizes),
        model_(test::ComparatorLess{sizes.comparator}) {
    options_.env = env;
    options_.create_if_missing = true;
  }

  ~ModelRunner() { Close(); }

  void Run(int ops);

  // One line per operation: its number, what it did, what the DB answered.
  const std::vector<std::string>& log() const { return log_; }
  // Writes the log to $SIFT_MODEL_LOG.<name> when SIFT_MODEL_LOG is set.
  void MaybeWriteLog(const std::string& name) const;

 private:
  // Context for a failure: replay with SIFT_TEST_SEED.
  std::string Where() const {
    return absl::StrCat("seed ", seed_, " op ", op_, " (", last_op_,
                        "); options comparator=", options_.comparator->Name(),
                        " fp=", options_.bloom_filter_fp_chance,
                        " layout=", static_cast<int>(options_.filter_layout));
  }

  std::string RandomKey() {
    // Half the traffic on 64 hot keys (many versions, snapshots matter),
    // the rest spread over a key space large enough to fill deeper levels.
    const uint32_t i = rnd_.OneIn(2) ? rnd_.Uniform(64) * (key_space_ / 64)
                                     : rnd_.Uniform(key_space_);
    // Unpadded under a user comparator: NumericSuffixComparator then
    // orders them unlike bytes ("key9" < "key10").
    if (options_.comparator != BytewiseComparator()) {
      return absl::StrCat("key", i);
    }
    return absl::StrFormat("key%06u", i);
  }
  std::string RandomValue() {
    std::string v;
    const size_t len =
        rnd_.OneIn(50) ? 1000 + rnd_.Uniform(5000) : rnd_.Skewed(7);
    rnd_.RandomString(len, &v);
    return absl::StrCat(op_, ":", v);  // distinct across writes
  }

  void Open();
  void Close();
  void Reopen();
  void DoPut();
  void DoDelete();
  void DoDeleteRange();
  void DoBatch();
  // A random [begin, end): up to 300 keys of the key space.
  std::pair<std::string, std::string> RandomRange() {
    const uint32_t i = rnd_.Uniform(key_space_);
    const uint32_t span = 1 + rnd_.Uniform(std::min(key_space_, 300u));
    return {absl::StrFormat("key%06u", i),
            absl::StrFormat("key%06u", i + span)};
  }
  static void EraseRange(Model* m, const std::string& begin,
                         const std::string& end) {
    m->erase(m->lower_bound(begin), m->lower_bound(end));
  }
  void DoGet(const LiveSnapshot* snap);
  void DoMultiGet(const LiveSnapshot* snap);
  // Appends the current operation and its answer to the op log.
  void Log(const std::string& answer) {
    log_.push_back(absl::StrCat(op_, " ", last_op_, " -> ", answer));
  }
  // A value in the log: the number of the operation that wrote it (every
  // value starts "<op>:"), which names the write without its bytes.
  static std::string Writer(const std::string& value) {
    return value.substr(0, value.find(':'));
  }
  void DoScan(bool forward, const LiveSnapshot* snap);
  void DoSeekAndStep();
  void DoCompactRange();
  void DoIngest();
  void DoCheckpoint();
  void TakeSnapshot();
  void ReleaseSnapshot(size_t i);
  void CheckHeldIterator();
  void CheckScan(Iterator* it, const Model& model, bool forward);
  const LiveSnapshot* PickSnapshot() {
    if (snapshots_.empty()) return nullptr;
    return &snapshots_[rnd_.Uniform(static_cast<uint32_t>(snapshots_.size()))];
  }

  static constexpr size_t kMaxSnapshots = 4;

  const uint64_t seed_;
  Random rnd_;
  const std::string path_;
  const uint32_t key_space_;
  Options options_;
  std::unique_ptr<DB> db_;
  Model model_;
  std::vector<LiveSnapshot> snapshots_;
  std::optional<HeldIterator> held_;
  int op_ = 0;
  std::string last_op_ = "open";
  std::vector<std::string> log_;
};

void ModelRunner::MaybeWriteLog(const std::string& name) const {
  const char* prefix = std::getenv("SIFT_MODEL_LOG");
  if (prefix == nullptr || *prefix == '\0') return;
  const std::string path = absl::StrCat(prefix, ".", name);
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr) << "SIFT_MODEL_LOG: cannot write " << path;
  for (const std::string& line : log_) std::fprintf(f, "%s\n", line.c_str());
  ASSERT_EQ(std::fclose(f), 0) << path;
  std::printf("model: op log in %s\n", path.c_str());
}

void ModelRunner::Open() {
  auto db = DB::Open(options_, path_);
  ASSERT_TRUE(db.ok()) << Where() << ": " << db.status();
  db_ = *std::move(db);
}

void ModelRunner::Close() {
  held_.reset();
  if (db_ == nullptr) return;
  for (LiveSnapshot& s : snapshots_) db_->ReleaseSnapshot(s.snapshot);
  snapshots_.clear();
  db_.reset();
}

void ModelRunner::Reopen() {
  Close();
  static constexpr double kFpChances[] = {0.01, 0.1, 1.0};
  options_.bloom_filter_fp_chance = kFpChances[rnd_.Uniform(3)];
  options_.filter_layout =
      rnd_.OneIn(2) ? FilterLayout::kBlocked : FilterLayout::kStandard;
  options_.compression =
      rnd_.OneIn(2) ? Compression::kSnappy : Compression::kNone;
  last_op_ = absl::StrCat("reopen fp=", options_.bloom_filter_fp_chance);
  ASSERT_NO_FATAL_FAILURE(Open());
  // Everything acknowledged before the close is there.
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  ASSERT_NO_FATAL_FAILURE(CheckScan(it.get(), model_, rnd_.OneIn(2)));
  Log(absl::StrCat(model_.size(), " keys"));
}

void ModelRunner::DoPut() {
  const std::string k = RandomKey(), v = RandomValue();
  last_op_ = "put " + k;
  ASSERT_TRUE(db_->Put(WriteOptions(), k, v).ok()) << Where();
  model_[k] = v;
  Log("ok");
}

void ModelRunner::DoDelete() {
  const std::string k = RandomKey();
  last_op_ = "delete " + k;
  ASSERT_TRUE(db_->Delete(WriteOptions(), k).ok()) << Where();
  model_.erase(k);
  Log("ok");
}

void ModelRunner::DoDeleteRange() {
  auto [begin, end] = RandomRange();
  if (options_.comparator != BytewiseComparator()) {
    // Range deletions need the bytewise comparator (sift/db.h): refused.
    last_op_ = absl::StrCat("delete range [", begin, ", ", end, ") refused");
    const absl::Status s = db_->DeleteRange(WriteOptions(), begin, end);
    ASSERT_TRUE(absl::IsInvalidArgument(s)) << Where() << ": " << s;
    Log(absl::StatusCodeToString(s.code()));
    return;
  }
  if (rnd_.OneIn(20)) {
    // Reversed or empty: refused, nothing written.
    last_op_ = absl::StrCat("bad delete range [", end, ", ", begin, ")");
    const absl::Status s =
        db_->DeleteRange(WriteOptions(), end, rnd_.OneIn(2) ? begin : end);
    ASSERT_TRUE(absl::IsInvalidArgument(s)) << Where() << ": " << s;
    Log(absl::StatusCodeToString(s.code()));
    return;
  }
  last_op_ = absl::StrCat("delete range [", begin, ", ", end, ")");
  ASSERT_TRUE(db_->DeleteRange(WriteOptions(), begin, end).ok()) << Where();
  EraseRange(&model_, begin, end);
  Log("ok");
}

void ModelRunner::DoBatch() {
  WriteBatch batch;
  Model after = model_;
  const int n = 1 + static_cast<int>(rnd_.Uniform(20));
  for (int i = 0; i < n; ++i) {
    const std::string k = RandomKey();
    if (rnd_.OneIn(40) && options_.comparator == BytewiseComparator()) {
      auto [begin, end] = RandomRange();
      batch.DeleteRange(begin, end);
      EraseRange(&after, begin, end);
    } else if (rnd_.OneIn(4)) {
      batch.Delete(k);
      after.erase(k);
    } else {
      const std::string v = RandomValue();
      batch.Put(k, v);
      after[k] = v;
    }
  }
  last_op_ = absl::StrCat("batch of ", n);
  ASSERT_TRUE(db_->Write(WriteOptions(), &batch).ok()) << Where();
  model_ = std::move(after);
  Log("ok");
}

void ModelRunner::DoGet(const LiveSnapshot* snap) {
  const std::string k = RandomKey();
  last_op_ = absl::StrCat(snap != nullptr ? "snapshot get " : "get ", k);
  const Model& m = snap != nullptr ? snap->model : model_;
  ReadOptions ro;
  ro.snapshot = snap != nullptr ? snap->snapshot : nullptr;
  std::string v;
  const absl::Status s = db_->Get(ro, k, &v);
  auto it = m.find(k);
  if (it == m.end()) {
    ASSERT_TRUE(absl::IsNotFound(s)) << Where() << ": " << s << " '" << v;
    Log("not found");
  } else {
    ASSERT_TRUE(s.ok()) << Where() << ": " << s;
    ASSERT_EQ(v, it->second) << Where();
    Log(absl::StrCat("value of op ", Writer(v)));
  }
}

// Up to 40 random keys (repeats allowed, any order) in one MultiGet, each
// answer compared with the model's.
void ModelRunner::DoMultiGet(const LiveSnapshot* snap) {
  const int n = 1 + static_cast<int>(rnd_.Uniform(40));
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) keys.push_back(RandomKey());
  last_op_ = absl::StrCat(snap != nullptr ? "snapshot " : "", "multiget of ", n,
                          " from ", keys[0]);
  const Model& m = snap != nullptr ? snap->model : model_;
  ReadOptions ro;
  ro.snapshot = snap != nullptr ? snap->snapshot : nullptr;
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<std::string> values;
  const std::vector<absl::Status> statuses = db_->MultiGet(ro, views, &values);
  ASSERT_EQ(statuses.size(), keys.size()) << Where();
  ASSERT_EQ(values.size(), keys.size()) << Where();
  std::string answers;
  for (size_t i = 0; i < keys.size(); ++i) {
    auto it = m.find(keys[i]);
    if (it == m.end()) {
      ASSERT_TRUE(absl::IsNotFound(statuses[i]))
          << Where() << ": " << keys[i] << ": " << statuses[i];
      absl::StrAppend(&answers, i == 0 ? "" : " ", "-");
    } else {
      ASSERT_TRUE(statuses[i].ok())
          << Where() << ": " << keys[i] << ": " << statuses[i];
      ASSERT_EQ(values[i], it->second) << Where() << ": " << keys[i];
      absl::StrAppend(&answers, i == 0 ? "" : " ", Writer(values[i]));
    }
  }
  Log(answers);
}

void ModelRunner::CheckScan(Iterator* it, const Model& model, bool forward) {
  const absl::Status s = test::CheckScan(it, model, forward);
  ASSERT_TRUE(s.ok()) << Where() << ": " << s;
}

void ModelRunner::DoScan(bool forward, const LiveSnapshot* snap) {
  last_op_ = absl::StrCat(snap != nullptr ? "snapshot " : "",
                          forward ? "forward" : "reverse", " scan");
  ReadOptions ro;
  ro.snapshot = snap != nullptr ? snap->snapshot : nullptr;
  std::unique_ptr<Iterator> it = db_->NewIterator(ro);
  const Model& m = snap != nullptr ? snap->model : model_;
  ASSERT_NO_FATAL_FAILURE(CheckScan(it.get(), m, forward));
  Log(absl::StrCat(m.size(), " keys"));
}

// A Seek to a random key, then a random walk of Next and Prev steps, each
// position compared with the model's.
void ModelRunner::DoSeekAndStep() {
  const LiveSnapshot* snap = rnd_.OneIn(3) ? PickSnapshot() : nullptr;
  const Model& m = snap != nullptr ? snap->model : model_;
  const std::string target = RandomKey() + (rnd_.OneIn(2) ? "" : "!");
  last_op_ = "seek " + target;
  ReadOptions ro;
  ro.snapshot = snap != nullptr ? snap->snapshot : nullptr;
  std::unique_ptr<Iterator> it = db_->NewIterator(ro);
  const absl::Status s = test::CheckSeekWalk(it.get(), m, target, &rnd_);
  ASSERT_TRUE(s.ok()) << Where() << ": " << s;
  Log("as the model");
}

void ModelRunner::DoCompactRange() {
  if (rnd_.OneIn(3)) {
    last_op_ = "compact all";
    const absl::Status s = db_->CompactRange(std::nullopt, std::nullopt);
    ASSERT_TRUE(s.ok()) << Where() << ": " << s;
    Log("ok");
    return;
  }
  std::optional<std::string> a, b;
  if (!rnd_.OneIn(4)) a = RandomKey();
  if (!rnd_.OneIn(4)) b = RandomKey();
  if (a && b && options_.comparator->Compare(*b, *a) < 0) std::swap(a, b);
  last_op_ =
      absl::StrCat("compact [", a.value_or("-"), ", ", b.value_or("-"), "]");
  const absl::Status s = db_->CompactRange(a, b);
  ASSERT_TRUE(s.ok()) << Where() << ": " << s;
  Log("ok");
}

// One to three SstFileWriter files over disjoint runs of random keys (some
// tombstones), ingested in random order; copied or moved. Snapshots and
// the held iterator keep their models: the ingest is newer than they are.
void ModelRunner::DoIngest() {
  std::vector<std::string> keys;
  const int n = 1 + static_cast<int>(rnd_.Uniform(60));
  for (int i = 0; i < n; ++i) keys.push_back(RandomKey());
  // SstFileWriter takes keys in the DB's order.
  const Comparator* cmp = options_.comparator;
  std::sort(keys.begin(), keys.end(),
            [cmp](const std::string& a, const std::string& b) {
              return cmp->Compare(a, b) < 0;
            });
  keys.erase(std::unique(keys.begin(), keys.end(),
                         [cmp](const std::string& a, const std::string& b) {
                           return cmp->Compare(a, b) == 0;
                         }),
             keys.end());
  const size_t files = std::min<size_t>(keys.size(), 1 + rnd_.Uniform(3));
  const std::string dir = path_ + "_ext";
  ASSERT_TRUE(options_.env->CreateDir(dir).ok()) << Where();
  std::vector<std::string> paths;
  Model after = model_;
  for (size_t f = 0; f < files; ++f) {
    paths.push_back(absl::StrCat(dir, "/", op_, "-", f, ".sst"));
    SstFileWriter w(options_);
    ASSERT_TRUE(w.Open(paths.back()).ok()) << Where();
    for (size_t i = f * keys.size() / files; i < (f + 1) * keys.size() / files;
         ++i) {
      if (rnd_.OneIn(5)) {
        ASSERT_TRUE(w.Delete(keys[i]).ok()) << Where();
        after.erase(keys[i]);
      } else {
        const std::string v = RandomValue();
        ASSERT_TRUE(w.Put(keys[i], v).ok()) << Where();
        after[keys[i]] = v;
      }
    }
    ASSERT_TRUE(w.Finish().ok()) << Where();
  }
  if (rnd_.OneIn(2)) std::reverse(paths.begin(), paths.end());
  IngestOptions o;
  o.move_files = rnd_.OneIn(2);
  last_op_ = absl::StrCat("ingest ", files, " files, ", keys.size(), " keys",
                          o.move_files ? ", moved" : "");
  const absl::Status s = db_->IngestExternalFiles(paths, o);
  ASSERT_TRUE(s.ok()) << Where() << ": " << s;
  model_ = std::move(after);
  for (const std::string& p : paths) {
    if (options_.env->FileExists(p)) {
      ASSERT_FALSE(o.move_files) << Where() << ": " << p << " not moved";
      ASSERT_TRUE(options_.env->RemoveFile(p).ok());
    }
  }
  Log("ok");
}

// A checkpoint opens as a DB holding exactly the model; it is then
// destroyed.
void ModelRunner::DoCheckpoint() {
  last_op_ = "checkpoint";
  const std::string dir = path_ + "_ckpt";
  ASSERT_TRUE(db_->CreateCheckpoint(dir).ok()) << Where();
  Options o = options_;
  o.create_if_missing = false;
  {
    auto ckpt = DB::Open(o, dir);
    ASSERT_TRUE(ckpt.ok()) << Where() << ": " << ckpt.status();
    std::unique_ptr<Iterator> it = (*ckpt)->NewIterator(ReadOptions());
    ASSERT_NO_FATAL_FAILURE(CheckScan(it.get(), model_, rnd_.OneIn(2)));
  }
  ASSERT_TRUE(DestroyDB(dir, o).ok()) << Where();
  ASSERT_FALSE(options_.env->FileExists(dir)) << Where();
  Log(absl::StrCat(model_.size(), " keys"));
}

void ModelRunner::TakeSnapshot() {
  last_op_ = "snapshot";
  snapshots_.push_back(LiveSnapshot{db_->GetSnapshot(), model_});
  Log(absl::StrCat(snapshots_.size(), " live"));
}

void ModelRunner::ReleaseSnapshot(size_t i) {
  last_op_ = "release snapshot";
  db_->ReleaseSnapshot(snapshots_[i].snapshot);
  snapshots_.erase(snapshots_.begin() + static_cast<ptrdiff_t>(i));
  Log(absl::StrCat(snapshots_.size(), " live"));
}

void ModelRunner::CheckHeldIterator() {
  last_op_ = absl::StrCat("held iterator from op ", held_->created_at);
  ASSERT_NO_FATAL_FAILURE(
      CheckScan(held_->iter.get(), held_->model, rnd_.OneIn(2)));
  Log(absl::StrCat(held_->model.size(), " keys"));
  held_.reset();
}

void ModelRunner::Run(int ops) {
  ASSERT_NO_FATAL_FAILURE(Open());
  for (op_ = 0; op_ < ops; ++op_) {
    const uint32_t r = rnd_.Uniform(10000);
    if (r < 2850) {
      ASSERT_NO_FATAL_FAILURE(DoPut());
    } else if (r < 3000) {
      ASSERT_NO_FATAL_FAILURE(DoDeleteRange());
    } else if (r < 4000) {
      ASSERT_NO_FATAL_FAILURE(DoDelete());
    } else if (r < 4800) {
      ASSERT_NO_FATAL_FAILURE(DoBatch());
    } else if (r < 6800) {
      ASSERT_NO_FATAL_FAILURE(DoGet(nullptr));
    } else if (r < 7300) {
      ASSERT_NO_FATAL_FAILURE(
          DoMultiGet(rnd_.OneIn(3) ? PickSnapshot() : nullptr));
    } else if (r < 8300) {
      ASSERT_NO_FATAL_FAILURE(DoGet(PickSnapshot()));
    } else if (r < 9700) {
      ASSERT_NO_FATAL_FAILURE(DoSeekAndStep());
    } else if (r < 9760) {
      if (snapshots_.size() < kMaxSnapshots) TakeSnapshot();
    } else if (r < 9820) {
      if (!snapshots_.empty()) {
        ReleaseSnapshot(rnd_.Uniform(static_cast<uint32_t>(snapshots_.size())));
      }
    } else if (r < 9835) {
      ASSERT_NO_FATAL_FAILURE(DoScan(rnd_.OneIn(2), PickSnapshot()));
    } else if (r < 9860) {
      if (held_.has_value()) {
        ASSERT_NO_FATAL_FAILURE(CheckHeldIterator());
      } else {
        last_op_ = "hold an iterator";
        held_.emplace(
            HeldIterator{db_->NewIterator(ReadOptions()), model_, op_});
        Log("ok");
      }
    } else if (r < 9920) {
      last_op_ = "flush";
      ASSERT_TRUE(db_->Flush().ok()) << Where();
      Log("ok");
    } else if (r < 9950) {
      ASSERT_NO_FATAL_FAILURE(DoCompactRange());
    } else if (r < 9972) {
      last_op_ = "wait for compaction";
      ASSERT_TRUE(db_->WaitForCompaction().ok()) << Where();
      Log("ok");
    } else if (r < 9982) {
      ASSERT_NO_FATAL_FAILURE(DoIngest());
    } else if (r < 9985) {
      ASSERT_NO_FATAL_FAILURE(DoCheckpoint());
    } else {
      ASSERT_NO_FATAL_FAILURE(Reopen());
    }
  }
  if (held_.has_value()) {
    ASSERT_NO_FATAL_FAILURE(CheckHeldIterator());
  }
  ASSERT_NO_FATAL_FAILURE(DoScan(true, nullptr));
  ASSERT_NO_FATAL_FAILURE(DoScan(false, nullptr));
  ASSERT_NO_FATAL_FAILURE(Reopen());
  std::printf("model: %d ops, %zu live keys at the end\n%s", ops, model_.size(),
              db_->GetProperty("sift.levels")->c_str());
}

TEST(ModelTest, InMemoryEnv) {
  const uint64_t seed = test::TestSeed(20240605);
  const int ops = OpsFromEnv(kOps);
  std::printf(
      "ModelTest.InMemoryEnv: seed %llu, %d ops "
      "(SIFT_TEST_SEED / SIFT_MODEL_OPS to change)\n",
      static_cast<unsigned long long>(seed), ops);
  std::unique_ptr<Env> env = NewMemEnv();
  ModelRunner runner(seed, env.get(), "/model");
  runner.Run(ops);
  runner.MaybeWriteLog("InMemoryEnv");
}

// Tiny files and blocks: many outputs per compaction, so file boundaries
// fall between the versions of hot keys that snapshots keep.
// Files of a few blocks and a small level 1: many files, levels and
// compactions from few operations.
Options TinyFileSizes() {
  Options sizes;
  sizes.write_buffer_size = 16 << 10;
  sizes.max_bytes_for_level_base = 10 * sizes.write_buffer_size;
  sizes.max_file_size = 4 << 10;
  sizes.block_size = 256;
  return sizes;
}

TEST(ModelTest, TinyFiles) {
  const uint64_t seed = test::TestSeed(4242);
  const int ops = OpsFromEnv(kOps) / 2;
  std::printf("ModelTest.TinyFiles: seed %llu, %d ops\n",
              static_cast<unsigned long long>(seed), ops);
  Options sizes = TinyFileSizes();
  // Tiny files make many small compactions: with four threads, three of
  // them run at once beside a flush.
  sizes.max_background_jobs = 4;
  std::unique_ptr<Env> env = NewMemEnv();
  ModelRunner runner(seed, env.get(), "/model", sizes, /*key_space=*/1000);
  runner.Run(ops);
  runner.MaybeWriteLog("TinyFiles");
}

// The same seed under two option sets: the ordinary sizes with Bloom
// filters at 1% and one background thread, and tiny files and blocks,
// restart points every 2 keys, no compression, no filters at the start
// and four background threads (compactions in flight at once). Between them the
// files, levels, compactions and filter answers differ completely; the
// operations are the same, so every line of the two op logs must be.
TEST(ModelTest, SameOpsUnderTwoConfigurationsGiveTheSameLog) {
  const uint64_t seed = test::TestSeed(5150);
  const int ops = OpsFromEnv(kOps) / 3;
  std::printf(
      "ModelTest.SameOpsUnderTwoConfigurationsGiveTheSameLog: "
      "seed %llu, %d ops\n",
      static_cast<unsigned long long>(seed), ops);
  constexpr uint32_t kKeySpace = 2000;
  Options first = ModelRunner::DefaultSizes();
  first.max_background_jobs = 1;
  Options second = TinyFileSizes();
  second.max_background_jobs = 4;
  second.block_restart_interval = 2;
  second.compression = Compression::kNone;
  second.bloom_filter_fp_chance = 1.0;
  std::unique_ptr<Env> env = NewMemEnv();
  ModelRunner a(seed, env.get(), "/first", first, kKeySpace);
  ModelRunner b(seed, env.get(), "/second", second, kKeySpace);
  ASSERT_NO_FATAL_FAILURE(a.Run(ops));
  ASSERT_NO_FATAL_FAILURE(b.Run(ops));
  a.MaybeWriteLog("first");
  b.MaybeWriteLog("second");
  // An op log has at least a line per put or get.
  ASSERT_GT(a.log().size(), static_cast<size_t>(ops) / 2);
  const size_t n = std::min(a.log().size(), b.log().size());
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(a.log()[i], b.log()[i]) << "op logs part at line " << i;
  }
  EXPECT_EQ(a.log().size(), b.log().size());
}

// Every ordered structure (memtable, blocks, index, level file ranges,
// iterators, compaction) under a user comparator: a bytewise compare left
// anywhere misorders keys and the model catches it.
TEST(ModelTest, ReverseComparator) {
  const uint64_t seed = test::TestSeed(1717);
  const int ops = OpsFromEnv(30000) / 3;
  std::printf("ModelTest.ReverseComparator: seed %llu, %d ops\n",
              static_cast<unsigned long long>(seed), ops);
  Options sizes = ModelRunner::DefaultSizes();
  sizes.comparator = test::ReverseBytewiseComparator();
  std::unique_ptr<Env> env = NewMemEnv();
  ModelRunner runner(seed, env.get(), "/model", sizes);
  runner.Run(ops);
  runner.MaybeWriteLog("ReverseComparator");
}

TEST(ModelTest, NumericSuffixComparatorTinyFiles) {
  const uint64_t seed = test::TestSeed(1718);
  const int ops = OpsFromEnv(30000) / 3;
  std::printf("ModelTest.NumericSuffixComparatorTinyFiles: seed %llu, %d ops\n",
              static_cast<unsigned long long>(seed), ops);
  Options sizes = TinyFileSizes();
  sizes.comparator = test::NumericSuffixComparator();
  std::unique_ptr<Env> env = NewMemEnv();
  ModelRunner runner(seed, env.get(), "/model", sizes, /*key_space=*/1000);
  runner.Run(ops);
  runner.MaybeWriteLog("NumericSuffixComparatorTinyFiles");
}

TEST(ModelTest, PosixEnv) {
  const uint64_t seed = test::TestSeed(77);
  const int ops = OpsFromEnv(kOps) / 5;
  std::printf("ModelTest.PosixEnv: seed %llu, %d ops\n",
              static_cast<unsigned long long>(seed), ops);
  const std::string dir = test::TempDir("model");
  {
    ModelRunner runner(seed, Env::Default(), dir);
    runner.Run(ops);
    runner.MaybeWriteLog("PosixEnv");
  }
  EXPECT_TRUE(DestroyDB(dir, Options()).ok());
}

}  // namespace
}  // namespace sift
