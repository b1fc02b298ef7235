#include "util/dynamic_bloom.h"

namespace sift {

DynamicBloom::DynamicBloom(uint64_t num_bits, int num_probes)
    : num_blocks_((num_bits + kBloomBlockBits - 1) / kBloomBlockBits),
      num_probes_(num_probes) {
  if (num_blocks_ == 0) return;
  blocks_ = std::make_unique<Block[]>(num_blocks_);
  for (uint64_t i = 0; i < num_blocks_; ++i) {
    for (std::atomic<uint64_t>& w : blocks_[i].words) {
      w.store(0, std::memory_order_relaxed);
    }
  }
}

int DynamicBloom::OptimalProbes(double bits_per_key) {
  int best = 1;
  double best_rate = BlockedFpRate(bits_per_key, 1);
  for (int k = 2; k <= kBloomMaxProbes; ++k) {
    const double rate = BlockedFpRate(bits_per_key, k);
    if (rate >= best_rate) break;  // the rate is unimodal in k
    best = k;
    best_rate = rate;
  }
  return best;
}

}  // namespace sift
