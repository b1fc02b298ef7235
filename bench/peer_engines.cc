#include "bench/peer_engines.h"

#include <snappy.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
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
#include "sift/iterator.h"
#include "util/coding.h"

namespace sift::bench {
namespace {

[[noreturn]] void Die(std::string_view engine, std::string_view what) {
  std::fprintf(stderr, "peer_bench: %.*s: %.*s\n",
               static_cast<int>(engine.size()), engine.data(),
               static_cast<int>(what.size()), what.data());
  std::exit(1);
}

using Visit = std::function<void(std::string_view, std::string_view)>;

// Scan for RocksDB's and LevelDB's iterators, which share LevelDB's shape.
template <typename Slice, typename PeerIterator>
void ScanPeer(PeerIterator* it, std::string_view start, int n,
              const Visit& visit, const char* engine) {
  int i = 0;
  for (it->Seek(Slice(start.data(), start.size())); i < n && it->Valid();
       it->Next(), ++i) {
    visit(std::string_view(it->key().data(), it->key().size()),
          std::string_view(it->value().data(), it->value().size()));
  }
  if (!it->status().ok()) Die(engine, it->status().ToString());
}

int64_t ParseInt(std::string_view s) {
  return std::strtoll(std::string(s).c_str(), nullptr, 10);
}

// The bytes of the filter block of one LevelDB table file, from its footer
// and metaindex block as LevelDB's table format lays them out: the
// footer (the file's last 48 bytes) starts with the metaindex block's
// handle (varint64 offset, varint64 size); the block (followed by a type
// byte, 1 = Snappy, and a crc) maps "filter.<policy name>" to the filter
// block's handle. 0 if the file has no filter or cannot be read.
int64_t LevelDbFilterBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string file((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  constexpr size_t kFooter = 48;
  if (file.size() < kFooter) return 0;
  std::string_view footer(file.data() + file.size() - kFooter, kFooter);
  uint64_t offset = 0, size = 0;
  if (!GetVarint64(&footer, &offset) || !GetVarint64(&footer, &size) ||
      offset + size + 1 > file.size()) {
    return 0;
  }
  std::string block = file.substr(offset, size);
  if (file[offset + size] == 1) {
    std::string raw;
    if (!snappy::Uncompress(block.data(), block.size(), &raw)) return 0;
    block = std::move(raw);
  }
  if (block.size() < 4) return 0;
  const uint32_t restarts = DecodeFixed32(block.data() + block.size() - 4);
  if ((restarts + 1) * 4ull > block.size()) return 0;
  std::string_view entries(block.data(), block.size() - (restarts + 1) * 4);
  std::string key;
  while (!entries.empty()) {
    uint32_t shared = 0, non_shared = 0, value_len = 0;
    if (!GetVarint32(&entries, &shared) ||
        !GetVarint32(&entries, &non_shared) ||
        !GetVarint32(&entries, &value_len) || shared > key.size() ||
        uint64_t{non_shared} + value_len > entries.size()) {
      return 0;
    }
    key.resize(shared);
    key.append(entries.data(), non_shared);
    std::string_view value = entries.substr(non_shared, value_len);
    entries.remove_prefix(non_shared + value_len);
    uint64_t filter_offset = 0, filter_size = 0;
    if (key.rfind("filter.", 0) == 0 && GetVarint64(&value, &filter_offset) &&
        GetVarint64(&value, &filter_size)) {
      return static_cast<int64_t>(filter_size);
    }
  }
  return 0;
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
    o.max_background_jobs = c.max_background_jobs;
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
  void Scan(std::string_view start, int n, const Visit& visit) override {
    std::unique_ptr<Iterator> it = db_->NewIterator(read_options_);
    int i = 0;
    for (it->Seek(start); i < n && it->Valid(); it->Next(), ++i) {
      visit(it->key(), it->value());
    }
    if (!it->status().ok()) Die(name(), it->status().ToString());
  }
  EngineFacts Facts(const std::string&) override {
    const Statistics st = db_->GetStatistics();
    EngineFacts f;
    f.filter_bytes = ParseInt(db_->GetProperty("sift.filter-bytes").value());
    f.table_bytes_written = static_cast<int64_t>(
        st.Get(kFlushBytesWritten) + st.Get(kCompactionBytesWritten));
    f.stall_micros = static_cast<int64_t>(st.Get(kStallMicros));
    return f;
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
    o.max_background_jobs = c.max_background_jobs;
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
  void Scan(std::string_view start, int n, const Visit& visit) override {
    std::unique_ptr<rocksdb::Iterator> it(
        db_->NewIterator(rocksdb::ReadOptions()));
    ScanPeer<rocksdb::Slice>(it.get(), start, n, visit, name());
  }
  // Filter bytes from the tables' aggregated properties; bytes written from
  // the compaction statistics' Sum row (flushes are its level-0 writes);
  // the stall from the DB statistics' "Cumulative stall: H:M:S" line.
  EngineFacts Facts(const std::string&) override {
    EngineFacts f;
    std::map<std::string, std::string> m;
    if (db_->GetMapProperty("rocksdb.aggregated-table-properties", &m)) {
      f.filter_bytes = ParseInt(m["filter_size"]);
    }
    m.clear();
    if (db_->GetMapProperty("rocksdb.cfstats", &m) &&
        m.count("compaction.Sum.WriteGB") > 0) {
      f.table_bytes_written = static_cast<int64_t>(
          std::stod(m["compaction.Sum.WriteGB"]) * 1073741824.0);
    }
    std::string db_stats;
    db_->GetProperty("rocksdb.dbstats", &db_stats);
    const size_t at = db_stats.find("Cumulative stall: ");
    int h = 0, min = 0;
    double sec = 0;
    if (at != std::string::npos &&
        std::sscanf(db_stats.c_str() + at, "Cumulative stall: %d:%d:%lf", &h,
                    &min, &sec) == 3) {
      f.stall_micros =
          static_cast<int64_t>(((h * 60.0 + min) * 60.0 + sec) * 1e6);
    }
    return f;
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
  void Scan(std::string_view start, int n, const Visit& visit) override {
    std::unique_ptr<leveldb::Iterator> it(
        db_->NewIterator(leveldb::ReadOptions()));
    ScanPeer<leveldb::Slice>(it.get(), start, n, visit, name());
  }
  // LevelDB reports neither filter memory nor stalls: the filter bytes are
  // read from its table files (the live ones: compaction is done); bytes
  // written are the Write(MB) column of "leveldb.stats", whose level rows
  // include the memtable flushes.
  EngineFacts Facts(const std::string& dir) override {
    EngineFacts f;
    // "leveldb.sstables" lists the live files, "  <number>:<size>[...]".
    std::string tables;
    db_->GetProperty("leveldb.sstables", &tables);
    std::istringstream files(tables);
    std::string line;
    f.filter_bytes = 0;
    while (std::getline(files, line)) {
      unsigned long long number = 0, size = 0;
      if (std::sscanf(line.c_str(), " %llu:%llu", &number, &size) == 2) {
        f.filter_bytes +=
            LevelDbFilterBytes(absl::StrFormat("%s/%06d.ldb", dir, number));
      }
    }
    std::string stats;
    db_->GetProperty("leveldb.stats", &stats);
    std::istringstream lines(stats);
    double mb = 0;
    while (std::getline(lines, line)) {
      int level = 0, files = 0;
      double size = 0, time = 0, read = 0, write = 0;
      if (std::sscanf(line.c_str(), "%d %d %lf %lf %lf %lf", &level, &files,
                      &size, &time, &read, &write) == 6) {
        mb += write;
      }
    }
    f.table_bytes_written = static_cast<int64_t>(mb * 1048576.0);
    return f;
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
