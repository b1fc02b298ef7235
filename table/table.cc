#include "table/table.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "table/global_sequence_iterator.h"
#include "table/internal_key.h"
#include "table/properties.h"
#include "table/range_del_block.h"
#include "table/two_level_iterator.h"
#include "util/cache_line.h"
#include "util/coding.h"
#include "util/status_macros.h"

namespace sift {
namespace {

constexpr char kFilterName[] = "sift.filter";
constexpr char kPropertiesName[] = "sift.properties";
constexpr char kUserFilterName[] = "sift.user.filter";

// Prefixes a block-level error with the file and the block's offset,
// naming the file once when the error already starts with it.
absl::Status InBlock(const absl::Status& s, const std::string& file,
                     const char* kind, const BlockHandle& h) {
  if (s.ok()) return s;
  absl::string_view what = s.message();
  const std::string prefix = file + ": ";
  if (absl::StartsWith(what, prefix)) what.remove_prefix(prefix.size());
  return absl::Status(s.code(), absl::StrCat(file, ": ", kind,
                                             " block at "
                                             "offset ",
                                             h.offset, ": ", what));
}

}  // namespace

Table::Table(std::string file_name, std::unique_ptr<RandomAccessFile> file,
             uint64_t file_size, BlockCache* cache,
             const Comparator* comparator, const FilterPolicy* filter_policy)
    : file_name_(std::move(file_name)),
      file_(std::move(file)),
      file_size_(file_size),
      cache_(cache),
      cache_id_(cache != nullptr ? cache->NewId() : 0),
      icmp_(KeyComparator::Internal(comparator)),
      user_policy_(filter_policy) {}

Table::~Table() = default;

absl::StatusOr<std::unique_ptr<Table>> Table::Open(
    std::string file_name, std::unique_ptr<RandomAccessFile> file,
    uint64_t file_size, BlockCache* block_cache, const Comparator* comparator,
    SequenceNumber global_sequence,
    std::optional<std::string_view> replacement_filter,
    const FilterPolicy* filter_policy) {
  if (file_size < kFooterSize) {
    return CorruptionError(file_name, 0,
                           absl::StrCat("file too short to be an SSTable (",
                                        file_size, " bytes)"));
  }
  std::unique_ptr<Table> t(new Table(std::move(file_name), std::move(file),
                                     file_size, block_cache, comparator,
                                     filter_policy));
  t->global_sequence_ = global_sequence;
  char buf[kFooterSize];
  std::string_view footer_bytes;
  RETURN_IF_ERROR(
      t->file_->Read(file_size - kFooterSize, kFooterSize, &footer_bytes, buf));
  Footer footer;
  RETURN_IF_ERROR(
      footer.DecodeFrom(footer_bytes, t->file_name_, file_size - kFooterSize));
  const uint64_t limit = file_size - kFooterSize;
  if (!footer.metaindex.FitsBefore(limit) || !footer.index.FitsBefore(limit)) {
    return CorruptionError(t->file_name_, file_size - kFooterSize,
                           "footer names blocks outside the file");
  }
  t->metaindex_handle_ = footer.metaindex;
  t->index_handle_ = footer.index;
  RETURN_IF_ERROR(t->ReadMeta(footer.metaindex, replacement_filter));
  RETURN_IF_ERROR(t->ParseIndex(footer.index));
  return t;
}

absl::Status Table::ReadMeta(
    const BlockHandle& metaindex_handle,
    std::optional<std::string_view> replacement_filter) {
  BlockContents contents;
  RETURN_IF_ERROR(ReadBlock(*file_, file_name_, metaindex_handle, &contents));
  Block metaindex(std::move(contents));
  bool have_properties = false;
  std::unique_ptr<Iterator> it = metaindex.NewIterator(KeyComparator::Bytes());
  const uint64_t limit = file_size_ - kFooterSize;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::string_view v = it->value();
    BlockHandle h;
    const bool is_filter = it->key() == kFilterName;
    const bool is_props = it->key() == kPropertiesName;
    const bool is_user_filter = it->key() == kUserFilterName;
    const bool is_range_del = it->key() == kRangeDelBlockName;
    if (!is_filter && !is_props && !is_user_filter && !is_range_del) {
      continue;  // a name from a later version
    }
    if (!h.DecodeFrom(&v) || !h.FitsBefore(limit)) {
      return CorruptionError(file_name_, metaindex_handle.offset,
                             "bad block handle in metaindex");
    }
    if (is_filter) {
      has_filter_block_ = true;
      filter_handle_ = h;
    } else if (is_user_filter) {
      has_user_filter_block_ = true;
      user_filter_handle_ = h;
    } else if (is_range_del) {
      has_range_del_block_ = true;
      range_del_handle_ = h;
    } else {
      have_properties = true;
      properties_handle_ = h;
    }
  }
  RETURN_IF_ERROR(
      InBlock(it->status(), file_name_, "metaindex", metaindex_handle));
  if (!have_properties) {
    return CorruptionError(file_name_, metaindex_handle.offset,
                           "metaindex names no properties block");
  }
  RETURN_IF_ERROR(ReadBlock(*file_, file_name_, properties_handle_, &contents));
  Block props_block(std::move(contents));
  RETURN_IF_ERROR(InBlock(DecodeProperties(props_block, &properties_),
                          file_name_, "properties", properties_handle_));
  // Read under another order, every block would look damaged: name the two
  // orders instead (a file from before the property names none).
  const std::string& written_with = properties_.comparator_name;
  const char* read_with = icmp_.user_comparator()->Name();
  if (!written_with.empty() && written_with != read_with) {
    return absl::InvalidArgumentError(
        absl::StrCat(file_name_, ": written with comparator '", written_with,
                     "', read with comparator '", read_with, "'"));
  }
  // Before the filter, which may return early: tombstones are always read.
  if (has_range_del_block_) {
    RETURN_IF_ERROR(LoadRangeTombstones(range_del_handle_));
  }
  // A filter is probed only by the policy that built it (FORMAT.md): under
  // a user policy, a file without its filter reads as if it had none.
  if (user_policy_ != nullptr) {
    LoadUserFilter();
    return absl::OkStatus();
  }
  if (replacement_filter.has_value()) {
    filter_is_replacement_ = UseFilter(*replacement_filter);
    if (filter_is_replacement_) return absl::OkStatus();
  }
  if (has_filter_block_) LoadFilter(filter_handle_);
  if (replacement_filter.has_value() && filter_status_.ok()) {
    // Damaged or unknown: the table's own filter still holds every key.
    filter_status_ = absl::DataLossError(
        absl::StrCat(file_name_, ": replacement filter has an unknown format"));
  }
  return absl::OkStatus();
}

void Table::LoadUserFilter() {
  if (!has_user_filter_block_ ||
      properties_.filter_policy != user_policy_->Name()) {
    return;
  }
  BlockContents contents;
  filter_status_ =
      ReadBlock(*file_, file_name_, user_filter_handle_, &contents);
  if (!filter_status_.ok()) return;  // read without a filter
  user_filter_.assign(contents.data);
  has_user_filter_ = true;
}

// Unlike a filter, damaged tombstones fail Open: reading without them
// would show deleted keys.
absl::Status Table::LoadRangeTombstones(const BlockHandle& handle) {
  BlockContents contents;
  RETURN_IF_ERROR(ReadBlock(*file_, file_name_, handle, &contents));
  std::vector<RangeTombstone> tombstones;
  RETURN_IF_ERROR(DecodeRangeDelBlock(contents.data, file_name_, handle.offset,
                                      &tombstones));
  range_tombstones_ = FragmentedRangeTombstones(tombstones);
  return absl::OkStatus();
}

void Table::LoadFilter(const BlockHandle& handle) {
  BlockContents contents;
  filter_status_ = ReadBlock(*file_, file_name_, handle, &contents);
  if (!filter_status_.ok()) return;  // read without a filter
  if (!UseFilter(contents.data)) {
    filter_status_ = CorruptionError(file_name_, handle.offset,
                                     "filter block has an unknown format");
  }
}

bool Table::UseFilter(std::string_view filter) {
  const size_t n = filter.size();
  // Line-aligned, so a kBlocked probe reads one cache line; aligned_alloc
  // wants a size that is a whole number of alignments.
  const size_t lines =
      std::max<size_t>(1, (n + kCacheLineSize - 1) / kCacheLineSize);
  filter_data_.reset(static_cast<char*>(
      std::aligned_alloc(kCacheLineSize, lines * kCacheLineSize)));
  std::memcpy(filter_data_.get(), filter.data(), n);
  filter_size_ = n;
  filter_ = FilterReader(std::string_view(filter_data_.get(), n));
  if (!filter_.valid()) {
    filter_ = FilterReader();
    filter_data_.reset();
    filter_size_ = 0;
    return false;
  }
  return true;
}

absl::Status Table::ParseIndex(const BlockHandle& handle) {
  BlockContents contents;
  RETURN_IF_ERROR(ReadBlock(*file_, file_name_, handle, &contents));
  index_block_ = std::make_unique<Block>(std::move(contents));
  RETURN_IF_ERROR(InBlock(index_block_->status(), file_name_, "index", handle));
  // Restart interval 1: every key is stored whole, so the in-memory index
  // can point straight into the block.
  const char* p = index_block_->data().data();
  const char* limit = p + index_block_->restart_offset();
  const uint64_t file_limit = file_size_ - kFooterSize;
  while (p < limit) {
    uint32_t shared, non_shared, value_length;
    p = GetVarint32Ptr(p, limit, &shared);
    if (p != nullptr) p = GetVarint32Ptr(p, limit, &non_shared);
    if (p != nullptr) p = GetVarint32Ptr(p, limit, &value_length);
    if (p == nullptr || shared != 0 ||
        non_shared > static_cast<uint64_t>(limit - p) ||
        value_length > static_cast<uint64_t>(limit - p) - non_shared) {
      return CorruptionError(file_name_, handle.offset, "bad index entry");
    }
    IndexEntry e;
    e.key = std::string_view(p, non_shared);
    std::string_view v(p + non_shared, value_length);
    if (!e.handle.DecodeFrom(&v) || !v.empty() ||
        !e.handle.FitsBefore(file_limit) ||
        e.key.size() < kInternalKeyTrailerSize ||
        (!index_.empty() && icmp_.Compare(index_.back().key, e.key) >= 0)) {
      return CorruptionError(file_name_, handle.offset, "bad index entry");
    }
    index_.push_back(e);
    p += non_shared + value_length;
  }
  return absl::OkStatus();
}

size_t Table::IndexMemory() const {
  return index_block_->charge() + index_.capacity() * sizeof(IndexEntry);
}

size_t Table::FindBlock(std::string_view ikey) const {
  auto it = std::lower_bound(index_.begin(), index_.end(), ikey,
                             [this](const IndexEntry& e, std::string_view k) {
                               return icmp_.Compare(e.key, k) < 0;
                             });
  return static_cast<size_t>(it - index_.begin());
}

uint64_t Table::ApproximateOffsetOf(std::string_view ikey) const {
  const size_t i = FindBlock(ikey);
  return i == index_.size() ? file_size_ : index_[i].handle.offset;
}

// The first level of a table iterator: the in-memory index. Keys are the
// separators; a value is the entry's position (fixed64), which the opener
// below turns back into the block handle.
class Table::IndexIter final : public Iterator {
 public:
  explicit IndexIter(const Table* table) : table_(table) {}

  bool Valid() const override { return i_ < table_->index_.size(); }
  std::string_view key() const override { return table_->index_[i_].key; }
  std::string_view value() const override {
    return std::string_view(value_, sizeof(value_));
  }
  absl::Status status() const override { return absl::OkStatus(); }

  void SeekToFirst() override { Set(0); }
  void SeekToLast() override {
    Set(table_->index_.empty() ? 0 : table_->index_.size() - 1);
  }
  void Seek(std::string_view target) override {
    Set(table_->FindBlock(target));
  }
  void Next() override { Set(i_ + 1); }
  // Before the first entry, the iterator is invalid (i_ = size()).
  void Prev() override { Set(i_ == 0 ? table_->index_.size() : i_ - 1); }

 private:
  void Set(size_t i) {
    i_ = i;
    EncodeFixed64(value_, i);
  }

  const Table* const table_;
  size_t i_ = 0;
  char value_[8];
};

namespace {

// A data block's iterator that holds the block (shared with the cache) and
// names the file and the block's offset in its errors.
class DataBlockIter final : public Iterator {
 public:
  DataBlockIter(std::shared_ptr<const Block> block, KeyComparator icmp,
                const std::string* file, uint64_t offset)
      : block_(std::move(block)),
        iter_(block_.get(), icmp),
        file_(file),
        offset_(offset) {}

  bool Valid() const override { return iter_.Valid(); }
  std::string_view key() const override { return iter_.key(); }
  std::string_view value() const override { return iter_.value(); }
  absl::Status status() const override {
    absl::Status s = iter_.status();
    if (s.ok()) return s;
    return absl::Status(
        s.code(), absl::StrCat(*file_, ": data block at offset ", offset_, ": ",
                               s.message()));
  }
  void SeekToFirst() override { iter_.SeekToFirst(); }
  void SeekToLast() override { iter_.SeekToLast(); }
  void Seek(std::string_view target) override { iter_.Seek(target); }
  void Next() override { iter_.Next(); }
  void Prev() override { iter_.Prev(); }

 private:
  const std::shared_ptr<const Block> block_;  // declared first: outlives iter_
  Block::Iter iter_;
  const std::string* const file_;
  const uint64_t offset_;
};

}  // namespace

std::unique_ptr<Iterator> Table::NewIterator(const ReadOptions& options,
                                             ReadCounterSink* sink) const {
  auto open = [this, options, sink](std::string_view index_value)
      -> absl::StatusOr<std::unique_ptr<Iterator>> {
    const BlockHandle& handle =
        index_[DecodeFixed64(index_value.data())].handle;
    TableReadCounters counters;
    absl::StatusOr<std::shared_ptr<const Block>> block =
        ReadDataBlock(options, handle, &counters);
    if (sink != nullptr) sink->Add(counters);
    if (!block.ok()) return block.status();
    return std::make_unique<DataBlockIter>(*std::move(block), icmp_,
                                           &file_name_, handle.offset);
  };
  std::unique_ptr<Iterator> it =
      NewTwoLevelIterator(std::make_unique<IndexIter>(this), std::move(open));
  if (global_sequence_ == 0) return it;
  return NewGlobalSequenceIterator(std::move(it), icmp_, global_sequence_);
}

absl::StatusOr<std::shared_ptr<const Block>> Table::ReadDataBlock(
    const ReadOptions& options, const BlockHandle& handle,
    TableReadCounters* counters) const {
  const CacheKey key{cache_id_, handle.offset};
  if (cache_ != nullptr) {
    if (std::shared_ptr<const Block> b = cache_->Lookup(key)) {
      ++counters->block_cache_hits;
      return b;
    }
    ++counters->block_cache_misses;
  }
  BlockContents contents;
  RETURN_IF_ERROR(ReadBlock(*file_, file_name_, handle, &contents));
  ++counters->blocks_read;
  counters->bytes_read += handle.size + kBlockTrailerSize;
  auto block = std::make_shared<const Block>(std::move(contents));
  RETURN_IF_ERROR(InBlock(block->status(), file_name_, "data", handle));
  if (cache_ != nullptr && options.fill_cache) {
    const size_t charge = block->charge();
    return cache_->Insert(key, std::move(block), charge);
  }
  return block;
}

void Table::MultiGet(const ReadOptions& options, absl::Span<Lookup> lookups,
                     TableReadCounters* counters) const {
  for (Lookup& l : lookups) AskFilter(&l, counters);
  ReadEntries(options, lookups, counters);
}

void Table::ReadEntries(const ReadOptions& options, absl::Span<Lookup> lookups,
                        TableReadCounters* counters) const {
  size_t current = index_.size();  // the block in `block`, if any
  absl::StatusOr<std::shared_ptr<const Block>> block;
  for (Lookup& l : lookups) {
    if (l.result == LookupResult::kFilteredOut) continue;
    // Every entry has the global sequence: all newer than the lookup's, or
    // all visible (and then the stored sequence 0 is found by any lookup).
    if (global_sequence_ > ExtractTrailer(l.key) >> kValueTypeBits) continue;
    // Keys ascend, so a key at or below the current block's separator is
    // served by that block: no index search.
    const size_t i = current < index_.size() &&
                             icmp_.Compare(l.key, index_[current].key) <= 0
                         ? current
                         : FindBlock(l.key);
    if (i == index_.size()) continue;
    if (i != current) {
      block = ReadDataBlock(options, index_[i].handle, counters);
      current = i;
    }
    l.status = block.ok() ? GetInBlock(**block, i, l.key, l.value, &l.result,
                                       &l.sequence)
                          : block.status();
    if (l.result != LookupResult::kNotFound && l.use_filter &&
        (filter_.valid() || has_user_filter_)) {
      ++counters->filter_true_positive;
    }
  }
}

absl::Status Table::GetInBlock(const Block& block, size_t i,
                               std::string_view lookup_key, std::string* value,
                               LookupResult* result,
                               SequenceNumber* seq) const {
  Block::Iter it(&block, icmp_);
  it.Seek(lookup_key);
  if (!it.Valid()) {
    return InBlock(it.status(), file_name_, "data", index_[i].handle);
  }
  ParsedInternalKey parsed;
  if (!ParseInternalKey(it.key(), &parsed)) {
    return CorruptionError(file_name_, index_[i].handle.offset,
                           "bad internal key in data block");
  }
  if (!icmp_.SameUser(parsed.user_key, ExtractUserKey(lookup_key))) {
    return absl::OkStatus();
  }
  if (seq != nullptr) {
    *seq = global_sequence_ != 0 ? global_sequence_ : parsed.sequence;
  }
  if (parsed.type == kTypeDeletion) {
    *result = LookupResult::kDeleted;
  } else {
    *result = LookupResult::kFound;
    value->assign(it.value());
  }
  return absl::OkStatus();
}

absl::Status Table::VerifyChecksum() const {
  // Re-read the footer: the file may have changed since Open.
  char buf[kFooterSize];
  std::string_view footer_bytes;
  RETURN_IF_ERROR(
      file_->Read(file_size_ - kFooterSize, kFooterSize, &footer_bytes, buf));
  Footer footer;
  RETURN_IF_ERROR(
      footer.DecodeFrom(footer_bytes, file_name_, file_size_ - kFooterSize));
  if (footer.index.offset != index_handle_.offset ||
      footer.index.size != index_handle_.size ||
      footer.metaindex.offset != metaindex_handle_.offset ||
      footer.metaindex.size != metaindex_handle_.size) {
    return CorruptionError(file_name_, file_size_ - kFooterSize,
                           "footer changed since the file was opened");
  }
  // Data blocks are written in key order (FORMAT.md), so the index names
  // them at increasing offsets; VerifyDataBlock relies on meeting them in
  // index order below.
  for (size_t i = 1; i < index_.size(); ++i) {
    if (index_[i].handle.offset <= index_[i - 1].handle.offset) {
      return CorruptionError(file_name_, index_handle_.offset,
                             "index names data blocks out of file order");
    }
  }
  // The blocks must tile [0, footer) with no gap and no overlap, so that
  // every byte is under some checksum.
  uint64_t expected = 0;
  size_t data_block = 0;
  std::string last_key;  // of the data blocks so far
  for (const BlockInfo& b : Blocks()) {
    if (b.handle.offset != expected) {
      return CorruptionError(
          file_name_, expected,
          absl::StrCat("blocks do not tile the file: ", b.kind,
                       " block starts at ", b.handle.offset));
    }
    expected = b.handle.offset + b.handle.size + kBlockTrailerSize;
    BlockContents contents;
    RETURN_IF_ERROR(InBlock(ReadBlock(*file_, file_name_, b.handle, &contents),
                            file_name_, b.kind.c_str(), b.handle));
    if (b.kind == "filter" && !FilterReader(contents.data).valid()) {
      return CorruptionError(file_name_, b.handle.offset,
                             "filter block has an unknown format");
    }
    if (b.kind == "range_del") {
      std::vector<RangeTombstone> tombstones;
      RETURN_IF_ERROR(DecodeRangeDelBlock(contents.data, file_name_,
                                          b.handle.offset, &tombstones));
    }
    if (b.kind == "data") {
      RETURN_IF_ERROR(
          VerifyDataBlock(data_block++, std::move(contents), &last_key));
    }
  }
  if (expected != file_size_ - kFooterSize) {
    return CorruptionError(file_name_, expected,
                           "unaccounted bytes before the footer");
  }
  return absl::OkStatus();
}

// Checks what reads of data block i rely on: well-formed internal keys in
// strictly increasing order, also across blocks (*last_key: the previous
// block's last key); within the index's bounds (FORMAT.md, "Index block":
// above separator i - 1, at most separator i), which Get uses to pick the
// block; and the same entries backward, which relies on the restart array.
// (A checksum already catches damage; these catch a bad writer, or damage
// behind a checksum that happens to match.)
absl::Status Table::VerifyDataBlock(size_t i, BlockContents contents,
                                    std::string* last_key) const {
  const BlockHandle& handle = index_[i].handle;
  Block block(std::move(contents));
  RETURN_IF_ERROR(InBlock(block.status(), file_name_, "data", handle));
  Block::Iter it(&block, icmp_);
  std::vector<std::string> keys;
  ParsedInternalKey parsed;
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
    if (!ParseInternalKey(it.key(), &parsed) ||
        (!last_key->empty() && icmp_.Compare(*last_key, it.key()) >= 0)) {
      return CorruptionError(file_name_, handle.offset,
                             "data block keys are malformed or out of order");
    }
    if (icmp_.Compare(it.key(), index_[i].key) > 0 ||
        (i > 0 && icmp_.Compare(it.key(), index_[i - 1].key) <= 0)) {
      return CorruptionError(file_name_, handle.offset,
                             "data block key outside its index range");
    }
    // Get seeks only in the block the index picks. When a user key's
    // entries straddle separator i - 1, that separator must be exactly the
    // previous block's last key (what the builder writes), or a lookup
    // between them would stop in the wrong block.
    if (keys.empty() && i > 0 &&
        icmp_.SameUser(ExtractUserKey(index_[i - 1].key),
                       ExtractUserKey(it.key())) &&
        index_[i - 1].key != *last_key) {
      return CorruptionError(file_name_, handle.offset,
                             "index separator splits a user key's entries");
    }
    last_key->assign(it.key());
    keys.push_back(*last_key);
  }
  RETURN_IF_ERROR(InBlock(it.status(), file_name_, "data", handle));
  size_t n = keys.size();
  for (it.SeekToLast(); it.Valid() && n > 0 && it.key() == keys[n - 1];
       it.Prev()) {
    --n;
  }
  if (n != 0 || it.Valid() || !it.status().ok()) {
    return CorruptionError(file_name_, handle.offset,
                           "data block restart points are inconsistent");
  }
  return absl::OkStatus();
}

std::vector<Table::BlockInfo> Table::Blocks() const {
  std::vector<BlockInfo> blocks;
  for (const IndexEntry& e : index_) blocks.push_back({"data", e.handle});
  if (has_filter_block_) blocks.push_back({"filter", filter_handle_});
  if (has_user_filter_block_) {
    blocks.push_back({"user filter", user_filter_handle_});
  }
  if (has_range_del_block_) {
    blocks.push_back({"range_del", range_del_handle_});
  }
  blocks.push_back({"properties", properties_handle_});
  blocks.push_back({"metaindex", metaindex_handle_});
  blocks.push_back({"index", index_handle_});
  std::sort(blocks.begin(), blocks.end(),
            [](const BlockInfo& a, const BlockInfo& b) {
              return a.handle.offset < b.handle.offset;
            });
  return blocks;
}

}  // namespace sift
