// The write path: a queue of writers; the one at the front commits a group
// (one WAL record, one optional sync) for everyone queued behind it.

#include <optional>

#include "absl/strings/str_cat.h"
#include "db/db_impl/db_impl.h"
#include "db/filename.h"
#include "db/write_batch_internal.h"
#include "util/status_macros.h"

namespace sift {

struct DBImpl::Writer {
  explicit Writer(WriteBatch* b, bool s) : batch(b), sync(s) {}
  WriteBatch* batch;  // null: only make room (force a memtable switch)
  const bool sync;
  bool done = false;
  absl::Status status;
  // Made only by a writer that has to wait behind others (all under mu_):
  // a CondVar allocates, and a lone writer never waits.
  std::optional<CondVar> cv;

  void Signal() {
    if (cv.has_value()) cv->Signal();
  }
};

namespace {

// Put, Delete and DeleteRange build their one-entry batch in a per-thread batch
// whose buffer survives between calls, so a write allocates nothing. Write is
// done with the batch when it returns; a batch grown past 1 MiB (a huge
// value) is let go rather than kept for the thread's lifetime.
WriteBatch* ThreadBatch() {
  thread_local WriteBatch batch;
  if (batch.ApproximateSize() > (1 << 20)) batch = WriteBatch();
  batch.Clear();
  return &batch;
}

}  // namespace

// The single writes, of a family or of default: a batch of one entry in
// the thread's reused batch (no allocation per write).
absl::Status DBImpl::Put(const WriteOptions& options, std::string_view key,
                         std::string_view value) {
  return Put(options, default_handle_.get(), key, value);
}

absl::Status DBImpl::Put(const WriteOptions& options,
                         ColumnFamilyHandle* family, std::string_view key,
                         std::string_view value) {
  RETURN_IF_ERROR(FamilyOf(family, "Put").status());
  WriteBatch* batch = ThreadBatch();
  batch->Put(family, key, value);
  return Write(options, batch);
}

absl::Status DBImpl::Delete(const WriteOptions& options, std::string_view key) {
  return Delete(options, default_handle_.get(), key);
}

absl::Status DBImpl::Delete(const WriteOptions& options,
                            ColumnFamilyHandle* family, std::string_view key) {
  RETURN_IF_ERROR(FamilyOf(family, "Delete").status());
  WriteBatch* batch = ThreadBatch();
  batch->Delete(family, key);
  return Write(options, batch);
}

absl::Status DBImpl::DeleteRange(const WriteOptions& options,
                                 std::string_view begin, std::string_view end) {
  return DeleteRange(options, default_handle_.get(), begin, end);
}

absl::Status DBImpl::DeleteRange(const WriteOptions& options,
                                 ColumnFamilyHandle* family,
                                 std::string_view begin, std::string_view end) {
  RETURN_IF_ERROR(FamilyOf(family, "DeleteRange").status());
  WriteBatch* batch = ThreadBatch();
  batch->DeleteRange(family, begin, end);  // Write refuses it if begin >= end
  return Write(options, batch);
}

absl::Status DBImpl::Write(const WriteOptions& options, WriteBatch* batch) {
  RETURN_IF_ERROR(CheckWritable(batch == nullptr ? "Flush" : "Write"));
  // A batch that refused an entry (too large) is refused whole.
  if (batch != nullptr) RETURN_IF_ERROR(batch->status());
  Writer w(batch, options.sync);
  MutexLock l(&mu_);
  writers_.push_back(&w);
  while (!w.done && &w != writers_.front()) {
    if (!w.cv.has_value()) w.cv.emplace();
    w.cv->Wait(&mu_);
  }
  if (w.done) return w.status;

  // The families the batch writes must be live (checked at the front:
  // a drop runs as the front writer, so none goes between the check and
  // the write).
  absl::Status status;
  if (batch != nullptr && NeedsFamilyCheck(batch)) {
    status = CheckBatchFamilies(batch);
  }
  if (status.ok()) {
    status = MakeRoomForWrite(
        batch == nullptr,
        batch == nullptr ? 0 : WriteBatchInternal::Contents(batch).size());
  }
  SequenceNumber last_sequence = versions_->LastSequence();
  Writer* last_writer = &w;
  if (status.ok() && batch != nullptr) {
    WriteBatch* group = BuildBatchGroup(&last_writer);
    const uint32_t count = group->Count();
    // Sequences have 56 bits (table/FORMAT.md): past them a key's trailer
    // would wrap, and the MANIFEST would record a sequence Open refuses.
    if (count > kMaxSequenceNumber - last_sequence) {
      status = absl::ResourceExhaustedError(absl::StrCat(
          "sequence numbers exhausted: ", last_sequence, " + ", count));
    }
    WriteBatchInternal::SetSequence(group, last_sequence + 1);
    last_sequence += count;
    const std::string_view record = WriteBatchInternal::Contents(group);
    const bool sync = options.sync;
    const absl::Span<MemTable* const> mems = write_mems_;
    log::Writer* log = log_.get();
    WritableFile* logfile = logfile_.get();
    {
      // Only the front writer touches the log and memtable, so they are
      // safe to use without the mutex; other writers queue meanwhile.
      mu_.Unlock();
      if (status.ok()) status = log->AddRecord(record);
      if (status.ok()) status = logfile->Flush();
      if (status.ok() && sync) status = logfile->Sync();
      if (status.ok()) status = WriteBatchInternal::InsertInto(group, mems);
      mu_.Lock();
    }
    if (status.ok()) {
      versions_->SetLastSequence(last_sequence);
      stats_.Add(config::kNoLevel, kNumberKeysWritten, count);
      stats_.Add(config::kNoLevel, kBytesWritten, record.size());
    } else {
      // The log may now end in a partial record: accept no more writes
      // that could land after it and be lost on recovery.
      RecordBackgroundError(status);
    }
    if (group == &tmp_batch_) tmp_batch_.Clear();
  }

  while (true) {
    Writer* ready = writers_.front();
    writers_.pop_front();
    if (ready != &w) {
      ready->status = status;
      ready->done = true;
      ready->Signal();
    }
    if (ready == last_writer) break;
  }
  if (!writers_.empty()) writers_.front()->Signal();
  return status;
}

absl::Status DBImpl::Resume() {
  if (shutting_down_) return ClosedError("Resume");
  // Resume switches the log and the memtable, which the front writer uses
  // without the mutex: so it takes its turn at the front of the queue, as
  // a writer that no other joins (its batch is null), and Resumes run one
  // at a time.
  Writer w(nullptr, false);
  MutexLock l(&mu_);
  writers_.push_back(&w);
  while (&w != writers_.front()) {
    if (!w.cv.has_value()) w.cv.emplace();
    w.cv->Wait(&mu_);
  }
  const absl::Status s = ResumeAsFrontWriter();
  writers_.pop_front();
  if (!writers_.empty()) writers_.front()->Signal();
  return s;
}

absl::Status DBImpl::RunAsFrontWriter(absl::FunctionRef<absl::Status()> fn) {
  mu_.AssertHeld();
  Writer w(nullptr, false);
  writers_.push_back(&w);
  while (&w != writers_.front()) {
    if (!w.cv.has_value()) w.cv.emplace();
    w.cv->Wait(&mu_);
  }
  const absl::Status s = fn();
  writers_.pop_front();
  if (!writers_.empty()) writers_.front()->Signal();
  return s;
}

// Joins the front writer's batch with those queued behind it, up to a size
// that keeps a small write's latency low. A sync write is not grouped behind
// a non-sync leader (it would return without its sync).
WriteBatch* DBImpl::BuildBatchGroup(Writer** last_writer) {
  mu_.AssertHeld();
  Writer* first = writers_.front();
  WriteBatch* result = first->batch;
  size_t size = WriteBatchInternal::ByteSize(first->batch);
  size_t max_size = 1 << 20;
  if (size <= (128 << 10)) max_size = size + (128 << 10);
  *last_writer = first;
  for (auto it = writers_.begin() + 1; it != writers_.end(); ++it) {
    Writer* w = *it;
    if (w->sync && !first->sync) break;
    if (w->batch == nullptr) break;  // a forced switch goes alone
    // A batch naming a family that is not live fails alone, at the front.
    if (NeedsFamilyCheck(w->batch) && !CheckBatchFamilies(w->batch).ok()) {
      break;
    }
    size += WriteBatchInternal::ByteSize(w->batch);
    if (size > max_size) break;
    if (result == first->batch) {
      result = &tmp_batch_;
      tmp_batch_.Clear();
      WriteBatchInternal::Append(result, first->batch);
    }
    WriteBatchInternal::Append(result, w->batch);
    *last_writer = w;
  }
  return result;
}

absl::Status DBImpl::NewLogFile() {
  mu_.AssertHeld();
  const uint64_t number = versions_->NewFileNumber();
  WritableFile* const old = logfile_.get();
  absl::StatusOr<std::unique_ptr<WritableFile>> file;
  absl::Status s;
  {
    // The file-system work runs without the mutex, so a memtable switch
    // does not stall snapshots, properties or the background thread for
    // a directory sync and an fdatasync. Only the front writer (or Open)
    // gets here, and the log is the front writer's alone.
    mu_.Unlock();
    file = env_->NewWritableFile(LogFileName(dbname_, number));
    // The new log's directory entry must be durable before a synced write
    // in it is acknowledged, or a machine crash takes the whole file.
    if (file.ok()) s = env_->SyncDir(dbname_);
    if (file.ok() && s.ok() && old != nullptr) {
      // Sync the old log before writes go to the new one: otherwise a
      // machine crash could keep a later synced write and lose earlier
      // unsynced ones, a hole in the history. One sync per memtable.
      s = old->Sync();
      if (s.ok()) s = old->Close();
    }
    mu_.Lock();
  }
  if (!file.ok()) {
    // The number is not given back: a DeleteObsoleteFiles listing the
    // directory now took next_file_number above it, and would delete a
    // table that got it (db/file_lifetime.h).
    RecordBackgroundError(file.status());
    return file.status();
  }
  if (!s.ok()) {
    // The old log may lack acknowledged writes' bytes, or the new one may
    // not survive a crash: stop writes rather than go on.
    RecordBackgroundError(s);
    return s;
  }
  logfile_ = *std::move(file);
  logfile_number_ = number;
  log_ = std::make_unique<log::Writer>(logfile_.get());
  return absl::OkStatus();
}

absl::Status DBImpl::SwitchMemTables() {
  mu_.AssertHeld();
  RETURN_IF_ERROR(NewLogFile());
  for (const auto& cfd : versions_->families()) {
    if (cfd->mem->empty()) continue;
    cfd->imm = std::move(cfd->mem);
    cfd->mem = NewMemTable(*cfd);
  }
  has_imm_.store(true, std::memory_order_release);
  InstallMemTables();
  return absl::OkStatus();
}

absl::Status DBImpl::MakeRoomForWrite(bool force, size_t bytes) {
  mu_.AssertHeld();
  bool allow_delay = !force;
  const int slowdown = options_.level0_slowdown_writes_trigger;
  const int stop = options_.level0_stop_writes_trigger;
  while (true) {
    RETURN_IF_ERROR(bg_error_);
    // Closing: the background thread flushes nothing more, and the log
    // is about to close.
    if (shutting_down_) return ClosedError(force ? "Flush" : "Write");
    // The families switch their memtables together (one log: a log is
    // retired once every family's data in it is in tables), when any one
    // is full; writes slow and stop by the deepest level 0.
    int l0_files = 0;
    bool full = false, all_empty = true;
    for (const auto& cfd : versions_->families()) {
      l0_files = std::max(l0_files, cfd->current()->NumFiles(0));
      const MemTable& mem = *cfd->mem;
      // An empty memtable takes any write: its fixed overhead alone may
      // exceed a small write_buffer_size, and switching it for another
      // empty one would loop forever.
      full |=
          !mem.empty() && mem.ApproximateMemoryUsage() - mem.FilterMemory() >
                              cfd->options().write_buffer_size;
      all_empty &= mem.empty();
    }
    if (allow_delay && l0_files >= slowdown) {
      // Give compaction time in proportion to the bytes written (see
      // db/write_delay.h), rather than stall writers all at once later.
      stats_.Add(config::kNoLevel, kStallSlowdownWrites);
      const uint64_t micros = write_delay_.Charge(bytes, l0_files);
      if (micros > 0) {
        mu_.Unlock();
        env_->SleepForMicroseconds(static_cast<int>(micros));
        stats_.Add(config::kNoLevel, kStallMicros, micros);
        mu_.Lock();
      }
      allow_delay = false;
    } else if (!force && !full) {
      return absl::OkStatus();
    } else if (force && all_empty) {
      return absl::OkStatus();  // nothing to flush
    } else if (AnyImm()) {
      // The previous memtables are still being flushed.
      const uint64_t start = env_->NowMicros();
      bg_cv_.Wait(&mu_);
      stats_.Add(config::kNoLevel, kStallMicros, env_->NowMicros() - start);
    } else if (l0_files >= stop) {
      stats_.Add(config::kNoLevel, kStallStopWrites);
      const uint64_t start = env_->NowMicros();
      bg_cv_.Wait(&mu_);
      stats_.Add(config::kNoLevel, kStallMicros, env_->NowMicros() - start);
    } else {
      RETURN_IF_ERROR(SwitchMemTables());
      force = false;
      bg_cv_.SignalAll();  // wake the background thread: a flush is due
    }
  }
}

}  // namespace sift
