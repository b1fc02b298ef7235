// DB::IngestExternalFiles: SSTables written elsewhere enter the DB in one
// MANIFEST edit.
//
// In three steps, so that nothing changes until everything is known good
// and writes wait only for the last:
//  1. Inspect (no lock): every input is read whole and checked
//     (db/external_file.h), and the inputs are checked not to overlap.
//  2. Place (no lock): each gets a new file number (kept from deletion as
//     a pending output) and is copied, or linked, into the DB directory.
//  3. Install, as the front writer with the background thread idle (it
//     and the ingest are the only writers of the MANIFEST): flush the
//     memtable if an input overlaps it, rename the inputs to new numbers
//     (level 0 is ordered newest first by file number, and a flush in
//     between made a newer number for older data), take the next sequence
//     number for all inputs, pick each one's level, and log one
//     VersionEdit adding them all. Its MANIFEST record is the commit
//     point: a crash before it leaves only unnamed tables (deleted at the
//     next Open), after it the whole ingest.
// The last sequence is published only after the new Version, so a
// snapshot or read that takes the new sequence also sees the files.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "db/db_impl/db_impl.h"
#include "db/external_file.h"
#include "db/filename.h"
#include "util/file_copy.h"
#include "util/status_macros.h"

namespace sift {
namespace {

// True if mem holds an entry whose user key is in [smallest, largest], or
// a range tombstone overlapping that range: flushed first, it stays older
// than the ingested file in the level order as well as by sequence.
bool MemTableOverlaps(const MemTable& mem, const Comparator* cmp,
                      std::string_view smallest, std::string_view largest) {
  if (mem.empty()) return false;
  if (mem.has_range_tombstones()) {
    for (const RangeTombstone& t : mem.RangeTombstoneList()) {
      if (cmp->Compare(t.begin, largest) <= 0 &&
          cmp->Compare(t.end, smallest) > 0) {
        return true;
      }
    }
  }
  std::unique_ptr<Iterator> it = mem.NewIterator();
  std::string target;
  AppendInternalKey(&target, smallest, kMaxSequenceNumber, kValueTypeForSeek);
  it->Seek(target);
  return it->Valid() && cmp->Compare(ExtractUserKey(it->key()), largest) <= 0;
}

// The deepest level such that neither it nor any level above holds a file
// overlapping f; 0 when a level-0 file overlaps f.
int PickIngestLevel(const Version& v, const ExternalFile& f) {
  int level = 0;
  for (int l = 0; l < config::kNumLevels; ++l) {
    if (v.OverlapInLevel(l, f.smallest, f.largest)) break;
    level = l;
  }
  return level;
}

}  // namespace

absl::Status DBImpl::IngestExternalFiles(const std::vector<std::string>& paths,
                                         const IngestOptions& options) {
  return IngestExternalFiles(default_handle_.get(), paths, options);
}

absl::Status DBImpl::IngestExternalFiles(ColumnFamilyHandle* family,
                                         const std::vector<std::string>& paths,
                                         const IngestOptions& options) {
  RETURN_IF_ERROR(CheckWritable("IngestExternalFiles"));
  ASSIGN_OR_RETURN(ColumnFamilyData * cfd,
                   FamilyOf(family, "IngestExternalFiles"));
  if (paths.empty()) {
    return absl::InvalidArgumentError("IngestExternalFiles: no files given");
  }
  // The files must be ordered as the family orders its keys.
  const Comparator* const order = cfd->options().comparator;
  std::vector<ExternalFile> files;
  for (const std::string& path : paths) {
    ASSIGN_OR_RETURN(ExternalFile f, InspectExternalFile(env_, path, order));
    files.push_back(std::move(f));
  }
  RETURN_IF_ERROR(SortDisjoint(&files, order));

  // numbers: each file's current name; reserved: every number taken,
  // protected until the edit naming the files is installed (or the ingest
  // deletes them below).
  std::vector<uint64_t> numbers;
  std::vector<PendingOutput> reserved;
  {
    MutexLock l(&mu_);
    RETURN_IF_ERROR(bg_error_);
    for (size_t i = 0; i < files.size(); ++i) {
      reserved.push_back(NewPendingOutput());
      numbers.push_back(reserved.back().number());
    }
  }
  absl::Status s = PlaceIngestedFiles(files, numbers, options.move_files);
  bool committed = false;
  {
    MutexLock l(&mu_);
    if (s.ok()) {
      s = RunAsFrontWriter([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        ingest_running_ = true;  // the background threads start nothing new
        while (bg_active_ > 0) bg_cv_.Wait(&mu_);
        const absl::Status r =
            cfd->dropped() ? absl::InvalidArgumentError(absl::StrCat(
                                 "IngestExternalFiles: column family '",
                                 cfd->name(), "' was dropped"))
                           : InstallIngestedFiles(cfd, files, options, &numbers,
                                                  &reserved, &committed);
        ingest_running_ = false;
        bg_cv_.SignalAll();
        return r;
      });
    }
  }
  if (!committed) {
    // Never named by a MANIFEST record (a failed MANIFEST write, which may
    // have named them, counts as committed and stops writes instead): the
    // ingest's own files, deleted while still protected.
    for (const PendingOutput& n : reserved) {
      cfd->table_cache()->Evict(n.number());
      env_->RemoveFile(TableFileName(dbname_, n.number())).IgnoreError();
    }
    return s;
  }
  if (s.ok() && options.move_files) {
    // A move: the DB's name is the file's only one now.
    for (const ExternalFile& f : files) env_->RemoveFile(f.path).IgnoreError();
  }
  return s;
}

absl::Status DBImpl::PlaceIngestedFiles(const std::vector<ExternalFile>& files,
                                        const std::vector<uint64_t>& numbers,
                                        bool move_files) {
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string to = TableFileName(dbname_, numbers[i]);
    if (move_files) {
      RETURN_IF_ERROR(
          LinkOrCopyFile(env_, files[i].path, to, files[i].size).status());
    } else {
      RETURN_IF_ERROR(CopyFilePrefix(env_, files[i].path, to, files[i].size));
    }
  }
  return absl::OkStatus();
}

absl::Status DBImpl::FlushForIngest(ColumnFamilyData* cfd,
                                    const std::vector<ExternalFile>& files,
                                    bool allow_blocking_flush) {
  mu_.AssertHeld();
  const Comparator* const order = cfd->options().comparator;
  auto overlaps = [&](const MemTable* mem) {
    if (mem == nullptr) return false;
    for (const ExternalFile& f : files) {
      if (MemTableOverlaps(*mem, order, f.smallest, f.largest)) return true;
    }
    return false;
  };
  const bool mem_overlaps = overlaps(cfd->mem.get());
  if (!mem_overlaps && !overlaps(cfd->imm.get())) {
    return absl::OkStatus();
  }
  if (!allow_blocking_flush) {
    return absl::InvalidArgumentError(
        "IngestExternalFiles: the files overlap the memtable, which would "
        "have to be flushed first (IngestOptions::allow_blocking_flush is "
        "false)");
  }
  // Older data first: the memtable waiting for the (idle) background
  // thread, then the live one, as Resume does.
  absl::Status s;
  if (AnyImm()) s = FlushImmutable();
  if (s.ok() && mem_overlaps) s = SwitchMemTables();
  if (s.ok() && mem_overlaps) s = FlushImmutable();
  RecordBackgroundError(s);
  return s;
}

absl::Status DBImpl::InstallIngestedFiles(
    ColumnFamilyData* cfd, const std::vector<ExternalFile>& files,
    const IngestOptions& options, std::vector<uint64_t>* numbers,
    std::vector<PendingOutput>* reserved, bool* committed) {
  mu_.AssertHeld();
  RETURN_IF_ERROR(bg_error_);
  if (shutting_down_) return ClosedError("IngestExternalFiles");
  RETURN_IF_ERROR(FlushForIngest(cfd, files, options.allow_blocking_flush));
  std::vector<uint64_t> final_numbers;
  for (size_t i = 0; i < files.size(); ++i) {
    reserved->push_back(NewPendingOutput());
    final_numbers.push_back(reserved->back().number());
  }
  const SequenceNumber seq = versions_->LastSequence() + 1;
  if (seq > kMaxSequenceNumber) {
    return absl::ResourceExhaustedError(
        absl::StrCat("sequence numbers exhausted: ", seq - 1, " + 1"));
  }
  const std::shared_ptr<const Version> base = cfd->current();
  std::vector<std::shared_ptr<FileMetaData>> metas;
  for (size_t i = 0; i < files.size(); ++i) {
    const ExternalFile& f = files[i];
    auto meta = std::make_shared<FileMetaData>();
    meta->number = final_numbers[i];
    meta->file_size = f.size;
    AppendInternalKey(&meta->smallest, f.smallest, seq, f.smallest_type);
    AppendInternalKey(&meta->largest, f.largest, seq, f.largest_type);
    FileFacts facts = FactsFromProperties(f.properties, seq);
    facts.smallest_seq = facts.largest_seq = facts.global_sequence = seq;
    meta->facts = facts;
    metas.push_back(std::move(meta));
  }
  absl::Status s;
  {
    // Renaming, and opening each table (its index and filter), not under
    // the mutex: writers queue behind us, the background thread is idle.
    mu_.Unlock();
    for (size_t i = 0; i < files.size() && s.ok(); ++i) {
      s = env_->RenameFile(TableFileName(dbname_, (*numbers)[i]),
                           TableFileName(dbname_, final_numbers[i]));
      if (s.ok()) (*numbers)[i] = final_numbers[i];
    }
    for (size_t i = 0; i < metas.size() && s.ok(); ++i) {
      s = cfd->table_cache()->Open(*metas[i]).status();
    }
    mu_.Lock();
  }
  RETURN_IF_ERROR(s);
  VersionEdit edit;
  edit.SetColumnFamily(cfd->id());
  for (size_t i = 0; i < files.size(); ++i) {
    edit.AddFile(PickIngestLevel(*base, files[i]), metas[i]);
  }
  // The MANIFEST records seq as the last sequence; readers get it only
  // once the Version holding the files is theirs too (see the top).
  edit.SetLastSequence(seq);
  *committed = true;
  s = versions_->LogAndApply(&edit, &mu_);
  if (!s.ok()) {
    // The record may or may not have reached the MANIFEST: keep the files
    // and stop writes until Resume or a reopen settles it.
    RecordBackgroundError(s);
    return s;
  }
  InstallReadView();
  versions_->SetLastSequence(seq);
  return absl::OkStatus();
}

}  // namespace sift
