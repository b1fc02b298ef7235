// The generic rate limiter behind sift::NewGenericRateLimiter
// (include/sift/rate_limiter.h says what it does), with the clock it
// waits on made explicit so tests can drive it with a simulated one.

#ifndef SIFT_UTIL_RATE_LIMITER_H_
#define SIFT_UTIL_RATE_LIMITER_H_

#include <cstdint>
#include <memory>

#include "sift/env.h"
#include "sift/rate_limiter.h"

namespace sift {

// As NewGenericRateLimiter, timing refills by clock->NowMicros() and
// waiting for them with clock->SleepForMicroseconds (only one waiter
// sleeps at a time; the others wait for it to refill). clock is not owned
// and must outlive the limiter.
std::shared_ptr<RateLimiter> NewGenericRateLimiter(int64_t rate_bytes_per_sec,
                                                   int64_t refill_period_us,
                                                   int32_t fairness,
                                                   Env* clock);

}  // namespace sift

#endif  // SIFT_UTIL_RATE_LIMITER_H_
