// One table's part in a point read, counted the same way by Get and
// MultiGet so that the filter statistics (and the observed FP rate derived
// from them, sift/statistics.h) do not depend on which call asked.

#ifndef SIFT_DB_FILE_PROBE_H_
#define SIFT_DB_FILE_PROBE_H_

#include <cstdint>

#include "db/statistics_impl.h"
#include "table/table_reader.h"

namespace sift {

// Asks table's filter about the user key whose KeyHash is `hash`, counting
// the answer at `level`: false when the filter rules the key out (the file
// is skipped). A table without a usable filter may always match.
inline bool FilterMayMatch(const Table& table, int level, uint64_t hash,
                           LocalStats* stats) {
  if (table.has_filter()) {
    stats->Add(level, kBloomFilterChecked);
    if (!table.KeyMayMatch(hash)) {
      stats->Add(level, kBloomFilterUseful);
      return false;
    }
    stats->Add(level, kBloomFilterFullPositive);
  } else if (!table.filter_status().ok()) {
    stats->Add(level, kBloomFilterCorrupt);
  }
  return true;
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
