// The DB's live counters behind sift::Statistics.
//
// Cheap to update from the read path: each thread updates its own shard of
// counters with relaxed load+store (no locked instruction), and a reader of
// the statistics sums the shards. Threads are spread over kShards shards;
// with more concurrent updating threads than shards, two threads may share
// one and an increment can be lost (statistics only, never data).

#ifndef SIFT_DB_STATISTICS_IMPL_H_
#define SIFT_DB_STATISTICS_IMPL_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

#include "db/dbformat.h"
#include "sift/statistics.h"
#include "table/table.h"
#include "util/cache_line.h"

namespace sift {

class LocalStats;

// Adds what table lookups or iterators counted (table/table.h) at `level`
// through to->Add(level, ticker, n): the one mapping from the table's
// counters to tickers, for StatisticsImpl and LocalStats alike.
template <typename Stats>
void AddTableCounters(int level, const TableReadCounters& c, Stats* to) {
  if (c.block_cache_hits) {
    to->Add(level, kBlockCacheDataHit, c.block_cache_hits);
  }
  if (c.block_cache_misses) {
    to->Add(level, kBlockCacheDataMiss, c.block_cache_misses);
  }
  if (c.blocks_read) {
    to->Add(level, kDataBlocksRead, c.blocks_read);
    to->Add(level, kBytesRead, c.bytes_read);
  }
  if (c.filter_checked) {
    to->Add(level, kBloomFilterChecked, c.filter_checked);
    if (c.filter_useful) to->Add(level, kBloomFilterUseful, c.filter_useful);
    if (c.filter_checked > c.filter_useful) {
      to->Add(level, kBloomFilterFullPositive,
              c.filter_checked - c.filter_useful);
    }
    if (c.filter_true_positive) {
      to->Add(level, kBloomFilterFullTruePositive, c.filter_true_positive);
    }
  }
  if (c.filter_corrupt) to->Add(level, kBloomFilterCorrupt, c.filter_corrupt);
}

// Adds every count of `from` to *to.
void AddStatistics(const Statistics& from, Statistics* to);

class StatisticsImpl {
 public:
  StatisticsImpl();

  // level: 0 .. kNumLevels - 1, or config::kNoLevel (totals only).
  void Add(int level, Ticker t, uint64_t n = 1) {
    auto& c = Shard().counts[level + 1][t];
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }

  Statistics Snapshot() const;

  // Reports a table iterator's block reads at `level` (the sinks live as
  // long as this object).
  ReadCounterSink* IteratorSink(int level) { return &sinks_[level]; }

 private:
  friend class LocalStats;

  class LevelSink final : public ReadCounterSink {
   public:
    void Add(const TableReadCounters& c) override;
    StatisticsImpl* stats = nullptr;
    int level = 0;
  };

  static constexpr int kShards = 64;
  struct alignas(kCacheLineSize) ShardCounters {
    std::atomic<uint64_t> counts[config::kNumLevels + 1][kNumTickers];
  };
  ShardCounters& Shard();

  std::unique_ptr<ShardCounters[]> shards_;
  LevelSink sinks_[config::kNumLevels];
};

// What one read (a Get) counts, added as it goes to the calling thread's
// shard: a fixed row per level, so no count is ever dropped however many
// files the read probes, with no allocation and no locked instruction. The
// shard is looked up once, when the LocalStats is made.
class LocalStats {
 public:
  explicit LocalStats(StatisticsImpl* stats) : shard_(&stats->Shard()) {}

  // level: 0 .. kNumLevels - 1, or config::kNoLevel (totals only).
  void Add(int level, Ticker t, uint64_t n = 1) {
    auto& c = shard_->counts[level + 1][t];
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }

 private:
  StatisticsImpl::ShardCounters* const shard_;
};

}  // namespace sift

#endif  // SIFT_DB_STATISTICS_IMPL_H_
