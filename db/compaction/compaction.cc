#include "db/compaction/compaction.h"

#include "db/filter_allocation.h"
#include "util/invariant.h"

namespace sift {

Compaction::Compaction(ColumnFamilyData* family, int level, int output_level,
                       uint64_t max_output_file_size,
                       std::shared_ptr<const Version> input_version)
    : family_(family),
      level_(level),
      output_level_(output_level),
      max_output_file_size_(max_output_file_size),
      input_version_(std::move(input_version)) {
  edit_.SetColumnFamily(family->id());
}

std::unique_ptr<Compaction> Compaction::ForSubcompaction() const {
  auto sub = std::make_unique<Compaction>(
      family_, level_, output_level_, max_output_file_size_, input_version_);
  sub->inputs_[0] = inputs_[0];
  sub->inputs_[1] = inputs_[1];
  sub->grandparents_ = grandparents_;
  return sub;
}

uint64_t Compaction::InputBytes() const {
  uint64_t sum = 0;
  for (const auto& in : inputs_) {
    for (const auto& f : in) sum += f->file_size;
  }
  return sum;
}

OutputRange Compaction::output_range() const {
  const KeyComparator& icmp = input_version_->icmp;
  OutputRange r;
  r.level = output_level_;
  bool first = true;
  for (const auto& in : inputs_) {
    for (const auto& f : in) {
      if (first || icmp.CompareUser(f->smallest_user_key(), r.smallest) < 0) {
        r.smallest = std::string(f->smallest_user_key());
      }
      if (first || icmp.CompareUser(f->largest_user_key(), r.largest) > 0) {
        r.largest = std::string(f->largest_user_key());
      }
      first = false;
    }
  }
  return r;
}

bool Compaction::IsTrivialMove(const Options& options) const {
  if (output_level_ == level_ || inputs_[0].size() != 1 ||
      !inputs_[1].empty()) {
    return false;
  }
  uint64_t grandparent_bytes = 0;
  for (const auto& f : grandparents_) grandparent_bytes += f->file_size;
  if (grandparent_bytes >
      config::kMaxGrandparentOverlapFiles * max_output_file_size_) {
    return false;
  }
  // A move keeps the old filter: only if it was built the way new files
  // would be.
  const FileMetaData& f = *inputs_[0][0];
  SIFT_INVARIANT(f.facts.has_value(),
                 "FileMetaData::facts is set in every installed Version");
  return FilterIsCurrent(*f.facts, OutputFilter(options, FileKeys(f)));
}

FilterTarget Compaction::OutputFilter(const Options& options,
                                      uint64_t output_keys) const {
  TreeKeys tree = KeysOf(*input_version_);
  uint64_t keys = 0;
  for (int which = 0; which < 2; ++which) {
    const int at = which == 0 ? level_ : output_level_;
    for (const auto& f : inputs_[which]) {
      tree.Remove(at, FileKeys(*f));
      keys += FileKeys(*f);
    }
  }
  if (output_level_ > 0) tree.Add(output_level_, keys);
  return TargetFilter(options, tree, output_level_, output_keys);
}

void Compaction::AddInputDeletions(VersionEdit* edit) const {
  for (const auto& f : inputs_[0]) edit->RemoveFile(level_, f->number);
  for (const auto& f : inputs_[1]) edit->RemoveFile(output_level_, f->number);
}

bool Compaction::IsBaseLevelForKey(std::string_view user_key) {
  for (int l = output_level_ + 1; l < config::kNumLevels; ++l) {
    const FileList& files = input_version_->files[l];
    while (level_ptrs_[l] < files.size()) {
      const auto& f = files[level_ptrs_[l]];
      const KeyComparator& icmp = input_version_->icmp;
      if (icmp.CompareUser(user_key, f->largest_user_key()) <= 0) {
        if (icmp.CompareUser(user_key, f->smallest_user_key()) >= 0) {
          return false;
        }
        break;
      }
      ++level_ptrs_[l];
    }
  }
  return true;
}

bool Compaction::IsBaseLevelForRange(std::string_view begin,
                                     std::string_view end) const {
  for (int l = output_level_ + 1; l < config::kNumLevels; ++l) {
    if (input_version_->OverlapInLevel(l, begin, end)) return false;
  }
  return true;
}

bool Compaction::ShouldStopBefore(std::string_view ikey) {
  while (grandparent_index_ < grandparents_.size() &&
         input_version_->icmp.Compare(
             ikey, grandparents_[grandparent_index_]->largest) > 0) {
    if (seen_key_) {
      overlapped_bytes_ += grandparents_[grandparent_index_]->file_size;
    }
    ++grandparent_index_;
  }
  seen_key_ = true;
  if (overlapped_bytes_ >
      config::kMaxGrandparentOverlapFiles * max_output_file_size_) {
    overlapped_bytes_ = 0;
    return true;
  }
  return false;
}

}  // namespace sift
