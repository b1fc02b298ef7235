#include "tests/testutil/stress_threads.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sift/sst_file_writer.h"
#include "tests/testutil/db_files.h"
#include "tests/testutil/expected_state.h"
#include "tests/testutil/stress_ops.h"
#include "util/status_macros.h"

namespace sift::test {
namespace {

// The maintenance thread acts once per this many acknowledged writes, so
// flushes and compactions keep pace with the writers without piling up
// level-0 files.
constexpr uint64_t kWritesPerMaintenance = 50;
// Where the DB lives (in the runner's in-memory Env).
constexpr char kPath[] = "/stress-threads";

uint64_t Mix(uint64_t x) {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t VersionHash(int w, int i, uint32_t v) {
  return Mix((uint64_t(w) << 48) ^ (uint64_t(i) << 32) ^ v);
}

absl::string_view Absl(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

std::string KeyOf(int w, int i) { return absl::StrFormat("t%d.%04d", w, i); }

// Version 0 is "never written"; one version in six is a Delete.
bool IsDeleteVersion(int w, int i, uint32_t v) {
  return v == 0 || VersionHash(w, i, v) % 6 == 0;
}

// The value version v puts: the key and version, then padding whose length
// and byte follow from them (one value in 64 is 2-5 KiB, filling blocks).
std::string ValueOf(int w, int i, uint32_t v) {
  const uint64_t h = VersionHash(w, i, v);
  std::string s = absl::StrCat(KeyOf(w, i), "@", v, "-");
  const size_t len = h % 64 == 0 ? 2000 + (h >> 8) % 3000 : (h >> 8) % 120;
  s.append(len, static_cast<char>('a' + (h >> 24) % 26));
  return s;
}

// The version `value` claims to be of key (w, i), or 0 if it is not one.
uint32_t VersionIn(int w, int i, std::string_view value) {
  const std::string head = absl::StrCat(KeyOf(w, i), "@");
  if (!value.starts_with(head)) return 0;
  const size_t dash = value.find('-', head.size());
  uint32_t v;
  if (dash == std::string_view::npos ||
      !absl::SimpleAtoi(Absl(value.substr(head.size(), dash - head.size())),
                        &v)) {
    return 0;
  }
  return v;
}

// Whether `got` (nullopt: NotFound) is what some version of key (w, i) in
// [lo, hi] holds.
bool Possible(int w, int i, const std::optional<std::string>& got, uint32_t lo,
              uint32_t hi) {
  if (!got.has_value()) {
    for (uint32_t v = lo; v <= hi; ++v) {
      if (IsDeleteVersion(w, i, v)) return true;
    }
    return false;
  }
  const uint32_t v = VersionIn(w, i, *got);
  return v >= lo && v <= hi && !IsDeleteVersion(w, i, v) &&
         *got == ValueOf(w, i, v);
}

absl::Status Impossible(int w, int i, const std::optional<std::string>& got,
                        uint32_t lo, uint32_t hi, std::string_view how) {
  const std::string shown =
      got.has_value()
          ? absl::StrCat("'", absl::CEscape(got->substr(0, 24)), "'")
          : "NotFound";
  const auto kind = [&](uint32_t v) {
    return IsDeleteVersion(w, i, v) ? "a Delete" : "a Put";
  };
  return absl::InternalError(absl::StrCat(
      Absl(how), " of ", KeyOf(w, i), " gave ", shown, "; possible: versions ",
      lo, " (", kind(lo), ") to ", hi, " (", kind(hi), ")"));
}

}  // namespace

struct ThreadedStressRunner::Partition {
  Partition(int id, int keys)
      : id(id),
        keys(keys),
        prefix(absl::StrCat("t", id, ".")),
        committed(static_cast<size_t>(keys)),
        pending(static_cast<size_t>(keys)),
        issued(static_cast<size_t>(keys)),
        expected(prefix) {}

  const int id;
  const int keys;
  const std::string prefix;
  // Per key: the last acknowledged version and the last announced one
  // (announced before the DB write starts). Stored by the owner alone.
  // Invariant: committed <= pending; equal between the owner's writes.
  std::vector<std::atomic<uint32_t>> committed, pending;
  // The highest version ever written per key (the owner's, or the main
  // thread's between rounds).
  std::vector<uint32_t> issued;
  ExpectedState expected;  // the owner's during a round
};

// lo[i]: committed before the read was fixed; hi[i]: pending after.
struct ThreadedStressRunner::View {
  std::vector<uint32_t> lo, hi;

  View() = default;
  // One view per partition, all around the same fix.
  template <typename Fix>
  static std::vector<View> Around(
      const std::vector<std::unique_ptr<Partition>>& partitions, Fix fix) {
    std::vector<View> views(partitions.size());
    for (size_t w = 0; w < partitions.size(); ++w) {
      for (const auto& c : partitions[w]->committed) {
        views[w].lo.push_back(c.load());
      }
    }
    fix();
    for (size_t w = 0; w < partitions.size(); ++w) {
      for (const auto& v : partitions[w]->pending) {
        views[w].hi.push_back(v.load());
      }
    }
    return views;
  }

  template <typename Fix>
  View(Partition* p, Fix fix) {
    lo.reserve(static_cast<size_t>(p->keys));
    hi.reserve(static_cast<size_t>(p->keys));
    for (const auto& c : p->committed) lo.push_back(c.load());
    fix();
    for (const auto& v : p->pending) hi.push_back(v.load());
  }
};

ThreadedStressRunner::ThreadedStressRunner(uint64_t seed,
                                           const Options& options,
                                           const ThreadedStressSize& size)
    : seed_(seed),
      size_(size),
      base_(NewMemEnv()),
      env_(std::make_unique<FaultInjectionEnv>(base_.get())),
      options_(options) {
  options_.env = env_.get();
  options_.create_if_missing = true;
  for (int w = 0; w < size_.writers; ++w) {
    partitions_.push_back(
        std::make_unique<Partition>(w, size_.keys_per_writer));
  }
}

ThreadedStressRunner::~ThreadedStressRunner() { Close(); }

absl::Status ThreadedStressRunner::Open() {
  auto db = DB::Open(options_, kPath);
  if (!db.ok()) return db.status();
  db_ = *std::move(db);
  return absl::OkStatus();
}

void ThreadedStressRunner::Close() { db_.reset(); }

void ThreadedStressRunner::Fail(absl::Status s) {
  absl::MutexLock lock(&mu_);
  if (error_.ok()) error_ = std::move(s);
  stop_.store(true);
}

absl::Status ThreadedStressRunner::Run() {
  absl::Status s = Open();
  for (int round = 0; s.ok() && round < size_.rounds; ++round) {
    s = Round(round);
    if (s.ok()) ++counts_.rounds;
  }
  counts_.ops = ops_.load();
  counts_.writes_acked = writes_acked_.load();
  return s;
}

absl::Status ThreadedStressRunner::Round(int round) {
  writers_done_.store(0);
  const uint64_t seed = Mix(seed_ + static_cast<uint64_t>(round));
  std::vector<std::thread> threads;
  for (auto& p : partitions_) {
    threads.emplace_back([this, p = p.get(), seed] {
      Random rnd(Mix(seed ^ (0x100 + static_cast<uint64_t>(p->id))));
      Writer(p, &rnd);
    });
  }
  for (int r = 0; r < size_.readers; ++r) {
    threads.emplace_back([this, r, seed] {
      Random rnd(Mix(seed ^ (0x200 + static_cast<uint64_t>(r))));
      Reader(r, &rnd);
    });
  }
  threads.emplace_back([this, seed] {
    Random rnd(Mix(seed ^ 0x300));
    Maintainer(&rnd);
  });
  for (std::thread& t : threads) t.join();
  {
    absl::MutexLock lock(&mu_);
    if (!error_.ok()) {
      return absl::Status(
          error_.code(), absl::StrCat("round ", round, ": ", error_.message()));
    }
  }
  return EndRound(round, seed);
}

WriteOps ThreadedStressRunner::Announce(Partition* p,
                                        const std::vector<int>& keys,
                                        bool deletes) {
  WriteOps ops;
  for (int i : keys) {
    const size_t k = static_cast<size_t>(i);
    uint32_t v = p->pending[k].load() + 1;
    // A DeleteRange deletes: its keys skip to their next Delete version.
    while (deletes && !IsDeleteVersion(p->id, i, v)) ++v;
    p->pending[k].store(v);
    p->issued[k] = std::max(p->issued[k], v);
    ops.emplace_back(KeyOf(p->id, i),
                     IsDeleteVersion(p->id, i, v)
                         ? std::nullopt
                         : std::optional<std::string>(ValueOf(p->id, i, v)));
  }
  return ops;
}

void ThreadedStressRunner::Acknowledge(Partition* p,
                                       const std::vector<int>& keys,
                                       WriteOps ops, bool durable) {
  for (int i : keys) {
    const size_t k = static_cast<size_t>(i);
    p->committed[k].store(p->pending[k].load());
  }
  p->expected.Add(std::move(ops), durable);
  writes_acked_.fetch_add(1);
}

absl::Status ThreadedStressRunner::WriteKeys(Partition* p,
                                             const std::vector<int>& keys,
                                             bool sync) {
  WriteOps ops = Announce(p, keys, /*deletes=*/false);
  WriteBatch batch = ToBatch(ops);
  WriteOptions wo;
  wo.sync = sync;
  RETURN_IF_ERROR(db_->Write(wo, &batch));
  Acknowledge(p, keys, std::move(ops), sync);
  return absl::OkStatus();
}

absl::Status ThreadedStressRunner::DeleteKeyRange(Partition* p, int first,
                                                  int end, bool sync) {
  std::vector<int> keys;
  for (int i = first; i < end; ++i) keys.push_back(i);
  WriteOps ops = Announce(p, keys, /*deletes=*/true);
  WriteBatch batch;
  batch.DeleteRange(KeyOf(p->id, first), KeyOf(p->id, end));
  WriteOptions wo;
  wo.sync = sync;
  RETURN_IF_ERROR(db_->Write(wo, &batch));
  Acknowledge(p, keys, std::move(ops), sync);
  return absl::OkStatus();
}

absl::Status ThreadedStressRunner::IngestKeys(Partition* p,
                                              const std::vector<int>& keys,
                                              bool move) {
  // An ingested file is durable once acknowledged, but the writes before
  // it in the log need not be: a synced write of the first key makes them
  // durable, so a crash keeps a prefix of this writer's writes.
  RETURN_IF_ERROR(WriteKeys(p, {keys.front()}, /*sync=*/true));
  WriteOps ops = Announce(p, keys, /*deletes=*/false);
  const std::string path = absl::StrCat("/stress-ingest-", p->id, ".sst");
  SstFileWriter writer(options_);
  RETURN_IF_ERROR(writer.Open(path));
  for (const auto& [key, value] : ops) {
    RETURN_IF_ERROR(value ? writer.Put(key, *value) : writer.Delete(key));
  }
  RETURN_IF_ERROR(writer.Finish());
  IngestOptions io;
  io.move_files = move;
  RETURN_IF_ERROR(db_->IngestExternalFiles({path}, io));
  if (!move) RETURN_IF_ERROR(env_->RemoveFile(path));
  Acknowledge(p, keys, std::move(ops), /*durable=*/true);
  return absl::OkStatus();
}

void ThreadedStressRunner::Writer(Partition* p, Random* rnd) {
  const auto key_space = static_cast<uint32_t>(size_.keys_per_writer);
  // want distinct keys of the partition, in increasing order.
  const auto distinct = [&](int want) {
    std::vector<int> keys;
    while (static_cast<int>(keys.size()) < want) {
      const int i = static_cast<int>(rnd->Uniform(key_space));
      if (std::find(keys.begin(), keys.end(), i) == keys.end()) {
        keys.push_back(i);
      }
    }
    std::sort(keys.begin(), keys.end());
    return keys;
  };
  for (int n = 0; n < size_.writes_per_round && !stopped(); ++n) {
    const uint32_t r = rnd->Uniform(100);
    const char* what;
    absl::Status s;
    if (r < 2) {
      // A DeleteRange over 1 to 8 keys.
      what = "DeleteRange";
      const int first = static_cast<int>(rnd->Uniform(key_space));
      const int end = std::min(size_.keys_per_writer,
                               first + 1 + static_cast<int>(rnd->Uniform(8)));
      s = DeleteKeyRange(p, first, end, rnd->OneIn(20));
    } else if (r < 3) {
      // An SSTable of 1 to 6 keys, ingested (copied or moved).
      what = "IngestExternalFiles";
      s = IngestKeys(p, distinct(1 + static_cast<int>(rnd->Uniform(6))),
                     rnd->OneIn(2));
    } else {
      // One key, or (one write in five) a batch of 2 to 4 distinct keys.
      what = "Write";
      s = WriteKeys(
          p,
          distinct(rnd->OneIn(5) ? 2 + static_cast<int>(rnd->Uniform(3)) : 1),
          rnd->OneIn(20));
    }
    ops_.fetch_add(1);
    if (!s.ok()) {
      Fail(absl::Status(s.code(), absl::StrCat("writer ", p->id, ": ", what,
                                               ": ", s.message())));
      break;
    }
  }
  writers_done_.fetch_add(1);
}

void ThreadedStressRunner::Reader(int id, Random* rnd) {
  const auto keys = static_cast<uint32_t>(size_.keys_per_writer);
  while (!stopped() && writers_done_.load() < size_.writers) {
    Partition* p =
        partitions_[rnd->Uniform(static_cast<uint32_t>(partitions_.size()))]
            .get();
    const uint32_t r = rnd->Uniform(100);
    absl::Status s;
    if (r < 55) {
      s = CheckGet(p, static_cast<int>(rnd->Uniform(keys)));
    } else if (r < 70) {
      s = CheckSnapshotGets(p, rnd->Next64());
    } else if (r < 80) {
      s = CheckScan(p, rnd->OneIn(2));
    } else {
      s = CheckSeekWalk(p, static_cast<int>(rnd->Uniform(keys)),
                        1 + static_cast<int>(rnd->Uniform(20)), rnd->OneIn(2));
    }
    ops_.fetch_add(1);
    if (!s.ok()) {
      Fail(absl::Status(s.code(),
                        absl::StrCat("reader ", id, ": ", s.message())));
      return;
    }
  }
}

void ThreadedStressRunner::Maintainer(Random* rnd) {
  uint64_t last = 0;
  while (!stopped() && writers_done_.load() < size_.writers) {
    const uint64_t acked = writes_acked_.load();
    if (acked < last + kWritesPerMaintenance) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    last = acked;
    const uint32_t r = rnd->Uniform(22);
    absl::Status s;
    const char* what;
    if (r < 8) {
      what = "Flush";
      s = db_->Flush();
    } else if (r < 13) {
      what = "CompactRange";
      std::optional<std::string> a, b;
      if (!rnd->OneIn(3)) {
        const int w = static_cast<int>(
            rnd->Uniform(static_cast<uint32_t>(size_.writers)));
        const auto keys = static_cast<uint32_t>(size_.keys_per_writer);
        int i = static_cast<int>(rnd->Uniform(keys));
        int j = static_cast<int>(rnd->Uniform(keys));
        if (j < i) std::swap(i, j);
        a = KeyOf(w, i);
        b = KeyOf(w, j);
      }
      s = db_->CompactRange(a, b);
    } else if (r < 15) {
      what = "WaitForCompaction";
      s = db_->WaitForCompaction();
    } else if (r < 18) {
      // Beside the flushes and compactions the writers cause: the files it
      // replaces filters for may be compacted away, and the tables they
      // write must never be taken for obsolete.
      what = "RebuildFilters";
      s = db_->RebuildFilters();
    } else if (r < 20) {
      what = "CreateCheckpoint";
      s = CheckCheckpoint();
    } else {
      // A column family made, written, read and dropped beside the
      // writers' flushes and compactions (which switch and flush every
      // family's memtable together).
      what = "Create/DropColumnFamily";
      s = CheckColumnFamilyChurn(rnd);
    }
    ops_.fetch_add(1);
    if (!s.ok()) {
      Fail(absl::Status(
          s.code(), absl::StrCat("maintenance: ", what, ": ", s.message())));
      return;
    }
  }
}

absl::Status ThreadedStressRunner::CheckColumnFamilyChurn(Random* rnd) {
  ColumnFamilyOptions cf;
  cf.bloom_filter_fp_chance = rnd->OneIn(2) ? 0.1 : 0.001;
  const std::string name = absl::StrCat("scratch", rnd->Uniform(1000));
  absl::StatusOr<std::unique_ptr<ColumnFamilyHandle>> h =
      db_->CreateColumnFamily(cf, name);
  if (!h.ok()) return h.status();
  int n = 1 + static_cast<int>(rnd->Uniform(50));
  for (int i = 0; i < n; ++i) {
    RETURN_IF_ERROR(db_->Put(WriteOptions(), h->get(), KeyOf(99, i),
                             absl::StrCat(name, "-", i)));
  }
  if (rnd->OneIn(2)) RETURN_IF_ERROR(db_->Flush(h->get()));
  if (rnd->OneIn(2)) {
    // An ingest into the family, beside the writers' ingests into default:
    // keys after the ones put, so they overlap no memtable.
    const std::string path = absl::StrCat("/stress-ingest-", name, ".sst");
    SstFileWriter writer(options_);
    RETURN_IF_ERROR(writer.Open(path));
    for (int i = n; i < n + 10; ++i) {
      RETURN_IF_ERROR(writer.Put(KeyOf(99, i), absl::StrCat(name, "-", i)));
    }
    RETURN_IF_ERROR(writer.Finish());
    IngestOptions io;
    io.move_files = true;
    RETURN_IF_ERROR(db_->IngestExternalFiles(h->get(), {path}, io));
    n += 10;
  }
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions(), h->get());
  for (int i = 0; i < n; ++i) {
    std::string v;
    RETURN_IF_ERROR(db_->Get(ReadOptions(), h->get(), KeyOf(99, i), &v));
    if (v != absl::StrCat(name, "-", i)) {
      return absl::InternalError(
          absl::StrCat("family ", name, ": ", KeyOf(99, i), " gave ", v));
    }
    // Keyspaces are separate: the default family never has it.
    if (!absl::IsNotFound(db_->Get(ReadOptions(), KeyOf(99, i), &v))) {
      return absl::InternalError(
          absl::StrCat("family ", name, "'s key is in the default family"));
    }
  }
  RETURN_IF_ERROR(db_->DropColumnFamily(h->get()));
  // The iterator made before the drop still reads every entry.
  int seen = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++seen;
  RETURN_IF_ERROR(it->status());
  if (seen != n) {
    return absl::InternalError(absl::StrCat("dropped family ", name, ": ", seen,
                                            " of ", n, " entries iterated"));
  }
  return absl::OkStatus();
}

absl::Status ThreadedStressRunner::CheckGet(Partition* p, int i) {
  const size_t k = static_cast<size_t>(i);
  const uint32_t lo = p->committed[k].load();
  std::string value;
  const absl::Status s = db_->Get(ReadOptions(), KeyOf(p->id, i), &value);
  const uint32_t hi = p->pending[k].load();
  if (!s.ok() && !absl::IsNotFound(s)) return s;
  std::optional<std::string> got;
  if (s.ok()) got = std::move(value);
  if (Possible(p->id, i, got, lo, hi)) return absl::OkStatus();
  return Impossible(p->id, i, got, lo, hi, "Get");
}

absl::Status ThreadedStressRunner::CheckSnapshotGets(Partition* p,
                                                     uint64_t seed) {
  const Snapshot* snapshot = nullptr;
  const View view(p, [&] { snapshot = db_->GetSnapshot(); });
  ReadOptions ro;
  ro.snapshot = snapshot;
  Random rnd(seed);
  std::vector<std::pair<int, std::optional<std::string>>> read;
  absl::Status result;
  for (int n = 0; n < 8 && result.ok(); ++n) {
    // Half the reads repeat an earlier key: a snapshot answers the same.
    const int i =
        !read.empty() && rnd.OneIn(2)
            ? read[rnd.Uniform(static_cast<uint32_t>(read.size()))].first
            : static_cast<int>(
                  rnd.Uniform(static_cast<uint32_t>(size_.keys_per_writer)));
    std::string value;
    const absl::Status s = db_->Get(ro, KeyOf(p->id, i), &value);
    if (!s.ok() && !absl::IsNotFound(s)) {
      result = s;
      break;
    }
    std::optional<std::string> got;
    if (s.ok()) got = std::move(value);
    const size_t k = static_cast<size_t>(i);
    if (!Possible(p->id, i, got, view.lo[k], view.hi[k])) {
      result =
          Impossible(p->id, i, got, view.lo[k], view.hi[k], "snapshot Get");
    }
    for (const auto& [j, earlier] : read) {
      if (j == i && earlier != got) {
        result = absl::InternalError(absl::StrCat(
            "a snapshot read ", KeyOf(p->id, i), " twice and it changed"));
      }
    }
    read.emplace_back(i, std::move(got));
  }
  db_->ReleaseSnapshot(snapshot);
  return result;
}

absl::Status ThreadedStressRunner::CheckRange(
    Partition* p, const View& view, int first, int last,
    const std::vector<std::pair<int, std::string>>& seen) const {
  size_t next = 0;
  for (int i = first; i <= last; ++i) {
    const size_t k = static_cast<size_t>(i);
    std::optional<std::string> got;
    if (next < seen.size() && seen[next].first == i) got = seen[next++].second;
    if (!Possible(p->id, i, got, view.lo[k], view.hi[k])) {
      return Impossible(p->id, i, got, view.lo[k], view.hi[k], "an iterator");
    }
  }
  if (next != seen.size()) {
    return absl::InternalError(absl::StrCat(
        "an iterator over ", KeyOf(p->id, first), "..", KeyOf(p->id, last),
        " showed keys out of order or out of range (", seen.size(), " keys)"));
  }
  return absl::OkStatus();
}

namespace {

// The index of key in partition p's keys (prefix + 4 digits), or -1.
int IndexOf(std::string_view key, const std::string& prefix, int keys) {
  int i;
  if (!key.starts_with(prefix) || key.size() != prefix.size() + 4 ||
      !absl::SimpleAtoi(Absl(key.substr(prefix.size())), &i) || i < 0 ||
      i >= keys) {
    return -1;
  }
  return i;
}

// Steps it (already positioned) up to max_steps keys of the partition in
// one direction, appending (index, value); false on a key that is not one
// of the partition's though it has its prefix.
bool Walk(Iterator* it, const std::string& prefix, int keys, bool forward,
          int max_steps, std::vector<std::pair<int, std::string>>* seen) {
  for (; it->Valid() && static_cast<int>(seen->size()) < max_steps;
       forward ? it->Next() : it->Prev()) {
    if (!it->key().starts_with(prefix)) break;
    const int i = IndexOf(it->key(), prefix, keys);
    if (i < 0) return false;
    seen->emplace_back(i, std::string(it->value()));
  }
  return true;
}

// The first key after every key with prefix ("t3." -> "t3/").
std::string PrefixEnd(std::string prefix) {
  prefix.back() = static_cast<char>(prefix.back() + 1);
  return prefix;
}

}  // namespace

absl::Status ThreadedStressRunner::CheckScan(Partition* p, bool forward) {
  std::unique_ptr<Iterator> it;
  const View view(p, [&] { it = db_->NewIterator(ReadOptions()); });
  if (forward) {
    it->Seek(p->prefix);
  } else {
    it->Seek(PrefixEnd(p->prefix));
    if (it->Valid()) {
      it->Prev();
    } else {
      it->SeekToLast();
    }
  }
  std::vector<std::pair<int, std::string>> seen;
  if (!Walk(it.get(), p->prefix, p->keys, forward, p->keys + 1, &seen)) {
    return absl::InternalError(
        absl::StrCat("an iterator showed a key nobody wrote: ",
                     absl::CEscape(std::string(it->key()))));
  }
  RETURN_IF_ERROR(it->status());
  if (!forward) std::reverse(seen.begin(), seen.end());
  return CheckRange(p, view, 0, p->keys - 1, seen);
}

absl::Status ThreadedStressRunner::CheckSeekWalk(Partition* p, int from,
                                                 int steps, bool forward) {
  std::unique_ptr<Iterator> it;
  const View view(p, [&] { it = db_->NewIterator(ReadOptions()); });
  it->Seek(KeyOf(p->id, from));
  if (!forward) {
    // The last key before `from`.
    if (it->Valid()) {
      it->Prev();
    } else {
      it->SeekToLast();
    }
  }
  std::vector<std::pair<int, std::string>> seen;
  if (!Walk(it.get(), p->prefix, p->keys, forward, steps, &seen)) {
    return absl::InternalError(
        absl::StrCat("an iterator showed a key nobody wrote: ",
                     absl::CEscape(std::string(it->key()))));
  }
  RETURN_IF_ERROR(it->status());
  // The keys the walk covered: up to where it stopped, or to the end of
  // the partition if it ran out of keys first.
  const bool full = static_cast<int>(seen.size()) == steps;
  if (forward) {
    return CheckRange(p, view, from, full ? seen.back().first : p->keys - 1,
                      seen);
  }
  std::reverse(seen.begin(), seen.end());
  return CheckRange(p, view, full ? seen.front().first : 0, from - 1, seen);
}

absl::Status ThreadedStressRunner::CheckCheckpoint() {
  const std::string dir =
      absl::StrCat("/stress-threads-checkpoint", checkpoints_++);
  absl::Status made;
  const std::vector<View> views =
      View::Around(partitions_, [&] { made = db_->CreateCheckpoint(dir); });
  RETURN_IF_ERROR(made);
  // The checkpoint holds one moment inside the call: opened with every
  // check, each key reads (by Get and by iterator alike) as a version in
  // its window.
  Options o = options_;
  o.create_if_missing = false;
  o.paranoid_checks = true;
  absl::Status s;
  {
    ASSIGN_OR_RETURN(std::unique_ptr<DB> copy, DB::Open(o, dir));
    for (size_t w = 0; s.ok() && w < partitions_.size(); ++w) {
      Partition* p = partitions_[w].get();
      std::unique_ptr<Iterator> it = copy->NewIterator(ReadOptions());
      it->Seek(p->prefix);
      std::vector<std::pair<int, std::string>> seen;
      if (!Walk(it.get(), p->prefix, p->keys, true, p->keys + 1, &seen)) {
        return absl::InternalError(
            absl::StrCat("a checkpoint showed a key nobody wrote: ",
                         absl::CEscape(std::string(it->key()))));
      }
      RETURN_IF_ERROR(it->status());
      s = CheckRange(p, views[w], 0, p->keys - 1, seen);
      size_t next = 0;
      for (int i = 0; s.ok() && i < p->keys; ++i) {
        std::optional<std::string> want;
        if (next < seen.size() && seen[next].first == i) {
          want = seen[next++].second;
        }
        std::string value;
        const absl::Status g =
            copy->Get(ReadOptions(), KeyOf(p->id, i), &value);
        if (!g.ok() && !absl::IsNotFound(g)) return g;
        if (want !=
            (g.ok() ? std::optional<std::string>(value) : std::nullopt)) {
          s = absl::InternalError(absl::StrCat("in a checkpoint, Get of ",
                                               KeyOf(p->id, i),
                                               " disagrees with its iterator"));
        }
      }
    }
  }
  auto children = env_->GetChildren(dir);
  RETURN_IF_ERROR(children.status());
  for (const std::string& name : *children) {
    RETURN_IF_ERROR(env_->RemoveFile(absl::StrCat(dir, "/", name)));
  }
  RETURN_IF_ERROR(env_->RemoveDir(dir));
  return s;
}

absl::Status ThreadedStressRunner::EndRound(int round, uint64_t seed) {
  Random rnd(seed);
  const bool crash = rnd.OneIn(2);
  if (crash) {
    ++counts_.crashes;
    env_->SetFilesystemActive(false);
    Close();
    RETURN_IF_ERROR(env_->SimulateCrash());
    env_->SetFilesystemActive(true);
  } else {
    // A clean close keeps everything acknowledged, and finishes the
    // flush or compaction it meets: every table left in the directory is
    // one the DB names.
    ++counts_.reopens;
    const absl::Status closed = db_->Close();
    if (!closed.ok()) {
      return absl::Status(
          closed.code(),
          absl::StrCat("Close ending round ", round, ": ", closed.message()));
    }
    const size_t tables = ListTableFiles(env_.get(), kPath).size();
    const int named = TotalFilesInLevels(db_.get());
    if (tables != static_cast<size_t>(named)) {
      return absl::InternalError(
          absl::StrCat("Close ending round ", round, " left ", tables,
                       " tables in the directory, the DB names ", named));
    }
    Close();
    DrawReopenOptions(rnd.Next() | 1, &options_);
    for (auto& p : partitions_) p->expected.MarkAllDurable();
  }
  RETURN_IF_ERROR(Open());
  for (auto& p : partitions_) {
    const size_t pending = p->expected.pending_writes();
    size_t found = 0;
    const absl::Status s = p->expected.Verify(db_.get(), &found);
    if (!s.ok()) {
      return absl::Status(
          s.code(), absl::StrCat("after the ", crash ? "crash" : "reopen",
                                 " ending round ", round, ", writer ", p->id,
                                 "'s keys: ", s.message()));
    }
    counts_.writes_dropped += pending - found;
    RETURN_IF_ERROR(ResetVersions(p.get()));
  }
  return absl::OkStatus();
}

absl::Status ThreadedStressRunner::ResetVersions(Partition* p) {
  for (int i = 0; i < p->keys; ++i) {
    const size_t k = static_cast<size_t>(i);
    std::string value;
    const absl::Status s = db_->Get(ReadOptions(), KeyOf(p->id, i), &value);
    uint32_t v = p->committed[k].load();
    if (s.ok()) {
      // A crash may have taken the key back to an earlier version; later
      // writes reuse the lost versions' numbers and contents.
      v = VersionIn(p->id, i, value);
      if (v == 0) {
        return absl::InternalError(absl::StrCat(KeyOf(p->id, i), " holds '",
                                                absl::CEscape(value),
                                                "', which no version wrote"));
      }
    } else if (!absl::IsNotFound(s)) {
      return s;
    } else if (!IsDeleteVersion(p->id, i, v)) {
      // Absent, after a crash dropped the writes since a Delete: a fresh
      // Delete version describes it.
      v = p->issued[k] + 1;
      while (!IsDeleteVersion(p->id, i, v)) ++v;
      p->issued[k] = v;
    }
    p->committed[k].store(v);
    p->pending[k].store(v);
  }
  return absl::OkStatus();
}

}  // namespace sift::test
