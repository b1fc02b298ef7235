// Benchmark: runs db_bench's benchmarks against one database. What each one
// does follows RocksDB's db_bench (fill* recreate the database; --num,
// --reads and --writes count per thread; readmissing asks for keys one byte
// longer than any written; multireadrandom counts keys, not batches); the
// report lines are BenchStats::Report.

#include <algorithm>
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
#include "bench/db_bench_reporter.h"
#include "db/statistics_impl.h"

namespace sift::bench {
namespace {

struct Step {
  std::string_view name;
  bool meta;  // no report line, as in RocksDB
  std::string_view help;
};

constexpr Step kSteps[] = {
    {"fillseq", false, "write N values in sequential key order"},
    {"fillrandom", false, "write N values in random key order"},
    {"overwrite", false, "overwrite N values in random key order"},
    {"fillsync", false, "write N/1000 values in random key order, synced"},
    {"fill100K", false, "write N/1000 100K values in random key order"},
    {"updaterandom", false, "read-modify-write N random keys"},
    {"readrandomwriterandom", false,
     "--readwritepercent reads, the rest writes, random keys"},
    {"deleteseq", false, "delete N keys in sequential order"},
    {"deleterandom", false, "delete N keys in random order"},
    {"readseq", false, "read N times sequentially"},
    {"readreverse", false, "read N times in reverse order"},
    {"readtocache", false, "1 thread reading the database sequentially"},
    {"readrandom", false, "read N times in random order"},
    {"readmissing", false, "read N missing keys in random order"},
    {"readhot", false, "read N times in random order from 1% section of DB"},
    {"multireadrandom", false,
     "read N random keys, --batch_size per DB::MultiGet"},
    {"multireadmissing", false,
     "multireadrandom of missing keys (siftdb's; as readmissing)"},
    {"seekrandom", false, "N random seeks, one iterator per thread"},
    {"newiterator", false, "create and destroy N iterators"},
    {"readwhilewriting", false,
     "--threads readers doing readrandom plus one writer"},
    {"seekrandomwhilewriting", false,
     "--threads readers doing seekrandom plus one writer"},
    {"ycsbload", false,
     "YCSB's load: insert --ycsb_record_count records (fresh database)"},
    {"ycsba", false, "YCSB workload A: 50% read, 50% update, zipfian"},
    {"ycsbb", false, "YCSB workload B: 95% read, 5% update, zipfian"},
    {"ycsbc", false, "YCSB workload C: 100% read, zipfian"},
    {"ycsbd", false, "YCSB workload D: 95% read, 5% insert, latest"},
    {"ycsbe", false,
     "YCSB workload E: 95% scan (1 to --ycsb_max_scan_length records), 5% "
     "insert, zipfian"},
    {"ycsbf", false,
     "YCSB workload F: 50% read, 50% read-modify-write, zipfian"},
    {"compact", false, "compact the entire DB (one timed operation)"},
    {"compactall", true, "compact the entire DB (no report line)"},
    {"rebuildfilters", false,
     "DB::RebuildFilters: bring every file's filter to the current options "
     "(one timed operation)"},
    {"flush", true, "flush the memtable"},
    {"waitforcompaction", true, "wait until no compaction is pending"},
    {"resetstats", true, "zero the counters --statistics prints"},
    {"stats", true, "print the DB's statistics (sift.stats)"},
    {"levelstats", true, "print files and bytes per level"},
    {"sstables", true, "print the SSTables of each level"},
};

const Step* FindStep(std::string_view name) {
  for (const Step& s : kSteps) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

void SubtractStatistics(const Statistics& from, Statistics* to) {
  for (uint32_t t = 0; t < kNumTickers; ++t) to->total[t] -= from.total[t];
  for (int l = 0; l < kStatisticsLevels; ++l) {
    for (uint32_t t = 0; t < kNumTickers; ++t) {
      to->level[l][t] -= from.level[l][t];
    }
  }
}

}  // namespace

void Fatal(std::string_view what, const absl::Status& s) {
  std::fprintf(stderr, "%.*s error: %s\n", static_cast<int>(what.size()),
               what.data(), s.ToString().c_str());
  std::exit(1);
}

bool IsKnownBenchmark(std::string_view name) {
  return FindStep(name) != nullptr;
}

std::string BenchmarkHelp() {
  std::string out;
  for (const Step& s : kSteps) {
    absl::StrAppendFormat(&out, "  %-24s %s\n", s.name, s.help);
  }
  return out;
}

Benchmark::Benchmark(BenchConfig config)
    : config_(std::move(config)), next_seed_(config_.seed) {}

Benchmark::~Benchmark() { Close(); }

absl::Status Benchmark::Open() {
  Options options = config_.options;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  // RocksDB's db_bench names: "default", then column_family_name_000001...
  std::vector<ColumnFamilyDescriptor> descriptors;
  for (int i = 0; i < config_.num_column_families; ++i) {
    descriptors.emplace_back(
        i == 0 ? std::string(kDefaultColumnFamilyName)
               : absl::StrFormat("column_family_name_%06d", i),
        options);
  }
  auto db = DB::Open(options, config_.db, descriptors, &handles_);
  if (!db.ok()) return db.status();
  db_ = *std::move(db);
  families_.clear();
  for (const auto& h : handles_) families_.push_back(h.get());
  return absl::OkStatus();
}

void Benchmark::Close() {
  if (db_ == nullptr) return;
  AddStatistics(db_->GetStatistics(), &closed_stats_);
  families_.clear();
  handles_.clear();
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
  std::printf("DB path: [%s]\n", config_.db.c_str());
  for (const std::string& name : config_.benchmarks) {
    s = RunOne(name);
    if (!s.ok()) return s;
  }
  if (config_.statistics) PrintStatistics();
  std::fflush(stdout);
  return absl::OkStatus();
}

absl::Status Benchmark::RunOne(std::string_view name) {
  const Step* step = FindStep(name);
  if (step == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("unknown benchmark '%s'", name));
  }
  if (step->meta) return RunMeta(name);
  num_ = config_.num;
  reads_ = config_.reads;
  value_size_ = config_.value_size;
  write_options_ = WriteOptions();
  write_options_.sync = config_.sync;
  read_options_ = ReadOptions();
  const bool fresh = name == "fillseq" || name == "fillrandom" ||
                     name == "fillsync" || name == "fill100K" ||
                     name == "ycsbload";
  if (fresh) {
    if (config_.use_existing_db) {
      std::printf("%-12.*s : skipped (--use_existing_db is true)\n",
                  static_cast<int>(name.size()), name.data());
      return absl::OkStatus();
    }
    absl::Status s = Fresh();
    if (!s.ok()) return s;
  }
  if (name == "fillsync") {
    num_ /= 1000;
    write_options_.sync = true;
  } else if (name == "fill100K") {
    num_ /= 1000;
    value_size_ = 100 * 1000;
  } else if (name == "readtocache") {
    reads_ = num_;
  }
  if (name.substr(0, 4) == "ycsb") return RunYcsb(name);
  // Writes per thread: --writes when given, else this benchmark's num.
  writes_ = config_.writes < 0 ? num_ : config_.writes;
  struct {
    std::string_view name;
    Method method;
  } const kMethods[] = {
      {"fillseq", &Benchmark::WriteSeq},
      {"fillrandom", &Benchmark::WriteRandom},
      {"overwrite", &Benchmark::WriteRandom},
      {"fillsync", &Benchmark::WriteRandom},
      {"fill100K", &Benchmark::WriteRandom},
      {"updaterandom", &Benchmark::UpdateRandom},
      {"readrandomwriterandom", &Benchmark::ReadRandomWriteRandom},
      {"deleteseq", &Benchmark::DeleteSeq},
      {"deleterandom", &Benchmark::DeleteRandom},
      {"readseq", &Benchmark::ReadSequential},
      {"readtocache", &Benchmark::ReadSequential},
      {"readreverse", &Benchmark::ReadReverse},
      {"readrandom", &Benchmark::ReadRandom},
      {"readmissing", &Benchmark::ReadMissing},
      {"readhot", &Benchmark::ReadHot},
      {"multireadrandom", &Benchmark::MultiReadRandom},
      {"multireadmissing", &Benchmark::MultiReadMissing},
      {"seekrandom", &Benchmark::SeekRandom},
      {"newiterator", &Benchmark::NewIterators},
      {"readwhilewriting", &Benchmark::ReadWhileWriting},
      {"seekrandomwhilewriting", &Benchmark::SeekRandomWhileWriting},
      {"compact", &Benchmark::Compact},
      {"rebuildfilters", &Benchmark::RebuildFilters},
  };
  for (const auto& m : kMethods) {
    if (m.name != name) continue;
    int n = config_.threads;
    int report_tid = 0;
    if (name == "readtocache" || name == "compact" ||
        name == "rebuildfilters") {
      n = 1;
    } else if (name == "readwhilewriting" || name == "seekrandomwhilewriting") {
      // Thread 0 writes; threads 1..n read and are the ones reported.
      ++n;
      report_tid = 1;
    }
    return RunThreads(name, n, m.method, report_tid);
  }
  return absl::InternalError(absl::StrFormat("no workload for %s", name));
}

absl::Status Benchmark::RunMeta(std::string_view name) {
  if (name == "flush") return db_->Flush();
  if (name == "waitforcompaction") return db_->WaitForCompaction();
  if (name == "compactall") {
    for (ColumnFamilyHandle* family : families_) {
      absl::Status s = db_->CompactRange(family, std::nullopt, std::nullopt);
      if (!s.ok()) return s;
    }
  }
  if (name == "resetstats") {
    // The DB's own counters cannot be zeroed: remember where they stand.
    reset_baseline_ = closed_stats_;
    if (db_ != nullptr) AddStatistics(db_->GetStatistics(), &reset_baseline_);
  } else if (name == "stats") {
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

absl::Status Benchmark::RunThreads(std::string_view name, int n, Method method,
                                   int report_tid) {
  std::unique_ptr<Reporter> reporter;
  if (config_.report_interval_seconds > 0) {
    auto r =
        Reporter::Start(config_.report_file, config_.report_interval_seconds,
                        config_.report_latency, n);
    if (!r.ok()) return r.status();
    reporter = *std::move(r);
  }
  Shared shared;
  shared.num_readers = n - 1;
  std::vector<std::unique_ptr<ThreadState>> states;
  for (int i = 0; i < n; ++i) {
    StatsOptions options;
    options.histogram = config_.histogram;
    // RocksDB: every thread prints its own interval lines; progress comes
    // from one thread.
    options.stats_interval_seconds = config_.stats_interval_seconds;
    options.progress = i == report_tid || config_.stats_interval_seconds > 0;
    options.reporter = reporter.get();
    states.push_back(std::make_unique<ThreadState>(i, next_seed_++, options));
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
  reporter.reset();
  // Merge into the first reported thread's stats.
  BenchStats* merged = &states[report_tid]->stats;
  for (int i = 0; i < n; ++i) {
    if (i != report_tid) merged->Merge(states[i]->stats);
  }
  std::fputs(merged->Report(name).c_str(), stdout);
  std::fflush(stdout);
  return absl::OkStatus();
}

void Benchmark::PrintStatistics() {
  Statistics stats = closed_stats_;
  if (db_ != nullptr) AddStatistics(db_->GetStatistics(), &stats);
  SubtractStatistics(reset_baseline_, &stats);
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
