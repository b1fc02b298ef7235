#include "util/arena.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift {
namespace {

TEST(ArenaTest, EmptyUsesNoMemory) {
  Arena arena;
  EXPECT_EQ(arena.MemoryUsage(), 0u);
}

TEST(ArenaTest, AllocationsKeepTheirContents) {
  uint64_t seed = test::TestSeed(401);
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  Random rnd(seed);
  Arena arena;
  std::vector<std::pair<size_t, char*>> allocated;
  size_t bytes = 0;
  constexpr int kN = 20000;
  for (int i = 0; i < kN; ++i) {
    size_t s;
    if (i % (kN / 10) == 0) {
      s = i;  // occasionally large, including over a block
    } else {
      s = rnd.OneIn(4000) ? rnd.Uniform(6000)
          : rnd.OneIn(10) ? rnd.Uniform(100)
                          : rnd.Uniform(20);
    }
    if (s == 0) s = 1;  // REQUIRES: bytes > 0
    char* r = rnd.OneIn(10) ? arena.AllocateAligned(s) : arena.Allocate(s);
    // Each byte gets a value derived from the allocation index, so overlap
    // between two allocations would corrupt one of them.
    for (size_t b = 0; b < s; ++b) r[b] = static_cast<char>(i % 256);
    bytes += s;
    allocated.emplace_back(s, r);
    ASSERT_GE(arena.MemoryUsage(), bytes);
    // Waste stays under 10%, not counting the current block's unused tail.
    if (i > kN / 10) {
      ASSERT_LE(arena.MemoryUsage(), bytes * 1.10 + Arena::kBlockSize);
    }
  }
  for (size_t i = 0; i < allocated.size(); ++i) {
    auto [size, p] = allocated[i];
    for (size_t b = 0; b < size; ++b) {
      ASSERT_EQ(static_cast<int>(p[b]) & 0xff, static_cast<int>(i % 256))
          << "allocation " << i << " byte " << b;
    }
  }
}

TEST(ArenaTest, AlignedAllocationsAreAligned) {
  Arena arena;
  for (size_t s : {1, 3, 7, 8, 9, 15, 17, 100, 1000, 1025, 5000, 1, 2}) {
    arena.Allocate(1);  // knock the bump pointer off alignment
    char* p = arena.AllocateAligned(s);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % Arena::kAlignment, 0u)
        << "size " << s;
  }
  EXPECT_GE(Arena::kAlignment, 8u);
}

TEST(ArenaTest, LargeAllocationGetsOwnBlockAndKeepsCurrentBlock) {
  Arena arena;
  char* small1 = arena.Allocate(10);
  size_t after_small = arena.MemoryUsage();
  EXPECT_GE(after_small, Arena::kBlockSize);
  arena.Allocate(Arena::kBlockSize * 3);
  EXPECT_GE(arena.MemoryUsage(), after_small + Arena::kBlockSize * 3);
  // The next small request still comes from the first block, right after
  // the first allocation.
  char* small2 = arena.Allocate(10);
  EXPECT_EQ(small2, small1 + 10);
}

TEST(ArenaTest, SmallAllocationsShareBlocks) {
  Arena arena;
  for (int i = 0; i < 1000; ++i) arena.Allocate(4);  // 4000 bytes
  // All of it fits one 4 KiB block (plus bookkeeping).
  EXPECT_LT(arena.MemoryUsage(), 2 * Arena::kBlockSize);
}

TEST(ArenaTest, MemoryUsageReadableFromAnotherThread) {
  // Run under TSan this would flag a non-atomic counter; without it, it
  // checks that a concurrent reader sees a monotonically growing value.
  Arena arena;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    size_t last = 0;
    while (!done.load()) {
      size_t now = arena.MemoryUsage();
      EXPECT_GE(now, last);
      last = now;
    }
  });
  for (int i = 0; i < 10000; ++i) arena.Allocate(100);
  done = true;
  reader.join();
  EXPECT_GE(arena.MemoryUsage(), 10000u * 100);
}

}  // namespace
}  // namespace sift
