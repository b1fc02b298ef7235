// Recovery at Open: take the lock, read CURRENT and the MANIFEST, then
// replay the write-ahead logs the MANIFEST does not cover into tables.

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "db/db_impl/db_impl.h"
#include "db/filename.h"
#include "db/log_reader.h"
#include "db/write_batch_internal.h"
#include "util/status_macros.h"

namespace sift {
namespace {

// The DB gives each batch the sequences after the previous one's, so in a
// log they strictly increase and stay within 56 bits (FORMAT.md). A batch
// that breaks this is damage: replaying it would put two entries with one
// internal key in a memtable, which no table can hold, or make the DB
// write a MANIFEST it then refuses to read.
absl::Status CheckSequences(const WriteBatch& batch,
                            std::optional<SequenceNumber>* last_in_log) {
  const SequenceNumber first = WriteBatchInternal::Sequence(&batch);
  const uint32_t count = batch.Count();
  if (count == 0) return absl::OkStatus();  // takes no sequence
  if (first > kMaxSequenceNumber || count - 1 > kMaxSequenceNumber - first) {
    return absl::DataLossError(absl::StrCat("batch sequences ", first, " + ",
                                            count, " exceed 2^56 - 1"));
  }
  if (last_in_log->has_value() && first <= **last_in_log) {
    return absl::DataLossError(
        absl::StrCat("batch sequence ", first,
                     " does not follow the previous batch's ", **last_in_log));
  }
  *last_in_log = first + count - 1;
  return absl::OkStatus();
}

}  // namespace

absl::Status DBImpl::NoDatabaseError() const {
  return NoCurrentError(env_, dbname_, "create_if_missing is false");
}

absl::Status DBImpl::CreateNewDatabase() {
  mu_.AssertHeld();
  // A directory with a table or a non-empty log but no CURRENT is a
  // damaged DB, not a new one: do not start over on top of its data.
  // Anything else of ours (a MANIFEST, a temp file, an empty log) is what
  // a first Open that failed leaves: nothing in it was acknowledged.
  if (const absl::Status s = NoCurrentError(env_, dbname_, "");
      absl::IsDataLoss(s)) {
    return s;
  }
  ASSIGN_OR_RETURN(std::vector<std::string> children,
                   env_->GetChildren(dbname_));
  std::vector<std::string> leftovers;
  for (const std::string& name : children) {
    uint64_t number;
    FileType type;
    if (ParseFileName(name, &number, &type) && type != FileType::kLock) {
      leftovers.push_back(dbname_ + "/" + name);
    }
  }
  for (const std::string& path : leftovers) {
    RETURN_IF_ERROR(env_->RemoveFile(path));
  }
  // The first MANIFEST and CURRENT are durable before anything else of the
  // DB (its first log) is made: from here on the DB exists, empty.
  RETURN_IF_ERROR(versions_->CreateNew());
  VersionEdit first;
  return versions_->LogAndApply(&first, &mu_);
}

absl::Status DBImpl::InstallFamilyEdits(FamilyEdits* edits) {
  mu_.AssertHeld();
  std::vector<VersionEdit*> group;
  for (auto& [id, edit] : *edits) {
    edit.SetColumnFamily(id);
    edit.SetLogNumber(logfile_number_);
    group.push_back(&edit);
  }
  if (group.empty()) {  // the log number moves on all the same
    VersionEdit& edit = (*edits)[0];
    edit.SetLogNumber(logfile_number_);
    group.push_back(&edit);
  }
  return versions_->LogAndApply(group, &mu_);
}

absl::Status DBImpl::Recover(FamilyEdits* edits,
                             std::vector<PendingOutput>* outputs) {
  mu_.AssertHeld();
  // A read-only open creates nothing, not even the directory or LOCK.
  if (!read_only_) {
    // Without create_if_missing, no directory and no LOCK file are made
    // where there is no database. (Checked again under the lock below.)
    if (!options_.create_if_missing &&
        !env_->FileExists(CurrentFileName(dbname_))) {
      return NoDatabaseError();
    }
    absl::Status s = env_->CreateDir(dbname_);
    if (!s.ok()) {
      return absl::Status(
          s.code(), absl::StrCat("cannot use ", dbname_,
                                 " as a database directory: ", s.message()));
    }
    ASSIGN_OR_RETURN(db_lock_, env_->LockFile(LockFileName(dbname_)));
  }

  if (!env_->FileExists(CurrentFileName(dbname_))) {
    if (read_only_) {
      return NoCurrentError(env_, dbname_, "opened read-only: nothing created");
    }
    if (!options_.create_if_missing) return NoDatabaseError();
    // The families listed besides default are created only when asked.
    RETURN_IF_ERROR(CheckRequestedFamilies({}));
    return CreateNewDatabase();
  }
  if (options_.error_if_exists && !read_only_) {
    return absl::FailedPreconditionError(
        absl::StrCat(dbname_, ": database exists (error_if_exists is true)"));
  }
  std::vector<std::string> unopened;
  RETURN_IF_ERROR(versions_->Recover(
      [this](const std::string& name) -> std::optional<ColumnFamilyOptions> {
        for (const ColumnFamilyDescriptor& d : requested_) {
          if (d.name == name) return d.options;
        }
        return std::nullopt;
      },
      &unopened));
  RETURN_IF_ERROR(CheckRequestedFamilies(unopened));
  if (options_.paranoid_checks) RETURN_IF_ERROR(VerifyAllTables());

  // Replay every log at least as new as the MANIFEST's log number, oldest
  // first.
  ASSIGN_OR_RETURN(std::vector<std::string> children,
                   env_->GetChildren(dbname_));
  // Every number a file in the directory carries counts as used, not only
  // those the MANIFEST names: a moved ingest links its table in before its
  // MANIFEST record is durable, and a crash between the two leaves a table
  // numbered at or above the recovered next file number. Counted here, it
  // falls below that number, no Version names it, and the sweep after Open
  // removes it; uncounted, the number would be handed out again.
  std::vector<uint64_t> logs;
  for (const std::string& name : children) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(name, &number, &type)) continue;
    if (type != FileType::kLock && type != FileType::kCurrent) {
      versions_->MarkFileNumberUsed(number);
    }
    if (type == FileType::kLog && number >= versions_->log_number()) {
      logs.push_back(number);
    }
  }
  std::sort(logs.begin(), logs.end());
  // The MANIFEST's log number names the oldest WAL still needed, and that
  // file is never deleted while the MANIFEST names it. If it is gone, the
  // MANIFEST records that retired it were lost (an incomplete last record
  // is dropped as a torn write), and with them the tables holding its
  // writes.
  const uint64_t needed = versions_->log_number();
  if (needed != 0 && (logs.empty() || logs.front() != needed)) {
    return absl::DataLossError(absl::StrCat(
        ManifestFileName(dbname_, versions_->durable_manifest_number()),
        " needs ", LogFileName(dbname_, needed),
        ", which is missing: the MANIFEST has lost records"));
  }
  SequenceNumber max_sequence = versions_->LastSequence();
  wal_recovery_ = WalRecoveryStats();
  bool stopped = false;
  for (uint64_t number : logs) {
    versions_->MarkFileNumberUsed(number);
    if (stopped) {
      // kPointInTimeRecovery: replaying a later log after damage would
      // leave a hole in the history, so it is dropped whole.
      auto size = env_->GetFileSize(LogFileName(dbname_, number));
      if (size.ok()) wal_recovery_.dropped_bytes += *size;
      ++wal_recovery_.logs_dropped;
      continue;
    }
    RETURN_IF_ERROR(
        RecoverLogFile(number, edits, outputs, &max_sequence, &stopped));
  }
  versions_->SetLastSequence(max_sequence);
  return absl::OkStatus();
}

absl::Status DBImpl::RecoverLogFile(uint64_t number, FamilyEdits* edits,
                                    std::vector<PendingOutput>* outputs,
                                    SequenceNumber* max_sequence,
                                    bool* stopped) {
  mu_.AssertHeld();
  const std::string name = LogFileName(dbname_, number);
  std::string contents;
  RETURN_IF_ERROR(ReadFileToString(env_, name, &contents));
  const WALRecoveryMode mode = options_.wal_recovery_mode;
  log::Reader reader(contents, name, mode);
  std::string scratch;
  std::string_view record;
  // Read-only, every log goes into the families' memtables and stays in
  // memory; otherwise each log's writes go to level-0 tables. By family
  // ID; an ID without a family (dropped) has its entries skipped.
  std::vector<std::shared_ptr<MemTable>> mems;
  std::vector<ColumnFamilyData*> cfds;
  for (const auto& cfd : versions_->families()) {
    if (cfds.size() <= cfd->id()) {
      cfds.resize(cfd->id() + 1);
      mems.resize(cfd->id() + 1);
    }
    cfds[cfd->id()] = cfd.get();
    if (read_only_) {
      if (cfd->mem == nullptr) cfd->mem = NewMemTable(*cfd);
      mems[cfd->id()] = cfd->mem;
    }
  }
  std::vector<MemTable*> targets(mems.size());
  // Writes mems[id] to a table and starts it anew.
  auto write_table = [&](size_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    absl::Status s = WriteLevel0Table(cfds[id], mems[id].get(), &(*edits)[id],
                                      nullptr, outputs);
    mems[id].reset();
    return s;
  };
  WriteBatch batch;
  std::optional<SequenceNumber> last_in_log;
  ++wal_recovery_.logs;
  while (reader.ReadRecord(&record, &scratch)) {
    absl::Status s = WriteBatchInternal::SetContents(&batch, record);
    // Checked whole before any of it reaches the memtable.
    if (s.ok()) s = WriteBatchInternal::Verify(&batch);
    if (s.ok()) s = CheckSequences(batch, &last_in_log);
    if (!s.ok()) {
      // A record with a good checksum but a bad batch: damage the modes
      // that drop damage may drop like any other.
      const uint64_t at = reader.last_record_offset();
      s = absl::DataLossError(
          absl::StrCat(name, ": record at offset ", at, ": ", s.message()));
      if (wal_recovery_.first_damage.empty()) {
        wal_recovery_.first_damage = std::string(s.message());
      }
      ++wal_recovery_.damaged_regions;
      if (mode == WALRecoveryMode::kSkipAnyCorruptedRecords) {
        wal_recovery_.dropped_bytes += record.size();
        continue;
      }
      if (mode != WALRecoveryMode::kPointInTimeRecovery) return s;
      wal_recovery_.dropped_bytes += contents.size() - at;
      *stopped = true;
      break;
    }
    for (size_t id = 0; id < mems.size(); ++id) {
      if (cfds[id] != nullptr && mems[id] == nullptr) {
        mems[id] = NewMemTable(*cfds[id]);
      }
      targets[id] = mems[id].get();
    }
    RETURN_IF_ERROR(WriteBatchInternal::InsertInto(&batch, targets));
    ++wal_recovery_.records;
    const SequenceNumber last =
        WriteBatchInternal::Sequence(&batch) + batch.Count() - 1;
    if (batch.Count() > 0 && last > *max_sequence) *max_sequence = last;
    for (size_t id = 0; !read_only_ && id < mems.size(); ++id) {
      const MemTable* mem = mems[id].get();
      if (mem != nullptr &&
          mem->ApproximateMemoryUsage() - mem->FilterMemory() >
              cfds[id]->options().write_buffer_size) {
        RETURN_IF_ERROR(write_table(id));
      }
    }
  }
  RETURN_IF_ERROR(reader.status());
  wal_recovery_.dropped_bytes += reader.dropped_bytes();
  wal_recovery_.damaged_regions += reader.damaged_regions();
  if (wal_recovery_.first_damage.empty()) {
    wal_recovery_.first_damage = reader.first_damage();
  }
  if (mode == WALRecoveryMode::kPointInTimeRecovery && reader.dropped_tail()) {
    *stopped = true;
  }
  for (size_t id = 0; !read_only_ && id < mems.size(); ++id) {
    if (mems[id] != nullptr && !mems[id]->empty()) {
      RETURN_IF_ERROR(write_table(id));
    }
  }
  return absl::OkStatus();
}

absl::Status DBImpl::VerifyAllTables() {
  mu_.AssertHeld();
  for (const auto& cfd : versions_->families()) {
    const auto v = cfd->current();
    for (const auto& level : v->files) {
      for (const auto& f : level) {
        ASSIGN_OR_RETURN(std::shared_ptr<const Table> t,
                         cfd->table_cache()->Get(*f));
        RETURN_IF_ERROR(t->VerifyChecksum());
        RETURN_IF_ERROR(t->filter_status());
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace sift
