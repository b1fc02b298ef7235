// Filter micro-benchmarks: build cost per key, and probe cost per key for
// keys that are present (hits) and absent (misses), for the three layouts
// (standard, blocked and ribbon: arg layout = 0, 1, 2) at 40K keys (one
// default SSTable's filter, which stays in the CPU caches: "hot"), 1M and
// 10M keys (100M with SIFT_BENCH_HUGE=1; beyond the caches: "cold"), for
// p = 1/inv_p = 0.01 and 0.001.
//
//   build/bin/filter_bench --benchmark_counters_tabular=true
//   build/bin/filter_bench --benchmark_filter='Latency/layout:[12]/n:40000/'
//
// Probes visit the filter in random order (the probed hashes are random, and
// the hit list is shuffled), so caches help only as much as the filter fits
// in them. Two probe modes:
//   Probe*         independent probes: throughput, with the CPU overlapping
//                  several cache misses;
//   Probe*Latency  each probe's hash depends on the previous answer, so the
//                  misses are serialized: the cost of one lookup in a Get.
// Counters: ns_per_key (shown in seconds, e.g. "9.1n"), bits_per_key
// (8 * filter bytes / n, trailer included) and fp_rate (measured once per
// filter over 1M absent keys).
// BM_FpRate measures the false-positive rate against the target for
// several p (for tools/plot.sh).
// Filters live in 64-byte-aligned memory, as the table reader should keep
// them; ProbeMissMisaligned shows the cost when they do not.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "benchmark/benchmark.h"
#include "sift/filter_policy.h"
#include "sift/options.h"
#include "util/filter.h"
#include "util/hash.h"

namespace sift {
namespace {

constexpr size_t kProbeBatch = 1 << 20;  // probes per hash list

// Key i: 16 bytes, a big-endian counter then a fixed tag.
class KeyMaker {
 public:
  std::string_view Key(uint64_t i) {
    for (int b = 0; b < 8; ++b) buf_[b] = static_cast<char>(i >> (56 - 8 * b));
    return std::string_view(buf_, sizeof(buf_));
  }
  uint64_t Hash(uint64_t i) { return KeyHash(Key(i)); }

 private:
  char buf_[16] = {0,   0,   0,   0,   0,   0,   0,   0,
                   's', 'i', 'f', 't', 'b', 'n', 'c', 'h'};
};

struct AlignedFree {
  void operator()(char* p) const { std::free(p); }
};

// A built filter in 64-byte-aligned memory, and hash lists to probe it with.
struct Fixture {
  std::unique_ptr<char, AlignedFree> storage;
  std::string_view filter;
  std::vector<uint64_t> hits;    // hashes of added keys, shuffled
  std::vector<uint64_t> misses;  // hashes of keys never added
  double fp_rate = 0;
  double bits_per_key = 0;
};

const Fixture& GetFixture(FilterLayout layout, uint64_t n, double p) {
  static auto* fixtures =
      new std::map<std::tuple<int, uint64_t, double>, Fixture>();
  auto [it, inserted] =
      fixtures->try_emplace({static_cast<int>(layout), n, p}, Fixture());
  Fixture& f = it->second;
  if (!inserted) return f;

  FilterBuilder builder(layout, p);
  KeyMaker keys;
  std::mt19937_64 rng(42);
  const uint64_t sample = std::min<uint64_t>(n, kProbeBatch);
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t h = keys.Hash(i);
    builder.AddHash(h);
    // About `sample` of the added hashes, each kept with chance sample / n.
    if (f.hits.size() < sample && rng() % n < sample) f.hits.push_back(h);
  }
  while (f.hits.size() < sample) f.hits.push_back(keys.Hash(rng() % n));
  std::shuffle(f.hits.begin(), f.hits.end(), rng);
  for (uint64_t i = 0; i < kProbeBatch; ++i) {
    f.misses.push_back(keys.Hash(n + i));
  }
  std::string bytes;
  builder.Finish(&bytes);
  const size_t padded = (bytes.size() + 63) / 64 * 64;
  f.storage.reset(static_cast<char*>(std::aligned_alloc(64, padded)));
  std::copy(bytes.begin(), bytes.end(), f.storage.get());
  f.filter = std::string_view(f.storage.get(), bytes.size());

  const FilterReader reader(f.filter);
  uint64_t fps = 0;
  for (uint64_t h : f.misses) fps += reader.MayContainHash(h) ? 1 : 0;
  f.fp_rate = static_cast<double>(fps) / static_cast<double>(f.misses.size());
  f.bits_per_key = 8.0 * static_cast<double>(bytes.size()) / n;
  return f;
}

FilterLayout LayoutArg(const benchmark::State& state) {
  return static_cast<FilterLayout>(state.range(0));
}

double FpArg(const benchmark::State& state) {
  return 1.0 / static_cast<double>(state.range(2));
}

// The fixture the arguments (layout, n, inv_p) name.
const Fixture& ArgFixture(const benchmark::State& state) {
  return GetFixture(LayoutArg(state), static_cast<uint64_t>(state.range(1)),
                    FpArg(state));
}

void SetCounters(benchmark::State& state, const Fixture& f,
                 double keys_per_iteration) {
  state.counters["ns_per_key"] = benchmark::Counter(
      keys_per_iteration, benchmark::Counter::kIsIterationInvariantRate |
                              benchmark::Counter::kInvert);
  state.counters["bits_per_key"] = f.bits_per_key;
  state.counters["fp_rate"] = f.fp_rate;
}

// KeyHash + AddHash for n keys, then Finish (sort, unique, set bits).
// Filter counters are those of the fixture built the same way.
void BM_Build(benchmark::State& state) {
  const FilterLayout layout = LayoutArg(state);
  const uint64_t n = static_cast<uint64_t>(state.range(1));
  const Fixture& f = ArgFixture(state);
  FilterBuilder builder(layout, FpArg(state));
  KeyMaker keys;
  std::string out;
  for (auto _ : state) {
    for (uint64_t i = 0; i < n; ++i) builder.AddHash(keys.Hash(i));
    out.clear();
    builder.Finish(&out);
    benchmark::DoNotOptimize(out.data());
  }
  SetCounters(state, f, static_cast<double>(n));
}

// Independent probes of `hashes`, kProbeBatch per iteration.
void Probe(benchmark::State& state, const std::vector<uint64_t>& hashes) {
  const Fixture& f = ArgFixture(state);
  const FilterReader reader(f.filter);
  for (auto _ : state) {
    uint64_t matches = 0;
    for (uint64_t h : hashes) matches += reader.MayContainHash(h);
    benchmark::DoNotOptimize(matches);
  }
  SetCounters(state, f, static_cast<double>(hashes.size()));
}

// `value`, with the compiler forbidden to know it: the next probe's hash
// then depends on this answer as data, not through a predictable branch.
inline uint64_t Opaque(uint64_t value) {
  asm volatile("" : "+r"(value));
  return value;
}

// Serialized probes: the next hash depends on this answer. `expected` is
// the usual answer, so the hash is almost always the listed one.
void ProbeLatency(benchmark::State& state, const std::vector<uint64_t>& hashes,
                  bool expected) {
  const Fixture& f = ArgFixture(state);
  const FilterReader reader(f.filter);
  uint64_t flip = 0;
  for (auto _ : state) {
    for (uint64_t h : hashes) {
      flip = Opaque(reader.MayContainHash(h ^ flip) != expected);
    }
    benchmark::DoNotOptimize(flip);
  }
  SetCounters(state, f, static_cast<double>(hashes.size()));
}

void BM_ProbeHit(benchmark::State& state) {
  Probe(state, ArgFixture(state).hits);
}
void BM_ProbeMiss(benchmark::State& state) {
  Probe(state, ArgFixture(state).misses);
}
void BM_ProbeHitLatency(benchmark::State& state) {
  ProbeLatency(state, ArgFixture(state).hits, true);
}
void BM_ProbeMissLatency(benchmark::State& state) {
  ProbeLatency(state, ArgFixture(state).misses, false);
}

// The filter copied to an address 16 bytes past a cache line (where a
// std::string's buffer may well be): most blocks then straddle two lines.
void BM_ProbeMissLatencyMisaligned(benchmark::State& state) {
  const Fixture& f = ArgFixture(state);
  const size_t size = f.filter.size();
  std::unique_ptr<char, AlignedFree> storage(
      static_cast<char*>(std::aligned_alloc(64, (size + 16 + 63) / 64 * 64)));
  std::copy(f.filter.begin(), f.filter.end(), storage.get() + 16);
  const FilterReader reader(std::string_view(storage.get() + 16, size));
  uint64_t flip = 0;
  for (auto _ : state) {
    for (uint64_t h : f.misses) {
      flip = Opaque(reader.MayContainHash(h ^ flip));
    }
    benchmark::DoNotOptimize(flip);
  }
  SetCounters(state, f, static_cast<double>(f.misses.size()));
}

// The yardstick: one dependent random cache-line load (pointer chasing
// through a random cycle of 64-byte lines) over memory the size of the
// blocked filter. A blocked miss probe should cost about this much.
void BM_CacheMissReference(benchmark::State& state) {
  const Fixture& f =
      GetFixture(FilterLayout::kBlocked, state.range(1), FpArg(state));
  const size_t lines = std::max<size_t>(2, f.filter.size() / 64);
  std::unique_ptr<char, AlignedFree> storage(
      static_cast<char*>(std::aligned_alloc(64, lines * 64)));
  auto* memory = reinterpret_cast<uint64_t*>(storage.get());
  // Sattolo's algorithm: a random permutation that is one single cycle.
  std::vector<uint64_t> next(lines);
  for (size_t i = 0; i < lines; ++i) next[i] = i;
  std::mt19937_64 rng(7);
  for (size_t i = lines - 1; i > 0; --i) {
    std::swap(next[i], next[rng() % i]);
  }
  for (size_t i = 0; i < lines; ++i) memory[8 * i] = next[i];
  uint64_t line = 0;
  for (auto _ : state) {
    for (size_t i = 0; i < kProbeBatch; ++i) line = memory[8 * line];
    benchmark::DoNotOptimize(line);
  }
  SetCounters(state, f, static_cast<double>(kProbeBatch));
}

// The public entry point on a miss: KeyHash of a 16-byte key, trailer parse,
// probe.
void BM_KeyMayMatchMiss(benchmark::State& state) {
  const FilterLayout layout = LayoutArg(state);
  const uint64_t n = static_cast<uint64_t>(state.range(1));
  const Fixture& f = ArgFixture(state);
  auto policy = FilterPolicy::Create(FpArg(state), layout);
  if (!policy.ok()) {
    state.SkipWithError("FilterPolicy::Create failed");
    return;
  }
  KeyMaker maker;
  std::vector<std::string> keys;
  for (uint64_t i = 0; i < 4096; ++i)
    keys.emplace_back(maker.Key(n + i * 7919));
  for (auto _ : state) {
    uint64_t matches = 0;
    for (const std::string& k : keys) {
      matches += (*policy)->KeyMayMatch(k, f.filter);
    }
    benchmark::DoNotOptimize(matches);
  }
  SetCounters(state, f, static_cast<double>(keys.size()));
}

void AddSizes(benchmark::internal::Benchmark* b, std::vector<int64_t> sizes) {
  const char* huge = std::getenv("SIFT_BENCH_HUGE");
  if (huge != nullptr && std::string_view(huge) == "1") {
    sizes.push_back(100000000);
  }
  for (int64_t layout : {0, 1, 2}) {
    for (int64_t inv_p : {100, 1000}) {
      for (int64_t n : sizes) b->Args({layout, n, inv_p});
    }
  }
  b->ArgNames({"layout", "n", "inv_p"});
}
// 40K keys: about one default 4 MiB SSTable's filter, cache-resident.
void Sizes(benchmark::internal::Benchmark* b) {
  AddSizes(b, {40000, 1000000, 10000000});
}

BENCHMARK(BM_Build)->Apply(Sizes)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ProbeHit)->Apply(Sizes)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ProbeMiss)->Apply(Sizes)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ProbeHitLatency)->Apply(Sizes)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ProbeMissLatency)->Apply(Sizes)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ProbeMissLatencyMisaligned)
    ->Apply(Sizes)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CacheMissReference)->Apply(Sizes)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_KeyMayMatchMiss)->Apply(Sizes)->Unit(benchmark::kMicrosecond);

// The measured false-positive rate against the target, per layout and
// target p = 1 / p_inv, through the public FilterPolicy: 1M keys, 1M absent
// probes (about 100 false positives at the smallest p). Counters fp_rate,
// target and bits_per_key; tools/plot.sh draws them:
//   filter_bench --benchmark_filter=BM_FpRate --benchmark_format=csv
void BM_FpRate(benchmark::State& state) {
  constexpr uint64_t kKeys = 1000000;
  const FilterLayout layout = LayoutArg(state);
  const double p = 1.0 / static_cast<double>(state.range(1));
  auto policy = FilterPolicy::Create(p, layout);
  if (!policy.ok()) {
    state.SkipWithError(policy.status().ToString().c_str());
    return;
  }
  KeyMaker maker;
  std::vector<std::string> keys;
  keys.reserve(kKeys);
  for (uint64_t i = 0; i < kKeys; ++i) keys.emplace_back(maker.Key(2 * i));
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  std::string filter;
  (*policy)->CreateFilter(absl::MakeConstSpan(views), &filter);
  uint64_t positives = 0;
  for (auto _ : state) {
    positives = 0;
    for (uint64_t i = 0; i < kKeys; ++i) {
      positives += (*policy)->KeyMayMatch(maker.Key(2 * i + 1), filter);
    }
  }
  state.counters["fp_rate"] =
      static_cast<double>(positives) / static_cast<double>(kKeys);
  state.counters["target"] = p;
  state.counters["bits_per_key"] =
      8.0 * static_cast<double>(filter.size()) / static_cast<double>(kKeys);
}
void FpTargets(benchmark::internal::Benchmark* b) {
  for (int64_t layout : {0, 1}) {
    for (int64_t p_inv : {10, 20, 50, 100, 200, 1000, 10000}) {
      b->Args({layout, p_inv});
    }
  }
  b->ArgNames({"blocked", "p_inv"});
}
BENCHMARK(BM_FpRate)->Apply(FpTargets)->Iterations(1)->Unit(
    benchmark::kMillisecond);

}  // namespace
}  // namespace sift

BENCHMARK_MAIN();
