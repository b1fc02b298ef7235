#include "db/statistics_impl.h"

#include "absl/strings/str_format.h"

namespace sift {

const char* TickerName(Ticker t) {
  static constexpr const char* kNames[kNumTickers] = {
      "sift.bloom.filter.checked",
      "sift.bloom.filter.useful",
      "sift.bloom.filter.full.positive",
      "sift.bloom.filter.full.true.positive",
      "sift.bloom.filter.corrupt",
      "sift.block.cache.data.hit",
      "sift.block.cache.data.miss",
      "sift.data.blocks.read",
      "sift.memtable.hit",
      "sift.memtable.miss",
      "sift.number.keys.written",
      "sift.number.keys.read",
      "sift.number.keys.found",
      "sift.bytes.written",
      "sift.bytes.read",
      "sift.stall.l0.slowdown.count",
      "sift.stall.l0.stop.count",
      "sift.stall.micros",
      "sift.flush.count",
      "sift.compaction.count",
      "sift.compact.read.bytes",
      "sift.compact.write.bytes",
      "sift.memtable.filter.useful",
      "sift.memtable.filter.positive",
      "sift.memtable.filter.true.positive",
  };
  return t < kNumTickers ? kNames[t] : "sift.unknown";
}

namespace {

double FpRate(const std::array<uint64_t, kNumTickers>& c) {
  const double useful = static_cast<double>(c[kBloomFilterUseful]);
  const double positive = static_cast<double>(c[kBloomFilterFullPositive]);
  const double tp = static_cast<double>(c[kBloomFilterFullTruePositive]);
  const double negatives = useful + positive - tp;
  return negatives > 0 ? (positive - tp) / negatives : 0.0;
}

}  // namespace

double Statistics::ObservedFpRate() const { return FpRate(total); }
double Statistics::ObservedFpRateAtLevel(int lvl) const {
  return FpRate(level[lvl]);
}

std::string Statistics::ToString() const {
  std::string s;
  for (uint32_t t = 0; t < kNumTickers; ++t) {
    absl::StrAppendFormat(&s, "%s COUNT : %u\n",
                          TickerName(static_cast<Ticker>(t)), total[t]);
  }
  return s;
}

StatisticsImpl::StatisticsImpl()
    : shards_(std::make_unique<ShardCounters[]>(kShards)) {
  for (int i = 0; i < kShards; ++i) {
    for (auto& level : shards_[i].counts) {
      for (auto& c : level) c.store(0, std::memory_order_relaxed);
    }
  }
  for (int level = 0; level < config::kNumLevels; ++level) {
    sinks_[level].stats = this;
    sinks_[level].level = level;
  }
}

StatisticsImpl::ShardCounters& StatisticsImpl::Shard() {
  static std::atomic<uint32_t> next_thread{0};
  thread_local const uint32_t index =
      next_thread.fetch_add(1, std::memory_order_relaxed) % kShards;
  return shards_[index];
}

void StatisticsImpl::LevelSink::Add(const TableReadCounters& c) {
  if (c.block_cache_hits)
    stats->Add(level, kBlockCacheDataHit, c.block_cache_hits);
  if (c.block_cache_misses) {
    stats->Add(level, kBlockCacheDataMiss, c.block_cache_misses);
  }
  if (c.blocks_read) {
    stats->Add(level, kDataBlocksRead, c.blocks_read);
    stats->Add(level, kBytesRead, c.bytes_read);
  }
}

Statistics StatisticsImpl::Snapshot() const {
  Statistics s;
  for (int i = 0; i < kShards; ++i) {
    for (int l = 0; l <= config::kNumLevels; ++l) {
      for (uint32_t t = 0; t < kNumTickers; ++t) {
        const uint64_t v =
            shards_[i].counts[l][t].load(std::memory_order_relaxed);
        s.total[t] += v;
        if (l > 0) s.level[l - 1][t] += v;
      }
    }
  }
  return s;
}

}  // namespace sift
