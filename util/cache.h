// A sharded LRU cache of shared, immutable values keyed by two integers
// (for the block cache: a table's cache id and a block offset).
//
// Values are handed out as std::shared_ptr, so an entry evicted while a
// reader still uses it stays alive until that reader lets go. The charge of
// an entry is what it costs against the capacity (its bytes in memory).
// Thread-safe: each shard has its own mutex, so readers on different shards
// never contend.

#ifndef SIFT_UTIL_CACHE_H_
#define SIFT_UTIL_CACHE_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "util/mutex.h"

namespace sift {

struct CacheKey {
  uint64_t id = 0;
  uint64_t offset = 0;

  bool operator==(const CacheKey& o) const {
    return id == o.id && offset == o.offset;
  }
  template <typename H>
  friend H AbslHashValue(H h, const CacheKey& k) {
    return H::combine(std::move(h), k.id, k.offset);
  }
};

template <typename V>
class LruCache {
 public:
  static constexpr int kShardBits = 4;
  static constexpr int kNumShards = 1 << kShardBits;

  // capacity 0 caches nothing (Insert just hands the value back). The
  // shards' shares add up to exactly capacity, and a small capacity gets
  // fewer shards, so a cache of a few entries of charge 1 (the table cache)
  // never holds more than capacity of them.
  explicit LruCache(size_t capacity)
      : capacity_(capacity), num_shards_(ShardsFor(capacity)) {
    for (size_t i = 0; i < num_shards_; ++i) {
      shards_[i].set_limit(capacity / num_shards_ +
                           (i < capacity % num_shards_ ? 1 : 0));
    }
  }

  LruCache(const LruCache&) = delete;
  LruCache& operator=(const LruCache&) = delete;

  // A new id for keys no one else uses (one per open table).
  uint64_t NewId() { return next_id_.fetch_add(1, std::memory_order_relaxed); }

  // The cached value, marked most recently used; nullptr if absent.
  std::shared_ptr<const V> Lookup(const CacheKey& key) {
    return ShardFor(key).Lookup(key);
  }

  // Caches value under key (replacing an older entry) and returns it. A
  // value charged more than its shard's share of the capacity is
  // returned uncached: keeping it would break the capacity bound.
  std::shared_ptr<const V> Insert(const CacheKey& key,
                                  std::shared_ptr<const V> value,
                                  size_t charge) {
    if (capacity_ == 0) return value;
    return ShardFor(key).Insert(key, std::move(value), charge);
  }

  void Erase(const CacheKey& key) { ShardFor(key).Erase(key); }

  size_t capacity() const { return capacity_; }
  // Sum of the charges of cached entries.
  size_t TotalCharge() const {
    size_t total = 0;
    for (const Shard& s : shards_) total += s.usage();
    return total;
  }

 private:
  class Shard {
   public:
    std::shared_ptr<const V> Lookup(const CacheKey& key) {
      MutexLock lock(&mu_);
      auto it = index_.find(key);
      if (it == index_.end()) return nullptr;
      lru_.splice(lru_.begin(), lru_, it->second);
      return it->second->value;
    }

    // Called before the cache is shared.
    void set_limit(size_t limit) { limit_ = limit; }

    std::shared_ptr<const V> Insert(const CacheKey& key,
                                    std::shared_ptr<const V> value,
                                    size_t charge) {
      MutexLock lock(&mu_);
      auto it = index_.find(key);
      if (it != index_.end()) RemoveLocked(it);
      if (charge > limit_) return value;
      lru_.push_front(Entry{key, value, charge});
      index_.emplace(key, lru_.begin());
      usage_.store(usage_.load(std::memory_order_relaxed) + charge,
                   std::memory_order_relaxed);
      // Evict from the cold end; the newest entry fits by itself.
      while (usage_.load(std::memory_order_relaxed) > limit_ &&
             lru_.size() > 1) {
        RemoveLocked(index_.find(lru_.back().key));
      }
      return value;
    }

    void Erase(const CacheKey& key) {
      MutexLock lock(&mu_);
      auto it = index_.find(key);
      if (it != index_.end()) RemoveLocked(it);
    }

    size_t usage() const { return usage_.load(std::memory_order_relaxed); }

   private:
    struct Entry {
      CacheKey key;
      std::shared_ptr<const V> value;
      size_t charge;
    };
    using List = std::list<Entry>;
    using Index = absl::flat_hash_map<CacheKey, typename List::iterator>;

    void RemoveLocked(typename Index::iterator it)
        ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      usage_.store(usage_.load(std::memory_order_relaxed) - it->second->charge,
                   std::memory_order_relaxed);
      lru_.erase(it->second);
      index_.erase(it);
    }

    size_t limit_ = 0;  // this shard's share of the capacity
    Mutex mu_;
    List lru_ ABSL_GUARDED_BY(mu_);  // front = most recently used
    Index index_ ABSL_GUARDED_BY(mu_);
    // Written under mu_, read without it for statistics.
    std::atomic<size_t> usage_{0};
  };

  // The largest power of two <= capacity, at most kNumShards.
  static size_t ShardsFor(size_t capacity) {
    size_t n = kNumShards;
    while (n > 1 && n > capacity) n /= 2;
    return n;
  }

  // The shard index skips the hash's low 7 bits: each shard's flat_hash_map
  // keeps those as its per-slot tag (absl's H2). Were they the shard index,
  // every key of a shard would share tag bits, and tags would tell its keys
  // apart less well (more full-key compares per lookup).
  static constexpr int kSwissTableTagBits = 7;
  Shard& ShardFor(const CacheKey& key) {
    const size_t h = absl::Hash<CacheKey>{}(key);
    return shards_[(h >> kSwissTableTagBits) & (num_shards_ - 1)];
  }

  const size_t capacity_;
  const size_t num_shards_;  // a power of two
  std::atomic<uint64_t> next_id_{1};
  std::array<Shard, kNumShards> shards_;
};

}  // namespace sift

#endif  // SIFT_UTIL_CACHE_H_
