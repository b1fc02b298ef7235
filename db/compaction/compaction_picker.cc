// ColumnFamilyData's part of compaction: picking which level and which files
// the next compaction merges (the map of compaction:
// db/compaction/compaction.h).

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "db/column_family.h"
#include "db/compaction/compaction.h"

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

std::unique_ptr<Compaction> ColumnFamilyData::NewCompaction(int level,
                                                            int output_level) {
  return std::make_unique<Compaction>(this, level, output_level,
                                      options_.max_file_size, current_);
}

std::unique_ptr<Compaction> ColumnFamilyData::PickCompaction() {
  if (!NeedsCompaction()) return nullptr;
  // Every due level, highest score first: when the most urgent one's
  // files are busy, the next may have work that runs beside them. As in
  // RocksDB, a level's score leaves out the files running compactions
  // take: it is the work left for one more.
  std::vector<std::pair<double, int>> due;
  for (int level = 0; level < config::kNumLevels - 1; ++level) {
    const double score = LevelScore(*current_, level, /*skip_busy=*/true);
    if (score >= 1) due.emplace_back(score, level);
  }
  std::stable_sort(due.begin(), due.end(), [](const auto& a, const auto& b) {
    return a.first > b.first;
  });
  for (const auto& [score, level] : due) {
    std::unique_ptr<Compaction> c = PickAt(level);
    if (c != nullptr) {
      AdvanceCompactPointer(c.get());
      AddRunning(*c);
      return c;
    }
  }
  return nullptr;
}

std::unique_ptr<Compaction> ColumnFamilyData::PickAt(int level) {
  const FileList& files = current_->files[level];
  if (files.empty()) return nullptr;
  // Round-robin over the key space: the first file after the last
  // compaction's end, wrapping around; if it is busy, the next one.
  size_t start = 0;
  while (start < files.size() && !compact_pointer_[level].empty() &&
         icmp_.Compare(files[start]->largest, compact_pointer_[level]) <= 0) {
    ++start;
  }
  if (start == files.size()) start = 0;
  // Level-0 files overlap: a pick takes every file overlapping it, so one
  // try settles level 0.
  const size_t tries = level == 0 ? 1 : files.size();
  for (size_t i = 0; i < tries; ++i) {
    auto c = NewCompaction(level, level + 1);
    c->inputs(0).push_back(files[(start + i) % files.size()]);
    if (level == 0) {
      std::string smallest, largest;
      Range(icmp_, c->inputs(0), &smallest, &largest);
      c->inputs(0) = current_->GetOverlappingInputs(0, ExtractUserKey(smallest),
                                                    ExtractUserKey(largest));
    }
    SetupOtherInputs(c.get());
    if (!ConflictsWithRunning(*c)) return c;
  }
  return nullptr;
}

bool ColumnFamilyData::ConflictsWithRunning(const Compaction& c) const {
  const OutputRange out = c.output_range();
  if (flush_in_flight_.has_value() && out.level <= flush_in_flight_->level &&
      flush_in_flight_->Overlaps(icmp_, out.smallest, out.largest)) {
    return true;  // it would write older data at or above the new table
  }
  for (const Running& r : running_) {
    if (c.level() == 0 && r.level == 0) return true;
    if (r.output.level == out.level &&
        r.output.Overlaps(icmp_, out.smallest, out.largest)) {
      return true;
    }
  }
  for (int which = 0; which < 2; ++which) {
    for (const auto& f : c.inputs(which)) {
      if (IsBusy(f->number)) return true;
    }
  }
  return false;
}

void ColumnFamilyData::AdvanceCompactPointer(Compaction* c) {
  std::string smallest, largest;
  Range(icmp_, c->inputs(0), &smallest, &largest);
  compact_pointer_[c->level()] = largest;
  c->edit()->SetCompactPointer(c->level(), largest);
}

void ColumnFamilyData::SetupOtherInputs(Compaction* c) {
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
}

std::unique_ptr<Compaction> ColumnFamilyData::CompactRange(
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
  auto c = NewCompaction(level, level + 1);
  c->inputs(0) = std::move(inputs);
  SetupOtherInputs(c.get());
  AdvanceCompactPointer(c.get());
  AddRunning(*c);
  return c;
}

std::unique_ptr<Compaction> ColumnFamilyData::RewriteFile(
    int level, std::shared_ptr<FileMetaData> f) {
  auto c = NewCompaction(level, level);
  c->inputs(0).push_back(std::move(f));
  if (level + 1 < config::kNumLevels) {
    c->grandparents() = current_->GetOverlappingInputs(
        level + 1, c->inputs(0)[0]->smallest_user_key(),
        c->inputs(0)[0]->largest_user_key());
  }
  AddRunning(*c);
  return c;
}

}  // namespace sift
