// RateLimiter: a cap on the bytes per second that background work -- the
// table files flushes and compactions write -- may write, so a compaction
// cannot take all of a disk's bandwidth from foreground reads and the WAL.
// RocksDB's names and meaning (rocksdb/rate_limiter.h): create one with
// NewGenericRateLimiter and set it in Options::rate_limiter; one limiter may
// be shared by several DBs, which then share its rate.
//
//   std::shared_ptr<sift::RateLimiter> limiter =
//       sift::NewGenericRateLimiter(32 << 20);  // 32 MiB/s
//   options.rate_limiter = limiter;
//
// The generic limiter is a token bucket refilled every refill period with
// rate x period bytes. A write asks for its bytes before it is handed to
// the file system and waits until the bucket holds them; waiting writes are
// served in order within a priority, flushes (kHigh) before compactions
// (kLow) but with a 1 / fairness chance at each refill of serving
// compactions first, so neither starves. Over any stretch longer than a
// few periods the bytes that pass stay within a period's worth of
// rate x time; a request larger than one refill waits for as many as it
// needs. A DB counts what its writes were charged and how long they waited
// (sift.rate.limiter.bytes, sift.rate.limiter.wait.micros in
// sift/statistics.h). Thread-safe.

#ifndef SIFT_INCLUDE_RATE_LIMITER_H_
#define SIFT_INCLUDE_RATE_LIMITER_H_

#include <cstdint>
#include <memory>

namespace sift {

// Who is asking (RocksDB's Env::IOPriority: IO_LOW, IO_HIGH, IO_TOTAL).
// kTotal is for the getters only: every priority together.
enum class IOPriority : int { kLow = 0, kHigh = 1, kTotal = 2 };

class RateLimiter {
 public:
  virtual ~RateLimiter() = default;

  // Blocks until `bytes` more may be written at this rate, then counts
  // them as passed. A request of 0 bytes or less returns at once.
  // REQUIRES: priority is kLow or kHigh.
  virtual void Request(int64_t bytes, IOPriority priority) = 0;

  // Changes the rate from the next refill on; of the bytes a higher rate
  // left available, at most one refill's worth at the new rate may still
  // pass at once. A value <= 0 is ignored.
  virtual void SetBytesPerSecond(int64_t bytes_per_second) = 0;
  virtual int64_t GetBytesPerSecond() const = 0;
  // The bytes one refill adds: rate x refill period.
  virtual int64_t GetSingleBurstBytes() const = 0;

  // Bytes that passed, and requests made, since creation.
  virtual int64_t GetTotalBytesThrough(
      IOPriority priority = IOPriority::kTotal) const = 0;
  virtual int64_t GetTotalRequests(
      IOPriority priority = IOPriority::kTotal) const = 0;
};

// RocksDB's generic limiter (see above). rate_bytes_per_sec must be > 0:
// DB::Open refuses a limiter whose rate is not, naming
// Options::rate_limiter. refill_period_us: how often the bucket is
// refilled; shorter periods smooth the writes into smaller bursts at more
// wake-ups (RocksDB's default, 100 ms; a value <= 0 takes it). fairness:
// at each refill compactions are served before flushes with chance
// 1 / fairness (RocksDB's default, 10; a value < 1 takes it).
std::shared_ptr<RateLimiter> NewGenericRateLimiter(
    int64_t rate_bytes_per_sec, int64_t refill_period_us = 100 * 1000,
    int32_t fairness = 10);

}  // namespace sift

#endif  // SIFT_INCLUDE_RATE_LIMITER_H_
