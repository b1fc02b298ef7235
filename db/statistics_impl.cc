#include "db/statistics_impl.h"

#include <vector>

#include "absl/base/optimization.h"
#include "absl/base/thread_annotations.h"
#include "absl/strings/str_format.h"
#include "util/mutex.h"

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
      "sift.filter.rebuild.count",
      "sift.filter.rebuild.write.bytes",
      "sift.flush.write.bytes",
      "sift.rate.limiter.bytes",
      "sift.rate.limiter.wait.micros",
      "sift.compaction.subcompactions",
      "sift.iterate.bounds.files.skipped",
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

void AddStatistics(const Statistics& from, Statistics* to) {
  for (uint32_t t = 0; t < kNumTickers; ++t) to->total[t] += from.total[t];
  for (size_t l = 0; l < from.level.size(); ++l) {
    for (uint32_t t = 0; t < kNumTickers; ++t) {
      to->level[l][t] += from.level[l][t];
    }
  }
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

namespace {

// Shard indexes of live threads, shared by every StatisticsImpl: a thread
// takes the lowest free index at its first update and gives it back when it
// exits, so threads that run at the same time own distinct shards (while
// there are no more of them than shards) and no increment is lost however
// many threads came and went before.
class ShardIndexes {
 public:
  uint32_t Take(uint32_t shards, bool* owned) {
    MutexLock l(&mu_);
    if (used_.size() < shards) used_.resize(shards, false);
    for (uint32_t i = 0; i < shards; ++i) {
      if (!used_[i]) {
        used_[i] = true;
        *owned = true;
        return i;
      }
    }
    *owned = false;  // more live threads than shards: share
    return next_shared_++ % shards;
  }
  void Give(uint32_t i) {
    MutexLock l(&mu_);
    used_[i] = false;
  }

 private:
  Mutex mu_;
  std::vector<bool> used_ ABSL_GUARDED_BY(mu_);
  uint32_t next_shared_ ABSL_GUARDED_BY(mu_) = 0;
};

// Never destroyed: threads may exit after static destructors ran.
ShardIndexes& Indexes() {
  static ShardIndexes* indexes = new ShardIndexes;
  return *indexes;
}

// Gives the thread's index back at thread exit.
struct ShardOwner {
  uint32_t index = 0;
  bool owned = false;
  ~ShardOwner() {
    if (owned) Indexes().Give(index);
  }
};

constexpr uint32_t kNoShard = ~uint32_t{0};
// Trivially constructed, so reading it costs one thread-local load with no
// initialization check; the owner with a destructor is made only once.
thread_local uint32_t shard_index = kNoShard;

uint32_t TakeShardIndex(uint32_t shards) {
  thread_local ShardOwner owner;
  owner.index = Indexes().Take(shards, &owner.owned);
  return owner.index;
}

}  // namespace

StatisticsImpl::ShardCounters& StatisticsImpl::Shard() {
  if (ABSL_PREDICT_FALSE(shard_index == kNoShard)) {
    shard_index = TakeShardIndex(kShards);
  }
  return shards_[shard_index];
}

void StatisticsImpl::LevelSink::Add(const TableReadCounters& c) {
  AddTableCounters(level, c, stats);
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
