// LruCache: capacity bounds, LRU order, values outliving eviction.

#include "util/cache.h"

#include <memory>

#include "gtest/gtest.h"

namespace sift {
namespace {

// Entries of charge 1 (the table cache): however the keys hash over the
// shards, no more than capacity stay cached. absl::Hash is seeded per
// process, so which shard a key lands on changes from run to run: enough
// keys are inserted that every shard fills whatever the seed (with 16
// shards of one entry, 128 keys left some shard empty about once in 250
// runs, and "all of it is used" failed).
TEST(LruCacheTest, SmallCapacityBoundsTheEntryCount) {
  for (size_t capacity : {1, 2, 3, 5, 7, 16, 17, 100, 500}) {
    LruCache<int> cache(capacity);
    const uint64_t keys = 64 * capacity + 1024;
    for (uint64_t i = 0; i < keys; ++i) {
      cache.Insert(CacheKey{i, 0}, std::make_shared<const int>(1), 1);
      ASSERT_LE(cache.TotalCharge(), capacity) << capacity << " at " << i;
    }
    EXPECT_EQ(cache.TotalCharge(), capacity);  // and all of it is used
    size_t cached = 0;
    for (uint64_t i = 0; i < keys; ++i) {
      cached += cache.Lookup(CacheKey{i, 0}) != nullptr;
    }
    EXPECT_LE(cached, capacity);
    EXPECT_GT(cached, 0u);
  }
}

TEST(LruCacheTest, EvictsLeastRecentlyUsedAndValuesOutliveEviction) {
  LruCache<int> cache(1);  // one shard, one entry
  auto a = cache.Insert(CacheKey{1, 0}, std::make_shared<const int>(10), 1);
  cache.Insert(CacheKey{2, 0}, std::make_shared<const int>(20), 1);
  EXPECT_EQ(cache.Lookup(CacheKey{1, 0}), nullptr);
  EXPECT_EQ(*a, 10);  // still alive for its holder
  ASSERT_NE(cache.Lookup(CacheKey{2, 0}), nullptr);
  cache.Erase(CacheKey{2, 0});
  EXPECT_EQ(cache.Lookup(CacheKey{2, 0}), nullptr);
  EXPECT_EQ(cache.TotalCharge(), 0u);
}

TEST(LruCacheTest, ZeroCapacityCachesNothing) {
  LruCache<int> cache(0);
  auto v = cache.Insert(CacheKey{1, 0}, std::make_shared<const int>(3), 1);
  EXPECT_EQ(*v, 3);
  EXPECT_EQ(cache.Lookup(CacheKey{1, 0}), nullptr);
  EXPECT_EQ(cache.TotalCharge(), 0u);
}

}  // namespace
}  // namespace sift
