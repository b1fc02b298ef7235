// Store: server/store.h.

#include "server/store.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "server/keys.h"

namespace sift::server {

absl::StatusOr<std::unique_ptr<Store>> Store::Open(const ServerConfig& config) {
  std::unique_ptr<Store> s(new Store(config));
  Options options;
  options.create_if_missing = true;
  options.write_buffer_size = config.write_buffer_size;
  options.max_file_size = std::max<uint64_t>(config.write_buffer_size, 4 << 20);
  options.block_cache_capacity = config.block_cache_size;
  absl::StatusOr<std::unique_ptr<DB>> db = DB::Open(options, config.db);
  if (!db.ok()) return db.status();
  s->db_ = *std::move(db);
  if (absl::Status st = s->blooms_.Load(s->db_.get()); !st.ok()) return st;
  return s;
}

Store::~Store() {
  if (db_ != nullptr && has_pending()) (void)Commit();
}

absl::Status Store::Commit() {
  if (!has_pending()) return absl::OkStatus();
  WriteOptions wo;
  wo.sync = config_.appendfsync == FsyncPolicy::kAlways;
  absl::Status s = db_->Write(wo, &batch_);
  batch_.Clear();
  ++commits_;
  if (s.ok()) {
    touched_.clear();
    unsynced_ = !wo.sync;
    return s;
  }
  for (const std::string& key : touched_) {
    // A filter that cannot be read back is dropped from memory: its reads
    // then see no filter rather than bits that were never written.
    (void)blooms_.Reload(db_.get(), key);
  }
  touched_.clear();
  if (on_failure_) on_failure_(s);
  return s;
}

absl::Status Store::SyncIfDirty() {
  if (!unsynced_) return absl::OkStatus();
  if (absl::Status s = Commit(); !s.ok()) return s;
  WriteOptions wo;
  wo.sync = true;
  // A synced write makes every write before it durable (one WAL, synced in
  // order); this key holds nothing else.
  std::string key(1, kMetaPrefix);
  key += "fsync";
  absl::Status s = db_->Put(wo, key, "");
  if (s.ok()) unsynced_ = false;
  return s;
}

absl::StatusOr<KeyType> Store::Type(std::string_view key) {
  if (blooms_.Find(key) != nullptr) return KeyType::kBloom;
  std::string value;
  absl::Status s = GetString(key, &value);
  if (s.ok()) return KeyType::kString;
  if (absl::IsNotFound(s)) return KeyType::kNone;
  return s;
}

absl::Status Store::GetString(std::string_view key, std::string* value) {
  if (has_pending()) {
    if (absl::Status s = Commit(); !s.ok()) return s;
  }
  return db_->Get(ReadOptions(), StringKey(key), value);
}

std::vector<absl::Status> Store::MultiGetStrings(
    absl::Span<const std::string_view> keys, std::vector<std::string>* out) {
  if (has_pending()) {
    if (absl::Status s = Commit(); !s.ok()) {
      out->assign(keys.size(), std::string());
      return std::vector<absl::Status>(keys.size(), s);
    }
  }
  std::vector<std::string> internal;
  internal.reserve(keys.size());
  for (std::string_view k : keys) internal.push_back(StringKey(k));
  std::vector<std::string_view> views(internal.begin(), internal.end());
  return db_->MultiGet(ReadOptions(), views, out);
}

void Store::PutString(std::string_view key, std::string_view value) {
  if (blooms_.Find(key) != nullptr) blooms_.Erase(key, &batch_);
  batch_.Put(StringKey(key), value);
}

absl::StatusOr<bool> Store::Delete(std::string_view key) {
  if (blooms_.Find(key) != nullptr) {
    blooms_.Erase(key, &batch_);
    return true;
  }
  std::string value;
  absl::Status s = GetString(key, &value);
  if (absl::IsNotFound(s)) return false;
  if (!s.ok()) return s;
  batch_.Delete(StringKey(key));
  return true;
}

absl::Status Store::Clear() {
  for (char prefix : {kStringPrefix, kBloomPrefix}) {
    batch_.DeleteRange(std::string(1, prefix), std::string(1, prefix + 1));
  }
  blooms_.Clear();
  return Commit();
}

absl::Status Store::Scan(std::string_view after, size_t count,
                         std::vector<std::string>* keys, std::string* next) {
  keys->clear();
  next->clear();
  if (has_pending()) {
    if (absl::Status s = Commit(); !s.ok()) return s;
  }
  ReadOptions ro;
  ro.fill_cache = false;
  std::unique_ptr<Iterator> it = db_->NewIterator(ro);
  const std::string start = StringKey(after);
  it->Seek(start);
  if (it->Valid() && !after.empty() && it->key() == start) it->Next();
  const auto& filters = blooms_.filters();
  auto bf = after.empty() ? filters.begin() : filters.upper_bound(after);
  while (keys->size() < count) {
    const bool have_string =
        it->Valid() && !it->key().empty() && it->key()[0] == kStringPrefix;
    const bool have_bloom = bf != filters.end();
    if (!have_string && !have_bloom) break;
    if (have_string &&
        (!have_bloom || it->key().substr(1) < std::string_view(bf->first))) {
      keys->emplace_back(it->key().substr(1));
      it->Next();
    } else {
      keys->push_back(bf->first);
      ++bf;
    }
  }
  if (!it->status().ok()) return it->status();
  const bool more_strings =
      it->Valid() && !it->key().empty() && it->key()[0] == kStringPrefix;
  if (!keys->empty() && (more_strings || bf != filters.end())) {
    *next = keys->back();
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> Store::CountKeys() {
  if (has_pending()) {
    if (absl::Status s = Commit(); !s.ok()) return s;
  }
  ReadOptions ro;
  ro.fill_cache = false;
  std::unique_ptr<Iterator> it = db_->NewIterator(ro);
  const std::string begin(1, kStringPrefix);
  const std::string end(1, kStringPrefix + 1);
  uint64_t n = 0;
  for (it->Seek(begin); it->Valid() && it->key() < end; it->Next()) {
    if (++n == kExactCount) break;
  }
  if (!it->status().ok()) return it->status();
  if (n == kExactCount && it->Valid()) {
    const std::string counted_end(it->key());
    SizeApproximationOptions so;
    so.include_memtables = true;
    const Range ranges[] = {{begin, counted_end}, {begin, end}};
    absl::StatusOr<std::vector<uint64_t>> sizes =
        db_->GetApproximateSizes(so, ranges);
    if (sizes.ok() && (*sizes)[0] > 0) {
      n = static_cast<uint64_t>(std::llround(static_cast<double>(n) *
                                             static_cast<double>((*sizes)[1]) /
                                             static_cast<double>((*sizes)[0])));
    }
  }
  return n + blooms_.size();
}

}  // namespace sift::server
