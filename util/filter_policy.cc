// sift::FilterPolicy (include/sift/filter_policy.h) over util/filter.h.

#include "sift/filter_policy.h"

#include <cmath>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "util/filter.h"
#include "util/hash.h"

namespace sift {
namespace {

class BloomFilterPolicy final : public FilterPolicy {
 public:
  BloomFilterPolicy(double fp_chance, FilterLayout layout)
      : fp_chance_(fp_chance),
        layout_(layout),
        params_(ChooseBloomParams(layout, fp_chance)) {}

  const char* Name() const override { return "sift.BuiltinFilter"; }
  double fp_chance() const override { return fp_chance_; }
  FilterLayout layout() const override { return layout_; }

  FilterShape ShapeFor(uint64_t num_keys) const override {
    return BloomShapeFor(layout_, fp_chance_, params_, num_keys);
  }

  void CreateFilter(absl::Span<const std::string_view> keys,
                    std::string* dst) const override {
    // A builder per call keeps the policy immutable (and so thread-safe);
    // its sizing work is done once here, in params_.
    FilterBuilder builder(layout_, fp_chance_, params_);
    for (std::string_view key : keys) builder.AddHash(KeyHash(key));
    dst->clear();
    builder.Finish(dst);
  }

  bool KeyMayMatch(std::string_view key,
                   std::string_view filter) const override {
    return FilterReader(filter).MayContainHash(KeyHash(key));
  }

  absl::Status MergeFilters(std::string_view other,
                            std::string* filter) const override {
    return BloomOrMerge(other, filter);
  }

 private:
  const double fp_chance_;
  const FilterLayout layout_;
  const BloomParams params_;
};

}  // namespace

absl::Status FilterPolicy::MergeFilters(std::string_view /*other*/,
                                        std::string* /*filter*/) const {
  return absl::UnimplementedError(
      absl::StrCat("filter policy ", Name(), " cannot merge filters"));
}

absl::StatusOr<std::unique_ptr<const FilterPolicy>> FilterPolicy::Create(
    double fp_chance, FilterLayout layout) {
  // Written so that NaN fails too.
  if (!(fp_chance > 0.0 && fp_chance < 1.0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bloom filter fp_chance must be in (0, 1), got ", fp_chance));
  }
  if (layout != FilterLayout::kStandard && layout != FilterLayout::kBlocked &&
      layout != FilterLayout::kRibbon) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown bloom filter layout ",
                     static_cast<int>(static_cast<uint8_t>(layout))));
  }
  return std::make_unique<const BloomFilterPolicy>(fp_chance, layout);
}

}  // namespace sift
