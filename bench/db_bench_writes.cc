// db_bench's workloads that write: fills, overwrites, deletes, the mixed
// read/write ones and the writer of the *whilewriting benchmarks. As in
// RocksDB, --batch_size entries go into one WriteBatch for the fills and
// deletes, and the report counts entries, not batches.
// --writes_per_range_tombstone mixes DB::DeleteRange calls into the fills
// and overwrites, as RocksDB's; the report does not count them.

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "bench/db_bench.h"
#include "bench/db_bench_keys.h"
#include "sift/write_batch.h"

namespace sift::bench {
void Benchmark::WriteSeq(ThreadState* thread, Shared*) {
  DoWrite(thread, true);
}

void Benchmark::WriteRandom(ThreadState* thread, Shared*) {
  DoWrite(thread, false);
}

void Benchmark::DoWrite(ThreadState* thread, bool seq) {
  ValueGenerator gen(config_.compression_ratio, value_size_);
  const int64_t batch_size = config_.batch_size;
  WriteBatch batch;
  std::string key;
  int64_t bytes = 0;
  const uint64_t range = std::max<int64_t>(num_, 1);
  // Only random writes run for --duration, as in RocksDB.
  Duration duration(seq ? 0 : config_.duration, writes_);
  int64_t i = 0;
  const int64_t per_tombstone = config_.writes_per_range_tombstone;
  int64_t tombstones = 0;
  std::string end_key;
  while (!duration.Done(batch_size)) {
    // One DeleteRange each time the entries written pass a multiple of
    // --writes_per_range_tombstone, as RocksDB's db_bench.
    if (per_tombstone > 0 && i > 0 && i / per_tombstone > tombstones &&
        (config_.max_num_range_tombstones == 0 ||
         tombstones < config_.max_num_range_tombstones)) {
      const uint64_t begin = RandomKeyNum(&thread->rand, range);
      MakeKey(begin, config_.key_size, &key);
      MakeKey(begin + static_cast<uint64_t>(config_.range_tombstone_width),
              config_.key_size, &end_key);
      absl::Status s =
          db_->DeleteRange(write_options_, FamilyOf(begin), key, end_key);
      if (!s.ok()) Fatal("deleterange", s);
      ++tombstones;
    }
    batch.Clear();
    for (int64_t j = 0; j < batch_size; ++j, ++i) {
      const uint64_t k =
          seq ? static_cast<uint64_t>(i) : RandomKeyNum(&thread->rand, range);
      MakeKey(k, config_.key_size, &key);
      if (batch_size == 1) {
        absl::Status s = db_->Put(write_options_, FamilyOf(k), key,
                                  gen.Generate(value_size_));
        if (!s.ok()) Fatal("put", s);
      } else {
        batch.Put(FamilyOf(k), key, gen.Generate(value_size_));
      }
      bytes += static_cast<int64_t>(config_.key_size + value_size_);
    }
    if (batch_size > 1) {
      absl::Status s = db_->Write(write_options_, &batch);
      if (!s.ok()) Fatal("put", s);
    }
    thread->stats.FinishedOps(batch_size, OpKind::kWrite);
  }
  thread->stats.AddBytes(bytes);
}

void Benchmark::DeleteSeq(ThreadState* thread, Shared*) {
  DoDelete(thread, true);
}

void Benchmark::DeleteRandom(ThreadState* thread, Shared*) {
  DoDelete(thread, false);
}

void Benchmark::DoDelete(ThreadState* thread, bool seq) {
  const int64_t batch_size = config_.batch_size;
  WriteBatch batch;
  std::string key;
  for (int64_t i = 0; i < num_; i += batch_size) {
    batch.Clear();
    for (int64_t j = 0; j < batch_size; ++j) {
      const uint64_t k = seq ? static_cast<uint64_t>(i + j)
                             : RandomKeyNum(&thread->rand, config_.num);
      MakeKey(k, config_.key_size, &key);
      batch.Delete(FamilyOf(k), key);
    }
    absl::Status s = db_->Write(write_options_, &batch);
    if (!s.ok()) Fatal("delete", s);
    thread->stats.FinishedOps(batch_size, OpKind::kDelete);
  }
}

void Benchmark::UpdateRandom(ThreadState* thread, Shared*) {
  ValueGenerator gen(config_.compression_ratio, value_size_);
  std::string key, value;
  int64_t found = 0, updates = 0, bytes = 0;
  Duration duration(config_.duration, config_.readwrites);
  while (!duration.Done(1)) {
    const uint64_t k = RandomKeyNum(&thread->rand, config_.num);
    MakeKey(k, config_.key_size, &key);
    absl::Status s = db_->Get(read_options_, FamilyOf(k), key, &value);
    if (s.ok()) {
      ++found;
      bytes += static_cast<int64_t>(key.size() + value.size());
    } else if (!absl::IsNotFound(s)) {
      Fatal("get", s);
    }
    s = db_->Put(write_options_, FamilyOf(k), key, gen.Generate(value_size_));
    if (!s.ok()) Fatal("put", s);
    ++updates;
    bytes += static_cast<int64_t>(key.size() + value_size_);
    thread->stats.FinishedOps(1, OpKind::kUpdate);
  }
  thread->stats.AddBytes(bytes);
  thread->stats.AddUpdates(updates, found);
}

// RocksDB's pattern: out of every 100 operations, the first
// --readwritepercent are Gets, the rest Puts, each of a random key.
void Benchmark::ReadRandomWriteRandom(ThreadState* thread, Shared*) {
  ValueGenerator gen(config_.compression_ratio, value_size_);
  std::string key, value;
  int64_t found = 0, reads = 0, writes = 0;
  int gets_left = 0, puts_left = 0;
  Duration duration(config_.duration, config_.readwrites);
  while (!duration.Done(1)) {
    const uint64_t k = RandomKeyNum(&thread->rand, config_.num);
    MakeKey(k, config_.key_size, &key);
    if (gets_left == 0 && puts_left == 0) {
      gets_left = config_.readwritepercent;
      puts_left = 100 - gets_left;
    }
    if (gets_left > 0) {
      --gets_left;
      absl::Status s = db_->Get(read_options_, FamilyOf(k), key, &value);
      if (s.ok()) {
        ++found;
      } else if (!absl::IsNotFound(s)) {
        Fatal("get", s);
      }
      ++reads;
      thread->stats.FinishedOps(1, OpKind::kRead);
    } else {
      --puts_left;
      absl::Status s =
          db_->Put(write_options_, FamilyOf(k), key, gen.Generate(value_size_));
      if (!s.ok()) Fatal("put", s);
      ++writes;
      thread->stats.FinishedOps(1, OpKind::kWrite);
    }
  }
  thread->stats.AddReadWrite(reads, writes, config_.readwrites, found);
}

void Benchmark::BackgroundWriter(ThreadState* thread, Shared* shared) {
  // Its work is not part of the report (RocksDB's BGWriter).
  thread->stats.ExcludeFromMerge();
  ValueGenerator gen(config_.compression_ratio, value_size_);
  std::string key;
  while (shared->readers_done.load(std::memory_order_acquire) <
         shared->num_readers) {
    const uint64_t k = RandomKeyNum(&thread->rand, config_.num);
    MakeKey(k, config_.key_size, &key);
    absl::Status s =
        db_->Put(write_options_, FamilyOf(k), key, gen.Generate(value_size_));
    if (!s.ok()) Fatal("put", s);
    thread->stats.FinishedOps(1, OpKind::kWrite);
  }
}

void Benchmark::Compact(ThreadState*, Shared*) {
  for (ColumnFamilyHandle* family : families_) {
    absl::Status s = db_->CompactRange(family, std::nullopt, std::nullopt);
    if (!s.ok()) Fatal("compact", s);
  }
}

void Benchmark::RebuildFilters(ThreadState*, Shared*) {
  for (ColumnFamilyHandle* family : families_) {
    absl::Status s = db_->RebuildFilters(family);
    if (!s.ok()) Fatal("rebuildfilters", s);
  }
}

}  // namespace sift::bench
