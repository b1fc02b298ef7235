// BloomStore: server/bloom_store.h; records in server/FORMAT.md.

#include "server/bloom_store.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "server/keys.h"

namespace sift::server {
namespace {

// Deltas are folded once they hold this many bytes and at least as many as
// the sub-filters they touched (so a fold writes no more than the deltas
// did): small filters fold every ~1,400 adds, not every few.
constexpr uint64_t kMinFoldBytes = 16 * 1024;
constexpr size_t kDeltaEntryBytes = 4 + 8;  // sub-filter, hash

// The offset of sub-filter `sub`'s first byte in the ScanDump stream.
uint64_t StreamOffset(const ScalableBloomFilter& f, size_t sub) {
  uint64_t off = 0;
  for (size_t i = 0; i < sub; ++i) off += f.sub_filter(i).bits.size();
  return off;
}

absl::Status Damaged(std::string_view key, std::string_view what) {
  return absl::DataLossError(
      absl::StrCat("filter '", std::string(key), "': ", std::string(what),
                   " (its records in the database do not decode)"));
}

}  // namespace

BloomStore::Entry* BloomStore::Find(std::string_view key) {
  auto it = filters_.find(key);
  return it == filters_.end() ? nullptr : &it->second;
}

uint64_t BloomStore::bytes() const {
  uint64_t b = 0;
  for (const auto& [key, e] : filters_) b += e.filter.bytes();
  return b;
}

BloomStore::Entry* BloomStore::Create(std::string_view key,
                                      ScalableBloomFilter filter,
                                      WriteBatch* batch) {
  batch->Put(BloomHeaderKey(key), filter.ScanDump(0).data);
  auto [it, inserted] =
      filters_.insert_or_assign(std::string(key), Entry(std::move(filter)));
  (void)inserted;
  return &it->second;
}

void BloomStore::RecordAdds(std::string_view key, Entry* e,
                            absl::Span<const std::pair<size_t, uint64_t>> adds,
                            WriteBatch* batch) {
  if (adds.empty()) return;
  std::string value;
  value.reserve(adds.size() * kDeltaEntryBytes);
  for (const auto& [sub, hash] : adds) {
    AppendBigEndian(&value, sub, 4);
    AppendBigEndian(&value, hash, 8);
    if (e->dirty.size() <= sub) e->dirty.resize(sub + 1, false);
    e->dirty[sub] = true;
  }
  batch->Put(BloomDeltaKey(key, e->next_seq++), value);
  e->delta_bytes += value.size();
  uint64_t dirty_bytes = 0;
  for (size_t i = 0; i < e->dirty.size(); ++i) {
    if (e->dirty[i]) dirty_bytes += e->filter.sub_filter(i).bits.size();
  }
  if (e->delta_bytes >= std::max(kMinFoldBytes, dirty_bytes)) {
    Fold(key, e, batch);
  }
}

void BloomStore::RecordRewrite(std::string_view key, Entry* e, size_t sub,
                               WriteBatch* batch) {
  if (e->dirty.size() <= sub) e->dirty.resize(sub + 1, false);
  e->dirty[sub] = true;
  Fold(key, e, batch);
}

void BloomStore::Fold(std::string_view key, Entry* e, WriteBatch* batch) {
  const ScalableBloomFilter& f = e->filter;
  batch->Put(BloomHeaderKey(key), f.ScanDump(0).data);
  for (size_t i = 0; i < e->dirty.size() && i < f.num_filters(); ++i) {
    if (!e->dirty[i]) continue;
    const std::string& bits = f.sub_filter(i).bits;
    for (size_t off = 0, piece = 0; off < bits.size();
         off += kBloomPieceBytes, ++piece) {
      const size_t n = std::min<size_t>(kBloomPieceBytes, bits.size() - off);
      batch->Put(BloomPieceKey(key, static_cast<uint32_t>(i),
                               static_cast<uint32_t>(piece)),
                 std::string_view(bits).substr(off, n));
    }
  }
  for (uint64_t seq = e->first_seq; seq < e->next_seq; ++seq) {
    batch->Delete(BloomDeltaKey(key, seq));
  }
  e->first_seq = e->next_seq;
  e->delta_bytes = 0;
  e->dirty.assign(e->dirty.size(), false);
  ++folds_;
}

void BloomStore::FoldAll(WriteBatch* batch) {
  for (auto& [key, e] : filters_) {
    if (e.delta_bytes > 0) Fold(key, &e, batch);
  }
}

void BloomStore::Erase(std::string_view key, WriteBatch* batch) {
  const std::string prefix = BloomPrefix(key);
  batch->DeleteRange(prefix, PrefixEnd(prefix));
  auto it = filters_.find(key);
  if (it != filters_.end()) filters_.erase(it);
}

absl::Status BloomStore::LoadOne(std::string_view key, Iterator* it,
                                 std::string_view prefix) {
  // The header comes first (its tag sorts first), then pieces, then deltas.
  if (!it->Valid() || it->key().size() != prefix.size() + 1 ||
      it->key()[prefix.size()] != kBloomHeaderTag) {
    return Damaged(key, "no header record");
  }
  absl::StatusOr<ScalableBloomFilter> f =
      ScalableBloomFilter::FromHeader(it->value());
  if (!f.ok()) return Damaged(key, std::string(f.status().message()));
  Entry e(*std::move(f));
  uint64_t last_seq = 0;
  bool any_delta = false;
  for (it->Next(); it->Valid() && it->key().substr(0, prefix.size()) == prefix;
       it->Next()) {
    const std::string_view k = it->key().substr(prefix.size());
    const std::string_view v = it->value();
    if (k.size() == 9 && k[0] == kBloomPieceTag) {
      const size_t sub = ReadBigEndian(k, 1, 4);
      const uint64_t piece = ReadBigEndian(k, 5, 4);
      if (sub >= e.filter.num_filters()) return Damaged(key, "stray piece");
      const uint64_t cursor =
          1 + StreamOffset(e.filter, sub) + piece * kBloomPieceBytes + v.size();
      absl::StatusOr<size_t> loaded = e.filter.LoadChunk(cursor, v);
      if (!loaded.ok() || *loaded != sub) {
        return Damaged(key,
                       absl::StrCat("piece ", piece, " of sub-filter ", sub));
      }
    } else if (k.size() == 9 && k[0] == kBloomDeltaTag) {
      const uint64_t seq = ReadBigEndian(k, 1, 8);
      if (!any_delta) e.first_seq = seq;
      any_delta = true;
      last_seq = seq;
      if (v.size() % kDeltaEntryBytes != 0 || v.empty()) {
        return Damaged(key, absl::StrCat("delta ", seq));
      }
      for (size_t at = 0; at < v.size(); at += kDeltaEntryBytes) {
        const size_t sub = ReadBigEndian(v, at, 4);
        const uint64_t hash = ReadBigEndian(v, at + 4, 8);
        if (absl::Status s = e.filter.ReplayAdd(sub, hash); !s.ok()) {
          return Damaged(key, std::string(s.message()));
        }
        if (e.dirty.size() <= sub) e.dirty.resize(sub + 1, false);
        e.dirty[sub] = true;
      }
      e.delta_bytes += v.size();
    } else {
      return Damaged(key, "unknown record");
    }
  }
  if (any_delta) {
    e.next_seq = last_seq + 1;
  }
  filters_.insert_or_assign(std::string(key), std::move(e));
  return it->status();
}

absl::Status BloomStore::Load(DB* db) {
  filters_.clear();
  ReadOptions ro;
  ro.fill_cache = false;
  std::unique_ptr<Iterator> it = db->NewIterator(ro);
  const std::string begin(1, kBloomPrefix);
  it->Seek(begin);
  while (it->Valid() && !it->key().empty() && it->key()[0] == kBloomPrefix) {
    const std::string_view k = it->key();
    if (k.size() < 5) return Damaged("?", "short record key");
    const uint64_t len = ReadBigEndian(k, 1, 4);
    if (k.size() < 5 + len + 1) return Damaged("?", "short record key");
    const std::string key(k.substr(5, len));
    const std::string prefix(k.substr(0, 5 + len));
    if (absl::Status s = LoadOne(key, it.get(), prefix); !s.ok()) return s;
  }
  return it->status();
}

absl::Status BloomStore::Reload(DB* db, std::string_view key) {
  auto found = filters_.find(key);
  if (found != filters_.end()) filters_.erase(found);
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
  const std::string prefix = BloomPrefix(key);
  it->Seek(prefix);
  if (!it->Valid() || it->key().substr(0, prefix.size()) != prefix) {
    return it->status();  // the filter was never written
  }
  return LoadOne(key, it.get(), prefix);
}

}  // namespace sift::server
