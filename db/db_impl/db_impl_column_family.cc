// DBImpl's column families (docs/DESIGN.md, "Column families"): Open with
// descriptors, CreateColumnFamily and DropColumnFamily, the checks on
// handles and batches, and the methods that take a handle. What a family
// holds: db/column_family.h; the MANIFEST records: db/version_set.cc.

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "db/db_impl/db_impl.h"
#include "db/write_batch_internal.h"
#include "util/status_macros.h"

namespace sift {
namespace {

// InvalidArgument unless the descriptors name distinct, non-empty
// families, "default" among them when must_have_default.
absl::Status CheckDescriptors(const char* operation,
                              const std::vector<ColumnFamilyDescriptor>& fams,
                              bool must_have_default) {
  std::set<std::string_view> seen;
  for (const ColumnFamilyDescriptor& d : fams) {
    if (d.name.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(operation, ": a column family with an empty name"));
    }
    if (!seen.insert(d.name).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          operation, ": column family '", d.name, "' listed twice"));
    }
  }
  if (must_have_default && seen.count(kDefaultColumnFamilyName) == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(operation, ": the column families must include '",
                     kDefaultColumnFamilyName, "'"));
  }
  return absl::OkStatus();
}

// The options of the default family's descriptor (or `options`' own if
// none), and the other descriptors.
Options DefaultFamilyOptions(const DBOptions& options,
                             const std::vector<ColumnFamilyDescriptor>& fams,
                             std::vector<ColumnFamilyDescriptor>* others) {
  ColumnFamilyOptions cf;
  for (const ColumnFamilyDescriptor& d : fams) {
    if (d.name == kDefaultColumnFamilyName) {
      cf = d.options;
    } else {
      others->push_back(d);
    }
  }
  return Options(options, cf);
}

std::vector<std::string> NamesOf(
    const std::vector<ColumnFamilyDescriptor>& fams) {
  std::vector<std::string> names;
  for (const ColumnFamilyDescriptor& d : fams) names.push_back(d.name);
  return names;
}

}  // namespace

absl::StatusOr<std::unique_ptr<DB>> DB::Open(
    const DBOptions& options, const std::string& path,
    const std::vector<ColumnFamilyDescriptor>& families,
    std::vector<std::unique_ptr<ColumnFamilyHandle>>* handles) {
  if (handles == nullptr) {
    return absl::InvalidArgumentError("DB::Open: null handles");
  }
  handles->clear();
  RETURN_IF_ERROR(CheckDescriptors("DB::Open", families, true));
  std::vector<ColumnFamilyDescriptor> others;
  const Options db_options = DefaultFamilyOptions(options, families, &others);
  RETURN_IF_ERROR(ValidateOptions(db_options));
  for (const ColumnFamilyDescriptor& d : others) {
    absl::Status s = ValidateOptions(Options(options, d.options));
    if (!s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("column family '", d.name, "': ", s.message()));
    }
  }
  if (path.empty()) {
    return absl::InvalidArgumentError("DB::Open: empty database path");
  }
  auto db = std::make_unique<DBImpl>(db_options, path, /*read_only=*/false,
                                     std::move(others));
  RETURN_IF_ERROR(db->OpenImpl());
  RETURN_IF_ERROR(db->HandlesFor(NamesOf(families), handles));
  return db;
}

absl::StatusOr<std::unique_ptr<DB>> DB::OpenForReadOnly(
    const DBOptions& options, const std::string& path,
    const std::vector<ColumnFamilyDescriptor>& families,
    std::vector<std::unique_ptr<ColumnFamilyHandle>>* handles) {
  if (handles == nullptr) {
    return absl::InvalidArgumentError("DB::OpenForReadOnly: null handles");
  }
  handles->clear();
  RETURN_IF_ERROR(CheckDescriptors("DB::OpenForReadOnly", families, true));
  std::vector<ColumnFamilyDescriptor> others;
  const Options db_options = DefaultFamilyOptions(options, families, &others);
  RETURN_IF_ERROR(ValidateOptions(db_options));
  for (const ColumnFamilyDescriptor& d : others) {
    absl::Status s = ValidateOptions(Options(options, d.options));
    if (!s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("column family '", d.name, "': ", s.message()));
    }
  }
  ASSIGN_OR_RETURN(
      std::unique_ptr<DB> db,
      DBImpl::OpenForReadOnlyWith(db_options, path, std::move(others)));
  auto* impl = static_cast<DBImpl*>(db.get());
  RETURN_IF_ERROR(impl->HandlesFor(NamesOf(families), handles));
  return db;
}

absl::StatusOr<std::vector<std::string>> DB::ListColumnFamilies(
    const DBOptions& options, const std::string& path) {
  Env* env = options.env != nullptr ? options.env : Env::Default();
  if (!env->FileExists(path + "/CURRENT")) {
    return absl::NotFoundError(
        absl::StrCat(path, ": no database (no CURRENT file)"));
  }
  return VersionSet::ListColumnFamilies(env, path);
}

absl::Status DBImpl::HandlesFor(
    const std::vector<std::string>& names,
    std::vector<std::unique_ptr<ColumnFamilyHandle>>* handles) {
  MutexLock l(&mu_);
  handles->clear();
  for (const std::string& name : names) {
    std::shared_ptr<ColumnFamilyData> cfd = versions_->FamilyByName(name);
    if (cfd == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(dbname_, ": column family '", name, "' does not exist"));
    }
    handles->push_back(
        std::make_unique<ColumnFamilyHandleImpl>(std::move(cfd), this));
  }
  return absl::OkStatus();
}

absl::Status DBImpl::CheckRequestedFamilies(
    const std::vector<std::string>& unopened) const {
  mu_.AssertHeld();
  if (!unopened.empty() && !read_only_) {
    return absl::InvalidArgumentError(absl::StrCat(
        dbname_,
        ": column families not opened: ", absl::StrJoin(unopened, ", "),
        " (DB::Open must list every family the database has)"));
  }
  if (read_only_ || options_.create_missing_column_families) {
    if (read_only_) {
      for (const ColumnFamilyDescriptor& d : requested_) {
        if (versions_->FamilyByName(d.name) == nullptr) {
          return absl::InvalidArgumentError(
              absl::StrCat(dbname_, ": column family '", d.name,
                           "' does not exist (a read-only open creates none)"));
        }
      }
    }
    return absl::OkStatus();
  }
  for (const ColumnFamilyDescriptor& d : requested_) {
    if (versions_->FamilyByName(d.name) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          dbname_, ": column family '", d.name,
          "' does not exist (set create_missing_column_families to create "
          "it)"));
    }
  }
  return absl::OkStatus();
}

absl::Status DBImpl::CreateMissingFamilies() {
  mu_.AssertHeld();
  for (const ColumnFamilyDescriptor& d : requested_) {
    if (versions_->FamilyByName(d.name) != nullptr) continue;
    ASSIGN_OR_RETURN(
        std::shared_ptr<ColumnFamilyData> cfd,
        versions_->CreateColumnFamily(d.name, FamilyOptions(d.options), &mu_));
    cfd->mem = NewMemTable(*cfd);
  }
  InstallMemTables();
  return absl::OkStatus();
}

absl::StatusOr<ColumnFamilyData*> DBImpl::FamilyOf(
    const ColumnFamilyHandle* family, std::string_view operation) const {
  if (family == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(operation), ": null column family handle"));
  }
  // The DB's own handle (every call without one): default is never
  // dropped, and no type check is needed on the write and read paths.
  if (family == default_handle_.get()) return default_cf_;
  const auto* impl = dynamic_cast<const ColumnFamilyHandleImpl*>(family);
  if (impl == nullptr || impl->db() != this) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(operation), ": the handle of column family '",
        family->GetName(), "' belongs to another DB, not ", dbname_));
  }
  if (impl->cfd()->dropped()) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(operation), ": column family '",
                     family->GetName(), "' was dropped"));
  }
  return impl->cfd();
}

absl::Status DBImpl::CheckBatchFamilies(const WriteBatch* batch) const {
  mu_.AssertHeld();
  std::vector<WriteBatchInternal::FamilyUse> uses;
  RETURN_IF_ERROR(WriteBatchInternal::Families(batch, &uses));
  for (const WriteBatchInternal::FamilyUse& use : uses) {
    std::shared_ptr<ColumnFamilyData> cfd = versions_->FamilyById(use.family);
    if (cfd == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Write: the batch names column family ", use.family, ", which ",
          dbname_, " does not have (dropped, or another DB's)"));
    }
    // Range tombstones are fragmented and compared bytewise
    // (table/range_tombstone.h): refused under any other comparator rather
    // than deleting the wrong keys.
    if (use.range_deletion &&
        cfd->options().comparator != BytewiseComparator()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "DeleteRange needs the bytewise comparator; ",
          cfd->id() == 0 ? std::string("this DB")
                         : absl::StrCat("column family '", cfd->name(), "'"),
          " uses ", cfd->options().comparator->Name()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ColumnFamilyHandle>> DBImpl::CreateColumnFamily(
    const ColumnFamilyOptions& options, const std::string& name) {
  RETURN_IF_ERROR(CheckWritable("CreateColumnFamily"));
  if (name.empty()) {
    return absl::InvalidArgumentError(
        "CreateColumnFamily: a column family needs a name");
  }
  const Options o = FamilyOptions(options);
  absl::Status valid = ValidateOptions(o);
  if (!valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("CreateColumnFamily '", name, "': ", valid.message()));
  }
  MutexLock l(&mu_);
  std::shared_ptr<ColumnFamilyData> created;
  // As the front writer: the new memtable joins write_mems_ with no write
  // in flight.
  RETURN_IF_ERROR(RunAsFrontWriter([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    RETURN_IF_ERROR(bg_error_);
    if (versions_->FamilyByName(name) != nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "CreateColumnFamily: column family '", name, "' already exists"));
    }
    ASSIGN_OR_RETURN(created, versions_->CreateColumnFamily(name, o, &mu_));
    created->mem = NewMemTable(*created);
    InstallMemTables();
    return absl::OkStatus();
  }));
  return std::make_unique<ColumnFamilyHandleImpl>(std::move(created), this);
}

absl::Status DBImpl::DropColumnFamily(ColumnFamilyHandle* family) {
  RETURN_IF_ERROR(CheckWritable("DropColumnFamily"));
  ASSIGN_OR_RETURN(ColumnFamilyData * cfd,
                   FamilyOf(family, "DropColumnFamily"));
  if (cfd->id() == 0) {
    return absl::InvalidArgumentError(
        "DropColumnFamily: the default column family cannot be dropped");
  }
  MutexLock l(&mu_);
  return RunAsFrontWriter([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    RETURN_IF_ERROR(bg_error_);
    if (cfd->dropped()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "DropColumnFamily: column family '", cfd->name(), "' was dropped"));
    }
    // A flush of the family's memtable may be writing: the drop waits for
    // it (the flush installs the family's table before the drop record).
    while (flush_running_) bg_cv_.Wait(&mu_);
    RETURN_IF_ERROR(versions_->DropColumnFamily(cfd, &mu_));
    AddStatistics(cfd->read_stats()->Snapshot(), &dropped_read_stats_);
    cfd->mem.reset();
    cfd->imm.reset();
    // Readers holding a view keep it; later reads are refused by FamilyOf.
    cfd->views.Install(nullptr);
    bool any_imm = false;
    for (const auto& f : versions_->families()) any_imm |= f->imm != nullptr;
    has_imm_.store(any_imm, std::memory_order_release);
    InstallMemTables();
    DeleteObsoleteFiles();
    bg_cv_.SignalAll();
    return absl::OkStatus();
  });
}

absl::Status DBImpl::Get(const ReadOptions& options, ColumnFamilyHandle* family,
                         std::string_view key, std::string* value) {
  ASSIGN_OR_RETURN(ColumnFamilyData * cfd, FamilyOf(family, "Get"));
  return GetImpl(options, cfd, key, value);
}

std::vector<absl::Status> DBImpl::MultiGet(
    const ReadOptions& options, ColumnFamilyHandle* family,
    absl::Span<const std::string_view> keys, std::vector<std::string>* values) {
  absl::StatusOr<ColumnFamilyData*> cfd = FamilyOf(family, "MultiGet");
  if (!cfd.ok()) {
    values->assign(keys.size(), std::string());
    return std::vector<absl::Status>(keys.size(), cfd.status());
  }
  return MultiGetImpl(options, *cfd, keys, values);
}

std::unique_ptr<Iterator> DBImpl::NewIterator(const ReadOptions& options,
                                              ColumnFamilyHandle* family) {
  absl::StatusOr<ColumnFamilyData*> cfd = FamilyOf(family, "NewIterator");
  if (!cfd.ok()) return NewEmptyIterator(cfd.status());
  // The view first, then the sequence (see GetImpl).
  std::shared_ptr<const ReadView> view = (*cfd)->views.Acquire().Share();
  return NewIteratorAt(options, *cfd, std::move(view), ReadSequence(options));
}

absl::StatusOr<std::vector<std::unique_ptr<Iterator>>> DBImpl::NewIterators(
    const ReadOptions& options,
    const std::vector<ColumnFamilyHandle*>& families) {
  std::vector<ColumnFamilyData*> cfds;
  for (ColumnFamilyHandle* family : families) {
    ASSIGN_OR_RETURN(ColumnFamilyData * cfd, FamilyOf(family, "NewIterators"));
    cfds.push_back(cfd);
  }
  // Every view, then one sequence: each view holds everything published
  // up to it, so each family reads its state at that one sequence.
  std::vector<std::shared_ptr<const ReadView>> views;
  for (ColumnFamilyData* cfd : cfds)
    views.push_back(cfd->views.Acquire().Share());
  const SequenceNumber seq = ReadSequence(options);
  std::vector<std::unique_ptr<Iterator>> iterators;
  for (size_t i = 0; i < cfds.size(); ++i) {
    iterators.push_back(
        NewIteratorAt(options, cfds[i], std::move(views[i]), seq));
  }
  return iterators;
}

absl::Status DBImpl::Flush(ColumnFamilyHandle* family) {
  RETURN_IF_ERROR(FamilyOf(family, "Flush").status());
  return Flush();
}

absl::Status DBImpl::CompactRange(ColumnFamilyHandle* family,
                                  std::optional<std::string_view> begin,
                                  std::optional<std::string_view> end) {
  ASSIGN_OR_RETURN(ColumnFamilyData * cfd, FamilyOf(family, "CompactRange"));
  return CompactRangeImpl(cfd, begin, end);
}

std::optional<std::string> DBImpl::GetProperty(ColumnFamilyHandle* family,
                                               std::string_view name) {
  absl::StatusOr<ColumnFamilyData*> cfd = FamilyOf(family, "GetProperty");
  if (!cfd.ok()) return std::nullopt;
  return GetPropertyImpl(*cfd, name);
}

absl::StatusOr<std::vector<uint64_t>> DBImpl::GetApproximateSizes(
    const SizeApproximationOptions& options, ColumnFamilyHandle* family,
    absl::Span<const Range> ranges) {
  ASSIGN_OR_RETURN(ColumnFamilyData * cfd,
                   FamilyOf(family, "GetApproximateSizes"));
  return GetApproximateSizesImpl(options, cfd, ranges);
}

}  // namespace sift
