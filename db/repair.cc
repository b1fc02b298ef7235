// RepairDB: rebuilds a database whose MANIFEST or CURRENT is lost or
// damaged from the files that remain.
//
//  0. Before anything is moved or written: every MANIFEST present that
//     names its comparator, and every table whose sift.comparator property
//     names one, must name options.comparator. Under another order every
//     good table would read as damaged and be set aside.
//  1. Every write-ahead log is read, skipping damaged records, and its
//     batches are written to new tables; the log is then set aside in
//     lost/ (its contents now live in the tables).
//  2. Every table is read whole, checksums verified, to learn its key range
//     and largest sequence. A table that cannot be read is set aside in
//     lost/.
//  3. A new MANIFEST names every readable table at level 0 (the level
//     structure is gone with the MANIFEST), CURRENT points to it, and old
//     MANIFESTs are set aside.
//  4. The DB is opened and compacted whole. Level-0 files are searched
//     newest first by file number, which is only safe for files flushed in
//     order; a compaction merges entries by sequence instead, so after it
//     every key reads its newest version again.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "db/builder.h"
#include "db/file_meta.h"
#include "db/filename.h"
#include "db/log_reader.h"
#include "db/log_writer.h"
#include "db/memtable.h"
#include "db/table_cache.h"
#include "db/version_edit.h"
#include "db/version_set.h"
#include "db/write_batch_internal.h"
#include "sift/db.h"
#include "table/table.h"
#include "util/status_macros.h"

namespace sift {
namespace {

// The block cache of the tables the repair writes; they are read once.
constexpr size_t kRepairBlockCacheBytes = 1 << 20;

class Repairer {
 public:
  Repairer(const std::string& dbname, const Options& options,
           RepairReport* report)
      : dbname_(dbname),
        options_(options),
        env_(options.env != nullptr ? options.env : Env::Default()),
        block_cache_(kRepairBlockCacheBytes),
        table_cache_(dbname, env_, options.max_open_files, &block_cache_,
                     options.allow_mmap_reads, options.comparator,
                     options.filter_policy.get()),
        report_(report) {
    options_.env = env_;
  }

  static absl::Status CheckIsDatabase(Env* env, const std::string& dbname) {
    ASSIGN_OR_RETURN(std::vector<std::string> children,
                     env->GetChildren(dbname));
    for (const std::string& name : children) {
      uint64_t number;
      FileType type;
      if (ParseFileName(name, &number, &type) &&
          (type == FileType::kLog || type == FileType::kTable ||
           type == FileType::kManifest)) {
        return absl::OkStatus();
      }
    }
    return absl::FailedPreconditionError(absl::StrCat(
        dbname, ": no database files (logs, tables, MANIFEST) to repair"));
  }

  // InvalidArgument, naming both comparators, if a MANIFEST or a table in
  // dbname names a comparator other than `comparator`. A MANIFEST that
  // cannot be read, or whose snapshot (the record naming the comparator) is
  // damaged, says nothing; so does a table that cannot be opened (the scan
  // sets it aside) or that predates the sift.comparator property
  // (table/FORMAT.md).
  static absl::Status CheckComparator(Env* env, const std::string& dbname,
                                      const Comparator& comparator) {
    ASSIGN_OR_RETURN(std::vector<std::string> children,
                     env->GetChildren(dbname));
    for (const std::string& name : children) {
      uint64_t number;
      FileType type;
      if (!ParseFileName(name, &number, &type)) continue;
      const std::string path = dbname + "/" + name;
      if (type == FileType::kTable) {
        RETURN_IF_ERROR(CheckTableComparator(env, path, comparator));
        continue;
      }
      if (type != FileType::kManifest) continue;
      std::string contents;
      if (!ReadFileToString(env, path, &contents).ok()) continue;
      log::Reader reader(contents, path,
                         WALRecoveryMode::kSkipAnyCorruptedRecords);
      std::string scratch;
      std::string_view record;
      while (reader.ReadRecord(&record, &scratch)) {
        VersionEdit edit;
        if (!edit.DecodeFrom(record).ok() || !edit.comparator_) continue;
        if (*edit.comparator_ != comparator.Name()) {
          return ComparatorMismatchError(absl::StrCat("RepairDB: ", path),
                                         *edit.comparator_, comparator.Name());
        }
      }
    }
    return absl::OkStatus();
  }

  static absl::Status CheckTableComparator(Env* env, const std::string& path,
                                           const Comparator& comparator) {
    absl::StatusOr<uint64_t> size = env->GetFileSize(path);
    if (!size.ok()) return absl::OkStatus();
    absl::StatusOr<std::unique_ptr<RandomAccessFile>> file =
        env->NewRandomAccessFile(path);
    if (!file.ok()) return absl::OkStatus();
    // Open refuses, naming both, a table whose properties name another
    // comparator; any other failure is damage, for the scan to set aside.
    const absl::Status s = Table::Open(path, *std::move(file), *size,
                                       /*block_cache=*/nullptr, &comparator)
                               .status();
    if (!absl::IsInvalidArgument(s)) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("RepairDB: ", s.message()));
  }

  absl::Status Run() {
    RETURN_IF_ERROR(FindFiles());
    for (uint64_t number : logs_) RETURN_IF_ERROR(ConvertLog(number));
    for (size_t i = 0; i < tables_.size(); ++i) {
      RETURN_IF_ERROR(ScanTable(tables_[i]));
    }
    RETURN_IF_ERROR(WriteDescriptor());
    for (const std::string& name : manifests_) {
      RETURN_IF_ERROR(SetAside(name, "replaced by the repaired MANIFEST"));
    }
    return absl::OkStatus();
  }

 private:
  absl::Status FindFiles() {
    ASSIGN_OR_RETURN(std::vector<std::string> children,
                     env_->GetChildren(dbname_));
    for (const std::string& name : children) {
      uint64_t number;
      FileType type;
      if (!ParseFileName(name, &number, &type)) continue;
      next_file_number_ = std::max(next_file_number_, number + 1);
      if (type == FileType::kLog) logs_.push_back(number);
      if (type == FileType::kTable) tables_.push_back(number);
      if (type == FileType::kManifest) manifests_.push_back(name);
    }
    std::sort(logs_.begin(), logs_.end());
    std::sort(tables_.begin(), tables_.end());
    return absl::OkStatus();
  }

  std::shared_ptr<MemTable> NewMemTable() const {
    return NewMemTableForWriteBuffer(
        KeyComparator::Internal(options_.comparator),
        options_.write_buffer_size);
  }

  // Writes mem to a new table, which the table scan then checks like any.
  absl::Status WriteTable(MemTable* mem) {
    const uint64_t number = next_file_number_++;
    FileMetaData meta;
    std::unique_ptr<Iterator> iter = mem->NewIterator();
    // RepairDB keeps one family (it refuses a DB with others).
    RETURN_IF_ERROR(BuildTable(dbname_, env_, options_, TableFamily(),
                               &table_cache_, iter.get(), number, &meta,
                               mem->RangeTombstoneList()));
    if (meta.file_size > 0) tables_.push_back(number);
    return absl::OkStatus();
  }

  // Writing tables or moving files may fail (say, disk full): that stops
  // the repair, before a MANIFEST is written, so it can be run again.
  absl::Status ConvertLog(uint64_t number) {
    const std::string name = LogFileName(dbname_, number);
    const std::string base = name.substr(dbname_.size() + 1);
    std::string contents;
    absl::Status s = ReadFileToString(env_, name, &contents);
    if (!s.ok()) return SetAside(base, std::string(s.message()));
    log::Reader reader(contents, name,
                       WALRecoveryMode::kSkipAnyCorruptedRecords);
    std::string scratch;
    std::string_view record;
    std::shared_ptr<MemTable> mem = NewMemTable();
    WriteBatch batch;
    uint64_t records = 0;
    while (s.ok() && reader.ReadRecord(&record, &scratch)) {
      if (!WriteBatchInternal::SetContents(&batch, record).ok() ||
          !WriteBatchInternal::Verify(&batch).ok() ||
          WriteBatchInternal::Sequence(&batch) + batch.Count() >
              kMaxSequenceNumber) {
        ++report_->log_records_dropped;
        report_->log_bytes_dropped += record.size();
        continue;
      }
      s = WriteBatchInternal::InsertInto(&batch, mem.get());
      if (!s.ok()) break;
      ++records;
      if (batch.Count() > 0) {
        max_sequence_ =
            std::max(max_sequence_,
                     WriteBatchInternal::Sequence(&batch) + batch.Count() - 1);
      }
      if (mem->ApproximateMemoryUsage() - mem->FilterMemory() >
          options_.write_buffer_size) {
        s = WriteTable(mem.get());
        mem = NewMemTable();
      }
    }
    if (s.ok()) s = reader.status();
    if (s.ok() && !mem->empty()) s = WriteTable(mem.get());
    report_->log_records_dropped += reader.damaged_regions();
    report_->log_bytes_dropped += reader.dropped_bytes();
    report_->log_records_salvaged += records;
    RETURN_IF_ERROR(s);
    return SetAside(base, absl::StrCat("converted to tables (", records,
                                       " records salvaged)"));
  }

  // Reads the table whole to learn its key range and largest sequence.
  absl::Status ReadTable(uint64_t number, FileMetaData* meta) {
    const std::string name = TableFileName(dbname_, number);
    ASSIGN_OR_RETURN(meta->file_size, env_->GetFileSize(name));
    ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                     env_->NewRandomAccessFile(name));
    ASSIGN_OR_RETURN(std::unique_ptr<Table> table,
                     Table::Open(name, std::move(file), meta->file_size,
                                 /*block_cache=*/nullptr, options_.comparator));
    RETURN_IF_ERROR(table->VerifyChecksum());
    ReadOptions ro;
    ro.fill_cache = false;
    std::unique_ptr<Iterator> it = table->NewIterator(ro);
    SequenceNumber min_sequence = kMaxSequenceNumber, max_sequence = 0;
    bool empty = true;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      ParsedInternalKey parsed;
      if (!ParseInternalKey(it->key(), &parsed)) {
        return absl::DataLossError(
            absl::StrCat(name, ": holds a malformed internal key"));
      }
      if (empty) meta->smallest.assign(it->key());
      meta->largest.assign(it->key());
      empty = false;
      min_sequence = std::min(min_sequence, parsed.sequence);
      max_sequence = std::max(max_sequence, parsed.sequence);
    }
    RETURN_IF_ERROR(it->status());
    // Range tombstones widen the key range as OutputFile::Finish does.
    for (const RangeTombstone& t : table->range_tombstones().ToTombstones()) {
      std::string lo, hi;
      AppendInternalKey(&lo, t.begin, kMaxSequenceNumber, kValueTypeForSeek);
      AppendInternalKey(&hi, t.end, kMaxSequenceNumber, kTypeRangeDeletion);
      if (empty || KeyComparator::Internal(BytewiseComparator())
                           .Compare(lo, meta->smallest) < 0) {
        meta->smallest = lo;
      }
      if (empty || KeyComparator::Internal(BytewiseComparator())
                           .Compare(hi, meta->largest) > 0) {
        meta->largest = hi;
      }
      empty = false;
      min_sequence = std::min(min_sequence, t.seq);
      max_sequence = std::max(max_sequence, t.seq);
    }
    if (empty) return absl::DataLossError(absl::StrCat(name, ": no entries"));
    meta->number = number;
    // The facts its properties give, with the exact sequence range read.
    meta->facts = FactsFromProperties(table->properties(), max_sequence);
    meta->facts->smallest_seq = min_sequence;
    meta->facts->largest_seq = max_sequence;
    max_sequence_ = std::max(max_sequence_, max_sequence);
    return absl::OkStatus();
  }

  absl::Status ScanTable(uint64_t number) {
    auto meta = std::make_shared<FileMetaData>();
    const absl::Status s = ReadTable(number, meta.get());
    const std::string base =
        TableFileName(dbname_, number).substr(dbname_.size() + 1);
    if (!s.ok()) {
      report_->tables_lost.push_back(absl::StrCat(base, ": ", s.message()));
      return SetAside(base, std::string(s.message()));
    }
    report_->tables_kept.push_back(base);
    kept_.push_back(std::move(meta));
    return absl::OkStatus();
  }

  absl::Status WriteDescriptor() {
    VersionEdit edit;
    edit.SetComparatorName(options_.comparator->Name());
    edit.SetFormatVersion(kDbFormatVersionOneFamily);
    // Every log was converted and set aside: none is needed.
    edit.SetLogNumber(0);
    edit.SetLastSequence(max_sequence_);
    for (const auto& f : kept_) edit.AddFile(0, f);
    const uint64_t manifest_number = next_file_number_++;
    edit.SetNextFile(next_file_number_);
    std::string record;
    edit.EncodeTo(&record);
    const std::string name = ManifestFileName(dbname_, manifest_number);
    ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                     env_->NewWritableFile(name));
    log::Writer writer(file.get());
    absl::Status s = writer.AddRecord(record);
    if (s.ok()) s = file->Sync();
    if (s.ok()) s = file->Close();
    if (s.ok()) s = SetCurrentFile(env_, dbname_, manifest_number);
    if (!s.ok()) {
      file.reset();
      env_->RemoveFile(name).IgnoreError();
    }
    return s;
  }

  // Moves dbname/name into dbname/lost/ and reports why. A file left in
  // place that the new MANIFEST does not name would be deleted at Open.
  absl::Status SetAside(const std::string& name, const std::string& why) {
    const std::string lost = dbname_ + "/lost";
    if (!env_->FileExists(lost)) RETURN_IF_ERROR(env_->CreateDir(lost));
    RETURN_IF_ERROR(env_->RenameFile(dbname_ + "/" + name, lost + "/" + name));
    report_->set_aside.push_back(absl::StrCat(name, ": ", why));
    return absl::OkStatus();
  }

  const std::string dbname_;
  Options options_;
  Env* const env_;
  BlockCache block_cache_;
  TableCache table_cache_;
  RepairReport* const report_;
  std::vector<uint64_t> logs_;
  std::vector<uint64_t> tables_;
  std::vector<std::string> manifests_;
  std::vector<std::shared_ptr<FileMetaData>> kept_;
  uint64_t next_file_number_ = 1;
  SequenceNumber max_sequence_ = 0;
};

}  // namespace

std::string RepairReport::ToString() const {
  std::string s = absl::StrCat("tables kept: ", tables_kept.size(),
                               "\nlog records salvaged: ", log_records_salvaged,
                               "\nlog records dropped: ", log_records_dropped,
                               "\nlog bytes dropped: ", log_bytes_dropped,
                               "\ntables lost: ", tables_lost.size(),
                               "\nset aside in lost/:\n");
  for (const std::string& l : set_aside) absl::StrAppend(&s, "  ", l, "\n");
  return s;
}

absl::Status RepairDB(const std::string& path, const Options& options,
                      RepairReport* report) {
  RepairReport unused;
  if (report == nullptr) report = &unused;
  *report = RepairReport();
  if (options.comparator == nullptr) {
    return absl::InvalidArgumentError("Options::comparator must not be null");
  }
  Env* env = options.env != nullptr ? options.env : Env::Default();
  {
    // Nothing, not even a LOCK file, is created in a directory that holds
    // no database or one of another comparator.
    RETURN_IF_ERROR(Repairer::CheckIsDatabase(env, path));
    // Tables do not record their column family: rebuilt into "default",
    // several families' keys would mix. Refused while the MANIFEST still
    // says there are families (a MANIFEST too damaged to say is repaired
    // as one family).
    absl::StatusOr<std::vector<std::string>> families =
        VersionSet::ListColumnFamilies(env, path);
    if (families.ok() && families->size() > 1) {
      return absl::FailedPreconditionError(absl::StrCat(
          "RepairDB: ", path, " has column families (",
          absl::StrJoin(*families, ", "),
          "), which RepairDB does not rebuild: its tables do not record "
          "their family; nothing was changed"));
    }
    RETURN_IF_ERROR(Repairer::CheckComparator(env, path, *options.comparator));
    // Held while files move, so an open DB is not repaired under it.
    ASSIGN_OR_RETURN(std::unique_ptr<FileLock> lock,
                     env->LockFile(LockFileName(path)));
    Repairer repairer(path, options, report);
    RETURN_IF_ERROR(repairer.Run());
  }
  Options o = options;
  o.create_if_missing = false;
  o.error_if_exists = false;
  ASSIGN_OR_RETURN(std::unique_ptr<DB> db, DB::Open(o, path));
  return db->CompactRange(std::nullopt, std::nullopt);
}

absl::Status RepairDB(const Options& options, const std::string& path) {
  return RepairDB(path, options);
}

}  // namespace sift
