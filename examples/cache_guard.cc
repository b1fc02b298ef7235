// cache_guard: a Bloom filter in front of a slow store, against cache
// penetration. Requests for keys that do not exist miss every cache and all
// land on the store; a filter built over the keys that do exist turns nearly
// all of them away in memory, while every existing key still gets through
// (a Bloom filter has no false negatives). sift::FilterPolicy is the filter
// siftdb puts in its SSTables, usable on its own.
//
//   cache_guard        prints how many requests reached the store; exits 1
//                      if an existing key was refused or the filter let
//                      through far more than its false-positive chance

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sift/filter_policy.h"

namespace {

// Stands in for a database or remote service: every lookup is costly.
class SlowStore {
 public:
  void Add(std::string key, std::string value) { rows_[key] = value; }
  const std::string* Lookup(const std::string& key) {
    ++lookups_;
    auto it = rows_.find(key);
    return it == rows_.end() ? nullptr : &it->second;
  }
  int64_t lookups() const { return lookups_; }

 private:
  std::unordered_map<std::string, std::string> rows_;
  int64_t lookups_ = 0;
};

std::string ItemKey(uint64_t id) { return "item:" + std::to_string(id); }

}  // namespace

int main() {
  constexpr int kItems = 200000;
  constexpr int kRequests = 1000000;
  constexpr double kFpChance = 0.001;

  SlowStore store;
  std::vector<std::string> keys;
  for (uint64_t id = 0; id < kItems; ++id) {
    keys.push_back(ItemKey(id * 7));  // ids that are multiples of 7 exist
    store.Add(keys.back(), "item " + std::to_string(id * 7));
  }

  // Build the guard once over the existing keys (rebuild it when they
  // change: a filter cannot forget a key).
  absl::StatusOr<std::unique_ptr<const sift::FilterPolicy>> policy =
      sift::FilterPolicy::Create(kFpChance);
  if (!policy.ok()) {
    std::fprintf(stderr, "cache_guard: %s\n",
                 policy.status().ToString().c_str());
    return 1;
  }
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  std::string guard;
  (*policy)->CreateFilter(absl::MakeConstSpan(views), &guard);
  std::printf("guard: %zu keys in %zu bytes (%.1f bits/key)\n", keys.size(),
              guard.size(), 8.0 * guard.size() / keys.size());

  // Traffic: 90% of the requests ask for ids that do not exist.
  std::mt19937_64 rng(42);
  int64_t absent_requests = 0, absent_through = 0, existing_refused = 0;
  for (int i = 0; i < kRequests; ++i) {
    const bool exists = rng() % 10 == 0;
    const uint64_t id = (rng() % kItems) * 7 + (exists ? 0 : 1 + rng() % 6);
    const std::string key = ItemKey(id);
    if (!exists) ++absent_requests;
    if (!(*policy)->KeyMayMatch(key, guard)) {  // definitely absent
      if (exists) ++existing_refused;
      continue;
    }
    if (store.Lookup(key) == nullptr) ++absent_through;  // a false positive
  }
  const double through = static_cast<double>(absent_through) /
                         static_cast<double>(absent_requests);
  std::printf(
      "requests: %d, store lookups: %lld; absent keys let through: %lld of "
      "%lld (%.4f%%, fp chance %g%%)\n",
      kRequests, static_cast<long long>(store.lookups()),
      static_cast<long long>(absent_through),
      static_cast<long long>(absent_requests), 100 * through, 100 * kFpChance);
  if (existing_refused != 0 || through > 3 * kFpChance) {
    std::fprintf(stderr,
                 "cache_guard: %lld existing keys refused, %.4f%% "
                 "absent keys let through\n",
                 static_cast<long long>(existing_refused), 100 * through);
    return 1;
  }
  std::printf("cache_guard: ok\n");
  return 0;
}
