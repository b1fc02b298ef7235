#include "table/table_builder.h"

#include <cassert>
#include <ctime>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "sift/filter_policy.h"
#include "snappy.h"
#include "table/internal_key.h"
#include "table/properties.h"
#include "table/range_del_block.h"
#include "util/hash.h"
#include "util/status_macros.h"

namespace sift {
namespace {

constexpr char kFilterName[] = "sift.filter";
constexpr char kPropertiesName[] = "sift.properties";
constexpr char kUserFilterName[] = "sift.user.filter";

absl::string_view AbslView(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

// A block is stored compressed only when that saves at least 1/8 of it
// (12.5%, FORMAT.md "Block trailer"): less is not worth decompressing on
// every read.
constexpr size_t kMinCompressionSavingDivisor = 8;

}  // namespace

absl::Status ValidateTableOptions(const Options& o) {
  if (o.block_size == 0 || o.block_size > kMaxBlockSizeOption) {
    return absl::InvalidArgumentError(
        absl::StrCat("Options::block_size must be in [1, ", kMaxBlockSizeOption,
                     "], got ", o.block_size));
  }
  if (o.block_restart_interval < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Options::block_restart_interval must be >= 1, got ",
                     o.block_restart_interval));
  }
  if (o.compression != Compression::kNone &&
      o.compression != Compression::kSnappy) {
    return absl::InvalidArgumentError(
        absl::StrCat("Options::compression has unknown value ",
                     static_cast<int>(o.compression)));
  }
  if (o.filter_layout != FilterLayout::kStandard &&
      o.filter_layout != FilterLayout::kBlocked &&
      o.filter_layout != FilterLayout::kRibbon) {
    return absl::InvalidArgumentError(
        absl::StrCat("Options::filter_layout has unknown value ",
                     static_cast<int>(o.filter_layout)));
  }
  if (o.bloom_before_level < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Options::bloom_before_level must be >= 0, got ",
                     o.bloom_before_level));
  }
  if (o.comparator == nullptr) {
    return absl::InvalidArgumentError("Options::comparator must not be null");
  }
  // Written so that NaN fails too.
  if (!(o.bloom_filter_fp_chance > 0.0 && o.bloom_filter_fp_chance <= 1.0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Options::bloom_filter_fp_chance must be in (0, 1] (1.0 = no "
        "filter), got ",
        o.bloom_filter_fp_chance));
  }
  return absl::OkStatus();
}

FilterLayout FilterLayoutForLevel(const Options& options, int level) {
  if (options.filter_layout == FilterLayout::kRibbon &&
      level < options.bloom_before_level) {
    return FilterLayout::kBlocked;
  }
  return options.filter_layout;
}

TableBuilder::TableBuilder(const Options& options, WritableFile* file)
    : TableBuilder(options, file, options.filter_layout) {}

TableBuilder::TableBuilder(const Options& options, WritableFile* file,
                           FilterLayout filter_layout)
    : options_(options),
      icmp_(KeyComparator::Internal(options.comparator)),
      file_(file),
      data_block_(options.block_restart_interval),
      index_block_(1) {
  props_.comparator_name = options.comparator->Name();
  props_.compression = options.compression;
  props_.filter_layout = filter_layout;
  props_.bloom_filter_fp_chance = 1.0;
  props_.format_version = kTableFormatVersion;
  if (options.filter_policy == nullptr &&
      options.bloom_filter_fp_chance < 1.0) {
    filter_ = std::make_unique<FilterBuilder>(filter_layout,
                                              options.bloom_filter_fp_chance);
  }
}

TableBuilder::~TableBuilder() = default;

absl::Status TableBuilder::Add(std::string_view ikey, std::string_view value) {
  assert(!closed_);
  if (closed_) return absl::FailedPreconditionError("table already finished");
  RETURN_IF_ERROR(status_);
  ParsedInternalKey parsed;
  if (!ParseInternalKey(ikey, &parsed)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "not an internal key: '", absl::CEscape(AbslView(ikey)), "'"));
  }
  const bool first = props_.num_entries == 0;
  if (!first && icmp_.Compare(ikey, last_key_) <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("keys must be added in strictly increasing order: ",
                     InternalKeyDebugString(ikey), " after ",
                     InternalKeyDebugString(last_key_)));
  }
  const bool new_user_key =
      first || parsed.user_key != ExtractUserKey(last_key_);

  if (pending_index_entry_) {
    icmp_.ShortenSeparator(&last_key_, ikey);
    std::string handle;
    pending_handle_.EncodeTo(&handle);
    index_block_.Add(last_key_, handle);
    pending_index_entry_ = false;
  }
  if (filter_ != nullptr && new_user_key) {
    filter_->AddHash(KeyHash(parsed.user_key));
  } else if (options_.filter_policy != nullptr && new_user_key) {
    user_filter_keys_.emplace_back(parsed.user_key);
  }
  if (first) {
    smallest_.assign(ikey);
    props_.smallest_key.assign(parsed.user_key);
  }
  last_key_.assign(ikey);
  ++props_.num_entries;
  if (parsed.type == kTypeDeletion) ++props_.num_deletions;
  props_.raw_key_size += ikey.size();
  props_.raw_value_size += value.size();
  data_block_.Add(ikey, value);
  if (data_block_.CurrentSizeEstimate() >= options_.block_size) {
    FlushDataBlock();
  }
  return status_;
}

void TableBuilder::FlushDataBlock() {
  if (!ok() || data_block_.empty()) return;
  assert(!pending_index_entry_);
  WriteBlock(data_block_.Finish(), /*may_compress=*/true, &pending_handle_);
  data_block_.Reset();
  if (ok()) {
    pending_index_entry_ = true;
    ++props_.num_data_blocks;
    status_ = file_->Flush();
  }
}

void TableBuilder::WriteBlock(std::string_view contents, bool may_compress,
                              BlockHandle* handle) {
  if (!ok()) return;
  if (contents.size() > kMaxBlockSize) {
    // No reader would take it back (kMaxBlockSize): fail the table rather
    // than write data that is lost once written.
    status_ = absl::ResourceExhaustedError(
        absl::StrCat("table block of ", contents.size(),
                     " bytes is larger than the limit of ", kMaxBlockSize));
    return;
  }
  BlockType type = kRawBlock;
  std::string_view stored = contents;
  if (may_compress && options_.compression == Compression::kSnappy) {
    snappy::Compress(contents.data(), contents.size(), &compressed_);
    if (compressed_.size() <
        contents.size() - contents.size() / kMinCompressionSavingDivisor) {
      stored = compressed_;
      type = kSnappyBlock;
    }
  }
  handle->offset = offset_;
  handle->size = stored.size();
  std::string trailer;
  AppendBlockTrailer(stored, type, &trailer);
  WriteRaw(stored);
  WriteRaw(trailer);
}

void TableBuilder::WriteRaw(std::string_view data) {
  if (!ok()) return;
  status_ = file_->Append(data);
  if (ok()) offset_ += data.size();
}

bool TableBuilder::WriteUserFilter(BlockHandle* handle) {
  if (options_.filter_policy == nullptr || !ok()) return false;
  const std::vector<std::string_view> keys(user_filter_keys_.begin(),
                                           user_filter_keys_.end());
  std::string filter;
  options_.filter_policy->CreateFilter(keys, &filter);
  user_filter_keys_.clear();
  props_.filter_policy = options_.filter_policy->Name();
  props_.filter_num_keys = keys.size();
  WriteBlock(filter, /*may_compress=*/false, handle);
  return ok();
}

void TableBuilder::WriteFilter(BlockBuilder* metaindex) {
  if (filter_ == nullptr || !ok()) return;
  std::string filter;
  filter_->Finish(&filter);
  const FilterReader reader(filter);
  props_.bloom_filter_fp_chance = options_.bloom_filter_fp_chance;
  props_.filter_num_keys = reader.num_keys();
  props_.filter_bits_per_key = reader.bits_per_key();
  props_.filter_num_probes = static_cast<uint32_t>(reader.num_probes());
  BlockHandle handle;
  WriteBlock(filter, /*may_compress=*/false, &handle);
  props_.filter_size = handle.size + kBlockTrailerSize;
  std::string encoded;
  handle.EncodeTo(&encoded);
  metaindex->Add(kFilterName, encoded);
}

void TableBuilder::AddRangeTombstone(RangeTombstone tombstone) {
  range_tombstones_.push_back(std::move(tombstone));
}

void TableBuilder::WriteRangeDels(BlockHandle* handle) {
  if (range_tombstones_.empty() || !ok()) return;
  props_.num_range_deletions = range_tombstones_.size();
  WriteBlock(EncodeRangeDelBlock(std::move(range_tombstones_)),
             /*may_compress=*/false, handle);
  range_tombstones_.clear();
}

absl::Status TableBuilder::Finish() {
  assert(!closed_);
  if (closed_) return absl::FailedPreconditionError("table already finished");
  FlushDataBlock();
  closed_ = true;
  props_.data_size = offset_;
  props_.largest_key.assign(props_.num_entries > 0 ? ExtractUserKey(last_key_)
                                                   : "");

  // Meta blocks, named in the metaindex in sorted order: filter,
  // properties, range deletions, user filter.
  BlockBuilder metaindex(1);
  WriteFilter(&metaindex);
  BlockHandle user_filter_handle;
  const bool has_user_filter = WriteUserFilter(&user_filter_handle);
  const bool has_range_dels = !range_tombstones_.empty();
  BlockHandle range_del_handle;
  WriteRangeDels(&range_del_handle);

  // The index: the last block's entry is a short successor of its last key.
  if (ok() && pending_index_entry_) {
    std::string successor = last_key_;
    icmp_.ShortenSuccessor(&successor);
    std::string handle;
    pending_handle_.EncodeTo(&handle);
    index_block_.Add(successor, handle);
    pending_index_entry_ = false;
  }
  const std::string_view index_contents = index_block_.Finish();
  props_.index_size = index_contents.size() + kBlockTrailerSize;
  props_.creation_time = static_cast<uint64_t>(std::time(nullptr));

  BlockHandle props_handle, metaindex_handle, index_handle;
  WriteBlock(EncodeProperties(props_), /*may_compress=*/false, &props_handle);
  std::string encoded;
  props_handle.EncodeTo(&encoded);
  metaindex.Add(kPropertiesName, encoded);
  if (has_range_dels) {
    encoded.clear();
    range_del_handle.EncodeTo(&encoded);
    metaindex.Add(kRangeDelBlockName, encoded);
  }
  if (has_user_filter) {
    encoded.clear();
    user_filter_handle.EncodeTo(&encoded);
    metaindex.Add(kUserFilterName, encoded);
  }
  WriteBlock(metaindex.Finish(), /*may_compress=*/false, &metaindex_handle);
  WriteBlock(index_contents, /*may_compress=*/false, &index_handle);

  Footer footer;
  footer.metaindex = metaindex_handle;
  footer.index = index_handle;
  std::string footer_bytes;
  footer.EncodeTo(&footer_bytes);
  WriteRaw(footer_bytes);
  if (ok()) status_ = file_->Flush();
  return status_;
}

void TableBuilder::Abandon() { closed_ = true; }

}  // namespace sift
