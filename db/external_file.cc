#include "db/external_file.h"

#include <algorithm>
#include <memory>
#include <string_view>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "table/table.h"
#include "util/status_macros.h"

namespace sift {
namespace {

std::string Printable(std::string_view key) {
  return absl::CEscape(absl::string_view(key.data(), key.size()));
}

// Checks every entry t's iterator yields; fills the key range of *f.
absl::Status CheckEntries(const Table& t, const Comparator* cmp,
                          ExternalFile* f) {
  ReadOptions ro;
  ro.fill_cache = false;
  std::unique_ptr<Iterator> it = t.NewIterator(ro);
  uint64_t entries = 0;
  std::string last;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ParsedInternalKey k;
    if (!ParseInternalKey(it->key(), &k)) {
      return absl::DataLossError(absl::StrCat(
          f->path, ": malformed internal key after entry ", entries));
    }
    if (k.sequence != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(f->path, ": key '", Printable(k.user_key),
                       "' has sequence ", k.sequence,
                       "; an ingested file holds sequence 0 only, as "
                       "SstFileWriter writes"));
    }
    if (entries > 0 && cmp->Compare(k.user_key, last) <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          f->path, ": key '", Printable(k.user_key), "' does not follow '",
          Printable(last), "' in the DB's key order"));
    }
    if (entries == 0) {
      f->smallest.assign(k.user_key);
      f->smallest_type = k.type;
    }
    last.assign(k.user_key);
    f->largest_type = k.type;
    ++entries;
  }
  RETURN_IF_ERROR(it->status());
  if (entries == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(f->path, ": no entries to ingest"));
  }
  if (entries != f->properties.num_entries) {
    return absl::DataLossError(absl::StrCat(f->path, ": holds ", entries,
                                            " entries, its properties say ",
                                            f->properties.num_entries));
  }
  f->largest = std::move(last);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ExternalFile> InspectExternalFile(Env* env,
                                                 const std::string& path,
                                                 const Comparator* cmp) {
  ExternalFile f;
  f.path = path;
  ASSIGN_OR_RETURN(f.size, env->GetFileSize(path));
  ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                   env->NewRandomAccessFile(path));
  absl::StatusOr<std::unique_ptr<Table>> opened =
      Table::Open(path, std::move(file), f.size, nullptr, cmp);
  if (absl::IsFailedPrecondition(opened.status())) {
    // The OS refused to read it as a file (a directory: EISDIR): it cannot
    // be read, which DB::IngestExternalFiles reports as DataLoss.
    return absl::DataLossError(absl::StrCat(
        path, ": cannot be read as an SSTable: ", opened.status().message()));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Table> t, std::move(opened));
  RETURN_IF_ERROR(t->VerifyChecksum());
  // A filter the reader cannot use would make every lookup read the file:
  // refuse it rather than ingest a silent slowdown.
  RETURN_IF_ERROR(t->filter_status());
  f.properties = t->properties();
  RETURN_IF_ERROR(CheckEntries(*t, cmp, &f));
  return f;
}

absl::Status SortDisjoint(std::vector<ExternalFile>* files,
                          const Comparator* cmp) {
  std::sort(files->begin(), files->end(),
            [cmp](const ExternalFile& a, const ExternalFile& b) {
              return cmp->Compare(a.smallest, b.smallest) < 0;
            });
  for (size_t i = 1; i < files->size(); ++i) {
    const ExternalFile& a = (*files)[i - 1];
    const ExternalFile& b = (*files)[i];
    if (cmp->Compare(b.smallest, a.largest) <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ingested files overlap: ", a.path, " ['", Printable(a.smallest),
          "', '", Printable(a.largest), "'] and ", b.path, " ['",
          Printable(b.smallest), "', '", Printable(b.largest), "']"));
    }
  }
  return absl::OkStatus();
}

}  // namespace sift
