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
                       TableCacheFactory make_table_cache, Env* env)
    : dbname_(std::move(dbname)),
      options_(options),
      make_table_cache_(std::move(make_table_cache)),
      env_(env) {
  families_.push_back(NewFamily(0, kDefaultColumnFamilyName, options_));
}

VersionSet::~VersionSet() = default;

std::shared_ptr<ColumnFamilyData> VersionSet::NewFamily(
    uint32_t id, const std::string& name, const Options& options) const {
  return std::make_shared<ColumnFamilyData>(
      id, name, options,
      make_table_cache_ ? make_table_cache_(options) : nullptr);
}

void VersionSet::Install(ColumnFamilyData* cfd, std::shared_ptr<Version> v) {
  ++version_count_;
  cfd->AppendVersion(std::move(v));
}

std::shared_ptr<ColumnFamilyData> VersionSet::FamilyById(uint32_t id) const {
  for (const auto& cfd : families_) {
    if (cfd->id() == id) return cfd;
  }
  return nullptr;
}

std::shared_ptr<ColumnFamilyData> VersionSet::FamilyByName(
    std::string_view name) const {
  for (const auto& cfd : families_) {
    if (cfd->name() == name) return cfd;
  }
  return nullptr;
}

std::vector<std::string> VersionSet::EncodeSnapshot() const {
  std::vector<std::string> records;
  for (const auto& cfd : families_) {
    VersionEdit edit;
    edit.SetComparatorName(cfd->options().comparator->Name());
    if (cfd->id() == 0) {
      // The first record: what every siftdb MANIFEST starts with.
      // Only tags a format-4 build knows, so that it decodes the record
      // and refuses the DB by its version (Unimplemented).
      edit.SetFormatVersion(max_column_family_ > 0 ? kDbFormatVersion
                                                   : kDbFormatVersionOneFamily);
      edit.SetLogNumber(log_number_);
      edit.SetNextFile(next_file_number_);
      edit.SetLastSequence(LastSequence());
    } else {
      edit.SetColumnFamily(cfd->id());
      edit.AddColumnFamily(cfd->name());
    }
    for (int level = 0; level < config::kNumLevels; ++level) {
      if (!cfd->compact_pointer(level).empty()) {
        edit.SetCompactPointer(level, cfd->compact_pointer(level));
      }
      for (const auto& f : cfd->current()->files[level]) edit.AddFile(level, f);
    }
    edit.EncodeTo(&records.emplace_back());
    if (cfd->id() == 0 && max_column_family_ > 0) {
      // The largest ID given, in a record of its own after the first.
      VersionEdit ids;
      ids.SetMaxColumnFamily(max_column_family_);
      ids.EncodeTo(&records.emplace_back());
    }
  }
  return records;
}

absl::Status VersionSet::CreateNew() {
  manifest_file_number_ = 1;
  next_file_number_ = 2;
  log_number_ = 0;
  return absl::OkStatus();  // the MANIFEST is written by the first LogAndApply
}

absl::Status VersionSet::LogAndApply(VersionEdit* edit, Mutex* mu) {
  VersionEdit* const edits[] = {edit};
  return LogAndApplyTurn(edits, nullptr, mu);
}

absl::Status VersionSet::LogAndApply(absl::Span<VersionEdit* const> edits,
                                     Mutex* mu) {
  return LogAndApplyTurn(edits, nullptr, mu);
}

absl::Status VersionSet::LogAndApplyTurn(
    absl::Span<VersionEdit* const> edits,
    std::shared_ptr<ColumnFamilyData> added, Mutex* mu) {
  mu->AssertHeld();
  // One at a time: an edit applies to the Version the one before it
  // installed, and the MANIFEST has one writer.
  while (manifest_busy_) manifest_cv_.Wait(mu);
  manifest_busy_ = true;
  // A family dropped while this caller waited for its turn takes no more
  // edits: what a compaction or filter install of it wrote is litter,
  // deleted once its numbers are no longer pending.
  std::vector<VersionEdit*> live;
  for (VersionEdit* edit : edits) {
    if (edit->column_family_add_ || FamilyById(edit->column_family_)) {
      live.push_back(edit);
    }
  }
  const absl::Status s = live.empty()
                             ? absl::OkStatus()
                             : LogAndApplyInTurn(live, std::move(added), mu);
  manifest_busy_ = false;
  manifest_cv_.SignalAll();
  return s;
}

absl::StatusOr<std::shared_ptr<ColumnFamilyData>>
VersionSet::CreateColumnFamily(const std::string& name, const Options& options,
                               Mutex* mu) {
  mu->AssertHeld();
  while (manifest_busy_) manifest_cv_.Wait(mu);
  if (max_column_family_ == 0) {
    // The first family besides "default": start a new MANIFEST, whose
    // snapshot says format 5, so that a build reading only format 4
    // refuses the DB by its version rather than by an unknown tag.
    manifest_log_.reset();
    manifest_file_.reset();
    manifest_file_number_ = NewFileNumber();
  }
  const uint32_t id = ++max_column_family_;
  std::shared_ptr<ColumnFamilyData> cfd = NewFamily(id, name, options);
  VersionEdit edit;
  edit.SetColumnFamily(id);
  edit.AddColumnFamily(name);
  edit.SetComparatorName(options.comparator->Name());
  edit.SetMaxColumnFamily(id);
  VersionEdit* const edits[] = {&edit};
  RETURN_IF_ERROR(LogAndApplyTurn(edits, cfd, mu));
  return cfd;
}

absl::Status VersionSet::DropColumnFamily(ColumnFamilyData* cfd, Mutex* mu) {
  SIFT_INVARIANT(cfd->id() != 0, "the default family is never dropped");
  VersionEdit edit;
  edit.SetColumnFamily(cfd->id());
  edit.DropColumnFamily();
  return LogAndApply(&edit, mu);
}

absl::Status VersionSet::LogAndApplyInTurn(
    absl::Span<VersionEdit* const> edits,
    std::shared_ptr<ColumnFamilyData> added, Mutex* mu) {
  // A caller that waited its turn behind a failed write does not write
  // again: the state on disk is in doubt until Resume (ClearWriteError).
  RETURN_IF_ERROR(write_error_);
  std::vector<ColumnFamilyData*> cfds;
  std::vector<std::shared_ptr<Version>> versions;
  std::vector<std::string> records(edits.size());
  SIFT_INVARIANT(!edits.empty(), "LogAndApply is given an edit");
  for (size_t i = 0; i < edits.size(); ++i) {
    VersionEdit* edit = edits[i];
    if (edit->log_number_) {
      MarkFileNumberUsed(*edit->log_number_);
    } else {
      edit->SetLogNumber(log_number_);
    }
    edit->SetNextFile(next_file_number_);
    // An ingest records the sequence it takes before publishing it.
    edit->SetLastSequence(
        std::max(LastSequence(), edit->last_sequence_.value_or(0)));
    if (edits.size() > 1) {
      edit->SetAtomicGroup(static_cast<uint32_t>(edits.size() - 1 - i));
    }
    ColumnFamilyData* cfd = i == 0 && added != nullptr
                                ? added.get()
                                : FamilyById(edit->column_family_).get();
    SIFT_INVARIANT(cfd != nullptr, "an edit names a live family");
    for (size_t j = 0; j < i; ++j) {
      SIFT_INVARIANT(cfds[j] != cfd, "a group's edits name distinct families");
    }
    for (const auto& [level, key] : edit->compact_pointers_) {
      cfd->SetCompactPointer(level, key);
    }
    std::shared_ptr<Version> v;
    if (!edit->column_family_drop_ && !edit->column_family_add_) {
      v = std::make_shared<Version>(cfd->icmp());
      Builder builder(cfd->current().get());
      builder.Apply(*edit);
      RETURN_IF_ERROR(builder.SaveTo(v.get()));
    }
    cfds.push_back(cfd);
    versions.push_back(std::move(v));
    edit->EncodeTo(&records[i]);
  }

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
  // Encoded while the mutex is held: the counters it records move under
  // the mutex (NewFileNumber), not under manifest_busy_.
  const std::vector<std::string> snapshot =
      new_manifest ? EncodeSnapshot() : std::vector<std::string>();
  const std::string manifest = ManifestFileName(dbname_, manifest_file_number_);
  bool adds_files = false;
  for (VersionEdit* edit : edits) adds_files |= !edit->new_files_.empty();
  absl::Status s;
  bool current_may_name_it = false;
  {
    // manifest_busy_ is ours: no other LogAndApply touches the MANIFEST
    // or a family's Versions while the mutex is released.
    mu->Unlock();
    // The tables this edit adds were synced, but their directory entries
    // were not: make them durable before a MANIFEST record names them, or
    // a machine crash could leave the MANIFEST naming missing files.
    if (adds_files) s = env_->SyncDir(dbname_);
    if (s.ok() && new_manifest) {
      auto file = env_->NewWritableFile(manifest);
      s = file.status();
      if (s.ok()) {
        manifest_file_ = *std::move(file);
        manifest_log_ = std::make_unique<log::Writer>(manifest_file_.get());
        for (size_t i = 0; s.ok() && i < snapshot.size(); ++i) {
          s = manifest_log_->AddRecord(snapshot[i]);
        }
      }
    }
    // A group's records are written together and synced once: recovery
    // drops a group whose last record is missing.
    for (size_t i = 0; s.ok() && i < edits.size(); ++i) {
      s = manifest_log_->AddRecord(records[i]);
    }
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
    write_error_ = s;
    return s;
  }
  log_number_ = *edits.back()->log_number_;
  if (new_manifest) durable_manifest_number_ = manifest_file_number_;
  for (size_t i = 0; i < edits.size(); ++i) {
    ColumnFamilyData* cfd = cfds[i];
    if (edits[i]->column_family_add_) {
      families_.push_back(added);
      ++version_count_;
    } else if (edits[i]->column_family_drop_) {
      cfd->SetDropped();
      cfd->ClearVersion();
      ++version_count_;
      auto it = std::find_if(families_.begin(), families_.end(),
                             [cfd](const auto& f) { return f.get() == cfd; });
      dropped_.push_back(*it);
      families_.erase(it);
    } else {
      Install(cfd, std::move(versions[i]));
    }
  }
  return absl::OkStatus();
}

// The state a MANIFEST's records build, family by family.
struct VersionSet::Replay {
  const FamilyOptions* options_for = nullptr;  // null: none but "default"
  // Refuse a family whose recorded comparator differs from the one it is
  // opened with (not when only listing the families).
  bool check_comparators = true;
  struct Family {
    std::shared_ptr<ColumnFamilyData> cfd;
    std::unique_ptr<Builder> builder;
  };
  std::map<uint32_t, Family> opened;
  std::map<uint32_t, std::string> unopened;  // ID -> name
  VersionEdit merged;                        // the counters
  uint32_t max_column_family = 0;
};

absl::Status VersionSet::ReadManifest(const std::string& name, Replay* replay) {
  std::string contents;
  RETURN_IF_ERROR(ReadFileToString(env_, name, &contents));
  // Whatever the WAL recovery mode: an edit lost from the middle would
  // leave tables unnamed (later deleted) or name deleted ones.
  log::Reader reader = log::Reader::ForManifest(contents, name);
  std::string_view record;
  std::string scratch;
  bool first = true;
  // An atomic group's edits, held until its last one is read: a group
  // cut short by a crash is not applied at all.
  std::vector<VersionEdit> group;
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
    if (replay->check_comparators && edit.column_family_ == 0 &&
        edit.comparator_ && *edit.comparator_ != options_.comparator->Name()) {
      return ComparatorMismatchError(name, *edit.comparator_,
                                     options_.comparator->Name());
    }
    first = false;
    if (edit.format_version_ && *edit.format_version_ > kDbFormatVersion) {
      return absl::UnimplementedError(absl::StrCat(
          name, ": database format version ", *edit.format_version_,
          " is newer than this build reads (", kDbFormatVersion, ")"));
    }
    const bool in_group = edit.atomic_group_.has_value();
    const bool group_ends = in_group && *edit.atomic_group_ == 0;
    // A group is cut short only by a crash, at the MANIFEST's end (the
    // next session writes a new MANIFEST): a record after an unfinished
    // group, or a group whose counts do not run down, is damage.
    if (!group.empty() &&
        (!in_group || !group.back().atomic_group_ ||
         *edit.atomic_group_ + 1 != *group.back().atomic_group_)) {
      return absl::DataLossError(
          absl::StrCat(name, ": record at offset ", reader.last_record_offset(),
                       " follows an atomic group that did not finish"));
    }
    group.push_back(std::move(edit));
    if (in_group && !group_ends) continue;
    for (VersionEdit& e : group) {
      const uint32_t id = e.column_family_;
      if (e.max_column_family_) {
        replay->max_column_family =
            std::max(replay->max_column_family, *e.max_column_family_);
      }
      if (e.column_family_add_) {
        const std::string& family = *e.column_family_add_;
        std::optional<ColumnFamilyOptions> cf_options;
        if (replay->options_for != nullptr) {
          cf_options = (*replay->options_for)(family);
        }
        if (!cf_options) {
          replay->unopened[id] = family;
        } else {
          const Options o(options_, *cf_options);
          if (replay->check_comparators && e.comparator_ &&
              *e.comparator_ != o.comparator->Name()) {
            return ComparatorMismatchError(
                absl::StrCat(name, " (column family '", family, "')"),
                *e.comparator_, o.comparator->Name());
          }
          Replay::Family f;
          f.cfd = NewFamily(id, family, o);
          f.builder = std::make_unique<Builder>(f.cfd->current().get());
          // A snapshot's record adds the family with its files.
          f.builder->Apply(e);
          for (auto& cp : e.compact_pointers_) {
            f.cfd->SetCompactPointer(cp.first, cp.second);
          }
          replay->opened[id] = std::move(f);
        }
      } else if (e.column_family_drop_) {
        replay->opened.erase(id);
        replay->unopened.erase(id);
      } else if (auto it = replay->opened.find(id);
                 it != replay->opened.end()) {
        it->second.builder->Apply(e);
        for (auto& cp : e.compact_pointers_) {
          it->second.cfd->SetCompactPointer(cp.first, cp.second);
        }
      } else if (replay->unopened.count(id) == 0) {
        return absl::DataLossError(absl::StrCat(
            name, ": an edit of column family ", id, ", which it never adds"));
      }
      VersionEdit& merged = replay->merged;
      if (e.log_number_) merged.log_number_ = e.log_number_;
      if (e.next_file_number_) merged.next_file_number_ = e.next_file_number_;
      if (e.last_sequence_) merged.last_sequence_ = e.last_sequence_;
    }
    group.clear();
  }
  return reader.status();
}

namespace {

// The MANIFEST that CURRENT names, and its number.
absl::StatusOr<std::pair<std::string, uint64_t>> CurrentManifest(
    Env* env, const std::string& dbname) {
  std::string current;
  RETURN_IF_ERROR(ReadFileToString(env, CurrentFileName(dbname), &current));
  if (current.empty() || current.back() != '\n') {
    return absl::DataLossError(
        absl::StrCat(CurrentFileName(dbname), ": malformed contents"));
  }
  current.pop_back();
  uint64_t number;
  FileType type;
  if (!ParseFileName(current, &number, &type) || type != FileType::kManifest) {
    return absl::DataLossError(absl::StrCat(
        CurrentFileName(dbname), ": names '", current, "', not a MANIFEST"));
  }
  return std::make_pair(dbname + "/" + current, number);
}

}  // namespace

absl::StatusOr<std::vector<std::string>> VersionSet::ListColumnFamilies(
    Env* env, const std::string& dbname) {
  ASSIGN_OR_RETURN(const auto manifest, CurrentManifest(env, dbname));
  Options options;
  options.env = env;
  VersionSet versions(dbname, options, nullptr, env);
  Replay replay;
  replay.check_comparators = false;
  replay.opened[0] = Replay::Family{
      versions.families_[0],
      std::make_unique<Builder>(versions.families_[0]->current().get())};
  absl::Status s = versions.ReadManifest(manifest.first, &replay);
  if (absl::IsNotFound(s)) {
    return absl::DataLossError(absl::StrCat("CURRENT names ", manifest.first,
                                            ", which does not exist"));
  }
  RETURN_IF_ERROR(s);
  std::vector<std::string> names = {kDefaultColumnFamilyName};
  for (const auto& [id, name] : replay.unopened) names.push_back(name);
  return names;
}

absl::Status VersionSet::Recover(const FamilyOptions& options_for,
                                 std::vector<std::string>* unopened) {
  ASSIGN_OR_RETURN(const auto current, CurrentManifest(env_, dbname_));
  const auto& [manifest, number] = current;
  Replay replay;
  replay.options_for = options_for ? &options_for : nullptr;
  replay.opened[0] = Replay::Family{
      families_[0], std::make_unique<Builder>(families_[0]->current().get())};
  absl::Status s = ReadManifest(manifest, &replay);
  if (absl::IsNotFound(s)) {
    return absl::DataLossError(
        absl::StrCat("CURRENT names ", manifest, ", which does not exist"));
  }
  RETURN_IF_ERROR(s);
  const VersionEdit& merged = replay.merged;
  if (!merged.next_file_number_ || !merged.log_number_ ||
      !merged.last_sequence_) {
    return absl::DataLossError(
        absl::StrCat(manifest,
                     ": no next file number, log number or last "
                     "sequence"));
  }
  if (replay.opened.count(0) == 0) {
    return absl::DataLossError(
        absl::StrCat(manifest, ": drops the default column family"));
  }
  std::vector<std::shared_ptr<ColumnFamilyData>> families;
  for (auto& [id, family] : replay.opened) {
    ColumnFamilyData* cfd = family.cfd.get();
    auto v = std::make_shared<Version>(cfd->icmp());
    RETURN_IF_ERROR(family.builder->SaveTo(v.get()));
    // Every table the MANIFEST names must be there, with its size. A file
    // from a format-1 MANIFEST gets its facts from its properties here;
    // the new MANIFEST's snapshot records them.
    for (int level = 0; level < config::kNumLevels; ++level) {
      for (const auto& f : v->files[level]) {
        const std::string name = TableFileName(dbname_, f->number);
        auto size = env_->GetFileSize(name);
        if (!size.ok()) {
          return absl::DataLossError(absl::StrCat(
              manifest, " names table ", name,
              ", which cannot be read: ", size.status().message()));
        }
        if (*size != f->file_size) {
          return absl::DataLossError(
              absl::StrCat(name, ": size ", *size, " differs from the ",
                           f->file_size, " bytes recorded in ", manifest));
        }
        ASSIGN_OR_RETURN(std::shared_ptr<const Table> table,
                         cfd->table_cache()->Open(*f));
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
    Install(cfd, std::move(v));
    families.push_back(family.cfd);
  }
  families_ = std::move(families);  // by ID: "default" first
  if (unopened != nullptr) {
    unopened->clear();
    for (const auto& [id, name] : replay.unopened) unopened->push_back(name);
  }
  max_column_family_ = replay.max_column_family;
  next_file_number_ = *merged.next_file_number_;
  log_number_ = *merged.log_number_;
  SetLastSequence(*merged.last_sequence_);
  MarkFileNumberUsed(number);
  MarkFileNumberUsed(log_number_);
  durable_manifest_number_ = number;
  // This session writes a new MANIFEST, starting with a snapshot.
  manifest_file_number_ = NewFileNumber();
  return absl::OkStatus();
}

void VersionSet::AddLiveFiles(std::set<uint64_t>* live) {
  for (const auto& cfd : families_) cfd->AddLiveFiles(live);
  for (const auto& cfd : dropped_) cfd->AddLiveFiles(live);
}

bool VersionSet::NeedsCompaction() const {
  for (const auto& cfd : families_) {
    if (cfd->NeedsCompaction()) return true;
  }
  return false;
}

std::unique_ptr<Compaction> VersionSet::PickCompaction() {
  const size_t n = families_.size();
  for (size_t i = 0; i < n; ++i) {
    ColumnFamilyData* cfd = families_[(next_pick_ + i) % n].get();
    std::unique_ptr<Compaction> c = cfd->PickCompaction();
    if (c != nullptr) {
      next_pick_ = (next_pick_ + i + 1) % n;
      return c;
    }
  }
  return nullptr;
}

}  // namespace sift
