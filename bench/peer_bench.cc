// peer_bench: one workload driver for siftdb, RocksDB and LevelDB, so the
// three are measured with identical keys, values and settings.
//
//   peer_bench --engine=sift|rocksdb|leveldb --num=1000000 --reads=300000
//   peer_bench --engine=rocksdb --threads=2
//     --benchmarks=ycsbload,ycsba,ycsbb,ycsbc,ycsbf,ycsbd,ycsbe
//
// --benchmarks runs, in order, on one database (fresh unless
// --use_existing_db):
//   fillrandom         --num random keys (db_bench's keys and values)
//   waitforcompaction  until the engine has no compaction left to do
//   readrandom         --reads Gets of random written key numbers
//   readmissing        --reads Gets of keys one byte longer: all absent
//   manyfiles          the "misses across many files" case: a fresh DB
//                      filled in --manyfiles rounds, each flushed to its own
//                      overlapping level-0 file and kept there (LevelDB
//                      compacts them anyway: its level-0 trigger is fixed),
//                      read with readmissing
//   facts              filter bytes, table bytes written, stall time
//   stats              the engine's own statistics text
//   ycsbload, ycsba .. ycsbf   YCSB's load and core workloads on --threads
//                      threads (bench/ycsb.h, the --ycsb_* flags of
//                      db_bench); ycsbload recreates the database
// Each timed line:
//   <engine> <workload> : <us/op> micros/op; (<found> of <n> found)
// A YCSB line adds ops/sec and is followed by YCSB's latency lines
// ("[READ], 99thPercentileLatency(us), 9.1"); facts prints
//   <engine> facts : filter_bytes=N table_bytes_written=N stall_micros=N
// (-1 where the engine does not say).

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "bench/db_bench_keys.h"
#include "bench/peer_engines.h"
#include "bench/ycsb.h"
#include "bench/ycsb_flags.h"
#include "util/random.h"

ABSL_FLAG(std::string, engine, "sift", "sift, rocksdb or leveldb");
ABSL_FLAG(std::string, benchmarks,
          "fillrandom,waitforcompaction,readrandom,readmissing,manyfiles",
          "the steps to run, in order (see the list above)");
ABSL_FLAG(int64_t, num, 1000000, "keys written by fillrandom");
ABSL_FLAG(int64_t, reads, 300000, "reads per read workload");
ABSL_FLAG(int, key_size, 16, "key bytes");
ABSL_FLAG(int, value_size, 100, "value bytes");
ABSL_FLAG(double, compression_ratio, 0.5, "value compressibility");
ABSL_FLAG(int, manyfiles, 12, "level-0 files of the many-files case");
ABSL_FLAG(int, threads, 1, "threads of the YCSB workloads");
ABSL_FLAG(int, max_background_jobs, 2,
          "siftdb's and RocksDB's max_background_jobs (LevelDB runs one "
          "background thread)");
ABSL_FLAG(std::string, db, "", "directory (default: a fresh one in /tmp)");
ABSL_FLAG(bool, use_existing_db, false,
          "open --db as it is instead of emptying it first (fillrandom and "
          "ycsbload are refused)");
ABSL_FLAG(uint64_t, seed, 1, "random seed");
ABSL_FLAG(bool, stats, false,
          "print the engine's own statistics after waitforcompaction");

namespace sift::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Micros(Clock::time_point start, int64_t ops) {
  const double us =
      std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  return ops > 0 ? us / static_cast<double>(ops) : 0;
}

void Report(const Engine& e, const char* workload, double us_per_op,
            int64_t found, int64_t n) {
  std::printf("%-8s %-16s : %9.3f micros/op; (%lld of %lld found)\n", e.name(),
              workload, us_per_op, static_cast<long long>(found),
              static_cast<long long>(n));
  std::fflush(stdout);
}

void Fill(Engine* e, int64_t n, uint64_t key_space, uint64_t seed,
          const char* label) {
  Random rnd(seed);
  ValueGenerator values(absl::GetFlag(FLAGS_compression_ratio),
                        absl::GetFlag(FLAGS_value_size));
  std::string key;
  const auto start = Clock::now();
  for (int64_t i = 0; i < n; ++i) {
    MakeKey(RandomKeyNum(&rnd, key_space), absl::GetFlag(FLAGS_key_size), &key);
    e->Put(key, values.Generate(absl::GetFlag(FLAGS_value_size)));
  }
  if (label != nullptr) Report(*e, label, Micros(start, n), 0, 0);
}

void Read(Engine* e, uint64_t key_space, bool missing, uint64_t seed,
          const char* label) {
  Random rnd(seed);
  const int64_t n = absl::GetFlag(FLAGS_reads);
  const size_t key_size = absl::GetFlag(FLAGS_key_size) + (missing ? 1 : 0);
  std::string key, value;
  int64_t found = 0;
  const auto start = Clock::now();
  for (int64_t i = 0; i < n; ++i) {
    MakeKey(RandomKeyNum(&rnd, key_space), key_size, &key);
    if (e->Get(key, &value)) ++found;
  }
  Report(*e, label, Micros(start, n), found, n);
}

std::unique_ptr<Engine> OpenEngine(const std::string& engine,
                                   const std::string& dir,
                                   const EngineConfig& config, bool fresh) {
  if (fresh) std::filesystem::remove_all(dir);
  std::unique_ptr<Engine> e = NewEngine(engine);
  if (e == nullptr) {
    std::fprintf(stderr, "peer_bench: unknown --engine=%s\n", engine.c_str());
    std::exit(1);
  }
  const std::string error = e->Open(dir, config);
  if (!error.empty()) {
    std::fprintf(stderr, "peer_bench: %s: open %s: %s\n", e->name(),
                 dir.c_str(), error.c_str());
    std::exit(1);
  }
  return e;
}

// The Engine as YCSB's Store (the engine dies on any error itself).
class EngineStore final : public ycsb::Store {
 public:
  explicit EngineStore(Engine* e) : e_(e) {}
  absl::Status Get(std::string_view key, std::string* value) override {
    return e_->Get(key, value) ? absl::OkStatus() : absl::NotFoundError("");
  }
  absl::Status Put(std::string_view key, std::string_view value) override {
    e_->Put(key, value);
    return absl::OkStatus();
  }
  absl::Status Scan(
      std::string_view start, int n,
      const std::function<void(std::string_view, std::string_view)>& visit)
      override {
    e_->Scan(start, n, visit);
    return absl::OkStatus();
  }

 private:
  Engine* const e_;
};

void RunYcsb(Engine* e, ycsb::Session* session, const std::string& name,
             uint64_t seed) {
  std::optional<ycsb::Workload> workload;
  if (name != "ycsbload") workload = ycsb::CoreWorkload(name.substr(4));
  EngineStore store(e);
  double seconds = 0;
  absl::StatusOr<ycsb::Results> r =
      ycsb::Run(session, workload.has_value() ? &*workload : nullptr, &store,
                absl::GetFlag(FLAGS_threads), seed, &seconds);
  if (!r.ok()) {
    std::fprintf(stderr, "peer_bench: %s: %s\n", name.c_str(),
                 r.status().ToString().c_str());
    std::exit(1);
  }
  const int64_t ops = r->Operations();
  std::printf(
      "%-8s %-16s : %9.3f micros/op; %.0f ops/sec; (%lld of %lld found)\n",
      e->name(), name.c_str(),
      seconds * 1e6 / static_cast<double>(std::max<int64_t>(ops, 1)),
      seconds > 0 ? static_cast<double>(ops) / seconds : 0.0,
      static_cast<long long>(r->found), static_cast<long long>(r->lookups));
  std::fputs(r->Report(seconds).c_str(), stdout);
  std::fflush(stdout);
}

bool IsStep(const std::string& s) {
  for (const char* name :
       {"fillrandom", "waitforcompaction", "readrandom", "readmissing",
        "manyfiles", "facts", "stats", "ycsbload"}) {
    if (s == name) return true;
  }
  return s.size() == 5 && s.substr(0, 4) == "ycsb" &&
         ycsb::CoreWorkload(s.substr(4)).has_value();
}

int Main() {
  const std::string engine = absl::GetFlag(FLAGS_engine);
  std::string dir = absl::GetFlag(FLAGS_db);
  const bool existing = absl::GetFlag(FLAGS_use_existing_db);
  if (dir.empty()) {
    if (existing) {
      std::fprintf(stderr, "peer_bench: --use_existing_db needs --db\n");
      return 1;
    }
    dir = absl::StrFormat("/tmp/peer_bench-%s-%d", engine, getpid());
  }
  const std::vector<std::string> steps =
      absl::StrSplit(absl::GetFlag(FLAGS_benchmarks), ',', absl::SkipEmpty());
  for (const std::string& step : steps) {
    if (!IsStep(step)) {
      std::fprintf(stderr, "peer_bench: unknown benchmark '%s'\n",
                   step.c_str());
      return 1;
    }
    if (existing && (step == "fillrandom" || step == "ycsbload")) {
      std::fprintf(stderr,
                   "peer_bench: %s needs a fresh database, not "
                   "--use_existing_db\n",
                   step.c_str());
      return 1;
    }
  }
  if (absl::GetFlag(FLAGS_threads) < 1) {
    std::fprintf(stderr, "peer_bench: --threads must be at least 1\n");
    return 1;
  }
  ycsb::Config ycsb_config;
  if (absl::Status s = YcsbConfigFromFlags(&ycsb_config); !s.ok()) {
    std::fprintf(stderr, "peer_bench: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  const int64_t num = absl::GetFlag(FLAGS_num);
  const uint64_t seed = absl::GetFlag(FLAGS_seed);
  EngineConfig config;
  config.max_background_jobs = absl::GetFlag(FLAGS_max_background_jobs);
  std::unique_ptr<Engine> e = OpenEngine(engine, dir, config, !existing);
  bool written = false;  // a fill or load recreates a database written to
  std::unique_ptr<ycsb::Session> session;
  for (size_t i = 0; i < steps.size(); ++i) {
    const std::string& step = steps[i];
    if (step == "fillrandom" || step == "ycsbload") {
      if (written) {
        e.reset();
        e = OpenEngine(engine, dir, config, true);
      }
      written = true;
    }
    if (step == "fillrandom") {
      Fill(e.get(), num, num, seed, "fillrandom");
    } else if (step == "waitforcompaction") {
      const auto start = Clock::now();
      e->WaitForCompaction();
      std::printf("%-8s %-16s : %9.3f seconds; %s\n", e->name(),
                  "waitforcompaction",
                  std::chrono::duration<double>(Clock::now() - start).count(),
                  e->Describe().c_str());
      if (absl::GetFlag(FLAGS_stats)) std::printf("%s\n", e->Stats().c_str());
    } else if (step == "readrandom") {
      Read(e.get(), num, false, seed + 1, "readrandom");
    } else if (step == "readmissing") {
      Read(e.get(), num, true, seed + 2, "readmissing");
      std::printf("%-8s %-16s : %s\n", e->name(), "after",
                  e->Describe().c_str());
    } else if (step == "facts") {
      const EngineFacts f = e->Facts(dir);
      std::printf(
          "%-8s %-16s : filter_bytes=%lld table_bytes_written=%lld "
          "stall_micros=%lld\n",
          e->name(), "facts", static_cast<long long>(f.filter_bytes),
          static_cast<long long>(f.table_bytes_written),
          static_cast<long long>(f.stall_micros));
    } else if (step == "stats") {
      std::printf("%s\n", e->Stats().c_str());
    } else if (step == "manyfiles") {
      e.reset();
      EngineConfig held = config;
      held.hold_level0 = true;
      e = OpenEngine(engine, dir, held, true);
      written = true;
      const int rounds = std::max(1, absl::GetFlag(FLAGS_manyfiles));
      const int64_t per_round = num / 10 / rounds;
      for (int r = 0; r < rounds; ++r) {
        // Every round spans the whole key space: the files overlap.
        Fill(e.get(), per_round, num, seed + 100 + r, nullptr);
        e->Flush();
      }
      Read(e.get(), num, true, seed + 3, "manyfiles-miss");
      std::printf("%-8s %-16s : %s\n", e->name(), "manyfiles",
                  e->Describe().c_str());
    } else {  // ycsb*
      if (step == "ycsbload" || session == nullptr) {
        session = std::make_unique<ycsb::Session>(ycsb_config);
      }
      // Each step draws its own sequence (and each thread its own).
      RunYcsb(e.get(), session.get(), step, seed + 1000 * (i + 1));
    }
  }
  e.reset();
  if (absl::GetFlag(FLAGS_db).empty()) std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace sift::bench

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "peer_bench --engine=sift|rocksdb|leveldb [--benchmarks=...] "
      "[--num=N --reads=N ...]");
  absl::ParseCommandLine(argc, argv);
  return sift::bench::Main();
}
