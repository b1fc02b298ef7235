// sst_dump --command=recompress: the size the file would have under each
// compression siftdb supports (none, Snappy), as RocksDB's sst_dump
// reports it. The table is rebuilt in memory with the same entries and the
// same filter settings; nothing is written to disk.

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/strings/str_format.h"
#include "table/table_builder.h"
#include "tools/sst_dump.h"
#include "util/status_macros.h"

namespace sift::sst_dump {
namespace {

// A WritableFile that only counts what it is given.
class CountingFile final : public WritableFile {
 public:
  absl::Status Append(std::string_view data) override {
    bytes_ += data.size();
    return absl::OkStatus();
  }
  absl::Status Flush() override { return absl::OkStatus(); }
  absl::Status Sync() override { return absl::OkStatus(); }
  absl::Status Close() override { return absl::OkStatus(); }
  uint64_t bytes() const { return bytes_; }

 private:
  uint64_t bytes_ = 0;
};

struct Rebuilt {
  uint64_t size = 0;
  uint64_t data_blocks = 0;
  int64_t micros = 0;
};

absl::StatusOr<Rebuilt> Rebuild(const Table& t, const Options& options) {
  const auto start = std::chrono::steady_clock::now();
  CountingFile file;
  TableBuilder builder(options, &file);
  std::unique_ptr<Iterator> it = t.NewIterator(ReadOptions());
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    RETURN_IF_ERROR(builder.Add(it->key(), it->value()));
  }
  RETURN_IF_ERROR(it->status());
  RETURN_IF_ERROR(builder.Finish());
  Rebuilt r;
  r.size = file.bytes();
  r.data_blocks = builder.properties().num_data_blocks;
  r.micros = std::chrono::duration_cast<std::chrono::microseconds>(
                 std::chrono::steady_clock::now() - start)
                 .count();
  return r;
}

}  // namespace

absl::Status Recompress(const Table& t, size_t block_size) {
  const TableProperties& p = t.properties();
  Options options;
  options.block_size = block_size;
  options.bloom_filter_fp_chance = p.bloom_filter_fp_chance;
  options.filter_layout = p.filter_layout;
  RETURN_IF_ERROR(ValidateTableOptions(options));
  std::printf("Block Size: %zu\n", block_size);
  for (const auto& [compression, name] :
       {std::pair{Compression::kNone, "kNoCompression"},
        std::pair{Compression::kSnappy, "kSnappyCompression"}}) {
    options.compression = compression;
    ASSIGN_OR_RETURN(Rebuilt r, Rebuild(t, options));
    std::printf(
        "Compression: %-24s Size: %10llu Blocks: %6llu Time Taken: %10lld "
        "microsecs (%.1f%% of the file's %llu bytes)\n",
        name, static_cast<unsigned long long>(r.size),
        static_cast<unsigned long long>(r.data_blocks),
        static_cast<long long>(r.micros),
        100.0 * static_cast<double>(r.size) /
            static_cast<double>(t.file_size()),
        static_cast<unsigned long long>(t.file_size()));
  }
  return absl::OkStatus();
}

}  // namespace sift::sst_dump
