// DBImpl's compactions: the automatic one the background thread picks,
// manual CompactRange in steps, and installing a compaction's result (or
// moving its one file) in the MANIFEST. Picking the files is ColumnFamilyData's
// (compaction_picker.cc); the merge is RunCompaction's (compaction_job.h).

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "db/compaction/compaction.h"
#include "db/compaction/compaction_job.h"
#include "db/db_impl/db_impl.h"
#include "db/filter_allocation.h"
#include "util/invariant.h"
#include "util/status_macros.h"

namespace sift {
absl::Status DBImpl::InstallCompaction(Compaction* c) {
  mu_.AssertHeld();
  // The outputs' numbers, protected until the edit naming them is
  // installed (or, on failure, the compaction deleted them).
  std::vector<PendingOutput> outputs;
  ColumnFamilyData* const cfd = c->family();
  const Options& options = cfd->options();
  if (c->IsTrivialMove(options)) {
    const auto& f = c->inputs(0)[0];
    c->edit()->RemoveFile(c->level(), f->number);
    c->edit()->AddFile(c->output_level(), f);
  } else {
    CompactionContext ctx;
    ctx.dbname = dbname_;
    ctx.options = options;
    ctx.family = TableFamily{cfd->id(), cfd->name()};
    // Every output is sized for its level as the tree will be (a budget's
    // allocation; without one, the options' fp chance).
    ctx.options.bloom_filter_fp_chance = c->OutputFilter(options).fp_chance;
    ctx.env = env_;
    ctx.table_cache = cfd->table_cache();
    ctx.snapshots.assign(snapshots_.begin(), snapshots_.end());
    ctx.stats = &stats_;
    // The compaction stops to flush a full memtable when no other thread
    // will: with one background thread, or while it runs alone
    // (BackgroundWork::kExclusive; NextWork starts no flush then).
    if (options_.max_background_jobs == 1 || exclusive_running_) {
      ctx.memtable_waiting = &has_imm_;
    }
    ctx.flush_memtable = [this] {
      MutexLock l(&mu_);
      const absl::Status s = FlushAsTheFlusher();
      RecordBackgroundError(s);
      bg_cv_.SignalAll();  // writers waiting for room
      return s;
    };
    ctx.new_file_number = [this, &outputs] {
      MutexLock l(&mu_);
      outputs.push_back(NewPendingOutput());
      return outputs.back().number();
    };
    mu_.Unlock();
    absl::Status s = RunCompaction(c, ctx);
    mu_.Lock();
    // Installed even when Close is waiting: its outputs are written, and
    // left out of the MANIFEST they would only be litter the next Open
    // deletes before doing the work again.
    if (!s.ok()) return s;
  }
  // Another thread's work failed meanwhile: the state on disk may be in
  // doubt, and nothing more goes to the MANIFEST until Resume.
  RETURN_IF_ERROR(bg_error_);
  // The family was dropped meanwhile: its outputs are litter, deleted
  // once their numbers are no longer pending.
  if (cfd->dropped()) return absl::OkStatus();
  RETURN_IF_ERROR(versions_->LogAndApply(c->edit(), &mu_));
  InstallReadView();
  // No DeleteObsoleteFiles here: c still holds its input Version, which
  // names every input file. DoCompaction cleans up once c is gone.
  return absl::OkStatus();
}

absl::Status DBImpl::DoCompaction(std::unique_ptr<Compaction> c) {
  mu_.AssertHeld();
  const absl::Status s = InstallCompaction(c.get());
  c->family()->RemoveRunning(*c);
  c.reset();  // drops the input Version: its files may now be obsolete
  // A failed install may still have reached the MANIFEST, naming outputs
  // that are no longer pending: record the error first, so that nothing
  // is deleted while the state on disk is in doubt.
  RecordBackgroundError(s);
  DeleteObsoleteFiles();
  return s;
}

absl::Status DBImpl::BackgroundCompaction() {
  mu_.AssertHeld();
  std::unique_ptr<Compaction> c = versions_->PickCompaction();
  if (c == nullptr) {
    // Every due compaction conflicts with work in flight: try again once
    // the tree changes.
    nothing_to_pick_at_ = versions_->version_count();
    return absl::OkStatus();
  }
  return DoCompaction(std::move(c));
}

bool DBImpl::NeedsRewrite(const ColumnFamilyData& cfd, const FileMetaData& f,
                          int level) const {
  SIFT_INVARIANT(f.facts.has_value(),
                 "FileMetaData::facts is set in every installed Version");
  const FileFacts& facts = *f.facts;
  if (facts.num_deletions > 0 || facts.num_range_deletions > 0) return true;
  // More entries than distinct keys: older versions, kept for snapshots
  // that may be gone now. (A file without a filter does not record its
  // distinct keys; it is rewritten only for the reasons below.)
  if (facts.filter.fp_chance < 1.0 &&
      facts.num_entries > facts.filter.num_keys) {
    return true;
  }
  return !FilterIsCurrent(
      facts,
      TargetFilter(cfd.options(), KeysOf(*cfd.current()), level, FileKeys(f)));
}

absl::Status DBImpl::ManualCompactionStep() {
  mu_.AssertHeld();
  ManualCompaction* m = manual_;
  const std::optional<std::string_view> begin(m->begin), end(m->end);
  std::unique_ptr<Compaction> c;
  if (!m->rewrite) {
    // Bounded work under a steady write load: level-0 files flushed after
    // the request started are left for automatic compaction, and at deeper
    // levels each step starts after the previous one's inputs.
    c = m->cfd->CompactRange(m->level, begin, end, m->max_file_number);
    if (c != nullptr && m->level > 0) {
      std::string_view last = c->inputs(0)[0]->largest_user_key();
      for (const auto& f : c->inputs(0)) {
        if (c->input_version().icmp.CompareUser(f->largest_user_key(), last) >
            0) {
          last = f->largest_user_key();
        }
      }
      m->begin.emplace(last);
    }
  } else {
    for (const auto& f :
         m->cfd->current()->GetOverlappingInputs(m->level, begin, end)) {
      if (f->number < m->max_file_number &&
          NeedsRewrite(*m->cfd, *f, m->level)) {
        c = m->cfd->RewriteFile(m->level, f);
        break;
      }
    }
  }
  if (c == nullptr || m->cfd->dropped()) {
    m->done = true;
    return absl::OkStatus();
  }
  const absl::Status s = DoCompaction(std::move(c));
  if (!s.ok()) {
    m->status = s;
    m->done = true;
  }
  return s;
}

absl::Status DBImpl::RunManual(ColumnFamilyData* cfd, int level, bool rewrite,
                               std::optional<std::string_view> begin,
                               std::optional<std::string_view> end) {
  ManualCompaction m;
  m.cfd = cfd;
  m.level = level;
  m.rewrite = rewrite;
  if (begin) m.begin.emplace(*begin);
  if (end) m.end.emplace(*end);
  MutexLock l(&mu_);
  m.max_file_number = versions_->NewFileNumber();
  while (manual_ != nullptr && bg_error_.ok() && !shutting_down_) {
    bg_cv_.Wait(&mu_);
  }
  RETURN_IF_ERROR(bg_error_);
  if (shutting_down_) return ClosedError("CompactRange");
  manual_ = &m;
  bg_cv_.SignalAll();
  // m lives in this frame: do not return while a background thread may
  // be inside ManualCompactionStep (exclusive_running_), even once an
  // error or shutdown means it will not finish m. It writes m when its
  // step ends.
  while (!m.done &&
         (exclusive_running_ || (bg_error_.ok() && !shutting_down_))) {
    bg_cv_.Wait(&mu_);
  }
  manual_ = nullptr;
  bg_cv_.SignalAll();
  if (!m.status.ok()) return m.status;
  RETURN_IF_ERROR(bg_error_);
  // Closed between steps: the steps done are installed, the rest is not.
  if (!m.done) return ClosedError("CompactRange");
  return absl::OkStatus();
}

absl::Status DBImpl::CompactRange(std::optional<std::string_view> begin,
                                  std::optional<std::string_view> end) {
  return CompactRangeImpl(default_cf_, begin, end);
}

absl::Status DBImpl::CompactRangeImpl(ColumnFamilyData* cfd,
                                      std::optional<std::string_view> begin,
                                      std::optional<std::string_view> end) {
  RETURN_IF_ERROR(CheckWritable("CompactRange"));
  if (begin.has_value() && end.has_value() &&
      cfd->options().comparator->Compare(*begin, *end) > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "CompactRange: begin '",
        absl::CEscape(absl::string_view(begin->data(), begin->size())),
        "' is after end '",
        absl::CEscape(absl::string_view(end->data(), end->size())), "'"));
  }
  RETURN_IF_ERROR(Flush());
  int max_level = 0;
  {
    MutexLock l(&mu_);
    const auto v = cfd->current();
    for (int level = 0; level < config::kNumLevels; ++level) {
      if (v->OverlapInLevel(level, begin, end)) max_level = level;
    }
  }
  // Level-0 data goes at least to level 1; then every level above the
  // deepest moves down, and the deepest is rewritten where it needs it.
  if (max_level == 0) max_level = 1;
  for (int level = 0; level < max_level; ++level) {
    RETURN_IF_ERROR(RunManual(cfd, level, /*rewrite=*/false, begin, end));
  }
  return RunManual(cfd, max_level, /*rewrite=*/true, begin, end);
}

}  // namespace sift
