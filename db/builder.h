// Writing the DB's table files: one output file of a flush or compaction,
// and BuildTable, which turns a memtable into a level-0 file.

#ifndef SIFT_DB_BUILDER_H_
#define SIFT_DB_BUILDER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "db/statistics_impl.h"
#include "db/table_cache.h"
#include "db/version_edit.h"
#include "sift/column_family.h"
#include "sift/env.h"
#include "sift/iterator.h"
#include "sift/options.h"
#include "table/range_tombstone.h"
#include "table/table_builder.h"

namespace sift {

// The column family a table is written for, recorded in its properties
// (TableProperties::column_family_id and column_family_name).
struct TableFamily {
  uint32_t id = 0;
  std::string name = kDefaultColumnFamilyName;
};

// One table file being written. Finish makes it durable (sync, close) and
// opens it through the table cache, so a file enters a Version only once it
// is known to read back. With Options::rate_limiter every byte is charged
// to it before it is handed to the file (a flush at kHigh priority, a
// compaction at kLow), counted in stats (sift.rate.limiter.*) when given.
class OutputFile {
 public:
  // `level` picks the filter layout (FilterLayoutForLevel) and the rate
  // limiter's priority; a flush passes 0.
  static absl::StatusOr<std::unique_ptr<OutputFile>> Create(
      const std::string& dbname, Env* env, const Options& options,
      const TableFamily& family, uint64_t number, int level,
      StatisticsImpl* stats = nullptr);
  ~OutputFile();

  absl::Status Add(std::string_view ikey, std::string_view value);
  // Adds a range tombstone (any order relative to Add). The file's key
  // range grows to hold [begin, end): its smallest key may be (begin,
  // kMaxSequenceNumber, kValueTypeForSeek), its largest (end,
  // kMaxSequenceNumber, kTypeRangeDeletion), bounds that sort before every
  // real entry of their user key (builder.cc says why). REQUIRES: begin <
  // end.
  void AddRangeTombstone(const RangeTombstone& t);
  uint64_t FileSize() const { return builder_->FileSize(); }
  uint64_t NumEntries() const { return builder_->NumEntries(); }

  // Fills *meta (number, size, key range, facts) and opens the table
  // through cache.
  absl::Status Finish(TableCache* cache, FileMetaData* meta);
  // Stops writing and removes the file.
  void Abandon();

 private:
  OutputFile(std::string path, Env* env, uint64_t number,
             std::unique_ptr<WritableFile> file, const Options& options,
             const TableFamily& family, int level);

  const std::string path_;
  Env* const env_;
  const uint64_t number_;
  std::unique_ptr<WritableFile> file_;
  std::unique_ptr<TableBuilder> builder_;
  SequenceNumber smallest_seq_ = kMaxSequenceNumber;
  SequenceNumber largest_seq_ = 0;
  void WidenForTombstones(FileMetaData* meta) const;

  // The user keys the range tombstones span.
  bool has_tombstones_ = false;
  std::string tombstone_begin_, tombstone_end_;
  bool done_ = false;
};

// Writes every entry of iter, and range_tombstones, to table file `number`
// (a flush's output: OutputFile::Create at level 0, counting into stats).
// With neither, no file is written (meta->file_size stays 0).
absl::Status BuildTable(
    const std::string& dbname, Env* env, const Options& options,
    const TableFamily& family, TableCache* cache, Iterator* iter,
    uint64_t number, FileMetaData* meta,
    const std::vector<RangeTombstone>& range_tombstones = {},
    StatisticsImpl* stats = nullptr);

}  // namespace sift

#endif  // SIFT_DB_BUILDER_H_
