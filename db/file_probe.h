// One table's part in a point read, counted the same way by Get and
// MultiGet so that the filter statistics (and the observed FP rate derived
// from them, sift/statistics.h) do not depend on which call asked.

#ifndef SIFT_DB_FILE_PROBE_H_
#define SIFT_DB_FILE_PROBE_H_

#include <cstdint>
#include <string_view>

#include "db/statistics_impl.h"
#include "table/table.h"

namespace sift {

// Asks table's filter about user_key, whose KeyHash is `hash`, counting the
// answer at `level`: false when the filter rules the key out (the file is
// skipped). A built-in filter takes the hash; a user policy's filter
// (Options::filter_policy) the key. A table without a usable filter may
// always match.
inline bool FilterMayMatch(const Table& table, int level,
                           std::string_view user_key, uint64_t hash,
                           LocalStats* stats) {
  if (table.has_filter() || table.has_user_filter()) {
    stats->Add(level, kBloomFilterChecked);
    if (table.has_filter() ? !table.KeyMayMatch(hash)
                           : !table.UserKeyMayMatch(user_key)) {
      stats->Add(level, kBloomFilterUseful);
      return false;
    }
    stats->Add(level, kBloomFilterFullPositive);
  } else if (!table.filter_status().ok()) {
    stats->Add(level, kBloomFilterCorrupt);
  }
  return true;
}

// Counts a lookup the filter let through that found the key.
inline void CountFilterTruePositive(const Table& table, int level,
                                    LocalStats* stats) {
  if (table.has_filter() || table.has_user_filter()) {
    stats->Add(level, kBloomFilterFullTruePositive);
  }
}

// Adds what a table lookup cost (blocks from the cache and the file).
inline void AddTableReads(int level, const TableReadCounters& counters,
                          LocalStats* stats) {
  if (counters.block_cache_hits) {
    stats->Add(level, kBlockCacheDataHit, counters.block_cache_hits);
  }
  if (counters.block_cache_misses) {
    stats->Add(level, kBlockCacheDataMiss, counters.block_cache_misses);
  }
  if (counters.blocks_read) {
    stats->Add(level, kDataBlocksRead, counters.blocks_read);
    stats->Add(level, kBytesRead, counters.bytes_read);
  }
}

}  // namespace sift

#endif  // SIFT_DB_FILE_PROBE_H_
