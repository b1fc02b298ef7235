// The engines peer_bench drives side by side -- siftdb, RocksDB and LevelDB
// -- behind one small interface, each configured with the same memtable,
// file size, block cache, compression and ~1% Bloom filter.

#ifndef SIFT_BENCH_PEER_ENGINES_H_
#define SIFT_BENCH_PEER_ENGINES_H_

#include <cstdint>
#include <functional>
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
  // siftdb's and RocksDB's max_background_jobs (both default to 2).
  // LevelDB has one background thread and ignores it.
  int max_background_jobs = 2;
};

// What an engine says about the work behind its data; -1 where it does not
// say.
struct EngineFacts {
  // Bytes of the filters of every live table (what reads hold in memory).
  int64_t filter_bytes = -1;
  // Bytes written to table files by flushes and compactions.
  int64_t table_bytes_written = -1;
  // Microseconds writers waited on the engine (slowdowns and stops).
  int64_t stall_micros = -1;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual const char* name() const = 0;
  // Opens the database in dir, creating it if missing.
  virtual std::string Open(const std::string& dir, const EngineConfig& c) = 0;
  // Put, Get and Scan may be called from several threads at once.
  virtual void Put(std::string_view key, std::string_view value) = 0;
  // True if found.
  virtual bool Get(std::string_view key, std::string* value) = 0;
  // Calls visit for up to n entries from the first key >= start, in order.
  virtual void Scan(
      std::string_view start, int n,
      const std::function<void(std::string_view, std::string_view)>& visit) = 0;
  virtual void Flush() = 0;
  virtual void WaitForCompaction() = 0;
  // One line about files per level, and filter counters when known.
  virtual std::string Describe() = 0;
  // The engine's own statistics text (its "<engine>.stats" property):
  // compaction bytes per level, stalls.
  virtual std::string Stats() = 0;
  // dir: the directory the engine was opened on (LevelDB's filters are
  // read from its files).
  virtual EngineFacts Facts(const std::string& dir) = 0;
};

// nullptr if the engine is unknown or not built in. Errors from Open are
// returned as text (empty = OK).
std::unique_ptr<Engine> NewEngine(std::string_view name);

}  // namespace sift::bench

#endif  // SIFT_BENCH_PEER_ENGINES_H_
