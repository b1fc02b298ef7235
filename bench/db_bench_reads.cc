// db_bench's workloads that read: scans, point reads of present, missing
// and hot keys one at a time or in MultiGet batches, seeks, iterator creation,
// and the readers of the *whilewriting benchmarks.

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "bench/db_bench.h"
#include "bench/db_bench_keys.h"
#include "sift/iterator.h"

namespace sift::bench {
void Benchmark::ReadSequential(ThreadState* thread, Shared*) {
  std::unique_ptr<Iterator> it = db_->NewIterator(read_options_);
  int64_t i = 0;
  int64_t bytes = 0;
  for (it->SeekToFirst(); i < reads_ && it->Valid(); it->Next(), ++i) {
    bytes += static_cast<int64_t>(it->key().size() + it->value().size());
    thread->stats.FinishedOps(1, OpKind::kRead);
  }
  if (!it->status().ok()) Fatal("iterator", it->status());
  thread->stats.AddBytes(bytes);
}

void Benchmark::ReadReverse(ThreadState* thread, Shared*) {
  std::unique_ptr<Iterator> it = db_->NewIterator(read_options_);
  int64_t i = 0;
  int64_t bytes = 0;
  for (it->SeekToLast(); i < reads_ && it->Valid(); it->Prev(), ++i) {
    bytes += static_cast<int64_t>(it->key().size() + it->value().size());
    thread->stats.FinishedOps(1, OpKind::kRead);
  }
  if (!it->status().ok()) Fatal("iterator", it->status());
  thread->stats.AddBytes(bytes);
}

void Benchmark::ReadRandom(ThreadState* thread, Shared*) {
  DoRead(thread, config_.num, config_.key_size);
}

void Benchmark::ReadMissing(ThreadState* thread, Shared*) {
  DoRead(thread, config_.num, config_.key_size + 1);
}

void Benchmark::ReadHot(ThreadState* thread, Shared*) {
  DoRead(thread, (config_.num + 99) / 100, config_.key_size);
}

void Benchmark::DoRead(ThreadState* thread, uint64_t key_range,
                       size_t key_size) {
  std::string key, value;
  int64_t found = 0, read = 0, bytes = 0;
  Duration duration(config_.duration, reads_);
  while (!duration.Done(1)) {
    const uint64_t k = RandomKeyNum(&thread->rand, key_range);
    MakeKey(k, key_size, &key);
    absl::Status s = db_->Get(read_options_, FamilyOf(k), key, &value);
    if (s.ok()) {
      ++found;
      bytes += static_cast<int64_t>(key.size() + value.size());
    } else if (!absl::IsNotFound(s)) {
      Fatal("get", s);
    }
    ++read;
    thread->stats.FinishedOps(1, OpKind::kRead);
  }
  thread->stats.AddBytes(bytes);
  thread->stats.AddFound(found, read);
}

void Benchmark::MultiReadRandom(ThreadState* thread, Shared*) {
  DoMultiRead(thread, config_.key_size);
}

void Benchmark::MultiReadMissing(ThreadState* thread, Shared*) {
  DoMultiRead(thread, config_.key_size + 1);
}

// As RocksDB's multireadrandom: --batch_size random keys per MultiGet,
// --reads keys in all (whole batches only), each key one operation; the
// --histogram times whole batches.
void Benchmark::DoMultiRead(ThreadState* thread, size_t key_size) {
  const int64_t batch = config_.batch_size;
  std::vector<std::string> keys(static_cast<size_t>(batch));
  std::vector<std::string_view> views(keys.size());
  std::vector<ColumnFamilyHandle*> families(keys.size());
  std::vector<std::string> values;
  int64_t found = 0, read = 0, bytes = 0;
  Duration duration(config_.duration, reads_);
  while (!duration.Done(batch)) {
    for (size_t i = 0; i < keys.size(); ++i) {
      const uint64_t k = RandomKeyNum(&thread->rand, config_.num);
      MakeKey(k, key_size, &keys[i]);
      views[i] = keys[i];
      families[i] = FamilyOf(k);
    }
    // One family: its own MultiGet, as before families existed.
    const std::vector<absl::Status> statuses =
        families_.size() == 1
            ? db_->MultiGet(read_options_, views, &values)
            : db_->MultiGet(read_options_, families, views, &values);
    for (size_t i = 0; i < keys.size(); ++i) {
      if (statuses[i].ok()) {
        ++found;
        bytes += static_cast<int64_t>(keys[i].size() + values[i].size());
      } else if (!absl::IsNotFound(statuses[i])) {
        Fatal("multiget", statuses[i]);
      }
    }
    read += batch;
    thread->stats.FinishedOps(batch, OpKind::kRead);
  }
  thread->stats.AddBytes(bytes);
  thread->stats.AddFound(found, read);
}

void Benchmark::SeekRandom(ThreadState* thread, Shared*) {
  // One iterator per thread, as RocksDB's: it sees the DB as of its
  // creation, which is all of it for a read-only benchmark.
  std::unique_ptr<Iterator> it = db_->NewIterator(read_options_);
  std::string key;
  int64_t found = 0, read = 0, bytes = 0;
  Duration duration(config_.duration, reads_);
  while (!duration.Done(1)) {
    MakeKey(RandomKeyNum(&thread->rand, config_.num), config_.key_size, &key);
    it->Seek(key);
    if (it->Valid()) {
      if (it->key() == key) ++found;
      bytes += static_cast<int64_t>(it->key().size() + it->value().size());
    } else if (!it->status().ok()) {
      Fatal("seek", it->status());
    }
    ++read;
    thread->stats.FinishedOps(1, OpKind::kSeek);
  }
  thread->stats.AddBytes(bytes);
  thread->stats.AddFound(found, read);
}

void Benchmark::NewIterators(ThreadState* thread, Shared*) {
  Duration duration(config_.duration, reads_);
  while (!duration.Done(1)) {
    std::unique_ptr<Iterator> it = db_->NewIterator(read_options_);
    if (!it->status().ok()) Fatal("iterator", it->status());
    thread->stats.FinishedOps(1, OpKind::kOther);
  }
}

void Benchmark::ReadWhileWriting(ThreadState* thread, Shared* shared) {
  if (thread->tid == 0) return BackgroundWriter(thread, shared);
  ReadRandom(thread, shared);
  shared->readers_done.fetch_add(1, std::memory_order_release);
}

void Benchmark::SeekRandomWhileWriting(ThreadState* thread, Shared* shared) {
  if (thread->tid == 0) return BackgroundWriter(thread, shared);
  SeekRandom(thread, shared);
  shared->readers_done.fetch_add(1, std::memory_order_release);
}

}  // namespace sift::bench
