// Store: sift-server's data on one siftdb database -- string keys, the BF.*
// filters (BloomStore) and the batch of writes the current pipeline has
// made but not yet written.
//
// Pipelining: a command's writes go into one pending WriteBatch, which the
// server writes (one DB::Write, one WAL record) when the commands it read
// from a connection are done, or before any command reads the database, so
// every read sees every earlier write and a pipeline of 16 SETs costs one
// write. Replies are sent only after their writes were written: what a
// client sees acknowledged is in the WAL (synced as appendfsync asks).
//
// Not thread-safe: the server runs commands on one thread.

#ifndef SIFT_SERVER_STORE_H_
#define SIFT_SERVER_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/bloom_store.h"
#include "server/config.h"
#include "sift/db.h"

namespace sift::server {

// The kinds of value a key holds.
enum class KeyType { kNone, kString, kBloom };

class Store {
 public:
  static absl::StatusOr<std::unique_ptr<Store>> Open(
      const ServerConfig& config);
  // Writes what is pending (and folds nothing: deltas replay at the next
  // Open), then closes the database.
  ~Store();

  DB* db() { return db_.get(); }
  BloomStore& blooms() { return blooms_; }

  // ---- Pending writes ------------------------------------------------------
  WriteBatch* batch() { return &batch_; }
  // Filters changed by the pending batch (reloaded if its write fails).
  void TouchFilter(std::string_view key) { touched_.emplace(key); }
  bool has_pending() const { return batch_.Count() > 0; }
  // Writes attempted so far (a command that wrote the batch moves it).
  uint64_t commits() const { return commits_; }
  // Writes the pending batch. On failure every filter it touched is put
  // back as the database holds it, on_failure (if set) is told, and the
  // error is returned (again by later writes until one succeeds).
  absl::Status Commit();
  void set_on_commit_failure(std::function<void(const absl::Status&)> f) {
    on_failure_ = std::move(f);
  }
  // appendfsync everysec: makes every write so far durable if any was
  // written since the last call.
  absl::Status SyncIfDirty();

  // ---- Keys (each read commits the pending batch first) --------------------
  absl::StatusOr<KeyType> Type(std::string_view key);
  // NotFound if key holds no string (callers check Type for WRONGTYPE).
  absl::Status GetString(std::string_view key, std::string* value);
  std::vector<absl::Status> MultiGetStrings(
      absl::Span<const std::string_view> keys, std::vector<std::string>* out);
  // Sets a string, replacing whatever key held (a filter is deleted).
  void PutString(std::string_view key, std::string_view value);
  // Deletes key whatever it holds; false if it held nothing.
  absl::StatusOr<bool> Delete(std::string_view key);
  // Deletes everything (FLUSHDB).
  absl::Status Clear();

  // SCAN: up to `count` keys after `after` (exclusive; empty = the start),
  // strings and filters merged in key order. *next is the last key
  // returned, or empty when the scan is complete.
  absl::Status Scan(std::string_view after, size_t count,
                    std::vector<std::string>* keys, std::string* next);
  // DBSIZE: exact up to kExactCount keys, then extrapolated from the
  // approximate sizes of the key range counted and the whole keyspace.
  absl::StatusOr<uint64_t> CountKeys();
  static constexpr uint64_t kExactCount = 1000000;

  const ServerConfig& config() const { return config_; }
  ServerConfig& mutable_config() { return config_; }

 private:
  explicit Store(const ServerConfig& config) : config_(config) {}

  ServerConfig config_;
  std::unique_ptr<DB> db_;
  BloomStore blooms_;
  WriteBatch batch_;
  absl::flat_hash_set<std::string> touched_;
  std::function<void(const absl::Status&)> on_failure_;
  bool unsynced_ = false;
  uint64_t commits_ = 0;
};

}  // namespace sift::server

#endif  // SIFT_SERVER_STORE_H_
