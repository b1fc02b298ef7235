// Statistics: per-DB counters of what reads and writes did, in total and
// per level, readable as a struct (DB::GetStatistics) and as text
// (DB::GetProperty("sift.stats")). Names follow RocksDB's tickers.
//
// The filter counters tell how well the Bloom filters work on a workload:
//   useful         the filter said "definitely absent": the file was skipped
//   positive       the filter said "may be present"
//   true positive  ... and the key was then found in that file
// so the observed false-positive rate is
//   (positive - true_positive) / (useful + positive - true_positive).
// The memtables' whole-key filters count the same three under
// sift.memtable.filter.* (true positive: the memtable then held an entry for
// the key), in the totals only.
//
// Block counters (cache hits and misses, data blocks and bytes read) count
// the reads of Get and of iterators alike, at the level of the file read;
// compaction's reads are counted apart (sift.compact.read.bytes).

#ifndef SIFT_INCLUDE_STATISTICS_H_
#define SIFT_INCLUDE_STATISTICS_H_

#include <array>
#include <cstdint>
#include <string>

namespace sift {

enum Ticker : uint32_t {
  kBloomFilterChecked = 0,       // sift.bloom.filter.checked
  kBloomFilterUseful,            // sift.bloom.filter.useful
  kBloomFilterFullPositive,      // sift.bloom.filter.full.positive
  kBloomFilterFullTruePositive,  // sift.bloom.filter.full.true.positive
  kBloomFilterCorrupt,           // sift.bloom.filter.corrupt (probes skipped)
  kBlockCacheDataHit,            // sift.block.cache.data.hit
  kBlockCacheDataMiss,           // sift.block.cache.data.miss
  kDataBlocksRead,               // sift.data.blocks.read (from files)
  kMemtableHit,                  // sift.memtable.hit
  kMemtableMiss,                 // sift.memtable.miss
  kNumberKeysWritten,            // sift.number.keys.written
  kNumberKeysRead,               // sift.number.keys.read (keys asked)
  kNumberKeysFound,              // sift.number.keys.found
  kBytesWritten,                 // sift.bytes.written (WAL bytes)
  kBytesRead,                    // sift.bytes.read (table bytes read)
  kStallSlowdownWrites,          // sift.stall.l0.slowdown.count
  kStallStopWrites,              // sift.stall.l0.stop.count
  kStallMicros,             // sift.stall.micros: slowdowns, stops, flush waits
  kFlushes,                 // sift.flush.count
  kCompactions,             // sift.compaction.count
  kCompactionBytesRead,     // sift.compact.read.bytes
  kCompactionBytesWritten,  // sift.compact.write.bytes
  // The memtables' whole-key filters (one probe per memtable a Get asks):
  kMemtableFilterUseful,        // sift.memtable.filter.useful (walk skipped)
  kMemtableFilterPositive,      // sift.memtable.filter.positive
  kMemtableFilterTruePositive,  // sift.memtable.filter.true.positive
  // DB::RebuildFilters: replacement filters recorded, and their files' bytes.
  kFilterRebuilds,             // sift.filter.rebuild.count
  kFilterRebuildBytesWritten,  // sift.filter.rebuild.write.bytes
  kFlushBytesWritten,          // sift.flush.write.bytes (table bytes)
  // Options::rate_limiter: the table bytes flushes and compactions were
  // charged, and the time they waited for them.
  kRateLimiterBytes,       // sift.rate.limiter.bytes
  kRateLimiterWaitMicros,  // sift.rate.limiter.wait.micros
  // Key ranges of compactions split for Options::max_subcompactions (a
  // compaction run whole counts none).
  kSubcompactions,  // sift.compaction.subcompactions
  // Table files an iterator left unopened, wholly outside its
  // ReadOptions::iterate_lower_bound / iterate_upper_bound (per level).
  kIterateBoundsFilesSkipped,  // sift.iterate.bounds.files.skipped
  kNumTickers
};

// The RocksDB-style name of a ticker, e.g. "sift.bloom.filter.useful".
const char* TickerName(Ticker t);

constexpr int kStatisticsLevels = 7;

struct Statistics {
  // Totals over all levels (and the memtables, for tickers that count
  // there).
  std::array<uint64_t, kNumTickers> total{};
  // The part of each ticker that happened at a level (filters, blocks);
  // zero for tickers without a level.
  std::array<std::array<uint64_t, kNumTickers>, kStatisticsLevels> level{};

  uint64_t Get(Ticker t) const { return total[t]; }
  uint64_t GetAtLevel(int lvl, Ticker t) const { return level[lvl][t]; }

  // Observed filter false-positive rate from the counters (total, or at one
  // level); 0 when no probe said absent or positive.
  double ObservedFpRate() const;
  double ObservedFpRateAtLevel(int lvl) const;

  // "name COUNT : N" lines, RocksDB's --statistics format.
  std::string ToString() const;
};

}  // namespace sift

#endif  // SIFT_INCLUDE_STATISTICS_H_
