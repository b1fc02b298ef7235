// Benchmark: runs db_bench's benchmarks against one database. What each one
// does follows RocksDB's db_bench (fill* recreate the database; --num and
// --reads count per thread; readmissing asks for keys one byte longer than
// any written); the report lines are BenchStats::Report.

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/db_bench.h"
#include "bench/db_bench_keys.h"
#include "util/mutex.h"

namespace sift::bench {
namespace {

constexpr std::string_view kMetaSteps[] = {"flush", "waitforcompaction",
                                           "stats", "levelstats", "sstables"};
constexpr std::string_view kWorkloads[] = {
    "fillseq",      "fillrandom",       "overwrite",   "fillsync", "readseq",
    "readreverse",  "readrandom",       "readmissing", "readhot",  "seekrandom",
    "deleterandom", "readwhilewriting", "compact"};

bool IsMetaStep(std::string_view name) {
  for (std::string_view m : kMetaSteps) {
    if (m == name) return true;
  }
  return false;
}

[[noreturn]] void Fatal(std::string_view what, const absl::Status& s) {
  std::fprintf(stderr, "%.*s error: %s\n", static_cast<int>(what.size()),
               what.data(), s.ToString().c_str());
  std::exit(1);
}

void AddStatistics(const Statistics& from, Statistics* to) {
  for (uint32_t t = 0; t < kNumTickers; ++t) to->total[t] += from.total[t];
  for (int l = 0; l < kStatisticsLevels; ++l) {
    for (uint32_t t = 0; t < kNumTickers; ++t)
      to->level[l][t] += from.level[l][t];
  }
}

}  // namespace

bool IsKnownBenchmark(std::string_view name) {
  for (std::string_view w : kWorkloads) {
    if (w == name) return true;
  }
  return IsMetaStep(name);
}

// A start gate, so every thread's clock starts together, and the count of
// readers done (the readwhilewriting writer stops at the last).
struct Benchmark::Shared {
  Mutex mu;
  CondVar cv;
  int ready ABSL_GUARDED_BY(mu) = 0;
  bool go ABSL_GUARDED_BY(mu) = false;
  std::atomic<int> readers_done{0};
  int num_readers = 0;
};

Benchmark::Benchmark(BenchConfig config)
    : config_(std::move(config)), next_seed_(config_.seed) {}

Benchmark::~Benchmark() { Close(); }

absl::Status Benchmark::Open() {
  Options options = config_.options;
  options.create_if_missing = true;
  auto db = DB::Open(options, config_.db);
  if (!db.ok()) return db.status();
  db_ = *std::move(db);
  std::printf("DB path: [%s]\n", config_.db.c_str());
  return absl::OkStatus();
}

void Benchmark::Close() {
  if (db_ == nullptr) return;
  AddStatistics(db_->GetStatistics(), &closed_stats_);
  db_.reset();
}

absl::Status Benchmark::Fresh() {
  Close();
  absl::Status s = DestroyDB(config_.db, config_.options);
  if (!s.ok()) return s;
  return Open();
}

absl::Status Benchmark::Run() {
  if (!config_.use_existing_db) {
    absl::Status s = DestroyDB(config_.db, config_.options);
    if (!s.ok()) return s;
  }
  absl::Status s = Open();
  if (!s.ok()) return s;
  for (const std::string& name : config_.benchmarks) {
    s = RunOne(name);
    if (!s.ok()) return s;
  }
  if (config_.statistics) PrintStatistics();
  std::fflush(stdout);
  return absl::OkStatus();
}

absl::Status Benchmark::RunOne(std::string_view name) {
  if (IsMetaStep(name)) return RunMeta(name);
  num_ = config_.num;
  reads_ = config_.reads;
  write_options_ = WriteOptions();
  const bool fresh =
      name == "fillseq" || name == "fillrandom" || name == "fillsync";
  if (fresh) {
    if (config_.use_existing_db) {
      std::printf("%-12.*s : skipped (--use_existing_db is true)\n",
                  static_cast<int>(name.size()), name.data());
      return absl::OkStatus();
    }
    absl::Status s = Fresh();
    if (!s.ok()) return s;
  }
  const int n = config_.threads;
  if (name == "fillseq") {
    RunThreads(name, n, &Benchmark::WriteSeq);
  } else if (name == "fillrandom" || name == "overwrite") {
    RunThreads(name, n, &Benchmark::WriteRandom);
  } else if (name == "fillsync") {
    num_ /= 1000;
    write_options_.sync = true;
    RunThreads(name, n, &Benchmark::WriteRandom);
  } else if (name == "readseq") {
    RunThreads(name, n, &Benchmark::ReadSequential);
  } else if (name == "readreverse") {
    RunThreads(name, n, &Benchmark::ReadReverse);
  } else if (name == "readrandom") {
    RunThreads(name, n, &Benchmark::ReadRandom);
  } else if (name == "readmissing") {
    RunThreads(name, n, &Benchmark::ReadMissing);
  } else if (name == "readhot") {
    RunThreads(name, n, &Benchmark::ReadHot);
  } else if (name == "seekrandom") {
    RunThreads(name, n, &Benchmark::SeekRandom);
  } else if (name == "deleterandom") {
    RunThreads(name, n, &Benchmark::DeleteRandom);
  } else if (name == "readwhilewriting") {
    // Thread 0 writes; threads 1..n read and are the ones reported.
    RunThreads(name, n + 1, &Benchmark::ReadWhileWriting, 1);
  } else if (name == "compact") {
    RunThreads(name, 1, &Benchmark::Compact);
  } else {
    return absl::InvalidArgumentError(
        absl::StrFormat("unknown benchmark '%s'", name));
  }
  return absl::OkStatus();
}

absl::Status Benchmark::RunMeta(std::string_view name) {
  if (name == "flush") return db_->Flush();
  if (name == "waitforcompaction") return db_->WaitForCompaction();
  if (name == "stats") {
    PrintProperty("sift.stats");
    if (config_.statistics) PrintProperty("sift.filter-stats");
  } else if (name == "levelstats") {
    PrintProperty("sift.levels");
  } else if (name == "sstables") {
    PrintProperty("sift.sstables");
  }
  return absl::OkStatus();
}

void Benchmark::PrintProperty(std::string_view property) {
  std::optional<std::string> v = db_->GetProperty(property);
  if (!v.has_value()) {
    std::fprintf(stderr, "db_bench: no property %.*s\n",
                 static_cast<int>(property.size()), property.data());
    return;
  }
  std::printf("\n%s\n", v->c_str());
}

void Benchmark::RunThreads(std::string_view name, int n, Method method,
                           int progress_tid) {
  Shared shared;
  shared.num_readers = n - 1;
  std::vector<std::unique_ptr<ThreadState>> states;
  for (int i = 0; i < n; ++i) {
    states.push_back(std::make_unique<ThreadState>(
        i, next_seed_++, config_.histogram, i == progress_tid));
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    ThreadState* t = states[i].get();
    threads.emplace_back([this, t, &shared, method] {
      {
        MutexLock l(&shared.mu);
        ++shared.ready;
        shared.cv.SignalAll();
        while (!shared.go) shared.cv.Wait(&shared.mu);
      }
      t->stats.Start();
      (this->*method)(t, &shared);
      t->stats.Stop();
    });
  }
  {
    MutexLock l(&shared.mu);
    while (shared.ready < n) shared.cv.Wait(&shared.mu);
    shared.go = true;
    shared.cv.SignalAll();
  }
  for (std::thread& t : threads) t.join();
  // Merge into the first reported thread's stats.
  BenchStats* merged = &states[progress_tid]->stats;
  for (int i = 0; i < n; ++i) {
    if (i != progress_tid) merged->Merge(states[i]->stats);
  }
  std::fputs(merged->Report(name).c_str(), stdout);
  std::fflush(stdout);
}

void Benchmark::WriteSeq(ThreadState* thread, Shared*) {
  DoWrite(thread, true);
}

void Benchmark::WriteRandom(ThreadState* thread, Shared*) {
  DoWrite(thread, false);
}

void Benchmark::DoWrite(ThreadState* thread, bool seq) {
  ValueGenerator gen(config_.compression_ratio, config_.value_size);
  std::string key;
  int64_t bytes = 0;
  const uint64_t range = std::max<int64_t>(num_, 1);
  // Only random writes run for --duration, as in RocksDB.
  Duration duration(seq ? 0 : config_.duration, num_);
  for (int64_t i = 0; !duration.Done(1); ++i) {
    const uint64_t k =
        seq ? static_cast<uint64_t>(i) : RandomKeyNum(&thread->rand, range);
    MakeKey(k, config_.key_size, &key);
    absl::Status s =
        db_->Put(write_options_, key, gen.Generate(config_.value_size));
    if (!s.ok()) Fatal("put", s);
    bytes += static_cast<int64_t>(config_.key_size + config_.value_size);
    thread->stats.FinishedOps(1, OpKind::kWrite);
  }
  thread->stats.AddBytes(bytes);
}

void Benchmark::ReadSequential(ThreadState* thread, Shared*) {
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  int64_t i = 0;
  int64_t bytes = 0;
  for (it->SeekToFirst(); i < reads_ && it->Valid(); it->Next(), ++i) {
    bytes += static_cast<int64_t>(it->key().size() + it->value().size());
    thread->stats.FinishedOps(1, OpKind::kRead);
  }
  if (!it->status().ok()) Fatal("iterator", it->status());
  thread->stats.AddBytes(bytes);
}

void Benchmark::ReadReverse(ThreadState* thread, Shared*) {
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  int64_t i = 0;
  int64_t bytes = 0;
  for (it->SeekToLast(); i < reads_ && it->Valid(); it->Prev(), ++i) {
    bytes += static_cast<int64_t>(it->key().size() + it->value().size());
    thread->stats.FinishedOps(1, OpKind::kRead);
  }
  if (!it->status().ok()) Fatal("iterator", it->status());
  thread->stats.AddBytes(bytes);
}

void Benchmark::ReadRandom(ThreadState* thread, Shared*) {
  DoRead(thread, config_.num, config_.key_size);
}

void Benchmark::ReadMissing(ThreadState* thread, Shared*) {
  DoRead(thread, config_.num, config_.key_size + 1);
}

void Benchmark::ReadHot(ThreadState* thread, Shared*) {
  DoRead(thread, (config_.num + 99) / 100, config_.key_size);
}

void Benchmark::DoRead(ThreadState* thread, uint64_t key_range,
                       size_t key_size) {
  const ReadOptions options;
  std::string key, value;
  int64_t found = 0, read = 0, bytes = 0;
  Duration duration(config_.duration, reads_);
  while (!duration.Done(1)) {
    MakeKey(RandomKeyNum(&thread->rand, key_range), key_size, &key);
    absl::Status s = db_->Get(options, key, &value);
    if (s.ok()) {
      ++found;
      bytes += static_cast<int64_t>(key.size() + value.size());
    } else if (!absl::IsNotFound(s)) {
      Fatal("get", s);
    }
    ++read;
    thread->stats.FinishedOps(1, OpKind::kRead);
  }
  thread->stats.AddBytes(bytes);
  thread->stats.AddFound(found, read);
}

void Benchmark::SeekRandom(ThreadState* thread, Shared*) {
  // One iterator per thread, as RocksDB's: it sees the DB as of its
  // creation, which is all of it for a read-only benchmark.
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  std::string key;
  int64_t found = 0, read = 0, bytes = 0;
  Duration duration(config_.duration, reads_);
  while (!duration.Done(1)) {
    MakeKey(RandomKeyNum(&thread->rand, config_.num), config_.key_size, &key);
    it->Seek(key);
    if (it->Valid()) {
      if (it->key() == key) ++found;
      bytes += static_cast<int64_t>(it->key().size() + it->value().size());
    } else if (!it->status().ok()) {
      Fatal("seek", it->status());
    }
    ++read;
    thread->stats.FinishedOps(1, OpKind::kSeek);
  }
  thread->stats.AddBytes(bytes);
  thread->stats.AddFound(found, read);
}

void Benchmark::DeleteRandom(ThreadState* thread, Shared*) {
  std::string key;
  for (int64_t i = 0; i < num_; ++i) {
    MakeKey(RandomKeyNum(&thread->rand, config_.num), config_.key_size, &key);
    absl::Status s = db_->Delete(write_options_, key);
    if (!s.ok()) Fatal("delete", s);
    thread->stats.FinishedOps(1, OpKind::kDelete);
  }
}

void Benchmark::ReadWhileWriting(ThreadState* thread, Shared* shared) {
  if (thread->tid > 0) {
    ReadRandom(thread, shared);
    shared->readers_done.fetch_add(1, std::memory_order_release);
    return;
  }
  // The writer: random overwrites until the last reader is done; its work
  // is not part of the report.
  thread->stats.ExcludeFromMerge();
  ValueGenerator gen(config_.compression_ratio, config_.value_size);
  std::string key;
  while (shared->readers_done.load(std::memory_order_acquire) <
         shared->num_readers) {
    MakeKey(RandomKeyNum(&thread->rand, config_.num), config_.key_size, &key);
    absl::Status s =
        db_->Put(write_options_, key, gen.Generate(config_.value_size));
    if (!s.ok()) Fatal("put", s);
    thread->stats.FinishedOps(1, OpKind::kWrite);
  }
}

void Benchmark::Compact(ThreadState*, Shared*) {
  absl::Status s = db_->CompactRange(std::nullopt, std::nullopt);
  if (!s.ok()) Fatal("compact", s);
}

void Benchmark::PrintStatistics() {
  Statistics stats = closed_stats_;
  if (db_ != nullptr) AddStatistics(db_->GetStatistics(), &stats);
  std::printf("STATISTICS:\n%s", stats.ToString().c_str());
  // The observed false-positive rate beside the chance the filters were
  // configured for; FP = (positive - true_positive) / (useful + positive -
  // true_positive), i.e. false "maybe"s over probes for absent keys.
  const double p = config_.options.bloom_filter_fp_chance;
  auto line = [&](const std::string& name, const auto& c, double rate) {
    const uint64_t fp =
        c[kBloomFilterFullPositive] - c[kBloomFilterFullTruePositive];
    std::printf(
        "%s : %.6f (fp chance %g; %llu false positives in %llu "
        "probes of absent keys)\n",
        name.c_str(), rate, p, static_cast<unsigned long long>(fp),
        static_cast<unsigned long long>(c[kBloomFilterUseful] + fp));
  };
  line("sift.bloom.filter.observed.fp.rate", stats.total,
       stats.ObservedFpRate());
  for (int l = 0; l < kStatisticsLevels; ++l) {
    if (stats.level[l][kBloomFilterChecked] == 0) continue;
    line(absl::StrCat("sift.bloom.filter.observed.fp.rate.level", l),
         stats.level[l], stats.ObservedFpRateAtLevel(l));
  }
}

}  // namespace sift::bench
