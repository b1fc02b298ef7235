// YCSB's core workloads (Cooper et al., "Benchmarking Cloud Serving Systems
// with YCSB", SoCC 2010; the workload files workloads/workload[a-f] of the
// YCSB distribution), run against any key-value store behind YcsbStore:
// db_bench's ycsb* benchmarks drive siftdb with it, peer_bench drives
// siftdb, RocksDB and LevelDB with the same code.
//
//   workload  operations                                request distribution
//   load      insert record_count records               (record order)
//   a         50% read, 50% update                      zipfian
//   b         95% read, 5% update                       zipfian
//   c         100% read                                 zipfian
//   d         95% read, 5% insert                       latest
//   e         95% scan (1 to max_scan_length records,   zipfian
//             uniform), 5% insert
//   f         50% read, 50% read-modify-write           zipfian
//
// A record is field_count fields (field0, field1, ...) of field_length
// random printable bytes: 10 x 100 bytes by default, as in YCSB. Record
// number n is stored under the key "user" + the decimal FnvHash64(n)
// (YCSB's hashed insert order), its fields in one value (EncodeRecord). The
// operations are what YCSB's key-value bindings (its RocksDB and LevelDB
// clients among them) do with that layout:
//   read     Get the record, decode every field (readallfields).
//   update   one random field gets a new value (writeallfields = false): a
//            key-value store cannot write a field alone, so the record is
//            read, the field replaced and the record written back; with
//            write_all_fields, a Put of a whole new record without a read.
//   insert   Put a new record under the next record number.
//   scan     Seek to the record's key, then decode up to the scan length
//            records in key order.
//   read-modify-write   a read, then an update of the same record (timed
//            as one operation, as YCSB times it).
// Request distributions: bench/ycsb_distributions.h.
//
// Each operation is timed on its own into a histogram of its type; Report
// prints them in YCSB's own output form ("[READ], 99thPercentileLatency(us),
// 9"), so YCSB's parsers read it.

#ifndef SIFT_BENCH_YCSB_H_
#define SIFT_BENCH_YCSB_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bench/ycsb_distributions.h"
#include "util/histogram.h"
#include "util/random.h"

namespace sift::bench::ycsb {

enum class Op : int { kRead = 0, kUpdate, kInsert, kScan, kReadModifyWrite };
inline constexpr int kNumOps = 5;
// YCSB's names: "READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE".
const char* OpName(Op op);

// One core workload: the share of each operation (summing to 1) and its
// request distribution.
struct Workload {
  std::string name;  // "a" .. "f"
  std::array<double, kNumOps> proportion{};
  Distribution distribution = Distribution::kZipfian;
};

// Workload "a" .. "f"; nullopt for any other name.
std::optional<Workload> CoreWorkload(std::string_view name);

struct Config {
  uint64_t record_count = 1000000;
  // Operations of a run, over all threads (YCSB's operationcount); a
  // thread does its share (RunShare).
  uint64_t operation_count = 1000000;
  int field_count = 10;
  int field_length = 100;
  int max_scan_length = 100;
  // Replaces every workload's own distribution when set.
  std::optional<Distribution> distribution;
  bool write_all_fields = false;
};

// Checks a Config: an error names the field and the value.
absl::Status ValidateConfig(const Config& c);

// The key record number n is stored under: "user" + decimal FnvHash64(n).
std::string KeyName(uint64_t n);

// A record's bytes: per field, fixed32 name length, name, fixed32 value
// length, value (little-endian lengths).
using Field = std::pair<std::string, std::string>;
void EncodeRecord(const std::vector<Field>& fields, std::string* out);
// False if the bytes are not a whole record.
bool DecodeRecord(std::string_view in, std::vector<Field>* fields);

// What the workloads need from a store. Called from several threads at
// once: an implementation must be thread-safe.
class Store {
 public:
  virtual ~Store() = default;
  // OK with the value; NotFound when absent; any other error stops the run.
  virtual absl::Status Get(std::string_view key, std::string* value) = 0;
  virtual absl::Status Put(std::string_view key, std::string_view value) = 0;
  // Calls visit for each of up to n entries from the first key >= start,
  // in key order.
  virtual absl::Status Scan(
      std::string_view start, int n,
      const std::function<void(std::string_view key, std::string_view value)>&
          visit) = 0;
};

// Shared by the threads of one benchmark run and by the runs that follow on
// the same database: the record numbers inserts claim continue from one run
// to the next, as in one YCSB client session. Thread-safe.
class Session {
 public:
  explicit Session(const Config& config);

  const Config& config() const { return config_; }
  // The load claims record numbers 0 .. record_count - 1 in order; false
  // when every one is claimed.
  bool NextLoadRecord(uint64_t* n);
  // The record numbers the run's inserts claim, from record_count on.
  InsertSequence* inserts() { return &inserts_; }

 private:
  const Config config_;
  std::atomic<uint64_t> next_load_{0};
  InsertSequence inserts_;
};

// What one thread (or, merged, all of them) did.
struct Results {
  std::array<Histogram, kNumOps> latency;  // microseconds per operation
  std::array<int64_t, kNumOps> not_found{};
  int64_t lookups = 0;  // reads, updates and read-modify-writes
  int64_t found = 0;    // ... of which found the record
  int64_t bytes = 0;    // keys and values read and written
  int64_t Operations() const;
  void Merge(const Results& other);
  // YCSB's report lines for each operation type that ran:
  //   [READ], Operations, 500123
  //   [READ], AverageLatency(us), 3.1
  //   [READ], MinLatency(us), 1.0
  //   [READ], MaxLatency(us), 1234.0
  //   [READ], 50thPercentileLatency(us), 2.1
  //   [READ], 95thPercentileLatency(us), 5.3
  //   [READ], 99thPercentileLatency(us), 9.1
  //   [READ], 99.9PercentileLatency(us), 40.0
  //   [READ], Return=OK, 500123
  //   [READ], Return=NOT_FOUND, 0      (only when some were not found)
  // preceded by "[OVERALL], RunTime(ms), ..." and
  // "[OVERALL], Throughput(ops/sec), ..." for the given wall time.
  std::string Report(double seconds) const;
};

// One thread's workload: its own random generator and key chooser, the
// session's shared counters.
class Runner {
 public:
  // workload: nullptr for the load.
  Runner(Session* session, const Workload* workload, uint64_t seed);

  bool loading() const { return workload_ == nullptr; }
  // Inserts the next record of the load; false when the load is done.
  // REQUIRES: loading().
  absl::StatusOr<bool> LoadOne(Store* store);
  // One operation drawn from the workload's mix. REQUIRES: !loading().
  absl::StatusOr<Op> RunOne(Store* store);

  const Results& results() const { return results_; }

 private:
  uint64_t Now() const;
  void NewValue(std::string* value);
  void NewRecord(std::vector<Field>* fields);
  absl::Status Insert(Store* store, uint64_t n);
  absl::Status Read(Store* store, const std::string& key, bool* found);
  absl::Status Update(Store* store, const std::string& key, bool* found);
  absl::Status Scan(Store* store, const std::string& key);
  void Record(Op op, uint64_t start_nanos, bool found);

  Session* const session_;
  const Workload* const workload_;
  Random rnd_;
  std::optional<KeyChooser> chooser_;
  Results results_;
  // Buffers reused across operations.
  std::vector<Field> fields_;
  std::string key_, value_, record_;
};

// The number of operations thread `tid` of `threads` does so that they sum
// to total: total / threads, one more for the first total % threads.
uint64_t RunShare(uint64_t total, int threads, int tid);

// One thread's part of a run: with a load Runner, inserts until every
// record is claimed; otherwise `ops` operations. After each operation calls
// done(op), which may return true to stop early (db_bench's --duration).
absl::Status RunThread(Runner* runner, Store* store, uint64_t ops,
                       const std::function<bool(Op)>& done);

// A whole run on `threads` threads (thread i seeded seed + i), each doing
// its RunShare of the operations (workload null: the load). Returns the
// merged results and the wall time in *seconds.
absl::StatusOr<Results> Run(Session* session, const Workload* workload,
                            Store* store, int threads, uint64_t seed,
                            double* seconds);

}  // namespace sift::bench::ycsb

#endif  // SIFT_BENCH_YCSB_H_
