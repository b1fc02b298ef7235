// VersionSet's part of compaction: picking which level and which files
// the next compaction merges (the map of compaction:
// db/compaction/compaction.h).

#include "absl/strings/str_cat.h"
#include "db/compaction/compaction.h"
#include "db/version_set.h"

namespace sift {
namespace {

uint64_t TotalBytes(const FileList& files) {
  uint64_t sum = 0;
  for (const auto& f : files) sum += f->file_size;
  return sum;
}

// The user-key range covered by files.
void Range(const KeyComparator& icmp, const FileList& files,
           std::string* smallest, std::string* largest) {
  smallest->clear();
  largest->clear();
  for (size_t i = 0; i < files.size(); ++i) {
    const auto& f = files[i];
    if (i == 0 || icmp.Compare(f->smallest, *smallest) < 0) {
      smallest->assign(f->smallest);
    }
    if (i == 0 || icmp.Compare(f->largest, *largest) > 0) {
      largest->assign(f->largest);
    }
  }
}

}  // namespace

std::unique_ptr<Compaction> VersionSet::PickCompaction() {
  if (!NeedsCompaction()) return nullptr;
  const int level = current_->compaction_level;
  auto c = std::make_unique<Compaction>(level, level + 1,
                                        options_.max_file_size, current_);
  // Round-robin over the key space: the first file after the last
  // compaction's end, wrapping around.
  const FileList& files = current_->files[level];
  for (const auto& f : files) {
    if (compact_pointer_[level].empty() ||
        icmp_.Compare(f->largest, compact_pointer_[level]) > 0) {
      c->inputs(0).push_back(f);
      break;
    }
  }
  if (c->inputs(0).empty()) c->inputs(0).push_back(files[0]);

  if (level == 0) {
    // Level-0 files overlap: take every file overlapping the pick.
    std::string smallest, largest;
    Range(icmp_, c->inputs(0), &smallest, &largest);
    c->inputs(0) = current_->GetOverlappingInputs(0, ExtractUserKey(smallest),
                                                  ExtractUserKey(largest));
  }
  SetupOtherInputs(c.get());
  return c;
}

void VersionSet::SetupOtherInputs(Compaction* c) {
  const int level = c->level();
  std::string smallest, largest;
  Range(icmp_, c->inputs(0), &smallest, &largest);
  if (c->output_level() != level) {
    c->inputs(1) = current_->GetOverlappingInputs(
        c->output_level(), ExtractUserKey(smallest), ExtractUserKey(largest));
    // Grow the level's inputs if that does not pull in more output-level
    // files and keeps the compaction moderate.
    std::string all_smallest, all_largest;
    FileList all = c->inputs(0);
    all.insert(all.end(), c->inputs(1).begin(), c->inputs(1).end());
    Range(icmp_, all, &all_smallest, &all_largest);
    if (!c->inputs(1).empty()) {
      FileList expanded0 = current_->GetOverlappingInputs(
          level, ExtractUserKey(all_smallest), ExtractUserKey(all_largest));
      if (expanded0.size() > c->inputs(0).size() &&
          TotalBytes(expanded0) + TotalBytes(c->inputs(1)) <
              config::kMaxCompactionFiles * options_.max_file_size) {
        std::string new_smallest, new_largest;
        Range(icmp_, expanded0, &new_smallest, &new_largest);
        FileList expanded1 = current_->GetOverlappingInputs(
            c->output_level(), ExtractUserKey(new_smallest),
            ExtractUserKey(new_largest));
        if (expanded1.size() == c->inputs(1).size()) {
          c->inputs(0) = std::move(expanded0);
          c->inputs(1) = std::move(expanded1);
          smallest = new_smallest;
          largest = new_largest;
          Range(icmp_, c->inputs(0), &smallest, &largest);
          all = c->inputs(0);
          all.insert(all.end(), c->inputs(1).begin(), c->inputs(1).end());
          Range(icmp_, all, &all_smallest, &all_largest);
        }
      }
    }
    if (c->output_level() + 1 < config::kNumLevels) {
      c->grandparents() = current_->GetOverlappingInputs(
          c->output_level() + 1, ExtractUserKey(all_smallest),
          ExtractUserKey(all_largest));
    }
  }
  // The next compaction of this level starts after this one's end.
  compact_pointer_[level] = largest;
  c->edit()->SetCompactPointer(level, largest);
}

std::unique_ptr<Compaction> VersionSet::CompactRange(
    int level, std::optional<std::string_view> begin,
    std::optional<std::string_view> end, uint64_t max_file_number) {
  FileList inputs = current_->GetOverlappingInputs(level, begin, end);
  if (level == 0) {
    std::erase_if(inputs, [max_file_number](const auto& f) {
      return f->number >= max_file_number;
    });
  }
  if (inputs.empty()) return nullptr;
  // Bound the work of one step at levels >= 1 (level-0 files overlap, so
  // they must all go together); the caller repeats until the range is done.
  if (level > 0) {
    uint64_t total = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
      total += inputs[i]->file_size;
      if (total >= config::kMaxCompactionFiles * options_.max_file_size &&
          i + 1 < inputs.size()) {
        inputs.resize(i + 1);
        break;
      }
    }
  }
  auto c = std::make_unique<Compaction>(level, level + 1,
                                        options_.max_file_size, current_);
  c->inputs(0) = std::move(inputs);
  SetupOtherInputs(c.get());
  return c;
}

std::unique_ptr<Compaction> VersionSet::RewriteFile(
    int level, std::shared_ptr<FileMetaData> f) {
  auto c = std::make_unique<Compaction>(level, level, options_.max_file_size,
                                        current_);
  c->inputs(0).push_back(std::move(f));
  if (level + 1 < config::kNumLevels) {
    c->grandparents() = current_->GetOverlappingInputs(
        level + 1, c->inputs(0)[0]->smallest_user_key(),
        c->inputs(0)[0]->largest_user_key());
  }
  return c;
}

}  // namespace sift
