#include "sift/sst_file_reader.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "db/iterator/user_iterator.h"
#include "sift/env.h"
#include "table/internal_key.h"
#include "table/table.h"
#include "util/hash.h"
#include "util/status_macros.h"

namespace sift {

struct SstFileReader::Rep {
  Options options;
  std::unique_ptr<BlockCache> cache;
  std::unique_ptr<Table> table;
};

SstFileReader::SstFileReader(const Options& options)
    : rep_(std::make_unique<Rep>()) {
  rep_->options = options;
}

SstFileReader::~SstFileReader() = default;

absl::Status SstFileReader::Open(const std::string& path) {
  if (rep_->options.comparator == nullptr) {
    return absl::InvalidArgumentError("Options::comparator must not be null");
  }
  Env* env = rep_->options.env != nullptr ? rep_->options.env : Env::Default();
  ASSIGN_OR_RETURN(uint64_t size, env->GetFileSize(path));
  ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                   rep_->options.allow_mmap_reads
                       ? env->NewMappedRandomAccessFile(path)
                       : env->NewRandomAccessFile(path));
  rep_->cache =
      std::make_unique<BlockCache>(rep_->options.block_cache_capacity);
  ASSIGN_OR_RETURN(rep_->table,
                   Table::Open(path, std::move(file), size, rep_->cache.get(),
                               rep_->options.comparator, /*global_sequence=*/0,
                               /*replacement_filter=*/std::nullopt,
                               rep_->options.filter_policy.get()));
  return absl::OkStatus();
}

static absl::Status NotOpen() {
  return absl::FailedPreconditionError("SstFileReader: no file is open");
}

absl::Status SstFileReader::Get(const ReadOptions& options,
                                std::string_view key, std::string* value) {
  if (rep_->table == nullptr) return NotOpen();
  std::string ikey;
  AppendInternalKey(&ikey, key, kMaxSequenceNumber, kValueTypeForSeek);
  Table::Lookup lookup;
  lookup.key = ikey;
  lookup.hash = KeyHash(key);
  lookup.value = value;
  TableReadCounters counters;
  rep_->table->Get(options, &lookup, &counters);
  RETURN_IF_ERROR(lookup.status);
  if (lookup.result != Table::LookupResult::kFound) {
    return absl::NotFoundError("");
  }
  return absl::OkStatus();
}

bool SstFileReader::KeyMayMatch(std::string_view key) const {
  return rep_->table == nullptr || (rep_->table->KeyMayMatch(KeyHash(key)) &&
                                    rep_->table->UserKeyMayMatch(key));
}

std::unique_ptr<Iterator> SstFileReader::NewIterator(
    const ReadOptions& options) {
  if (rep_->table == nullptr) return NewEmptyIterator(NotOpen());
  return NewUserIterator(KeyComparator::Internal(rep_->options.comparator),
                         rep_->table->NewIterator(options), kMaxSequenceNumber,
                         nullptr, UserKeyBounds::Of(options));
}

const TableProperties& SstFileReader::GetProperties() const {
  return rep_->table->properties();
}

absl::Status SstFileReader::VerifyChecksum() {
  if (rep_->table == nullptr) return NotOpen();
  RETURN_IF_ERROR(rep_->table->VerifyChecksum());
  // A filter Open set aside (damaged) is damage too.
  return rep_->table->filter_status();
}

}  // namespace sift
