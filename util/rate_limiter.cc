#include "util/rate_limiter.h"

#include <algorithm>
#include <cassert>
#include <climits>
#include <deque>

#include "util/mutex.h"
#include "util/random.h"

namespace sift {
namespace {

constexpr int64_t kDefaultRefillPeriodUs = 100 * 1000;
constexpr int32_t kDefaultFairness = 10;
constexpr int kPriorities = 2;  // kLow, kHigh

class GenericRateLimiter final : public RateLimiter {
 public:
  GenericRateLimiter(int64_t rate, int64_t refill_period_us, int32_t fairness,
                     Env* clock)
      : clock_(clock),
        refill_period_us_(refill_period_us > 0
                              ? std::min<int64_t>(refill_period_us, INT_MAX)
                              : kDefaultRefillPeriodUs),
        fairness_(fairness >= 1 ? fairness : kDefaultFairness),
        rnd_(0x5eed) {
    MutexLock l(&mu_);
    SetRateLocked(rate);
    next_refill_us_ = clock_->NowMicros();  // the first request refills
  }

  void Request(int64_t bytes, IOPriority priority) override;

  void SetBytesPerSecond(int64_t bytes_per_second) override {
    if (bytes_per_second <= 0) return;
    MutexLock l(&mu_);
    SetRateLocked(bytes_per_second);
  }
  int64_t GetBytesPerSecond() const override {
    MutexLock l(&mu_);
    return rate_;
  }
  int64_t GetSingleBurstBytes() const override {
    MutexLock l(&mu_);
    return burst_;
  }
  int64_t GetTotalBytesThrough(IOPriority priority) const override {
    MutexLock l(&mu_);
    return Total(through_, priority);
  }
  int64_t GetTotalRequests(IOPriority priority) const override {
    MutexLock l(&mu_);
    return Total(requests_, priority);
  }

 private:
  // A request waiting for its bytes; lives on its caller's stack.
  struct Waiter {
    int64_t bytes = 0;  // still to be granted
    bool granted = false;
  };

  static int64_t Total(const int64_t (&counts)[kPriorities], IOPriority p) {
    if (p == IOPriority::kTotal) return counts[0] + counts[1];
    return counts[static_cast<int>(p)];
  }
  void SetRateLocked(int64_t rate) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    rate_ = rate;
    // A rate <= 0 (refused by DB::Open) still gets a bucket that fills.
    burst_ = std::max<int64_t>(
        1, static_cast<int64_t>(static_cast<double>(rate) *
                                static_cast<double>(refill_period_us_) / 1e6));
    // Bytes saved up at a higher rate would pass at once: keep one refill.
    available_ = std::min(available_, burst_);
  }
  void Refill() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Env* const clock_;
  const int64_t refill_period_us_;
  const int32_t fairness_;
  mutable Mutex mu_;
  CondVar cv_;  // a refill happened
  int64_t rate_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t burst_ ABSL_GUARDED_BY(mu_) = 1;
  int64_t available_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t next_refill_us_ ABSL_GUARDED_BY(mu_) = 0;
  // One waiter at a time sleeps until next_refill_us_ and refills.
  bool refilling_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<Waiter*> queue_[kPriorities] ABSL_GUARDED_BY(mu_);
  Random rnd_ ABSL_GUARDED_BY(mu_);
  int64_t through_[kPriorities] ABSL_GUARDED_BY(mu_) = {0, 0};
  int64_t requests_[kPriorities] ABSL_GUARDED_BY(mu_) = {0, 0};
};

void GenericRateLimiter::Request(int64_t bytes, IOPriority priority) {
  if (bytes <= 0) return;
  assert(priority == IOPriority::kLow || priority == IOPriority::kHigh);
  const int p = priority == IOPriority::kHigh ? 1 : 0;
  MutexLock l(&mu_);
  ++requests_[p];
  if (queue_[0].empty() && queue_[1].empty() && available_ >= bytes) {
    available_ -= bytes;
    through_[p] += bytes;
    return;
  }
  Waiter w;
  w.bytes = bytes;
  queue_[p].push_back(&w);
  while (!w.granted) {
    if (refilling_) {
      cv_.Wait(&mu_);
      continue;
    }
    refilling_ = true;
    // Only the refilling waiter moves next_refill_us_.
    for (uint64_t now = clock_->NowMicros(); now < next_refill_us_;
         now = clock_->NowMicros()) {
      const uint64_t wait = next_refill_us_ - now;
      mu_.Unlock();
      clock_->SleepForMicroseconds(static_cast<int>(wait));
      mu_.Lock();
    }
    Refill();
    refilling_ = false;
    cv_.SignalAll();  // the granted go on; one of the others sleeps next
  }
}

// Adds one burst (what is left of the last one stays, so at most two
// bursts' worth is ever available: an idle limiter does not save up), then
// grants the waiters in order, high priority first unless this refill is
// the 1 in `fairness_` that serves low first. The first waiter that does
// not fit takes what is left and waits for the next refill.
void GenericRateLimiter::Refill() {
  next_refill_us_ = clock_->NowMicros() + refill_period_us_;
  if (available_ < burst_) available_ += burst_;
  const bool low_first = rnd_.OneIn(static_cast<uint32_t>(fairness_));
  for (const int p : {low_first ? 0 : 1, low_first ? 1 : 0}) {
    std::deque<Waiter*>& q = queue_[p];
    while (!q.empty() && available_ > 0) {
      Waiter* w = q.front();
      const int64_t take = std::min(available_, w->bytes);
      available_ -= take;
      through_[p] += take;
      w->bytes -= take;
      if (w->bytes > 0) break;
      w->granted = true;
      q.pop_front();
    }
  }
}

}  // namespace

std::shared_ptr<RateLimiter> NewGenericRateLimiter(int64_t rate_bytes_per_sec,
                                                   int64_t refill_period_us,
                                                   int32_t fairness,
                                                   Env* clock) {
  return std::make_shared<GenericRateLimiter>(
      rate_bytes_per_sec, refill_period_us, fairness, clock);
}

std::shared_ptr<RateLimiter> NewGenericRateLimiter(int64_t rate_bytes_per_sec,
                                                   int64_t refill_period_us,
                                                   int32_t fairness) {
  return NewGenericRateLimiter(rate_bytes_per_sec, refill_period_us, fairness,
                               Env::Default());
}

}  // namespace sift
