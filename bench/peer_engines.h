// The engines peer_bench drives side by side -- siftdb, RocksDB and LevelDB
// -- behind one small interface, each configured with the same memtable,
// file size, block cache, compression and ~1% Bloom filter.

#ifndef SIFT_BENCH_PEER_ENGINES_H_
#define SIFT_BENCH_PEER_ENGINES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace sift::bench {

struct EngineConfig {
  size_t write_buffer_size = 4 << 20;
  size_t file_size = 4 << 20;
  size_t block_cache_size = 8 << 20;
  bool compression = true;  // Snappy
  // siftdb: the filter's fp chance; peers: Bloom bits per key (10 ~ 1%).
  double fp_chance = 0.01;
  int bloom_bits = 10;
  // Keep level 0 from compacting (the "misses across many files" case).
  // LevelDB cannot: its level-0 trigger is a compile-time constant.
  bool hold_level0 = false;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual const char* name() const = 0;
  // Opens a fresh database in dir (which the caller has emptied).
  virtual std::string Open(const std::string& dir, const EngineConfig& c) = 0;
  virtual void Put(std::string_view key, std::string_view value) = 0;
  // True if found.
  virtual bool Get(std::string_view key, std::string* value) = 0;
  virtual void Flush() = 0;
  virtual void WaitForCompaction() = 0;
  // One line about files per level, and filter counters when known.
  virtual std::string Describe() = 0;
  // The engine's own statistics text (its "<engine>.stats" property):
  // compaction bytes per level, stalls.
  virtual std::string Stats() = 0;
};

// nullptr if the engine is unknown or not built in. Errors from Open are
// returned as text (empty = OK).
std::unique_ptr<Engine> NewEngine(std::string_view name);

}  // namespace sift::bench

#endif  // SIFT_BENCH_PEER_ENGINES_H_
