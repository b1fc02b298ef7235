#include "db/write_delay.h"

#include <algorithm>

namespace sift {

WriteDelay::WriteDelay(uint64_t rate_bytes_per_sec, int slowdown_trigger,
                       int stop_trigger)
    : rate_(static_cast<double>(rate_bytes_per_sec)),
      slowdown_(slowdown_trigger),
      stop_(stop_trigger) {}

double WriteDelay::RateAt(int level0_files) const {
  // Headroom 1 at the slowdown trigger, 1/16 one file short of the stop
  // trigger (where writes stop altogether); equal triggers leave no
  // headroom to scale over.
  constexpr double kFloor = 1.0 / 16;
  if (stop_ - slowdown_ <= 1) return rate_;
  const double left = static_cast<double>(stop_ - 1 - level0_files) /
                      static_cast<double>(stop_ - 1 - slowdown_);
  return rate_ * std::clamp(kFloor + (1 - kFloor) * left, kFloor, 1.0);
}

uint64_t WriteDelay::Charge(uint64_t bytes, int level0_files) {
  debt_micros_ += static_cast<double>(bytes) * 1e6 / RateAt(level0_files);
  if (debt_micros_ < kMinSleepMicros) return 0;
  const auto sleep = static_cast<uint64_t>(debt_micros_);
  debt_micros_ -= static_cast<double>(sleep);
  return sleep;
}

}  // namespace sift
