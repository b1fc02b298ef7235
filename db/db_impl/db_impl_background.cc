// The background threads (Options::max_background_jobs): each takes the
// next item -- the immutable memtable's flush first, then work that runs
// alone (a manual compaction step, a replacement filter's install), then
// an automatic compaction of db/compaction/db_impl_compaction.cc -- and
// deletes the files no Version needs. docs/DESIGN.md ("Background work")
// says why N items in flight stay correct.

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "db/builder.h"
#include "db/db_impl/db_impl.h"
#include "db/filename.h"
#include "db/filter_allocation.h"
#include "util/status_macros.h"

namespace sift {

void DBImpl::RecordBackgroundError(const absl::Status& s) {
  mu_.AssertHeld();
  if (bg_error_.ok() && !s.ok()) {
    bg_error_ = s;
    bg_cv_.SignalAll();
  }
}

DBImpl::BackgroundWork DBImpl::NextWork() const {
  mu_.AssertHeld();
  if (!bg_error_.ok() || ingest_running_ || exclusive_running_) {
    return BackgroundWork::kNone;
  }
  // Flushes first: writers wait on a full memtable.
  if (AnyImm() && !flush_running_) return BackgroundWork::kFlush;
  if ((manual_ != nullptr && !manual_->done) ||
      (filter_install_ != nullptr && !filter_install_->done)) {
    // Runs alone, once the running work is done; no new compaction
    // starts meanwhile, so it does not wait for ever.
    return bg_active_ == 0 ? BackgroundWork::kExclusive : BackgroundWork::kNone;
  }
  // With N threads, at most N - 1 compact: one is always free to flush.
  const int compaction_slots = std::max(1, options_.max_background_jobs - 1);
  if (compactions_running_ < compaction_slots && versions_->NeedsCompaction() &&
      versions_->version_count() != nothing_to_pick_at_) {
    return BackgroundWork::kCompaction;
  }
  return BackgroundWork::kNone;
}

bool DBImpl::HasBackgroundWork() const {
  mu_.AssertHeld();
  return NextWork() != BackgroundWork::kNone;
}

void DBImpl::BackgroundLoop() {
  MutexLock l(&mu_);
  while (true) {
    BackgroundWork work = BackgroundWork::kNone;
    while (!shutting_down_ && (work = NextWork()) == BackgroundWork::kNone) {
      bg_cv_.Wait(&mu_);
    }
    if (shutting_down_) break;
    ++bg_active_;
    absl::Status s;
    switch (work) {
      case BackgroundWork::kFlush:
        s = FlushAsTheFlusher();
        break;
      case BackgroundWork::kExclusive:
        exclusive_running_ = true;
        if (filter_install_ != nullptr && !filter_install_->done) {
          s = InstallReplacementFilter();
        } else {
          s = ManualCompactionStep();
        }
        exclusive_running_ = false;
        break;
      case BackgroundWork::kCompaction:
        ++compactions_running_;
        s = BackgroundCompaction();
        --compactions_running_;
        break;
      case BackgroundWork::kNone:
        break;
    }
    RecordBackgroundError(s);
    --bg_active_;
    bg_cv_.SignalAll();
  }
  bg_cv_.SignalAll();
}

PendingOutput DBImpl::NewPendingOutput() {
  mu_.AssertHeld();
  return pending_outputs_.Reserve(versions_->NewFileNumber());
}

absl::Status DBImpl::WriteLevel0Table(ColumnFamilyData* cfd, MemTable* mem,
                                      VersionEdit* edit, const Version* base,
                                      std::vector<PendingOutput>* outputs) {
  outputs->push_back(NewPendingOutput());
  const uint64_t number = outputs->back().number();
  auto meta = std::make_shared<FileMetaData>();
  // A flush output is sized as a level-0 file (a budget's allocation gives
  // it a chance for its own keys; the memtable's entries bound them).
  Options options = cfd->options();
  options.bloom_filter_fp_chance =
      TargetFilter(options, KeysOf(base != nullptr ? *base : *cfd->current()),
                   0, mem->num_entries())
          .fp_chance;
  absl::Status s;
  {
    std::unique_ptr<Iterator> iter = mem->NewIterator();
    const std::vector<RangeTombstone> range_tombstones =
        mem->RangeTombstoneList();
    mu_.Unlock();
    s = BuildTable(dbname_, env_, options, TableFamily{cfd->id(), cfd->name()},
                   cfd->table_cache(), iter.get(), number, meta.get(),
                   range_tombstones, &stats_);
    mu_.Lock();
  }
  if (s.ok() && meta->file_size > 0) {
    int level = 0;
    if (base != nullptr) {
      // Placed in the tree as it is now (compactions may have installed
      // while the table was written), above every running compaction
      // that writes its keys; in flight until the caller installs it.
      level =
          cfd->FlushLevel(cfd->current()->PickLevelForMemTableOutput(
                              meta->smallest_user_key(),
                              meta->largest_user_key(), options.max_file_size),
                          meta->smallest_user_key(), meta->largest_user_key());
      cfd->SetFlushInFlight(OutputRange{level,
                                        std::string(meta->smallest_user_key()),
                                        std::string(meta->largest_user_key())});
    }
    stats_.Add(config::kNoLevel, kFlushes);
    stats_.Add(config::kNoLevel, kFlushBytesWritten, meta->file_size);
    edit->AddFile(level, std::move(meta));
  }
  return s;
}

absl::Status DBImpl::FlushImmutable() {
  mu_.AssertHeld();
  // Every family's immutable memtable, installed as one atomic group: the
  // log number moves past them all at once (docs/DESIGN.md, "Column
  // families").
  struct FamilyFlush {
    std::shared_ptr<ColumnFamilyData> cfd;
    // Kept alive while the mutex is released.
    std::shared_ptr<const Version> base;
    std::shared_ptr<MemTable> imm;
    VersionEdit edit;
  };
  std::vector<FamilyFlush> flushes;
  for (const auto& cfd : versions_->families()) {
    if (cfd->imm == nullptr) continue;
    flushes.push_back(FamilyFlush{cfd, cfd->current(), cfd->imm, {}});
    flushes.back().edit.SetColumnFamily(cfd->id());
  }
  // The new tables' numbers stay protected until the edits are installed.
  std::vector<PendingOutput> outputs;
  // Installed even when Close is waiting for it: a table written and
  // left out of the MANIFEST would only be deleted by the next Open.
  absl::Status s;
  std::vector<VersionEdit*> edits;
  for (FamilyFlush& f : flushes) {
    if (s.ok()) {
      s = WriteLevel0Table(f.cfd.get(), f.imm.get(), &f.edit, f.base.get(),
                           &outputs);
    }
    // Logs older than the current one hold nothing the tables lack.
    f.edit.SetLogNumber(logfile_number_);
    edits.push_back(&f.edit);
  }
  // A family dropped while its table was written has nothing to install.
  std::erase_if(edits, [this](VersionEdit* e) {
    return versions_->FamilyById(e->column_family_) == nullptr;
  });
  // With nothing to flush (Resume switched empty memtables), the edit
  // still moves the log number on.
  VersionEdit log_only;
  if (edits.empty()) {
    log_only.SetLogNumber(logfile_number_);
    edits.push_back(&log_only);
  }
  if (s.ok()) s = versions_->LogAndApply(edits, &mu_);
  for (FamilyFlush& f : flushes) f.cfd->SetFlushInFlight(std::nullopt);
  RETURN_IF_ERROR(s);
  for (FamilyFlush& f : flushes) {
    if (f.cfd->imm == f.imm) f.cfd->imm.reset();
  }
  has_imm_.store(false, std::memory_order_release);
  InstallReadView();
  DeleteObsoleteFiles();
  return absl::OkStatus();
}

absl::Status DBImpl::FlushAsTheFlusher() {
  mu_.AssertHeld();
  if (!AnyImm() || flush_running_) return absl::OkStatus();
  flush_running_ = true;
  const absl::Status s = FlushImmutable();
  flush_running_ = false;
  return s;
}

absl::Status DBImpl::Flush() {
  RETURN_IF_ERROR(Write(WriteOptions(), nullptr));
  MutexLock l(&mu_);
  // Closing: a flush already running still finishes (and is installed).
  while (AnyImm() && bg_error_.ok() && (!shutting_down_ || bg_active_ > 0)) {
    bg_cv_.Wait(&mu_);
  }
  RETURN_IF_ERROR(bg_error_);
  // Closed before the flush ran: the memtable is replayed from the log.
  if (AnyImm()) return ClosedError("Flush");
  return absl::OkStatus();
}

absl::Status DBImpl::WaitForCompaction() {
  if (read_only_) return absl::OkStatus();  // no background thread runs
  MutexLock l(&mu_);
  while (bg_error_.ok() &&
         (bg_active_ > 0 || (HasBackgroundWork() && !shutting_down_))) {
    bg_cv_.Wait(&mu_);
  }
  RETURN_IF_ERROR(bg_error_);
  if (shutting_down_) return ClosedError("WaitForCompaction");
  return absl::OkStatus();
}

void DBImpl::DeleteObsoleteFiles() {
  mu_.AssertHeld();
  if (!bg_error_.ok()) return;  // the state on disk may be in doubt: keep all
  // Decide what is live under the mutex, in one step; list the directory
  // and unlink without it, so writes, snapshots and properties never wait
  // on the file system (an unlink can take milliseconds on slow or network
  // storage). db/file_lifetime.h says why the capture stays true meanwhile.
  LiveFiles live;
  pending_outputs_.AddTo(&live.files);
  versions_->AddLiveFiles(&live.files);
  live.next_file_number = versions_->next_file_number();
  live.log_number = versions_->log_number();
  live.current_log = logfile_number_;
  live.pinned_logs = log_pins_.empty() ? UINT64_MAX : *log_pins_.begin();
  live.durable_manifest = versions_->durable_manifest_number();
  live.manifest = versions_->manifest_file_number();
  // Evictions go to every family's cache (a number is in one of them);
  // the families stay alive while the mutex is released.
  std::vector<std::shared_ptr<ColumnFamilyData>> families =
      versions_->families();
  families.insert(families.end(), versions_->dropped_families().begin(),
                  versions_->dropped_families().end());
  std::vector<ColumnFamilyData*> caches;
  for (const auto& cfd : families) caches.push_back(cfd.get());
  mu_.Unlock();
  auto children = env_->GetChildren(dbname_);
  if (!children.ok()) children.emplace();  // nothing to delete this time
  for (const std::string& name : *children) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(name, &number, &type) || !live.Obsolete(number, type)) {
      continue;
    }
    if (type == FileType::kTable) {
      for (ColumnFamilyData* cfd : caches) cfd->table_cache()->Evict(number);
    }
    env_->RemoveFile(dbname_ + "/" + name).IgnoreError();
  }
  mu_.Lock();
}

}  // namespace sift
