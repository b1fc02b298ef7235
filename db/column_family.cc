// ColumnFamilyData: one family's tree of Versions, its compaction scores and
// its work in flight (the picker: db/compaction/compaction_picker.cc).

#include "db/column_family.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "db/compaction/compaction.h"
#include "util/invariant.h"

namespace sift {

ColumnFamilyHandle::~ColumnFamilyHandle() = default;

ColumnFamilyData::ColumnFamilyData(uint32_t id, std::string name,
                                   const Options& options,
                                   std::unique_ptr<TableCache> table_cache)
    : id_(id),
      name_(std::move(name)),
      options_(options),
      icmp_(KeyComparator::Internal(options.comparator)),
      table_cache_(std::move(table_cache)) {
  AppendVersion(std::make_shared<Version>(icmp_));
}

ColumnFamilyData::~ColumnFamilyData() {
  // The views, memtables and Versions go before the table cache their
  // pinned tables return to (it is declared after them).
  views.Install(nullptr);
  mem.reset();
  imm.reset();
  current_.reset();
}

void ColumnFamilyData::AppendVersion(std::shared_ptr<Version> v) {
  if constexpr (kInvariantChecks) CheckInvariants(*v);
  if (table_cache_ != nullptr) v->pinned = table_cache_->Pinned(v->files);
  Finalize(v.get());
  all_versions_.push_back(v);
  current_ = std::move(v);
}

void ColumnFamilyData::ClearVersion() {
  AppendVersion(std::make_shared<Version>(icmp_));
}

void ColumnFamilyData::CheckInvariants(const Version& v) const {
  for (int level = 0; level < config::kNumLevels; ++level) {
    const FileList& files = v.files[level];
    for (size_t i = 0; i < files.size(); ++i) {
      const FileMetaData& f = *files[i];
      SIFT_INVARIANT(f.facts.has_value(),
                     "every file of an installed Version has its facts");
      SIFT_INVARIANT(icmp_.Compare(f.smallest, f.largest) <= 0,
                     "a file's smallest key is not above its largest");
      if (i == 0) continue;
      const FileMetaData& prev = *files[i - 1];
      if (level == 0) {
        SIFT_INVARIANT(prev.number > f.number,
                       "level 0 is ordered newest (highest number) first");
      } else {
        SIFT_INVARIANT(icmp_.Compare(prev.largest, f.smallest) < 0,
                       "files at levels >= 1 are sorted and disjoint");
      }
    }
  }
}

uint64_t ColumnFamilyData::MaxBytesForLevel(int level) const {
  double result = static_cast<double>(options_.max_bytes_for_level_base);
  for (int l = 1; l < level; ++l) {
    result *= options_.max_bytes_for_level_multiplier;
  }
  // Past 2^64 bytes a level is never full (and the cast would overflow).
  constexpr double kNeverFull = 18446744073709551615.0;
  return result >= kNeverFull ? UINT64_MAX : static_cast<uint64_t>(result);
}

double ColumnFamilyData::LevelScore(const Version& v, int level,
                                    bool skip_busy) const {
  uint64_t files = v.NumFiles(level), bytes = v.LevelBytes(level);
  if (skip_busy && !running_.empty()) {
    for (const auto& f : v.files[level]) {
      if (IsBusy(f->number)) {
        --files;
        bytes -= f->file_size;
      }
    }
  }
  if (level == 0) {
    return static_cast<double>(files) / options_.level0_compaction_trigger;
  }
  return static_cast<double>(bytes) /
         static_cast<double>(MaxBytesForLevel(level));
}

bool ColumnFamilyData::IsBusy(uint64_t file_number) const {
  for (const Running& r : running_) {
    if (std::find(r.inputs.begin(), r.inputs.end(), file_number) !=
        r.inputs.end()) {
      return true;
    }
  }
  return false;
}

void ColumnFamilyData::Finalize(Version* v) const {
  v->BuildSearchIndex();
  int best_level = config::kNoLevel;
  double best_score = -1;
  for (int level = 0; level < config::kNumLevels - 1; ++level) {
    const double score = LevelScore(*v, level);
    if (score > best_score) {
      best_level = level;
      best_score = score;
    }
  }
  v->compaction_level = best_level;
  v->compaction_score = best_score;
}

void ColumnFamilyData::AddLiveFiles(std::set<uint64_t>* live) {
  for (auto it = all_versions_.begin(); it != all_versions_.end();) {
    std::shared_ptr<const Version> v = it->lock();
    if (v == nullptr) {
      it = all_versions_.erase(it);
      continue;
    }
    for (const auto& level : v->files) {
      for (const auto& f : level) {
        live->insert(f->number);
        if (f->facts.has_value() && f->facts->replacement.has_value()) {
          live->insert(f->facts->replacement->number);
        }
      }
    }
    ++it;
  }
}

void ColumnFamilyData::AddRunning(const Compaction& c) {
  Running r{&c, c.level(), c.output_range(), {}};
  for (int which = 0; which < 2; ++which) {
    for (const auto& f : c.inputs(which)) r.inputs.push_back(f->number);
  }
  running_.push_back(std::move(r));
}

void ColumnFamilyData::RemoveRunning(const Compaction& c) {
  std::erase_if(running_, [&c](const Running& r) { return r.c == &c; });
}

int ColumnFamilyData::FlushLevel(int want, std::string_view smallest,
                                 std::string_view largest) const {
  int level = want;
  for (const Running& r : running_) {
    if (r.output.level <= want && r.output.Overlaps(icmp_, smallest, largest)) {
      // Above the compaction's output: newer data stays above older.
      level = std::min(level, std::max(0, r.output.level - 1));
    }
  }
  return level;
}

std::string ColumnFamilyData::LevelSummary() const {
  std::string s = "files[";
  for (int level = 0; level < config::kNumLevels; ++level) {
    absl::StrAppend(&s, " ", current_->NumFiles(level));
  }
  return s + " ]";
}

}  // namespace sift
