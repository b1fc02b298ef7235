// Point lookups on one SSTable: ns per Get for keys that are there (a data
// block from the block cache) and for absent keys the filter rejects (no
// data block at all), for both filter layouts and without a filter.
//
//   build/bin/table_bench --benchmark_counters_tabular=true
//
// The table holds 200k keys of 16 bytes with 100-byte values (about one
// 4 MiB flush worth of data, Snappy), in the in-memory Env, with a block
// cache large enough to hold it: this measures the lookup path, not I/O.

#include <memory>
#include <string>
#include <vector>

#include "bench/db_bench_keys.h"
#include "benchmark/benchmark.h"
#include "sift/env.h"
#include "sift/sst_file_reader.h"
#include "sift/sst_file_writer.h"
#include "util/random.h"

namespace sift {
namespace {

constexpr int kKeys = 200000;

struct Fixture {
  std::unique_ptr<Env> env = NewMemEnv();
  std::unique_ptr<SstFileReader> reader;
};

// One table per (layout, fp chance), built once.
Fixture* GetFixture(FilterLayout layout, double fp) {
  static std::vector<std::unique_ptr<Fixture>> cache;
  static std::vector<std::pair<int, double>> keys;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].first == static_cast<int>(layout) && keys[i].second == fp) {
      return cache[i].get();
    }
  }
  auto f = std::make_unique<Fixture>();
  Options o;
  o.env = f->env.get();
  o.filter_layout = layout;
  o.bloom_filter_fp_chance = fp;
  o.block_cache_capacity = 64 << 20;
  SstFileWriter w(o);
  bench::ValueGenerator values(0.5, 100);
  std::string key;
  if (!w.Open("/t.sst").ok()) std::abort();
  for (int i = 0; i < kKeys; ++i) {
    bench::MakeKey(2 * static_cast<uint64_t>(i), 16, &key);  // even numbers
    if (!w.Put(key, values.Generate(100)).ok()) std::abort();
  }
  if (!w.Finish().ok()) std::abort();
  f->reader = std::make_unique<SstFileReader>(o);
  if (!f->reader->Open("/t.sst").ok()) std::abort();
  keys.emplace_back(static_cast<int>(layout), fp);
  cache.push_back(std::move(f));
  return cache.back().get();
}

void Lookup(benchmark::State& state, FilterLayout layout, double fp, bool hit) {
  Fixture* f = GetFixture(layout, fp);
  Random rnd(7);
  std::vector<std::string> probe(1 << 16);
  for (auto& k : probe) {
    const uint64_t n = 2 * rnd.Uniform(kKeys) + (hit ? 0 : 1);
    bench::MakeKey(n, 16, &k);
  }
  // Warm the block cache so hits measure the lookup, not the first read.
  std::string value;
  for (const auto& k : probe) {
    f->reader->Get(ReadOptions(), k, &value).IgnoreError();
  }
  size_t i = 0;
  int64_t found = 0;
  for (auto _ : state) {
    found += f->reader->Get(ReadOptions(), probe[i], &value).ok();
    i = (i + 1) & (probe.size() - 1);
  }
  state.counters["found_rate"] = benchmark::Counter(
      static_cast<double>(found), benchmark::Counter::kAvgIterations);
}

void BM_HitBlocked(benchmark::State& s) {
  Lookup(s, FilterLayout::kBlocked, 0.01, true);
}
void BM_MissBlocked(benchmark::State& s) {
  Lookup(s, FilterLayout::kBlocked, 0.01, false);
}
void BM_HitStandard(benchmark::State& s) {
  Lookup(s, FilterLayout::kStandard, 0.01, true);
}
void BM_MissStandard(benchmark::State& s) {
  Lookup(s, FilterLayout::kStandard, 0.01, false);
}
void BM_MissNoFilter(benchmark::State& s) {
  Lookup(s, FilterLayout::kBlocked, 1.0, false);
}
BENCHMARK(BM_HitBlocked);
BENCHMARK(BM_MissBlocked);
BENCHMARK(BM_HitStandard);
BENCHMARK(BM_MissStandard);
BENCHMARK(BM_MissNoFilter);

}  // namespace
}  // namespace sift

BENCHMARK_MAIN();
