// Crash loops: a DB killed at random points must reopen with every
// acknowledged write.
//
// ProcessCrash: a forked child opens a real POSIX DB with a small memtable
// (so flushes and compactions run); one to three writer threads (so group
// commit joins their batches) write single puts, deletes and batches, some
// synced, each on its own keys, and record each write in their own
// append-only expected-state file: an intent record before the write, an
// ack record after it returns OK. The parent SIGKILLs the child after a
// random delay, reopens the DB and checks that, per writer, it holds
// exactly the writes up to the last ack, or those plus the one write in
// flight (all of it or none of it). The next cycle reuses the DB.
//
// ProcessCrashAcrossFamilies: the same, with every batch also written to
// two more column families (one with another comparator and fp chance) in
// the same WriteBatch; after each kill the two must hold exactly what the
// default family holds: a batch is all-or-nothing across families.
//
// MachineCrash: FaultInjectionEnv drops everything not synced, as a power
// loss would; every synced write must survive, and what survives must be a
// prefix of the writes (no holes, no torn batch).
//
// Cycles: SIFT_CRASH_CYCLES (default 20 and 40); seed: SIFT_TEST_SEED. The
// seed fixes the workload and the kill delays; where a SIGKILL lands also
// depends on timing, so each cycle prints what it found.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "tests/testutil/expected_state.h"
#include "tests/testutil/fault_env.h"
#include "tests/testutil/test_comparators.h"
#include "tests/testutil/testutil.h"
#include "util/coding.h"
#include "util/crc32c.h"
#include "util/random.h"

namespace sift {
namespace {

using test::ExpectedState;
using test::WriteOps;

constexpr uint32_t kKeySpace = 2000;

int Cycles(int fallback) {
  const char* env = std::getenv("SIFT_CRASH_CYCLES");
  int n;
  if (env != nullptr && absl::SimpleAtoi(env, &n) && n > 0) return n;
  return fallback;
}

Options CrashOptions() {
  Options o;
  o.create_if_missing = true;
  o.write_buffer_size = 64 << 10;
  o.max_bytes_for_level_base = 10 * o.write_buffer_size;
  o.max_file_size = 64 << 10;
  o.level0_compaction_trigger = 2;
  o.block_size = 1024;
  // Two compactions and a flush may be in flight when the crash comes.
  o.max_background_jobs = 3;
  return o;
}

// The families of the cross-family mode besides "default": batches write
// the same entries to each.
ColumnFamilyOptions MirrorOptions(int i) {
  ColumnFamilyOptions o = CrashOptions();
  if (i == 0) {
    o.bloom_filter_fp_chance = 0.1;
    o.write_buffer_size = 48 << 10;
  } else {
    o.comparator = test::ReverseBytewiseComparator();
    o.bloom_filter_fp_chance = 0.001;
  }
  return o;
}
constexpr int kMirrors = 2;

std::vector<ColumnFamilyDescriptor> CrashFamilies() {
  std::vector<ColumnFamilyDescriptor> fams = {
      {kDefaultColumnFamilyName, CrashOptions()}};
  for (int i = 0; i < kMirrors; ++i) {
    fams.emplace_back(absl::StrCat("mirror", i), MirrorOptions(i));
  }
  return fams;
}

// The DB of the crash loops; with families, their handles in *handles
// (created if missing).
absl::StatusOr<std::unique_ptr<DB>> OpenCrashDB(
    const std::string& path, bool families,
    std::vector<std::unique_ptr<ColumnFamilyHandle>>* handles) {
  if (!families) return DB::Open(CrashOptions(), path);
  DBOptions o = CrashOptions();
  o.create_missing_column_families = true;
  return DB::Open(o, path, CrashFamilies(), handles);
}

// Every entry of family h, in bytewise order.
absl::StatusOr<std::map<std::string, std::string>> Contents(
    DB* db, ColumnFamilyHandle* h) {
  std::map<std::string, std::string> out;
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions(), h);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    out.emplace(std::string(it->key()), std::string(it->value()));
  }
  if (!it->status().ok()) return it->status();
  return out;
}

// A random write on keys starting with `prefix`. Values name the cycle
// and write, so every value is unique.
WriteOps RandomWrite(Random* rnd, int cycle, uint64_t id,
                     std::string_view prefix = "") {
  WriteOps ops;
  const int n = rnd->OneIn(5) ? 2 + static_cast<int>(rnd->Uniform(7)) : 1;
  for (int i = 0; i < n; ++i) {
    std::string key =
        absl::StrFormat("%skey%05u", prefix, rnd->Uniform(kKeySpace));
    if (rnd->OneIn(10)) {
      ops.emplace_back(std::move(key), std::nullopt);
      continue;
    }
    std::string v = absl::StrCat("c", cycle, "-w", id, "-", i, "-");
    v.resize(v.size() + rnd->Skewed(9), 'x');
    ops.emplace_back(std::move(key), std::move(v));
  }
  return ops;
}

// ---- the expected-state file ----
//
// A sequence of records, each written with one write(2) to an O_APPEND file
// (a process crash cannot split it; a damaged last record is ignored):
//   fixed32 payload length | fixed32 masked crc32c(payload) | payload
//   payload: uint8 kind (1 intent, 2 ack) | fixed64 write id
//            intent only: varint32 op count, then per op
//                         uint8 is_put | length-prefixed key | [value]

constexpr uint8_t kIntent = 1, kAck = 2;

class AckLogWriter {
 public:
  explicit AckLogWriter(const std::string& path)
      : fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
                   0644)) {}
  ~AckLogWriter() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return fd_ >= 0; }

  bool Intent(uint64_t id, const WriteOps& ops) {
    std::string p(1, static_cast<char>(kIntent));
    PutFixed64(&p, id);
    PutVarint32(&p, static_cast<uint32_t>(ops.size()));
    for (const auto& [key, value] : ops) {
      p.push_back(value.has_value() ? 1 : 0);
      PutLengthPrefixed(&p, key);
      if (value.has_value()) PutLengthPrefixed(&p, *value);
    }
    return Emit(p);
  }
  bool Ack(uint64_t id) {
    std::string p(1, static_cast<char>(kAck));
    PutFixed64(&p, id);
    return Emit(p);
  }

 private:
  bool Emit(const std::string& payload) {
    std::string r;
    PutFixed32(&r, static_cast<uint32_t>(payload.size()));
    PutFixed32(&r, crc32c::Mask(crc32c::Value(payload.data(), payload.size())));
    r += payload;
    return ::write(fd_, r.data(), r.size()) == static_cast<ssize_t>(r.size());
  }
  const int fd_;
};

// Adds the writes recorded at `path` to *model: acked ones as durable, the
// last one (if unacked) as in flight. Returns the number of acks, or an
// error if the file is damaged anywhere but at its end.
absl::StatusOr<int> LoadAckLog(const std::string& path, ExpectedState* model) {
  std::string data;
  absl::Status s = ReadFileToString(Env::Default(), path, &data);
  if (absl::IsNotFound(s)) return 0;  // killed before the first write
  if (!s.ok()) return s;
  std::string_view in(data);
  std::optional<std::pair<uint64_t, WriteOps>> pending;
  int acks = 0;
  while (in.size() >= 8) {
    const uint32_t len = DecodeFixed32(in.data());
    const uint32_t crc = crc32c::Unmask(DecodeFixed32(in.data() + 4));
    if (in.size() - 8 < len) break;  // cut short by the kill
    std::string_view p = in.substr(8, len);
    in.remove_prefix(8 + len);
    if (crc32c::Value(p.data(), p.size()) != crc || p.size() < 9) {
      return absl::DataLossError(absl::StrCat(path, ": bad record"));
    }
    const uint8_t kind = static_cast<uint8_t>(p[0]);
    const uint64_t id = DecodeFixed64(p.data() + 1);
    p.remove_prefix(9);
    if (kind == kAck) {
      if (!pending.has_value() || pending->first != id) {
        return absl::DataLossError(absl::StrCat(path, ": stray ack ", id));
      }
      model->Add(std::move(pending->second), /*durable=*/true);
      pending.reset();
      ++acks;
      continue;
    }
    if (pending.has_value()) {
      // The child stops at the first failed write, so only the last
      // intent can lack its ack.
      return absl::DataLossError(absl::StrCat(path, ": write ", pending->first,
                                              " was never acknowledged"));
    }
    WriteOps ops;
    uint32_t n = 0;
    GetVarint32(&p, &n);
    for (uint32_t i = 0; i < n; ++i) {
      const bool is_put = !p.empty() && p[0] == 1;
      p.remove_prefix(p.empty() ? 0 : 1);
      std::string_view key, value;
      GetLengthPrefixed(&p, &key);
      if (is_put) GetLengthPrefixed(&p, &value);
      ops.emplace_back(std::string(key),
                       is_put ? std::optional<std::string>(std::string(value))
                              : std::nullopt);
    }
    pending.emplace(id, std::move(ops));
  }
  if (pending.has_value()) model->Add(std::move(pending->second), false);
  return acks;
}

// ---- process crash ----

constexpr int kMaxWriters = 3;

std::string WriterPrefix(int t) { return absl::StrCat("t", t, "/"); }
std::string AckLogName(const std::string& dir, int cycle, int t) {
  return absl::StrCat(dir, "/acks-", cycle, "-", t);
}

// One writer thread of the child: its own keys, its own expected-state
// file. Exits the process on any failure.
void WriterLoop(DB* db, const std::string& log, int cycle, int t, uint64_t seed,
                std::vector<ColumnFamilyHandle*> mirrors) {
  AckLogWriter acks(log);
  if (!acks.ok()) _exit(10);
  const std::string prefix = WriterPrefix(t);
  Random rnd(seed);
  WriteOptions sync, nosync;
  sync.sync = true;
  for (uint64_t id = 1;; ++id) {
    WriteOps ops = RandomWrite(&rnd, cycle, id, prefix);
    WriteBatch batch = test::ToBatch(ops);
    for (ColumnFamilyHandle* h : mirrors) {
      for (const auto& [key, value] : ops) {
        if (value.has_value()) {
          batch.Put(h, key, *value);
        } else {
          batch.Delete(h, key);
        }
      }
    }
    if (!acks.Intent(id, ops)) _exit(12);
    absl::Status s = db->Write(rnd.OneIn(100) ? sync : nosync, &batch);
    if (!s.ok()) {
      std::fprintf(stderr, "child: write %llu: %s\n",
                   static_cast<unsigned long long>(id), s.ToString().c_str());
      _exit(13);
    }
    if (!acks.Ack(id)) _exit(14);
    if (t == 0 && rnd.OneIn(3000)) {
      // A manual compaction of a small range, racing the kill.
      const std::string a =
          absl::StrFormat("%skey%05u", prefix, rnd.Uniform(kKeySpace));
      s = db->CompactRange(a, a + "~");
      if (!s.ok()) _exit(15);
    }
  }
}

// Calls RebuildFilters again and again beside the writers' flushes and
// compactions (a table they have just written must never be deleted as
// obsolete). Exits the process on any failure.
void RebuildLoop(DB* db, uint64_t seed) {
  Random rnd(seed);
  for (;;) {
    const absl::Status s = db->RebuildFilters();
    if (!s.ok()) {
      std::fprintf(stderr, "child: RebuildFilters: %s\n", s.ToString().c_str());
      _exit(17);
    }
    usleep(1000 + rnd.Uniform(20000));
  }
}

// The child: `writers` threads write until the process is killed. Several
// writers make group commit put their batches in one WAL record. With
// rebuild_filters, each cycle opens at another fp chance than the last,
// so old files have stale filters, and one more thread rebuilds them.
[[noreturn]] void RunChild(const std::string& dbpath, const std::string& dir,
                           int cycle, int writers, uint64_t seed,
                           bool rebuild_filters, bool families) {
  Options options = CrashOptions();
  if (rebuild_filters) {
    options.bloom_filter_fp_chance = cycle % 2 == 0 ? 0.001 : 0.02;
  }
  std::vector<std::unique_ptr<ColumnFamilyHandle>> handles;
  auto db = families ? OpenCrashDB(dbpath, true, &handles)
                     : DB::Open(options, dbpath);
  if (!db.ok()) {
    std::fprintf(stderr, "child: open: %s\n", db.status().ToString().c_str());
    _exit(11);
  }
  std::vector<ColumnFamilyHandle*> mirrors;
  for (size_t i = 1; i < handles.size(); ++i)
    mirrors.push_back(handles[i].get());
  std::vector<std::thread> threads;
  for (int t = 0; t < writers; ++t) {
    threads.emplace_back(WriterLoop, db->get(), AckLogName(dir, cycle, t),
                         cycle, t, seed + static_cast<uint64_t>(t), mirrors);
  }
  if (rebuild_filters) threads.emplace_back(RebuildLoop, db->get(), ~seed);
  for (std::thread& th : threads) th.join();  // never: they run forever
  _exit(16);
}

// How long the child runs before the kill: mostly a few hundred ms, with
// some kills during Open and recovery and some long runs.
int KillDelayMicros(Random* rnd) {
  if (rnd->OneIn(6)) return static_cast<int>(rnd->Uniform(20000));
  if (rnd->OneIn(5)) return 300000 + static_cast<int>(rnd->Uniform(700000));
  return 30000 + static_cast<int>(rnd->Uniform(300000));
}

// The SIGKILL loop (see the top of the file), with RebuildFilters running
// beside the writers if rebuild_filters.
void ProcessCrashLoop(uint64_t default_seed, bool rebuild_filters,
                      bool families = false) {
  const uint64_t seed = test::TestSeed(default_seed);
  const int cycles = Cycles(20);
  std::printf("seed %llu, %d cycles%s%s\n",
              static_cast<unsigned long long>(seed), cycles,
              rebuild_filters ? ", RebuildFilters beside the writers" : "",
              families ? ", batches across 3 column families" : "");
  const std::string dir = test::TempDir(rebuild_filters ? "crash_rebuild"
                                        : families      ? "crash_cf"
                                                        : "crash");
  const std::string dbpath = dir + "/db";
  Random rnd(seed);
  std::vector<ExpectedState> models;
  for (int t = 0; t < kMaxWriters; ++t) models.emplace_back(WriterPrefix(t));
  int total_acks = 0, in_flight = 0, in_flight_found = 0;
  for (int cycle = 0; cycle < cycles; ++cycle) {
    const int writers = 1 + cycle % kMaxWriters;
    const uint64_t child_seed = rnd.Next64();
    std::fflush(nullptr);  // the child must not flush our buffers again
    const pid_t pid = fork();
    ASSERT_GE(pid, 0) << "fork: " << std::strerror(errno);
    if (pid == 0) {
      RunChild(dbpath, dir, cycle, writers, child_seed, rebuild_filters,
               families);
    }
    usleep(static_cast<useconds_t>(KillDelayMicros(&rnd)));
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    int wstatus = 0;
    ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL)
        << "cycle " << cycle << ": the child exited by itself with status "
        << (WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);

    std::vector<std::unique_ptr<ColumnFamilyHandle>> handles;
    auto db = OpenCrashDB(dbpath, families, &handles);
    ASSERT_TRUE(db.ok()) << "cycle " << cycle << ": " << db.status();
    if (families) {
      // Each batch all-or-nothing across families: every mirror holds
      // exactly what "default" holds.
      auto want = Contents(db->get(), handles[0].get());
      ASSERT_TRUE(want.ok()) << want.status();
      for (int i = 1; i <= kMirrors; ++i) {
        auto got = Contents(db->get(), handles[i].get());
        ASSERT_TRUE(got.ok()) << got.status();
        ASSERT_TRUE(*got == *want)
            << "cycle " << cycle << " (seed " << seed << "): family "
            << handles[i]->GetName() << " holds " << got->size()
            << " keys, default " << want->size();
      }
    }
    int acked = 0, cycle_in_flight = 0, cycle_found = 0;
    for (int t = 0; t < kMaxWriters; ++t) {
      absl::StatusOr<int> acks =
          LoadAckLog(AckLogName(dir, cycle, t), &models[t]);
      ASSERT_TRUE(acks.ok()) << acks.status();
      const size_t written = models[t].pending_writes();
      size_t found = 0;
      absl::Status v = models[t].Verify(db->get(), &found);
      ASSERT_TRUE(v.ok()) << "cycle " << cycle << ", writer " << t << " (seed "
                          << seed << "): " << v;
      acked += *acks;
      cycle_in_flight += static_cast<int>(written) - *acks;
      cycle_found += static_cast<int>(found) - *acks;
    }
    total_acks += acked;
    in_flight += cycle_in_flight;
    in_flight_found += cycle_found;
    std::printf(
        "cycle %2d: %d writers, %6d acked, %d in flight of which %d "
        "applied\n",
        cycle, writers, acked, cycle_in_flight, cycle_found);
  }
  std::printf(
      "%d cycles, %d acknowledged writes, none lost; %d writes in "
      "flight at the kill, %d of them applied (all or nothing)\n",
      cycles, total_acks, in_flight, in_flight_found);
  std::filesystem::remove_all(dir);
}

TEST(CrashTest, ProcessCrashLosesNoAcknowledgedWrite) {
  ProcessCrashLoop(501, /*rebuild_filters=*/false);
}

TEST(CrashTest, ProcessCrashBesideRebuildFiltersLosesNothing) {
  ProcessCrashLoop(502, /*rebuild_filters=*/true);
}

TEST(CrashTest, ProcessCrashKeepsBatchesWholeAcrossFamilies) {
  ProcessCrashLoop(503, /*rebuild_filters=*/false, /*families=*/true);
}

// ---- machine crash ----

// Runs the power-loss cycles on FaultInjectionEnv over the memory env
// (false) or the POSIX file system (true).
class MachineCrashTest : public ::testing::TestWithParam<bool> {
 protected:
  MachineCrashTest()
      : mem_(GetParam() ? nullptr : NewMemEnv()),
        dir_(GetParam() ? test::TempDir("machine-crash") : "/crash"),
        env_(GetParam() ? Env::Default() : mem_.get()) {
    options_ = CrashOptions();
    options_.env = &env_;
    options_.write_buffer_size = 16 << 10;
    options_.max_bytes_for_level_base = 10 * options_.write_buffer_size;
    options_.max_file_size = 16 << 10;
    sync_.sync = true;
  }
  ~MachineCrashTest() override {
    if (GetParam()) std::filesystem::remove_all(dir_);
  }

  // Cuts the power with db (if any) still running, then brings it back.
  void PowerLoss(std::unique_ptr<DB>* db) {
    env_.SetFilesystemActive(false);
    db->reset();
    ASSERT_TRUE(env_.SimulateCrash().ok());
    env_.SetFilesystemActive(true);
  }

  // Sometimes the power fails during Open itself: at the k-th append,
  // sync, file creation or directory sync.
  void MaybeCrashDuringOpen(Random* rnd) {
    if (!rnd->OneIn(3)) return;
    const FaultOp ops[] = {FaultOp::kAppend, FaultOp::kSync, FaultOp::kNewFile,
                           FaultOp::kSyncDir};
    env_.InjectError(ops[rnd->Uniform(4)], "", FaultInjectionEnv::IOError(),
                     static_cast<int>(rnd->Uniform(4)));
    auto db = DB::Open(options_, dbpath());
    if (!db.ok()) ++open_crashes_;
    std::unique_ptr<DB> live = db.ok() ? *std::move(db) : nullptr;
    PowerLoss(&live);
    env_.ClearErrors();
  }

  // Opens the DB and checks it against the model.
  void OpenAndVerify(const std::string& when, std::unique_ptr<DB>* db) {
    auto opened = DB::Open(options_, dbpath());
    ASSERT_TRUE(opened.ok()) << when << ": " << opened.status();
    *db = *std::move(opened);
    const size_t written = model_.pending_writes();
    size_t found = 0;
    absl::Status v = model_.Verify(db->get(), &found);
    ASSERT_TRUE(v.ok()) << when << ": " << v;
    lost_ += static_cast<int>(written - found);
  }

  // Up to 4000 random writes, one in 20 synced, with an occasional flush.
  void WriteSome(DB* db, Random* rnd, int cycle) {
    const int n = static_cast<int>(rnd->Uniform(4000));
    for (int i = 0; i < n; ++i) {
      WriteOps ops = RandomWrite(rnd, cycle, ++id_);
      WriteBatch batch = test::ToBatch(ops);
      const bool is_sync = rnd->OneIn(20);
      ASSERT_TRUE(db->Write(is_sync ? sync_ : WriteOptions(), &batch).ok());
      model_.Add(std::move(ops), is_sync);
      synced_ += is_sync;
      if (rnd->OneIn(1500)) {
        ASSERT_TRUE(db->Flush().ok());
      }
    }
  }

  std::string dbpath() const { return dir_ + "/db"; }

  std::unique_ptr<Env> mem_;
  const std::string dir_;
  FaultInjectionEnv env_;
  Options options_;
  WriteOptions sync_;
  ExpectedState model_;
  uint64_t id_ = 0;
  int synced_ = 0, lost_ = 0, open_crashes_ = 0;
};

TEST_P(MachineCrashTest, KeepsEverySyncedWriteAndNoHoles) {
  const uint64_t seed = test::TestSeed(502);
  const int cycles = Cycles(GetParam() ? 8 : 40);
  std::printf("seed %llu, %d cycles on %s\n",
              static_cast<unsigned long long>(seed), cycles,
              GetParam() ? "POSIX" : "the memory env");
  Random rnd(seed);
  for (int cycle = 0; cycle < cycles; ++cycle) {
    if (cycle > 0) {
      ASSERT_NO_FATAL_FAILURE(MaybeCrashDuringOpen(&rnd));
    }
    std::unique_ptr<DB> db;
    ASSERT_NO_FATAL_FAILURE(OpenAndVerify(
        absl::StrCat("cycle ", cycle, " (seed ", seed, ")"), &db));
    ASSERT_NO_FATAL_FAILURE(WriteSome(db.get(), &rnd, cycle));
    // The power fails now, with flushes and compactions possibly running;
    // a write racing it fails and is not durable.
    env_.SetFilesystemActive(false);
    WriteOps ops = RandomWrite(&rnd, cycle, ++id_);
    WriteBatch batch = test::ToBatch(ops);
    EXPECT_FALSE(db->Write(sync_, &batch).ok());
    model_.Add(std::move(ops), false);
    ASSERT_NO_FATAL_FAILURE(PowerLoss(&db));
  }
  std::unique_ptr<DB> db;
  ASSERT_NO_FATAL_FAILURE(OpenAndVerify(
      absl::StrCat("after the last cycle (seed ", seed, ")"), &db));
  std::printf(
      "%d cycles (%d crashed during Open), %d synced writes, all kept; %d "
      "unsynced writes lost\n",
      cycles, open_crashes_, synced_, lost_);
}

INSTANTIATE_TEST_SUITE_P(Envs, MachineCrashTest, ::testing::Bool(),
                         [](const auto& info) {
                           return info.param ? "Posix" : "MemEnv";
                         });

}  // namespace
}  // namespace sift
