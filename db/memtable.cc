#include "db/memtable.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "util/coding.h"
#include "util/hash.h"

namespace sift {
namespace {

// Inlined: the skiplist compares through this on every step of a search.
inline std::string_view GetLengthPrefixedSlice(const char* p) {
  uint32_t len;
  const char* q = GetVarint32PtrFast(p, p + kMaxVarint32Bytes, &len);
  return std::string_view(q, len);
}

}  // namespace

int MemTable::EntryComparator::operator()(const char* a, const char* b) const {
  return icmp.Compare(GetLengthPrefixedSlice(a), GetLengthPrefixedSlice(b));
}

MemTable::MemTable(KeyComparator icmp, size_t filter_bits, int filter_probes)
    : icmp_(icmp),
      table_(EntryComparator{icmp}, &arena_),
      filter_(filter_bits, filter_probes) {}

MemTable::~MemTable() = default;

size_t MemTable::ApproximateMemoryUsage() const {
  return arena_.MemoryUsage() + FilterMemory() +
         range_tombstone_bytes_.load(std::memory_order_relaxed);
}

void MemTable::AddRangeTombstone(SequenceNumber seq, std::string_view begin,
                                 std::string_view end) {
  {
    MutexLock l(&range_mu_);
    range_list_.push_back(
        RangeTombstone{std::string(begin), std::string(end), seq});
    range_fragments_.reset();
  }
  range_tombstone_bytes_.fetch_add(
      sizeof(RangeTombstone) + begin.size() + end.size(),
      std::memory_order_relaxed);
  has_range_tombstones_.store(true, std::memory_order_release);
  // Counted as an entry, so a memtable holding only tombstones is flushed.
  num_entries_.fetch_add(1, std::memory_order_relaxed);
}

std::shared_ptr<const FragmentedRangeTombstones> MemTable::RangeTombstones()
    const {
  MutexLock l(&range_mu_);
  if (range_fragments_ == nullptr) {
    range_fragments_ =
        std::make_shared<const FragmentedRangeTombstones>(range_list_);
  }
  return range_fragments_;
}

std::vector<RangeTombstone> MemTable::RangeTombstoneList() const {
  MutexLock l(&range_mu_);
  return range_list_;
}

void MemTable::Add(SequenceNumber seq, ValueType type, std::string_view key,
                   std::string_view value) {
  const size_t ikey_size = key.size() + kInternalKeyTrailerSize;
  const size_t encoded_len = VarintLength(ikey_size) + ikey_size +
                             VarintLength(value.size()) + value.size();
  char* buf = arena_.Allocate(encoded_len);
  char* p = EncodeVarint32(buf, static_cast<uint32_t>(ikey_size));
  std::memcpy(p, key.data(), key.size());
  p += key.size();
  EncodeFixed64(p, PackSequenceAndType(seq, type));
  p += kInternalKeyTrailerSize;
  p = EncodeVarint32(p, static_cast<uint32_t>(value.size()));
  std::memcpy(p, value.data(), value.size());
  filter_.AddHash(KeyHash(key));
  table_.Insert(buf);
  num_entries_.fetch_add(1, std::memory_order_relaxed);
}

MemTable::GetResult MemTable::Get(const LookupKey& key, uint64_t hash,
                                  std::string* value, LocalStats* stats,
                                  SequenceNumber* covering) const {
  if (covering != nullptr && has_range_tombstones()) {
    const SequenceNumber read_seq =
        ExtractTrailer(key.internal_key()) >> kValueTypeBits;
    *covering = std::max(
        *covering, RangeTombstones()->MaxCoveringSeq(key.user_key(), read_seq));
  }
  if (filter_.num_bits() > 0) {
    if (!filter_.MayContainHash(hash)) {
      stats->Add(config::kNoLevel, kMemtableFilterUseful);
      return GetResult::kNotFound;
    }
    stats->Add(config::kNoLevel, kMemtableFilterPositive);
  }
  Table::Iterator it(&table_);
  it.Seek(key.memtable_key().data());
  if (!it.Valid()) return GetResult::kNotFound;
  // The first entry >= (user key, sequence) is the newest visible one, if
  // it belongs to the same user key.
  const char* entry = it.key();
  uint32_t ikey_len;
  const char* ikey =
      GetVarint32Ptr(entry, entry + kMaxVarint32Bytes, &ikey_len);
  const std::string_view ik(ikey, ikey_len);
  if (!icmp_.SameUser(ExtractUserKey(ik), key.user_key())) {
    return GetResult::kNotFound;
  }
  if (filter_.num_bits() > 0) {
    stats->Add(config::kNoLevel, kMemtableFilterTruePositive);
  }
  if ((ExtractTrailer(ik) & kValueTypeMask) == kTypeDeletion ||
      (covering != nullptr &&
       (ExtractTrailer(ik) >> kValueTypeBits) < *covering)) {
    return GetResult::kDeleted;
  }
  const std::string_view v = GetLengthPrefixedSlice(ikey + ikey_len);
  value->assign(v.data(), v.size());
  return GetResult::kFound;
}

class MemTable::Iter final : public Iterator {
 public:
  explicit Iter(const Table* table) : it_(table) {}

  bool Valid() const override { return it_.Valid(); }
  void Seek(std::string_view ikey) override {
    scratch_.clear();
    PutVarint32(&scratch_, static_cast<uint32_t>(ikey.size()));
    scratch_.append(ikey.data(), ikey.size());
    it_.Seek(scratch_.data());
  }
  void SeekToFirst() override { it_.SeekToFirst(); }
  void SeekToLast() override { it_.SeekToLast(); }
  void Next() override { it_.Next(); }
  void Prev() override { it_.Prev(); }
  std::string_view key() const override {
    return GetLengthPrefixedSlice(it_.key());
  }
  std::string_view value() const override {
    const std::string_view k = key();
    return GetLengthPrefixedSlice(k.data() + k.size());
  }
  absl::Status status() const override { return absl::OkStatus(); }

 private:
  Table::Iterator it_;
  std::string scratch_;
};

std::unique_ptr<Iterator> MemTable::NewIterator() const {
  return std::make_unique<Iter>(&table_);
}

std::shared_ptr<MemTable> NewMemTableForWriteBuffer(KeyComparator icmp,
                                                    size_t write_buffer_size) {
  // A whole-key filter of half a bit per byte of write buffer (1/16 of its
  // memory, at most 8 MiB): 64 bits per key at 128-byte entries, 16 at
  // 32-byte ones. Its probes are the blocked model's best for the small
  // entries, the filter's worst case: k = 9, expected rate 0.084% (measured
  // 0.084% by dynamic_bloom_test); larger entries only make it lower.
  constexpr size_t kMaxFilterBits = size_t{64} << 20;
  constexpr double kBitsPerKeyAtSmallEntries = 16;
  static const int kProbes =
      DynamicBloom::OptimalProbes(kBitsPerKeyAtSmallEntries);
  const size_t bits = std::min<size_t>(write_buffer_size / 2, kMaxFilterBits);
  return std::make_shared<MemTable>(icmp, bits, kProbes);
}

}  // namespace sift
