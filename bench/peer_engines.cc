#include "bench/peer_engines.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "leveldb/cache.h"
#include "leveldb/db.h"
#include "leveldb/filter_policy.h"
#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "sift/db.h"

namespace sift::bench {
namespace {

[[noreturn]] void Die(std::string_view engine, std::string_view what) {
  std::fprintf(stderr, "peer_bench: %.*s: %.*s\n",
               static_cast<int>(engine.size()), engine.data(),
               static_cast<int>(what.size()), what.data());
  std::exit(1);
}

class SiftEngine final : public Engine {
 public:
  const char* name() const override { return "sift"; }
  std::string Open(const std::string& dir, const EngineConfig& c) override {
    Options o;
    o.create_if_missing = true;
    o.write_buffer_size = c.write_buffer_size;
    o.max_file_size = c.file_size;
    o.block_cache_capacity = c.block_cache_size;
    o.compression = c.compression ? Compression::kSnappy : Compression::kNone;
    o.bloom_filter_fp_chance = c.fp_chance;
    if (c.hold_level0) {
      o.level0_compaction_trigger = 100;
      o.level0_slowdown_writes_trigger = o.level0_stop_writes_trigger = 1000;
    }
    auto db = DB::Open(o, dir);
    if (!db.ok()) return db.status().ToString();
    db_ = *std::move(db);
    return "";
  }
  void Put(std::string_view k, std::string_view v) override {
    absl::Status s = db_->Put(write_options_, k, v);
    if (!s.ok()) Die(name(), s.ToString());
  }
  bool Get(std::string_view k, std::string* v) override {
    absl::Status s = db_->Get(read_options_, k, v);
    if (s.ok()) return true;
    if (!absl::IsNotFound(s)) Die(name(), s.ToString());
    return false;
  }
  void Flush() override {
    absl::Status s = db_->Flush();
    if (!s.ok()) Die(name(), s.ToString());
  }
  void WaitForCompaction() override {
    absl::Status s = db_->WaitForCompaction();
    if (!s.ok()) Die(name(), s.ToString());
  }
  std::string Stats() override {
    return db_->GetProperty("sift.stats").value_or("");
  }
  std::string Describe() override {
    const Statistics st = db_->GetStatistics();
    std::string files;
    for (int l = 0; l < 7; ++l) {
      absl::StrAppend(
          &files, l == 0 ? "" : " ",
          *db_->GetProperty(absl::StrCat("sift.num-files-at-level", l)));
    }
    return absl::StrFormat(
        "files per level [%s]; filter useful %u positive %u true positive "
        "%u, observed fp %.5f",
        files, st.Get(kBloomFilterUseful), st.Get(kBloomFilterFullPositive),
        st.Get(kBloomFilterFullTruePositive), st.ObservedFpRate());
  }

 private:
  std::unique_ptr<DB> db_;
  ReadOptions read_options_;
  WriteOptions write_options_;
};

class RocksEngine final : public Engine {
 public:
  const char* name() const override { return "rocksdb"; }
  std::string Open(const std::string& dir, const EngineConfig& c) override {
    rocksdb::Options o;
    o.create_if_missing = true;
    o.write_buffer_size = c.write_buffer_size;
    o.target_file_size_base = c.file_size;
    o.compression =
        c.compression ? rocksdb::kSnappyCompression : rocksdb::kNoCompression;
    if (c.hold_level0) o.disable_auto_compactions = true;
    rocksdb::BlockBasedTableOptions t;
    t.block_cache = rocksdb::NewLRUCache(c.block_cache_size);
    t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(c.bloom_bits));
    o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
    rocksdb::DB* db = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(o, dir, &db);
    if (!s.ok()) return s.ToString();
    db_.reset(db);
    return "";
  }
  void Put(std::string_view k, std::string_view v) override {
    rocksdb::Status s =
        db_->Put(rocksdb::WriteOptions(), rocksdb::Slice(k.data(), k.size()),
                 rocksdb::Slice(v.data(), v.size()));
    if (!s.ok()) Die(name(), s.ToString());
  }
  bool Get(std::string_view k, std::string* v) override {
    rocksdb::Status s =
        db_->Get(rocksdb::ReadOptions(), rocksdb::Slice(k.data(), k.size()), v);
    if (s.ok()) return true;
    if (!s.IsNotFound()) Die(name(), s.ToString());
    return false;
  }
  void Flush() override {
    rocksdb::Status s = db_->Flush(rocksdb::FlushOptions());
    if (!s.ok()) Die(name(), s.ToString());
  }
  // RocksDB 7.8 has no WaitForCompact: poll until nothing is pending or
  // running, as its own db_bench does.
  void WaitForCompaction() override {
    while (true) {
      uint64_t pending = 0, running = 0, flushes = 0, flush_pending = 0;
      db_->GetIntProperty("rocksdb.compaction-pending", &pending);
      db_->GetIntProperty("rocksdb.num-running-compactions", &running);
      db_->GetIntProperty("rocksdb.num-running-flushes", &flushes);
      db_->GetIntProperty("rocksdb.mem-table-flush-pending", &flush_pending);
      if (pending + running + flushes + flush_pending == 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  std::string Stats() override {
    std::string v;
    db_->GetProperty("rocksdb.stats", &v);
    return v;
  }
  std::string Describe() override {
    std::string files;
    for (int l = 0; l < 7; ++l) {
      std::string v;
      db_->GetProperty(absl::StrCat("rocksdb.num-files-at-level", l), &v);
      absl::StrAppend(&files, l == 0 ? "" : " ", v);
    }
    return absl::StrCat("files per level [", files, "]");
  }

 private:
  std::unique_ptr<rocksdb::DB> db_;
};

class LevelEngine final : public Engine {
 public:
  ~LevelEngine() override {
    db_.reset();  // before the cache and filter policy it uses
  }
  const char* name() const override { return "leveldb"; }
  std::string Open(const std::string& dir, const EngineConfig& c) override {
    cache_.reset(leveldb::NewLRUCache(c.block_cache_size));
    filter_.reset(leveldb::NewBloomFilterPolicy(c.bloom_bits));
    leveldb::Options o;
    o.create_if_missing = true;
    o.write_buffer_size = c.write_buffer_size;
    o.max_file_size = c.file_size;
    o.block_cache = cache_.get();
    o.filter_policy = filter_.get();
    o.compression =
        c.compression ? leveldb::kSnappyCompression : leveldb::kNoCompression;
    leveldb::DB* db = nullptr;
    leveldb::Status s = leveldb::DB::Open(o, dir, &db);
    if (!s.ok()) return s.ToString();
    db_.reset(db);
    return "";
  }
  void Put(std::string_view k, std::string_view v) override {
    leveldb::Status s =
        db_->Put(leveldb::WriteOptions(), leveldb::Slice(k.data(), k.size()),
                 leveldb::Slice(v.data(), v.size()));
    if (!s.ok()) Die(name(), s.ToString());
  }
  bool Get(std::string_view k, std::string* v) override {
    leveldb::Status s =
        db_->Get(leveldb::ReadOptions(), leveldb::Slice(k.data(), k.size()), v);
    if (s.ok()) return true;
    if (!s.IsNotFound()) Die(name(), s.ToString());
    return false;
  }
  // LevelDB has no public flush; writing past the memtable size forces one
  // eventually, and CompactRange on an empty range flushes the memtable.
  void Flush() override {
    const leveldb::Slice empty("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 10);
    db_->CompactRange(&empty, &empty);
  }
  // LevelDB has no way to ask whether a compaction is pending: wait until
  // level 0 is under its trigger (4) and the file layout stops changing.
  void WaitForCompaction() override {
    std::string last, now;
    int stable = 0;
    while (stable < 10) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      db_->GetProperty("leveldb.sstables", &now);
      std::string l0;
      db_->GetProperty("leveldb.num-files-at-level0", &l0);
      stable = (now == last && std::atoi(l0.c_str()) < 4) ? stable + 1 : 0;
      last = now;
    }
  }
  std::string Stats() override {
    std::string v;
    db_->GetProperty("leveldb.stats", &v);
    return v;
  }
  std::string Describe() override {
    std::string files;
    for (int l = 0; l < 7; ++l) {
      std::string v;
      db_->GetProperty(absl::StrCat("leveldb.num-files-at-level", l), &v);
      absl::StrAppend(&files, l == 0 ? "" : " ", v);
    }
    return absl::StrCat("files per level [", files, "]");
  }

 private:
  std::unique_ptr<leveldb::Cache> cache_;
  std::unique_ptr<const leveldb::FilterPolicy> filter_;
  std::unique_ptr<leveldb::DB> db_;
};

}  // namespace

std::unique_ptr<Engine> NewEngine(std::string_view name) {
  if (name == "sift") return std::make_unique<SiftEngine>();
  if (name == "rocksdb") return std::make_unique<RocksEngine>();
  if (name == "leveldb") return std::make_unique<LevelEngine>();
  return nullptr;
}

}  // namespace sift::bench
