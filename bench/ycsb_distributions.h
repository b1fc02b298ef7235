// The request distributions of YCSB's core workloads (Cooper et al.,
// "Benchmarking Cloud Serving Systems with YCSB", SoCC 2010): which record
// number an operation asks for.
//
//   uniform   every loaded record equally often.
//   zipfian   a few records very often, most rarely: record of popularity
//             rank r is asked with probability proportional to 1 / r^theta,
//             theta = 0.99 (YCSB's constant). The ranks are scrambled over
//             the record numbers by a hash, so the popular records are
//             spread over the key space instead of being its first numbers.
//   latest    zipfian over recency: the newest insert is the most popular,
//             the one before it next, and so on; it moves as inserts land.
//
// The Zipfian draw is the algorithm of Gray et al., "Quickly Generating
// Billion-Record Synthetic Databases" (SIGMOD 1994), section 4, as YCSB
// uses it: with zeta(n) = sum_{i=1..n} i^-theta, alpha = 1 / (1 - theta)
// and eta = (1 - (2/n)^(1-theta)) / (1 - zeta(2) / zeta(n)), a uniform u in
// [0, 1) maps to rank 0 if u * zeta(n) < 1, to rank 1 if it is below
// 1 + 0.5^theta, else to floor(n * (eta * u - eta + 1)^alpha). zeta(n) is
// summed directly up to kDirectZetaTerms and completed beyond by the
// Euler-Maclaurin formula (two correction terms), so it costs O(1) for any
// n and follows a growing item count (latest) at no cost; for YCSB's
// scrambling domain of 10^10 items it gives 26.469028201783..., the value
// YCSB hard-codes (ycsb_test checks both).
//
// Scrambled zipfian (YCSB's ScrambledZipfianGenerator): a zipfian rank over
// kScrambledItemCount = 10^10 items, hashed by FnvHash64 and taken modulo
// the record count. The hottest record then gets 1 / zeta(10^10) = 3.78% of
// the requests whatever the record count.
//
// Not thread-safe, except InsertSequence: give each thread its own
// generators (they only read the shared InsertSequence).

#ifndef SIFT_BENCH_YCSB_DISTRIBUTIONS_H_
#define SIFT_BENCH_YCSB_DISTRIBUTIONS_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <string_view>

#include "util/mutex.h"
#include "util/random.h"

namespace sift::bench::ycsb {

// YCSB's zipfian constant.
inline constexpr double kZipfianConstant = 0.99;
// The domain scrambled zipfian draws ranks from before hashing them.
inline constexpr uint64_t kScrambledItemCount = 10'000'000'000;
// Terms of zeta summed one by one; Euler-Maclaurin does the rest.
inline constexpr uint64_t kDirectZetaTerms = 1000;

// 64-bit FNV-1a over the 8 bytes of v, least significant first, made
// non-negative as a signed 64-bit value (the absolute value): YCSB's
// Utils.fnvhash64, which both turns record numbers into key names and
// scrambles zipfian ranks (FNV: Fowler, Noll and Vo; offset basis
// 0xcbf29ce484222325, prime 0x100000001b3).
uint64_t FnvHash64(uint64_t v);

// A uniform double in [0, 1) from the top 53 bits of one draw.
double UniformDouble(Random* rnd);

// Draws ranks in [0, items) with the Zipfian probabilities above.
class ZipfianGenerator {
 public:
  // REQUIRES: items >= 1, 0 < theta < 1.
  explicit ZipfianGenerator(uint64_t items, double theta = kZipfianConstant);

  uint64_t items() const { return items_; }
  double theta() const { return theta_; }
  // zeta(n) for this generator's theta: O(1).
  double Zeta(uint64_t n) const;
  // Changes the item count (latest grows it with every insert).
  void SetItems(uint64_t items);

  // The rank for a uniform u in [0, 1).
  uint64_t FromUniform(double u) const;
  uint64_t Next(Random* rnd) const { return FromUniform(UniformDouble(rnd)); }

 private:
  const double theta_;
  const double alpha_;
  const double zeta2_;
  const double half_pow_theta_;  // 0.5^theta
  // prefix_[k] = zeta(k) for k <= kDirectZetaTerms.
  std::array<double, kDirectZetaTerms + 1> prefix_;
  uint64_t items_ = 0;
  double zetan_ = 0;
  double eta_ = 0;
};

// The record numbers claimed for inserts and which of them are done. Shared
// by the threads of a run: Next hands out increasing numbers, Acknowledge
// marks one as written, and LastAcknowledged is the highest number below
// which every insert has completed, so readers only ask for records that
// exist (YCSB's AcknowledgedCounterGenerator). Thread-safe.
class InsertSequence {
 public:
  // The first number Next returns; LastAcknowledged starts at first - 1.
  // REQUIRES: first >= 1 (there is a record 0 to read).
  explicit InsertSequence(uint64_t first);

  uint64_t Next() { return next_.fetch_add(1, std::memory_order_relaxed); }
  void Acknowledge(uint64_t n);
  uint64_t LastAcknowledged() const {
    return last_acked_.load(std::memory_order_acquire);
  }

 private:
  std::atomic<uint64_t> next_;
  std::atomic<uint64_t> last_acked_;
  Mutex mu_;
  // Acknowledged numbers above last_acked_ + 1 (out of order).
  std::set<uint64_t> pending_ ABSL_GUARDED_BY(mu_);
};

enum class Distribution { kUniform, kZipfian, kLatest };

// "uniform", "zipfian", "latest" (YCSB's requestdistribution values).
const char* DistributionName(Distribution d);
bool ParseDistribution(std::string_view name, Distribution* d);

// Picks the record number of a read, update, scan start or
// read-modify-write, as YCSB's core workload does with each distribution:
// uniform over the records loaded (later inserts are never chosen);
// scrambled zipfian over the loaded records plus twice the expected
// inserts, a draw past the last acknowledged insert drawn again; latest
// counted back from the last acknowledged insert. One per thread.
class KeyChooser {
 public:
  // expected_inserts: operations x insert proportion of the run.
  KeyChooser(Distribution d, uint64_t record_count, uint64_t expected_inserts,
             const InsertSequence* inserts);

  uint64_t Next(Random* rnd);

 private:
  const Distribution distribution_;
  const uint64_t record_count_;
  const uint64_t zipfian_items_;
  const InsertSequence* const inserts_;
  std::unique_ptr<ZipfianGenerator> zipfian_;
};

}  // namespace sift::bench::ycsb

#endif  // SIFT_BENCH_YCSB_DISTRIBUTIONS_H_
