// LevelDB's C comparators and filter policies (include/sift/leveldb/c.h):
// C callbacks behind sift::Comparator and sift::FilterPolicy, and
// leveldb_filterpolicy_create_bloom as one of siftdb's own Bloom filters.

#include "c/leveldb/leveldb_c_policies.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

// A user filter policy from LevelDB's C callbacks.
class CallbackFilterPolicy final : public sift::FilterPolicy {
 public:
  using CreateFn = char* (*)(void*, const char* const*, const size_t*, int,
                             size_t*);
  using MatchFn = uint8_t (*)(void*, const char*, size_t, const char*, size_t);
  using NameFn = const char* (*)(void*);

  CallbackFilterPolicy(void* state, void (*destructor)(void*), CreateFn create,
                       MatchFn match, NameFn name)
      : state_(state),
        destructor_(destructor),
        create_(create),
        match_(match),
        name_(name) {}
  ~CallbackFilterPolicy() override {
    if (destructor_ != nullptr) destructor_(state_);
  }
  CallbackFilterPolicy(const CallbackFilterPolicy&) = delete;
  CallbackFilterPolicy& operator=(const CallbackFilterPolicy&) = delete;

  const char* Name() const override { return name_(state_); }

  void CreateFilter(absl::Span<const std::string_view> keys,
                    std::string* dst) const override {
    std::vector<const char*> data(keys.size());
    std::vector<size_t> sizes(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      data[i] = keys[i].data();
      sizes[i] = keys[i].size();
    }
    size_t len = 0;
    // LevelDB's contract: the callback returns malloc()ed bytes, ours to
    // free. (A table holds far fewer than INT_MAX keys.)
    char* filter = create_(state_, data.data(), sizes.data(),
                           static_cast<int>(keys.size()), &len);
    dst->assign(filter != nullptr ? filter : "", filter != nullptr ? len : 0);
    std::free(filter);
  }

  bool KeyMayMatch(std::string_view key,
                   std::string_view filter) const override {
    return match_(state_, key.data(), key.size(), filter.data(),
                  filter.size()) != 0;
  }

 private:
  void* const state_;
  void (*const destructor_)(void*);
  const CreateFn create_;
  const MatchFn match_;
  const NameFn name_;
};

// leveldb_filterpolicy_create_bloom: siftdb's standard Bloom filter under
// LevelDB's name, built for the false-positive chance LevelDB's Bloom
// filter has at bits_per_key.
class LevelDBBloomPolicy final : public sift::FilterPolicy {
 public:
  explicit LevelDBBloomPolicy(std::unique_ptr<const FilterPolicy> bloom)
      : bloom_(std::move(bloom)) {}

  const char* Name() const override { return "leveldb.BuiltinBloomFilter2"; }
  double fp_chance() const override { return bloom_->fp_chance(); }
  void CreateFilter(absl::Span<const std::string_view> keys,
                    std::string* dst) const override {
    bloom_->CreateFilter(keys, dst);
  }
  bool KeyMayMatch(std::string_view key,
                   std::string_view filter) const override {
    return bloom_->KeyMayMatch(key, filter);
  }

 private:
  const std::unique_ptr<const FilterPolicy> bloom_;
};

// The false-positive chance of LevelDB's Bloom filter: bits_per_key bits
// and k = bits_per_key * ln 2 probes (rounded down, within [1, 30]) per key,
// about (1 - e^(-k / bits_per_key))^k.
double LevelDBBloomFpChance(int bits_per_key) {
  const double bits = std::max(bits_per_key, 1);
  const double k = std::clamp(std::floor(bits * 0.69), 1.0, 30.0);
  // Kept above the smallest target siftdb builds (sift/filter_policy.h).
  return std::max(std::pow(1.0 - std::exp(-k / bits), k), 1e-12);
}

}  // namespace

extern "C" {

leveldb_comparator_t* leveldb_comparator_create(
    void* state, void (*destructor)(void*),
    int (*compare)(void*, const char* a, size_t alen, const char* b,
                   size_t blen),
    const char* (*name)(void*)) {
  return new leveldb_comparator_t(state, destructor, compare, name);
}

void leveldb_comparator_destroy(leveldb_comparator_t* cmp) { delete cmp; }

leveldb_filterpolicy_t* leveldb_filterpolicy_create(
    void* state, void (*destructor)(void*),
    char* (*create_filter)(void*, const char* const* key_array,
                           const size_t* key_length_array, int num_keys,
                           size_t* filter_length),
    uint8_t (*key_may_match)(void*, const char* key, size_t length,
                             const char* filter, size_t filter_length),
    const char* (*name)(void*)) {
  return new leveldb_filterpolicy_t{std::make_shared<CallbackFilterPolicy>(
      state, destructor, create_filter, key_may_match, name)};
}

void leveldb_filterpolicy_destroy(leveldb_filterpolicy_t* policy) {
  delete policy;
}

leveldb_filterpolicy_t* leveldb_filterpolicy_create_bloom(int bits_per_key) {
  absl::StatusOr<std::unique_ptr<const sift::FilterPolicy>> bloom =
      sift::FilterPolicy::Create(LevelDBBloomFpChance(bits_per_key),
                                 sift::FilterLayout::kStandard);
  // The chance is always in (0, 1), which Create accepts.
  return new leveldb_filterpolicy_t{
      std::make_shared<LevelDBBloomPolicy>(*std::move(bloom))};
}

}  // extern "C"
