// DBImpl: open and close, the options DB::Open accepts, the read view it
// publishes, and DestroyDB. The rest of DBImpl: db/db_impl/db_impl.h.

#include "db/db_impl/db_impl.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "db/filename.h"
#include "sift/rate_limiter.h"
#include "table/table_builder.h"
#include "util/status_macros.h"

namespace sift {

DB::~DB() = default;

namespace {

absl::Status CheckRange(const char* field, uint64_t value, uint64_t lo,
                        uint64_t hi) {
  if (value < lo || value > hi) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Options::", field, " must be in [", lo, ", ", hi, "], got ", value));
  }
  return absl::OkStatus();
}

// An int option in [lo, hi]; lo_field names the option lo comes from, if
// any, in the message.
absl::Status CheckIntRange(const char* field, int value, const char* lo_field,
                           int lo, int hi) {
  if (value < lo || value > hi) {
    const std::string low = lo_field == nullptr
                                ? absl::StrCat(lo)
                                : absl::StrCat(lo_field, " (", lo, ")");
    return absl::InvalidArgumentError(absl::StrCat(
        "Options::", field, " must be in [", low, ", ", hi, "], got ", value));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateOptions(const Options& o) {
  RETURN_IF_ERROR(ValidateTableOptions(o));
  RETURN_IF_ERROR(CheckRange("write_buffer_size", o.write_buffer_size,
                             size_t{1} << 10, size_t{4} << 30));
  RETURN_IF_ERROR(CheckRange("max_file_size", o.max_file_size, size_t{1} << 10,
                             size_t{4} << 30));
  RETURN_IF_ERROR(CheckRange("max_manifest_file_size", o.max_manifest_file_size,
                             uint64_t{1} << 10, UINT64_MAX));
  RETURN_IF_ERROR(CheckRange("max_bytes_for_level_base",
                             o.max_bytes_for_level_base, uint64_t{1} << 10,
                             uint64_t{1} << 50));
  // Written so that NaN fails too.
  if (!(o.max_bytes_for_level_multiplier >= 2.0 &&
        o.max_bytes_for_level_multiplier <= 100.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Options::max_bytes_for_level_multiplier must be in [2, "
                     "100], got ",
                     o.max_bytes_for_level_multiplier));
  }
  RETURN_IF_ERROR(CheckIntRange("level0_compaction_trigger",
                                o.level0_compaction_trigger, nullptr, 1, 100));
  RETURN_IF_ERROR(CheckIntRange(
      "level0_slowdown_writes_trigger", o.level0_slowdown_writes_trigger,
      "level0_compaction_trigger", o.level0_compaction_trigger, 1000));
  RETURN_IF_ERROR(CheckIntRange("level0_stop_writes_trigger",
                                o.level0_stop_writes_trigger,
                                "level0_slowdown_writes_trigger",
                                o.level0_slowdown_writes_trigger, 1000));
  RETURN_IF_ERROR(CheckRange("delayed_write_rate", o.delayed_write_rate,
                             uint64_t{1} << 10, uint64_t{1} << 40));
  if (o.rate_limiter != nullptr && o.rate_limiter->GetBytesPerSecond() <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Options::rate_limiter must allow more than 0 bytes per "
                     "second, got ",
                     o.rate_limiter->GetBytesPerSecond()));
  }
  if (static_cast<uint8_t>(o.wal_recovery_mode) >
      static_cast<uint8_t>(WALRecoveryMode::kSkipAnyCorruptedRecords)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Options::wal_recovery_mode must be one of the four "
                     "WALRecoveryMode values, got ",
                     static_cast<int>(o.wal_recovery_mode)));
  }
  // Written so that NaN fails too.
  if (!(o.filter_bits_per_key_budget >= 0 &&
        std::isfinite(o.filter_bits_per_key_budget))) {
    return absl::InvalidArgumentError(
        absl::StrCat("Options::filter_bits_per_key_budget must be a finite "
                     "number >= 0 (0 = off), got ",
                     o.filter_bits_per_key_budget));
  }
  if (o.filter_bits_per_key_budget > 0 &&
      o.bloom_filter_fp_chance != Options().bloom_filter_fp_chance) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Options::filter_bits_per_key_budget (", o.filter_bits_per_key_budget,
        ") replaces bloom_filter_fp_chance, which must then keep its "
        "default, got ",
        o.bloom_filter_fp_chance));
  }
  if (o.max_background_jobs < 1 || o.max_background_jobs > 64) {
    return absl::InvalidArgumentError(
        absl::StrCat("Options::max_background_jobs must be in [1, 64], got ",
                     o.max_background_jobs));
  }
  if (o.max_subcompactions < 1 || o.max_subcompactions > 64) {
    return absl::InvalidArgumentError(
        absl::StrCat("Options::max_subcompactions must be in [1, 64], got ",
                     o.max_subcompactions));
  }
  if (o.max_open_files < 10) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Options::max_open_files must be >= 10, got ", o.max_open_files));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<DB>> DB::Open(const Options& options,
                                             const std::string& path) {
  RETURN_IF_ERROR(ValidateOptions(options));
  if (path.empty()) {
    return absl::InvalidArgumentError("DB::Open: empty database path");
  }
  auto db = std::make_unique<DBImpl>(options, path);
  RETURN_IF_ERROR(db->OpenImpl());
  return db;
}

DBImpl::DBImpl(const Options& options, std::string dbname, bool read_only,
               std::vector<ColumnFamilyDescriptor> families)
    : options_([&] {
        Options o = options;
        if (o.env == nullptr) o.env = Env::Default();
        return o;
      }()),
      dbname_(std::move(dbname)),
      env_(options_.env),
      read_only_(read_only),
      requested_(std::move(families)),
      block_cache_(std::make_unique<BlockCache>(options_.block_cache_capacity)),
      // Every family's tables share the block cache (file numbers are
      // unique across families) and the bound on open files, each family
      // keeping its own share.
      versions_(std::make_unique<VersionSet>(
          dbname_, options_,
          [this](const Options& o) {
            return std::make_unique<TableCache>(
                dbname_, env_, o.max_open_files, block_cache_.get(),
                o.allow_mmap_reads, o.comparator, o.filter_policy.get(),
                read_only_);
          },
          env_)),
      default_cf_(versions_->default_family()),
      default_handle_(std::make_unique<ColumnFamilyHandleImpl>(
          versions_->families()[0], this)),
      write_delay_(options_.delayed_write_rate,
                   options_.level0_slowdown_writes_trigger,
                   options_.level0_stop_writes_trigger) {}

std::shared_ptr<MemTable> DBImpl::NewMemTable(const ColumnFamilyData& cfd) {
  return NewMemTableForWriteBuffer(cfd.icmp(), cfd.options().write_buffer_size);
}

bool DBImpl::AnyImm() const {
  mu_.AssertHeld();
  return has_imm_.load(std::memory_order_relaxed);
}

absl::Status DBImpl::OpenImpl() {
  MutexLock l(&mu_);
  FamilyEdits edits;
  std::vector<PendingOutput> outputs;  // tables replayed from the logs
  RETURN_IF_ERROR(Recover(&edits, &outputs));
  RETURN_IF_ERROR(NewLogFile());
  RETURN_IF_ERROR(InstallFamilyEdits(&edits));
  outputs.clear();  // named by the current Versions now
  for (const auto& cfd : versions_->families()) cfd->mem = NewMemTable(*cfd);
  InstallMemTables();
  RETURN_IF_ERROR(CreateMissingFamilies());
  opened_ = true;
  DeleteObsoleteFiles();
  for (int i = 0; i < options_.max_background_jobs; ++i) {
    bg_threads_.emplace_back([this] { BackgroundLoop(); });
  }
  return absl::OkStatus();
}

DBImpl::~DBImpl() {
  MutexLock l(&mu_);
  CloseLocked().IgnoreError();
}

absl::Status DBImpl::Close() {
  MutexLock l(&mu_);
  if (!closed_ && !shutting_down_ && !snapshots_.empty()) {
    return absl::AbortedError(absl::StrCat(
        "Close of ", dbname_, ": ", snapshots_.size(),
        " snapshot(s) not released; release them and close again"));
  }
  return CloseLocked();
}

absl::Status DBImpl::ClosedError(std::string_view operation) const {
  return absl::FailedPreconditionError(
      absl::StrCat(std::string(operation), " on ", dbname_, ": DB closed"));
}

absl::Status DBImpl::CloseLocked() {
  mu_.AssertHeld();
  if (shutting_down_) {
    // Closed, or another caller is closing: its answer is ours.
    while (!closed_) bg_cv_.Wait(&mu_);
    return close_status_;
  }
  shutting_down_ = true;
  bg_cv_.SignalAll();  // the background thread, and writers waiting on it
  if (!bg_threads_.empty()) {
    // Each finishes and installs what it is running (a flush or a
    // compaction step), then stops: nothing half-done is left in the
    // directory.
    mu_.Unlock();
    for (std::thread& t : bg_threads_) t.join();
    mu_.Lock();
    bg_threads_.clear();
  }
  absl::Status s = bg_error_;
  if (!read_only_) {
    // Files an install could not delete then (an iterator or snapshot
    // still read them) go now; after a background error everything is
    // kept, and after a refused open too: the Versions then may lack a
    // family the open left out, whose files would look obsolete. The log
    // is closed as the front writer: no write is using it then, and every
    // later one finds shutting_down_ first.
    if (opened_) DeleteObsoleteFiles();
    const absl::Status closed =
        RunAsFrontWriter([this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
          if (logfile_ == nullptr) return absl::OkStatus();
          const absl::Status c = logfile_->Close();
          log_.reset();
          logfile_.reset();
          return c;
        });
    if (s.ok()) s = closed;
  }
  closed_ = true;
  close_status_ = s;
  bg_cv_.SignalAll();
  return s;
}

void DBImpl::InstallReadView() {
  mu_.AssertHeld();
  for (const auto& cfd : versions_->families()) {
    auto view = std::make_shared<ReadView>();
    view->mem = cfd->mem;
    view->imm = cfd->imm;
    view->version = cfd->current();
    cfd->views.Install(std::move(view));
  }
}

void DBImpl::InstallMemTables() {
  mu_.AssertHeld();
  InstallReadView();
  write_mems_.clear();
  for (const auto& cfd : versions_->families()) {
    if (write_mems_.size() <= cfd->id()) write_mems_.resize(cfd->id() + 1);
    write_mems_[cfd->id()] = cfd->mem.get();
  }
}

absl::Status DestroyDB(const std::string& path, const Options& options) {
  Env* env = options.env != nullptr ? options.env : Env::Default();
  auto children = env->GetChildren(path);
  if (!children.ok()) {
    return absl::IsNotFound(children.status()) ? absl::OkStatus()
                                               : children.status();
  }
  // No CURRENT, no database (db/FORMAT.md): its files, whatever their
  // names, are not ours to remove. Not even a LOCK file is made there.
  if (std::find(children->begin(), children->end(), "CURRENT") ==
      children->end()) {
    return absl::OkStatus();
  }
  // Hold the lock while removing, so an open DB is not destroyed under us.
  ASSIGN_OR_RETURN(std::unique_ptr<FileLock> lock,
                   env->LockFile(LockFileName(path)));
  absl::Status result;
  for (const std::string& name : *children) {
    uint64_t number;
    FileType type;
    if (ParseFileName(name, &number, &type) && type != FileType::kLock) {
      absl::Status s = env->RemoveFile(path + "/" + name);
      if (result.ok() && !s.ok()) result = s;
    }
  }
  // LOCK goes while it is still held: released first, another process
  // could lock it and open a DB here whose LOCK we would then remove.
  env->RemoveFile(LockFileName(path)).IgnoreError();
  lock.reset();
  env->RemoveDir(path).IgnoreError();  // fails if the user left files there
  return result;
}

}  // namespace sift
