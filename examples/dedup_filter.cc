// dedup_filter: crawler de-duplication with sift::ScalableBloomFilter, the
// filter behind sift-server's BF.* commands. Two crawler nodes each skip
// URLs they have seen, with filters that keep their error rate by growing
// should the crawl outgrow the capacity reserved; then the nodes' filters
// are merged into one global filter that knows every URL either saw.
//
//   dedup_filter       prints what each node and the merged filter saw;
//                      exits 1 if a seen URL was missed, or if the grown or
//                      merged filter let through more than its error rate

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sift/scalable_filter.h"

namespace {

std::string Url(uint64_t i) {
  return "https://example.org/page/" + std::to_string(i);
}

int Fail(const char* what, const absl::Status& s) {
  std::fprintf(stderr, "dedup_filter: %s: %s\n", what, s.ToString().c_str());
  return 1;
}

}  // namespace

int main() {
  constexpr uint64_t kPerNode = 50000;
  // Every node reserves the capacity of the whole crawl, so the merged
  // filter's first sub-filter stays within it; each grows past it if the
  // crawl turns out larger.
  const sift::ScalableFilterOptions options{.error_rate = 0.001,
                                            .capacity = 2 * kPerNode};
  absl::StatusOr<sift::ScalableBloomFilter> node_a =
      sift::ScalableBloomFilter::Create(options);
  if (!node_a.ok()) return Fail("Create", node_a.status());
  absl::StatusOr<sift::ScalableBloomFilter> node_b =
      sift::ScalableBloomFilter::Create(options);
  if (!node_b.ok()) return Fail("Create", node_b.status());

  // Each node crawls its share; links repeat, so a third of the URLs a node
  // meets are ones it already fetched.
  uint64_t fetched = 0, skipped = 0;
  for (uint64_t i = 0; i < kPerNode * 3 / 2; ++i) {
    for (int node = 0; node < 2; ++node) {
      sift::ScalableBloomFilter& seen = node == 0 ? *node_a : *node_b;
      const std::string url = Url(2 * (i % kPerNode) + node);
      if (seen.Add(url) == sift::FilterAdd::kAdded) {
        ++fetched;  // new: fetch it
      } else {
        ++skipped;  // seen (or, rarely, a false positive)
      }
    }
  }
  std::printf(
      "crawl: %llu fetched, %llu skipped as seen; node a holds %llu "
      "URLs in %zu sub-filter(s), %zu bytes\n",
      static_cast<unsigned long long>(fetched),
      static_cast<unsigned long long>(skipped),
      static_cast<unsigned long long>(node_a->size()), node_a->num_filters(),
      node_a->bytes());

  // One global filter: the OR of both nodes' filters.
  sift::ScalableBloomFilter global = *node_a;
  if (absl::Status s = global.Merge(*node_b); !s.ok()) return Fail("Merge", s);

  uint64_t missed = 0, false_positives = 0;
  for (uint64_t i = 0; i < 2 * kPerNode; ++i) {
    if (!global.MayContain(Url(i))) ++missed;
  }
  constexpr uint64_t kStrangers = 200000;
  for (uint64_t i = 0; i < kStrangers; ++i) {
    if (global.MayContain(Url(10 * kPerNode + i))) ++false_positives;
  }
  const double rate = static_cast<double>(false_positives) / kStrangers;
  std::printf(
      "merged: %llu URLs, %llu missed, false-positive rate %.4f%% "
      "(error rate %g%%)\n",
      static_cast<unsigned long long>(global.size()),
      static_cast<unsigned long long>(missed), 100 * rate,
      100 * options.error_rate);

  // Merging filters of other options is refused, naming them.
  absl::StatusOr<sift::ScalableBloomFilter> other =
      sift::ScalableBloomFilter::Create({.error_rate = 0.01});
  const absl::Status mismatch = global.Merge(*other);
  std::printf("merge of other options: %s\n", mismatch.ToString().c_str());

  if (missed != 0 || rate > options.error_rate || mismatch.ok()) {
    std::fprintf(stderr, "dedup_filter: wrong result\n");
    return 1;
  }
  std::printf("dedup_filter: ok\n");
  return 0;
}
