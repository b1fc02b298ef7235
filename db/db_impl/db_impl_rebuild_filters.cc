// DB::RebuildFilters: the filter-only rebuild (db/filter_rebuild.h) of every
// live file whose filter is not current. The caller's thread reads keys and
// writes filter files; the background thread, the one MANIFEST writer,
// records each as its table's replacement.

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "db/db_impl/db_impl.h"
#include "db/filter_allocation.h"
#include "db/filter_rebuild.h"
#include "util/status_macros.h"

namespace sift {

absl::Status DBImpl::RebuildFilters() {
  return RebuildFiltersImpl(default_cf_);
}

absl::Status DBImpl::RebuildFilters(ColumnFamilyHandle* family) {
  ASSIGN_OR_RETURN(ColumnFamilyData * cfd, FamilyOf(family, "RebuildFilters"));
  return RebuildFiltersImpl(cfd);
}

absl::Status DBImpl::RebuildFiltersImpl(ColumnFamilyData* cfd) {
  RETURN_IF_ERROR(CheckWritable("RebuildFilters"));
  struct Stale {
    int level;
    std::shared_ptr<FileMetaData> file;
    FilterTarget target;
  };
  std::vector<Stale> stale;
  {
    MutexLock l(&mu_);
    RETURN_IF_ERROR(bg_error_);
    const std::shared_ptr<const Version> v = cfd->current();
    const TreeKeys tree = KeysOf(*v);
    for (int level = 0; level < config::kNumLevels; ++level) {
      for (const auto& f : v->files[level]) {
        const FilterTarget target =
            TargetFilter(cfd->options(), tree, level, FileKeys(*f));
        // A replacement never removes a filter: a file whose options call
        // for none keeps the one it has.
        if (target.fp_chance < 1.0 && !FilterIsCurrent(*f->facts, target)) {
          stale.push_back({level, f, target});
        }
      }
    }
  }
  // Files made meanwhile are built with current filters; a file compacted
  // away meanwhile is skipped when its filter is recorded.
  for (const Stale& s : stale) {
    RETURN_IF_ERROR(RebuildFilter(cfd, s.level, s.file, s.target));
  }
  return absl::OkStatus();
}

absl::Status DBImpl::RebuildFilter(ColumnFamilyData* cfd, int level,
                                   std::shared_ptr<FileMetaData> f,
                                   const FilterTarget& target) {
  // The filter file's number: not deleted until recorded or given up.
  PendingOutput output;
  // Held while the file is read, so it is not deleted under the read.
  std::shared_ptr<const Version> v;
  {
    MutexLock l(&mu_);
    if (cfd->dropped()) return absl::OkStatus();
    v = cfd->current();
    const FileList& files = v->files[level];
    if (std::find(files.begin(), files.end(), f) == files.end()) {
      return absl::OkStatus();  // compacted away or moved since listed
    }
    output = NewPendingOutput();
  }
  FilterInstall install;
  install.table_number = f->number;
  install.cfd = cfd;
  absl::StatusOr<std::shared_ptr<const Table>> table =
      cfd->table_cache()->Get(*f);
  absl::Status s = table.status();
  if (s.ok()) {
    s = WriteFilterFile(dbname_, env_, **table, f->number, target,
                        output.number(), &install.filter);
  }
  table = absl::StatusOr<std::shared_ptr<const Table>>();  // drop the table
  v.reset();

  MutexLock l(&mu_);
  if (s.ok()) {
    while (filter_install_ != nullptr && bg_error_.ok() && !shutting_down_) {
      bg_cv_.Wait(&mu_);
    }
    s = bg_error_;
    if (s.ok() && shutting_down_) s = ClosedError("RebuildFilters");
  }
  if (s.ok()) {
    filter_install_ = &install;
    bg_cv_.SignalAll();
    // install lives in this frame: wait while the background thread may
    // be recording it (see RunManual).
    while (!install.done &&
           (exclusive_running_ || (bg_error_.ok() && !shutting_down_))) {
      bg_cv_.Wait(&mu_);
    }
    filter_install_ = nullptr;
    bg_cv_.SignalAll();
    s = install.done ? install.status : bg_error_;
    if (s.ok() && !install.done) s = ClosedError("RebuildFilters");
  }
  // Installed, or given up: from here a Version keeps the file, or
  // nothing does.
  output.Release();
  // The filter file this one replaces, or this one if it was not recorded.
  DeleteObsoleteFiles();
  return s;
}

absl::Status DBImpl::InstallReplacementFilter() {
  mu_.AssertHeld();
  FilterInstall* in = filter_install_;
  ColumnFamilyData* const cfd = in->cfd;
  if (cfd->dropped()) {  // nothing of the family is read any more
    in->done = true;
    return absl::OkStatus();
  }
  const std::shared_ptr<const Version> v = cfd->current();
  int level = -1;
  std::shared_ptr<FileMetaData> old;
  for (int l = 0; l < config::kNumLevels && old == nullptr; ++l) {
    for (const auto& f : v->files[l]) {
      if (f->number == in->table_number) {
        level = l;
        old = f;
        break;
      }
    }
  }
  if (old == nullptr) {  // compacted away: its outputs have fresh filters
    in->done = true;
    return absl::OkStatus();
  }
  auto meta = std::make_shared<FileMetaData>(*old);
  meta->facts->replacement = in->filter;
  // Only this thread installs Versions, so the mutex can go while the
  // table is reopened with its new filter for the Version to come.
  mu_.Unlock();
  absl::Status s = cfd->table_cache()->Replace(*meta);
  mu_.Lock();
  if (!s.ok()) {  // the old filter stays; the caller hears why
    in->status = s;
    in->done = true;
    return absl::OkStatus();
  }
  VersionEdit edit;
  edit.SetColumnFamily(cfd->id());
  edit.RemoveFile(level, meta->number);
  edit.AddFile(level, meta);
  s = versions_->LogAndApply(&edit, &mu_);
  if (s.ok()) {
    InstallReadView();
    in->installed = true;
    stats_.Add(config::kNoLevel, kFilterRebuilds);
    stats_.Add(config::kNoLevel, kFilterRebuildBytesWritten, in->filter.size);
  }
  in->status = s;
  in->done = true;
  return s;  // a failed MANIFEST write stops the DB, as for a compaction
}

}  // namespace sift
