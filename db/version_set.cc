// VersionSet: applying VersionEdits, the MANIFEST, and recovery from it.

#include "db/version_set.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "db/compaction/compaction.h"
#include "db/filename.h"
#include "db/log_reader.h"
#include "table/table.h"
#include "util/status_macros.h"

namespace sift {

// Accumulates edits on top of a base Version without copying it for each.
class VersionSet::Builder {
 public:
  explicit Builder(const Version* base) : base_(base) {}

  void Apply(const VersionEdit& edit) {
    for (const auto& [level, number] : edit.deleted_files_) {
      levels_[level].deleted.insert(number);
      levels_[level].added.erase(number);
    }
    for (const auto& [level, f] : edit.new_files_) {
      levels_[level].deleted.erase(f->number);
      levels_[level].added[f->number] = f;
    }
  }

  // Writes base + edits into *v. DataLoss if a level >= 1 would overlap.
  absl::Status SaveTo(Version* v) const {
    for (int level = 0; level < config::kNumLevels; ++level) {
      const LevelState& st = levels_[level];
      FileList& out = v->files[level];
      for (const auto& f : base_->files[level]) {
        if (!st.deleted.count(f->number) && !st.added.count(f->number)) {
          out.push_back(f);
        }
      }
      for (const auto& [number, f] : st.added) out.push_back(f);
      if (level == 0) {
        std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
          return a->number > b->number;
        });
        continue;
      }
      const KeyComparator& icmp = base_->icmp;
      std::sort(out.begin(), out.end(), [&icmp](const auto& a, const auto& b) {
        return icmp.Compare(a->smallest, b->smallest) < 0;
      });
      for (size_t i = 1; i < out.size(); ++i) {
        if (icmp.Compare(out[i - 1]->largest, out[i]->smallest) >= 0) {
          return absl::DataLossError(absl::StrCat("files ", out[i - 1]->number,
                                                  " and ", out[i]->number,
                                                  " overlap at level ", level));
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  struct LevelState {
    std::set<uint64_t> deleted;
    std::map<uint64_t, std::shared_ptr<FileMetaData>> added;
  };
  const Version* const base_;
  LevelState levels_[config::kNumLevels];
};

VersionSet::VersionSet(std::string dbname, const Options& options,
                       TableCache* table_cache, Env* env)
    : dbname_(std::move(dbname)),
      options_(options),
      icmp_(KeyComparator::Internal(options.comparator)),
      table_cache_(table_cache),
      env_(env) {
  AppendVersion(std::make_shared<Version>(icmp_));
}

VersionSet::~VersionSet() = default;

void VersionSet::AppendVersion(std::shared_ptr<Version> v) {
  if constexpr (kInvariantChecks) CheckInvariants(*v);
  if (table_cache_ != nullptr) v->pinned = table_cache_->Pinned(v->files);
  Finalize(v.get());
  ++version_count_;
  all_versions_.push_back(v);
  current_ = std::move(v);
}

void VersionSet::CheckInvariants(const Version& v) const {
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

uint64_t VersionSet::MaxBytesForLevel(int level) const {
  double result = static_cast<double>(options_.max_bytes_for_level_base);
  for (int l = 1; l < level; ++l) {
    result *= options_.max_bytes_for_level_multiplier;
  }
  // Past 2^64 bytes a level is never full (and the cast would overflow).
  constexpr double kNeverFull = 18446744073709551615.0;
  return result >= kNeverFull ? UINT64_MAX : static_cast<uint64_t>(result);
}

double VersionSet::LevelScore(const Version& v, int level,
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

bool VersionSet::IsBusy(uint64_t file_number) const {
  for (const Running& r : running_) {
    if (std::find(r.inputs.begin(), r.inputs.end(), file_number) !=
        r.inputs.end()) {
      return true;
    }
  }
  return false;
}

void VersionSet::Finalize(Version* v) const {
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

absl::Status VersionSet::WriteSnapshot(log::Writer* log) const {
  VersionEdit edit;
  edit.SetComparatorName(options_.comparator->Name());
  edit.SetFormatVersion(kDbFormatVersion);
  for (int level = 0; level < config::kNumLevels; ++level) {
    if (!compact_pointer_[level].empty()) {
      edit.SetCompactPointer(level, compact_pointer_[level]);
    }
    for (const auto& f : current_->files[level]) edit.AddFile(level, f);
  }
  edit.SetLogNumber(log_number_);
  edit.SetNextFile(next_file_number_);
  edit.SetLastSequence(LastSequence());
  std::string record;
  edit.EncodeTo(&record);
  return log->AddRecord(record);
}

absl::Status VersionSet::CreateNew() {
  manifest_file_number_ = 1;
  next_file_number_ = 2;
  log_number_ = 0;
  return absl::OkStatus();  // the MANIFEST is written by the first LogAndApply
}

absl::Status VersionSet::LogAndApply(VersionEdit* edit, Mutex* mu) {
  mu->AssertHeld();
  // One at a time: an edit applies to the Version the one before it
  // installed, and the MANIFEST has one writer.
  while (manifest_busy_) manifest_cv_.Wait(mu);
  manifest_busy_ = true;
  const absl::Status s = LogAndApplyInTurn(edit, mu);
  manifest_busy_ = false;
  manifest_cv_.SignalAll();
  return s;
}

absl::Status VersionSet::LogAndApplyInTurn(VersionEdit* edit, Mutex* mu) {
  if (edit->log_number_) {
    MarkFileNumberUsed(*edit->log_number_);
  } else {
    edit->SetLogNumber(log_number_);
  }
  edit->SetNextFile(next_file_number_);
  // An ingest records the sequence it takes before publishing it.
  edit->SetLastSequence(
      std::max(LastSequence(), edit->last_sequence_.value_or(0)));
  for (const auto& [level, key] : edit->compact_pointers_) {
    compact_pointer_[level] = key;
  }

  auto v = std::make_shared<Version>(icmp_);
  Builder builder(current_.get());
  builder.Apply(*edit);
  RETURN_IF_ERROR(builder.SaveTo(v.get()));

  std::string record;
  edit->EncodeTo(&record);
  if (manifest_log_ != nullptr &&
      manifest_log_->size() >= options_.max_manifest_file_size) {
    // Roll over to a new MANIFEST that starts with a snapshot: recovery
    // then reads about the size of the state, not the session's history.
    // The old one is deleted once CURRENT names the new one.
    manifest_log_.reset();
    manifest_file_.reset();
    manifest_file_number_ = NewFileNumber();
  }
  const bool new_manifest = manifest_log_ == nullptr;
  const std::string manifest = ManifestFileName(dbname_, manifest_file_number_);
  absl::Status s;
  bool current_may_name_it = false;
  {
    // manifest_busy_ is ours: no other LogAndApply touches the MANIFEST
    // or current_ while the mutex is released.
    mu->Unlock();
    // The tables this edit adds were synced, but their directory entries
    // were not: make them durable before a MANIFEST record names them, or
    // a machine crash could leave the MANIFEST naming missing files.
    if (!edit->new_files_.empty()) s = env_->SyncDir(dbname_);
    if (s.ok() && new_manifest) {
      auto file = env_->NewWritableFile(manifest);
      s = file.status();
      if (s.ok()) {
        manifest_file_ = *std::move(file);
        manifest_log_ = std::make_unique<log::Writer>(manifest_file_.get());
        s = WriteSnapshot(manifest_log_.get());
      }
    }
    if (s.ok()) s = manifest_log_->AddRecord(record);
    if (s.ok()) s = manifest_file_->Sync();
    if (s.ok() && new_manifest) {
      current_may_name_it = true;
      s = SetCurrentFile(env_, dbname_, manifest_file_number_);
    }
    mu->Lock();
  }
  if (!s.ok()) {
    // The next attempt starts a fresh MANIFEST rather than append after a
    // write that may be torn.
    manifest_log_.reset();
    manifest_file_.reset();
    // Once SetCurrentFile has started, CURRENT may name the new MANIFEST
    // (say the rename worked and the directory sync failed): keep it then.
    if (new_manifest && !current_may_name_it) {
      env_->RemoveFile(manifest).IgnoreError();
    }
    manifest_file_number_ = NewFileNumber();
    return s;
  }
  log_number_ = *edit->log_number_;
  if (new_manifest) durable_manifest_number_ = manifest_file_number_;
  AppendVersion(std::move(v));
  return absl::OkStatus();
}

absl::Status VersionSet::ReadManifest(const std::string& name,
                                      VersionEdit* merged, Builder* builder) {
  std::string contents;
  RETURN_IF_ERROR(ReadFileToString(env_, name, &contents));
  // Whatever the WAL recovery mode: an edit lost from the middle would
  // leave tables unnamed (later deleted) or name deleted ones.
  log::Reader reader = log::Reader::ForManifest(contents, name);
  std::string_view record;
  std::string scratch;
  bool first = true;
  while (reader.ReadRecord(&record, &scratch)) {
    VersionEdit edit;
    absl::Status s = edit.DecodeFrom(record);
    // Every siftdb MANIFEST starts with a snapshot naming its format
    // version (tag 8, db/FORMAT.md); LevelDB's and RocksDB's share the log
    // format and the first tags, but never write tag 8.
    if (first && (!s.ok() || (edit.comparator_ && !edit.format_version_))) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, ": not a siftdb database: its MANIFEST is another engine's",
          edit.comparator_
              ? absl::StrCat(" (comparator '", *edit.comparator_, "')")
              : "",
          ", such as LevelDB's or RocksDB's, which siftdb does not open"));
    }
    if (!s.ok()) {
      return absl::DataLossError(absl::StrCat(name, ": record at offset ",
                                              reader.last_record_offset(), ": ",
                                              s.message()));
    }
    if (first && !edit.comparator_) {
      return absl::DataLossError(
          absl::StrCat(name, ": first record is not a snapshot"));
    }
    if (edit.comparator_ && *edit.comparator_ != options_.comparator->Name()) {
      return ComparatorMismatchError(name, *edit.comparator_,
                                     options_.comparator->Name());
    }
    first = false;
    if (edit.format_version_ && *edit.format_version_ > kDbFormatVersion) {
      return absl::UnimplementedError(absl::StrCat(
          name, ": database format version ", *edit.format_version_,
          " is newer than this build reads (", kDbFormatVersion, ")"));
    }
    builder->Apply(edit);
    if (edit.log_number_) merged->log_number_ = edit.log_number_;
    if (edit.next_file_number_) {
      merged->next_file_number_ = edit.next_file_number_;
    }
    if (edit.last_sequence_) merged->last_sequence_ = edit.last_sequence_;
    for (auto& cp : edit.compact_pointers_) {
      compact_pointer_[cp.first] = cp.second;
    }
  }
  return reader.status();
}

absl::Status VersionSet::Recover() {
  std::string current;
  RETURN_IF_ERROR(ReadFileToString(env_, CurrentFileName(dbname_), &current));
  if (current.empty() || current.back() != '\n') {
    return absl::DataLossError(
        absl::StrCat(CurrentFileName(dbname_), ": malformed contents"));
  }
  current.pop_back();
  uint64_t number;
  FileType type;
  if (!ParseFileName(current, &number, &type) || type != FileType::kManifest) {
    return absl::DataLossError(absl::StrCat(
        CurrentFileName(dbname_), ": names '", current, "', not a MANIFEST"));
  }
  const std::string manifest = dbname_ + "/" + current;
  VersionEdit merged;
  Builder builder(current_.get());
  absl::Status s = ReadManifest(manifest, &merged, &builder);
  if (absl::IsNotFound(s)) {
    return absl::DataLossError(
        absl::StrCat("CURRENT names ", manifest, ", which does not exist"));
  }
  RETURN_IF_ERROR(s);
  if (!merged.next_file_number_ || !merged.log_number_ ||
      !merged.last_sequence_) {
    return absl::DataLossError(
        absl::StrCat(manifest,
                     ": no next file number, log number or last "
                     "sequence"));
  }
  auto v = std::make_shared<Version>(icmp_);
  RETURN_IF_ERROR(builder.SaveTo(v.get()));
  // Every table the MANIFEST names must be there, with its size. A file
  // from a format-1 MANIFEST gets its facts from its properties here; the
  // new MANIFEST's snapshot records them.
  for (int level = 0; level < config::kNumLevels; ++level) {
    for (const auto& f : v->files[level]) {
      const std::string name = TableFileName(dbname_, f->number);
      auto size = env_->GetFileSize(name);
      if (!size.ok()) {
        return absl::DataLossError(
            absl::StrCat(manifest, " names table ", name,
                         ", which cannot be read: ", size.status().message()));
      }
      if (*size != f->file_size) {
        return absl::DataLossError(
            absl::StrCat(name, ": size ", *size, " differs from the ",
                         f->file_size, " bytes recorded in ", manifest));
      }
      ASSIGN_OR_RETURN(std::shared_ptr<const Table> table,
                       table_cache_->Open(*f));
      if (!f->facts) {
        f->facts =
            FactsFromProperties(table->properties(), *merged.last_sequence_);
      }
      if (f->facts->replacement && !table->filter_is_replacement()) {
        // Its filter file is missing or damaged: the table's own filter
        // serves, and the facts (and the new MANIFEST) say so, so that
        // RebuildFilters builds it again.
        f->facts->replacement.reset();
      }
    }
  }
  next_file_number_ = *merged.next_file_number_;
  log_number_ = *merged.log_number_;
  SetLastSequence(*merged.last_sequence_);
  MarkFileNumberUsed(number);
  MarkFileNumberUsed(log_number_);
  durable_manifest_number_ = number;
  AppendVersion(std::move(v));
  // This session writes a new MANIFEST, starting with a snapshot.
  manifest_file_number_ = NewFileNumber();
  return absl::OkStatus();
}

void VersionSet::AddLiveFiles(std::set<uint64_t>* live) {
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

void VersionSet::AddRunning(const Compaction& c) {
  Running r{&c, c.level(), c.output_range(), {}};
  for (int which = 0; which < 2; ++which) {
    for (const auto& f : c.inputs(which)) r.inputs.push_back(f->number);
  }
  running_.push_back(std::move(r));
}

void VersionSet::RemoveRunning(const Compaction& c) {
  std::erase_if(running_, [&c](const Running& r) { return r.c == &c; });
}

int VersionSet::FlushLevel(int want, std::string_view smallest,
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

std::string VersionSet::LevelSummary() const {
  std::string s = "files[";
  for (int level = 0; level < config::kNumLevels; ++level) {
    absl::StrAppend(&s, " ", current_->NumFiles(level));
  }
  return s + " ]";
}

}  // namespace sift
