// WriteDelay: how long a write waits while level 0 is deep enough to slow
// writes (Options::level0_slowdown_writes_trigger), so that writes enter at
// no more than Options::delayed_write_rate bytes per second and compaction
// gets the time to catch up before level 0 reaches the stop trigger.
//
// LevelDB instead sleeps one millisecond per write, whatever its size:
// 100-byte writes then enter at 0.1 MB/s, and a bulk load spends much of
// its time asleep (2.6-5.3 s of a 3M-key fillrandom's 8.6-12.9 s in this
// project's db_bench runs). Charging by bytes keeps small writes fast
// while still letting a deep level 0 push back.
//
// The rate applies in full at the slowdown trigger and falls linearly with
// the headroom left before the stop trigger, to rate/16 one file short of
// it: the deeper level 0, the harder the push back. Short delays are not
// slept one by one (a sleep shorter than the scheduler's tick oversleeps):
// they accrue as debt, slept once it reaches a millisecond.
//
// Not thread-safe: the DB calls it under its mutex, from the front writer.
#ifndef SIFT_DB_WRITE_DELAY_H_
#define SIFT_DB_WRITE_DELAY_H_

#include <cstdint>

namespace sift {

class WriteDelay {
 public:
  // The shortest sleep: shorter delays accrue until they reach it.
  static constexpr uint64_t kMinSleepMicros = 1000;

  // rate_bytes_per_sec > 0; slowdown_trigger <= stop_trigger.
  WriteDelay(uint64_t rate_bytes_per_sec, int slowdown_trigger,
             int stop_trigger);

  // Charges a write of `bytes` made while level 0 holds `level0_files`
  // (>= the slowdown trigger): returns the microseconds to sleep now,
  // zero while the debt is under kMinSleepMicros.
  uint64_t Charge(uint64_t bytes, int level0_files);

  // The rate charged at `level0_files`, bytes per second.
  double RateAt(int level0_files) const;

 private:
  const double rate_;
  const int slowdown_;
  const int stop_;
  double debt_micros_ = 0;
};

}  // namespace sift

#endif  // SIFT_DB_WRITE_DELAY_H_
