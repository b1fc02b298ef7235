#include "db/db_impl.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "db/filename.h"
#include "db/range_del_read.h"
#include "table/merging_iterator.h"
#include "table/table_builder.h"
#include "table/user_iterator.h"
#include "util/hash.h"
#include "util/status_macros.h"

namespace sift {

DB::~DB() = default;

class DBImpl::SnapshotImpl final : public Snapshot {
 public:
  explicit SnapshotImpl(SequenceNumber seq) : sequence(seq) {}
  ~SnapshotImpl() override = default;
  const SequenceNumber sequence;
};

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

DBImpl::DBImpl(const Options& options, std::string dbname, bool read_only)
    : options_([&] {
        Options o = options;
        if (o.env == nullptr) o.env = Env::Default();
        return o;
      }()),
      dbname_(std::move(dbname)),
      env_(options_.env),
      read_only_(read_only),
      block_cache_(std::make_unique<BlockCache>(options_.block_cache_capacity)),
      table_cache_(std::make_unique<TableCache>(
          dbname_, env_, options_.max_open_files, block_cache_.get(),
          options_.allow_mmap_reads, options_.comparator,
          options_.filter_policy.get())),
      versions_(std::make_unique<VersionSet>(dbname_, options_,
                                             table_cache_.get(), env_)),
      write_delay_(options_.delayed_write_rate,
                   options_.level0_slowdown_writes_trigger,
                   options_.level0_stop_writes_trigger) {}

std::shared_ptr<MemTable> DBImpl::NewMemTable() const {
  return NewMemTableForWriteBuffer(KeyComparator::Internal(options_.comparator),
                                   options_.write_buffer_size);
}

absl::Status DBImpl::OpenImpl() {
  MutexLock l(&mu_);
  VersionEdit edit;
  std::vector<PendingOutput> outputs;  // tables replayed from the logs
  RETURN_IF_ERROR(Recover(&edit, &outputs));
  RETURN_IF_ERROR(NewLogFile());
  edit.SetLogNumber(logfile_number_);
  RETURN_IF_ERROR(versions_->LogAndApply(&edit, &mu_));
  outputs.clear();  // named by the current Version now
  mem_ = NewMemTable();
  InstallReadView();
  DeleteObsoleteFiles();
  bg_thread_ = std::thread([this] { BackgroundLoop(); });
  return absl::OkStatus();
}

DBImpl::~DBImpl() {
  {
    MutexLock l(&mu_);
    shutting_down_ = true;
    bg_cv_.SignalAll();
  }
  if (bg_thread_.joinable()) bg_thread_.join();
  MutexLock l(&mu_);
  if (logfile_ != nullptr) logfile_->Close().IgnoreError();
}

void DBImpl::InstallReadView() {
  auto view = std::make_shared<ReadView>();
  view->mem = mem_;
  view->imm = imm_;
  view->version = versions_->current();
  views_.Install(std::move(view));
}

SequenceNumber DBImpl::ReadSequence(const ReadOptions& options) const {
  return options.snapshot != nullptr
             ? static_cast<const SnapshotImpl*>(options.snapshot)->sequence
             : versions_->LastSequence();
}

absl::Status DBImpl::Get(const ReadOptions& options, std::string_view key,
                         std::string* value) {
  // Take the view, then the sequence. The other order can lose a key: a
  // flush and a compaction installed in between may drop the version at
  // or below the sequence in favour of a newer one the read cannot see.
  // In this order, anything the view's Version dropped was shadowed by an
  // entry already published (<= seq); entries the view lacks are all newer
  // than everything in it, so the read sees the state as of the view.
  const ReadViewCache::Ref view = views_.Acquire();
  const SequenceNumber seq = ReadSequence(options);
  const uint64_t hash = KeyHash(key);
  const LookupKey lkey(key, seq);
  LocalStats stats(&stats_);
  stats.Add(config::kNoLevel, kNumberKeysRead);
  absl::Status s;
  bool found = false;
  // Range tombstones anywhere: each source's tombstones covering the key
  // raise `covering`, and the entry found counts only if newer. None (the
  // common case): the checks are skipped whole.
  SequenceNumber covering_seq = 0;
  SequenceNumber* const covering =
      view->version->has_range_deletions || view->mem->has_range_tombstones() ||
              (view->imm != nullptr && view->imm->has_range_tombstones())
          ? &covering_seq
          : nullptr;
  MemTable::GetResult mr = view->mem->Get(lkey, hash, value, &stats, covering);
  if (mr == MemTable::GetResult::kNotFound && view->imm != nullptr) {
    mr = view->imm->Get(lkey, hash, value, &stats, covering);
  }
  if (mr != MemTable::GetResult::kNotFound) {
    stats.Add(config::kNoLevel, kMemtableHit);
    found = mr == MemTable::GetResult::kFound;
  } else {
    stats.Add(config::kNoLevel, kMemtableMiss);
    Version::GetResult vr;
    s = view->version->Get(options, lkey, hash, table_cache_.get(), value, &vr,
                           &stats, covering);
    found = s.ok() && vr == Version::GetResult::kFound;
  }
  if (found) stats.Add(config::kNoLevel, kNumberKeysFound);
  if (!s.ok()) return s;
  // An empty message keeps the miss path free of allocation.
  return found ? absl::OkStatus() : absl::NotFoundError("");
}

std::unique_ptr<Iterator> DBImpl::NewIterator(const ReadOptions& options) {
  // First: see Get. The iterator keeps its own reference to the view.
  std::shared_ptr<const ReadView> view = views_.Acquire().Share();
  const SequenceNumber seq = ReadSequence(options);
  absl::StatusOr<std::shared_ptr<const FragmentedRangeTombstones>> range_dels =
      CollectRangeTombstones(*view, table_cache_.get(), seq);
  if (!range_dels.ok()) return NewEmptyIterator(range_dels.status());
  std::vector<std::unique_ptr<Iterator>> children;
  children.push_back(view->mem->NewIterator());
  if (view->imm != nullptr) children.push_back(view->imm->NewIterator());
  view->version->AddIterators(options, table_cache_.get(), &stats_, &children);
  std::unique_ptr<Iterator> it = NewUserIterator(
      view->version->icmp,
      NewMergingIterator(view->version->icmp, std::move(children)), seq,
      *std::move(range_dels));
  // Cleanups run after the children are gone: the view outlives them.
  it->RegisterCleanup([view = std::move(view)] {});
  return it;
}

const Snapshot* DBImpl::GetSnapshot() {
  MutexLock l(&mu_);
  const SequenceNumber seq = versions_->LastSequence();
  snapshots_.insert(seq);
  return new SnapshotImpl(seq);
}

void DBImpl::ReleaseSnapshot(const Snapshot* snapshot) {
  if (snapshot == nullptr) return;
  const auto* s = static_cast<const SnapshotImpl*>(snapshot);
  {
    MutexLock l(&mu_);
    auto it = snapshots_.find(s->sequence);
    if (it != snapshots_.end()) snapshots_.erase(it);
  }
  delete s;
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
