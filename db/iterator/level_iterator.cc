#include "db/iterator/level_iterator.h"

#include <utility>

#include "table/two_level_iterator.h"
#include "util/coding.h"

namespace sift {
namespace {

// The first level: one entry per file, keyed by the file's largest key; a
// value is the file's position in the list (fixed64).
class FileListIterator final : public Iterator {
 public:
  FileListIterator(KeyComparator icmp, std::shared_ptr<const FileList> files)
      : icmp_(icmp), files_(std::move(files)) {}

  bool Valid() const override { return i_ < files_->size(); }
  std::string_view key() const override { return (*files_)[i_]->largest; }
  std::string_view value() const override {
    return std::string_view(value_, sizeof(value_));
  }
  absl::Status status() const override { return absl::OkStatus(); }

  void SeekToFirst() override { Set(0); }
  void SeekToLast() override { Set(files_->empty() ? 0 : files_->size() - 1); }
  void Seek(std::string_view target) override {
    Set(FindFile(icmp_, *files_, target));
  }
  void Next() override { Set(i_ + 1); }
  // Before the first file, the iterator is invalid (i_ = size()).
  void Prev() override { Set(i_ == 0 ? files_->size() : i_ - 1); }

 private:
  void Set(size_t i) {
    i_ = i;
    EncodeFixed64(value_, i);
  }

  const KeyComparator icmp_;
  const std::shared_ptr<const FileList> files_;
  size_t i_ = 0;
  char value_[8];
};

}  // namespace

std::unique_ptr<Iterator> NewLevelIterator(KeyComparator icmp,
                                           const ReadOptions& options,
                                           TableCache* cache, FileList files,
                                           ReadCounterSink* sink) {
  auto shared = std::make_shared<const FileList>(std::move(files));
  auto open = [options, cache, sink, shared](std::string_view index_value)
      -> absl::StatusOr<std::unique_ptr<Iterator>> {
    const FileMetaData& f = *(*shared)[DecodeFixed64(index_value.data())];
    absl::StatusOr<std::shared_ptr<const Table>> table = cache->Get(f);
    if (!table.ok()) return table.status();
    std::unique_ptr<Iterator> it = (*table)->NewIterator(options, sink);
    // Cleanups run after the table iterator is gone: the table outlives it.
    it->RegisterCleanup([table = *std::move(table)] {});
    return it;
  };
  auto index = std::make_unique<FileListIterator>(icmp, shared);
  return NewTwoLevelIterator(std::move(index), std::move(open));
}

}  // namespace sift
