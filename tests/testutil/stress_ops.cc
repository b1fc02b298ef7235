#include "tests/testutil/stress_ops.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "sift/rate_limiter.h"
#include "tests/testutil/model_checks.h"
#include "util/random.h"
#include "util/status_macros.h"

namespace sift::test {
namespace {

constexpr uint32_t kKeySpace = 2000;
constexpr uint32_t kHotKeys = 32;

std::string RandomKey(Random* rnd) {
  // Half the traffic on a few hot keys: many versions, snapshots matter.
  const uint32_t i = rnd->OneIn(2) ? rnd->Uniform(kHotKeys) * 61 % kKeySpace
                                   : rnd->Uniform(kKeySpace);
  return absl::StrFormat("k%05u", i);
}

WriteOps RandomWrite(Random* rnd, const std::string& tag) {
  WriteOps ops;
  const int n = rnd->OneIn(6) ? 2 + static_cast<int>(rnd->Uniform(9)) : 1;
  for (int i = 0; i < n; ++i) {
    std::string key = RandomKey(rnd);
    if (rnd->OneIn(8)) {
      ops.emplace_back(std::move(key), std::nullopt);
      continue;
    }
    std::string v = absl::StrCat(tag, ".", i, "-");
    const size_t len =
        rnd->OneIn(40) ? 2000 + rnd->Uniform(6000) : rnd->Skewed(7);
    v.append(len, static_cast<char>('a' + rnd->Uniform(26)));
    ops.emplace_back(std::move(key), std::move(v));
  }
  return ops;
}

// The faults a kFault op injects (as a full disk would): WAL, table and
// MANIFEST writes and syncs, and every file at once.
struct FaultSpec {
  FaultOp op;
  const char* file;
};
constexpr FaultSpec kFaults[] = {
    {FaultOp::kAppend, ".log"},     {FaultOp::kSync, ".log"},
    {FaultOp::kNewFile, ".sst"},    {FaultOp::kAppend, ".sst"},
    {FaultOp::kAppend, "MANIFEST"}, {FaultOp::kSync, "MANIFEST"},
    {FaultOp::kAppend, ""},
};
constexpr uint32_t kNumFaults = sizeof(kFaults) / sizeof(kFaults[0]);

const char* KindName(StressOp::Kind k) {
  static constexpr const char* kNames[] = {
      "write",   "get",      "scan",       "seekwalk", "snapshot",
      "release", "flush",    "compact",    "reopen",   "crash",
      "fault",   "multiget", "deleterange"};
  return kNames[k];
}

}  // namespace

std::string StressOp::ToString() const {
  std::string s = KindName(kind);
  switch (kind) {
    case kWrite:
      absl::StrAppend(&s, sync ? " sync" : "", " [");
      for (const auto& [k, v] : batch) {
        absl::StrAppend(
            &s, " ", k,
            v ? absl::StrCat("=", v->substr(0, 12), "..(", v->size(), ")")
              : std::string(" del"));
      }
      absl::StrAppend(&s, " ]");
      break;
    case kGet:
      absl::StrAppend(&s, " ", key, flag ? " @snapshot " : "",
                      flag ? absl::StrCat(n) : "");
      break;
    case kMultiGet:
      absl::StrAppend(&s, " [", absl::StrJoin(keys, " "), "]",
                      flag ? " @snapshot " : "", flag ? absl::StrCat(n) : "");
      break;
    case kScan:
      absl::StrAppend(&s, flag ? " forward" : " backward");
      break;
    case kSeekWalk:
      absl::StrAppend(&s, " ", key, " steps-seed ", n,
                      flag ? " @snapshot" : "");
      break;
    case kDeleteRange:
      absl::StrAppend(&s, sync ? " sync" : "", " [", key, ", ", key2, ")");
      break;
    case kCompact:
      absl::StrAppend(&s, " [", key.empty() ? "-" : key, ", ",
                      key2.empty() ? "-" : key2, "]");
      break;
    case kRelease:
    case kReopen:
      absl::StrAppend(&s, " ", n);
      break;
    case kFault:
      absl::StrAppend(&s, " ", FaultOpName(kFaults[n % kNumFaults].op), " '",
                      kFaults[n % kNumFaults].file, "' after ",
                      n / kNumFaults % 20, flag ? ", Resume" : ", reopen");
      break;
    default:
      break;
  }
  return s;
}

std::vector<StressOp> GenerateStressOps(uint64_t seed, int n) {
  Random rnd(seed);
  std::vector<StressOp> ops;
  for (int i = 0; i < n; ++i) {
    StressOp op;
    const uint32_t r = rnd.Uniform(1000);
    op.n = rnd.Next();
    op.flag = rnd.OneIn(2);
    if (r < 10) {
      op.kind = StressOp::kDeleteRange;
      op.key = RandomKey(&rnd);
      op.key2 = RandomKey(&rnd);
      if (op.key2 < op.key) std::swap(op.key, op.key2);
      if (op.key == op.key2) op.key2 += '~';
      op.sync = rnd.OneIn(10);
    } else if (r < 420) {
      op.kind = StressOp::kWrite;
      op.batch = RandomWrite(&rnd, absl::StrCat("s", seed % 1000, "o", i));
      op.sync = rnd.OneIn(10);
    } else if (r < 680) {
      op.kind = StressOp::kGet;
      op.key = RandomKey(&rnd);
      op.flag = rnd.OneIn(3);
    } else if (r < 830) {
      op.kind = StressOp::kSeekWalk;
      op.key = RandomKey(&rnd) + (rnd.OneIn(2) ? "" : "!");
      op.flag = rnd.OneIn(3);
    } else if (r < 845) {
      op.kind = StressOp::kScan;
    } else if (r < 860) {
      op.kind = StressOp::kSnapshot;
    } else if (r < 875) {
      op.kind = StressOp::kRelease;
    } else if (r < 905) {
      op.kind = StressOp::kFlush;
    } else if (r < 920) {
      op.kind = StressOp::kCompact;
      if (!rnd.OneIn(3)) op.key = RandomKey(&rnd);
      if (!rnd.OneIn(3)) op.key2 = RandomKey(&rnd);
      if (!op.key.empty() && !op.key2.empty() && op.key2 < op.key) {
        std::swap(op.key, op.key2);
      }
    } else if (r < 935) {
      op.kind = StressOp::kReopen;
    } else if (r < 950) {
      op.kind = StressOp::kCrash;
    } else if (r < 965) {
      op.kind = StressOp::kFault;
    } else if (r < 980) {
      op.kind = StressOp::kGet;
      op.key = RandomKey(&rnd);
    } else {
      op.kind = StressOp::kMultiGet;
      const int k = 1 + static_cast<int>(rnd.Uniform(12));
      for (int j = 0; j < k; ++j) {
        op.keys.push_back(j > 0 && rnd.OneIn(5) ? op.keys[0] : RandomKey(&rnd));
      }
      op.flag = rnd.OneIn(3);
    }
    ops.push_back(std::move(op));
  }
  return ops;
}

void DrawReopenOptions(uint32_t seed, Options* options) {
  Random rnd(seed);
  static constexpr double kFp[] = {0.01, 0.1, 1.0};
  options->bloom_filter_fp_chance = kFp[rnd.Uniform(3)];
  options->filter_layout =
      rnd.OneIn(2) ? FilterLayout::kBlocked : FilterLayout::kStandard;
  options->compression =
      rnd.OneIn(2) ? Compression::kSnappy : Compression::kNone;
  options->write_buffer_size = size_t{8} << (10 + rnd.Uniform(5));
  options->max_file_size = size_t{4} << (10 + rnd.Uniform(6));
  options->block_size = size_t{256} << rnd.Uniform(5);
  options->max_open_files = rnd.OneIn(3) ? 10 : 1000;
  options->level0_compaction_trigger = 1 + static_cast<int>(rnd.Uniform(8));
  // Background writes through a rate limiter too (fast enough not to slow
  // the test: 64 MiB/s in 1 ms refills).
  options->rate_limiter =
      rnd.OneIn(3) ? NewGenericRateLimiter(64 << 20, 1000) : nullptr;
  // One reopen in four sizes filters from a per-level budget instead, so
  // RebuildFilters has files to re-tune (the fp chance stays at its
  // default: the budget replaces it).
  options->filter_bits_per_key_budget = 0;
  if (rnd.OneIn(4)) {
    options->bloom_filter_fp_chance = Options().bloom_filter_fp_chance;
    options->filter_bits_per_key_budget = 4 + rnd.Uniform(9);
  }
}

StressRunner::StressRunner(const Options& options)
    : base_(NewMemEnv()),
      env_(std::make_unique<FaultInjectionEnv>(base_.get())),
      options_(options) {
  options_.env = env_.get();
  options_.create_if_missing = true;
}

StressRunner::~StressRunner() { Close(); }

absl::Status StressRunner::Open() {
  auto db = DB::Open(options_, "/stress");
  if (!db.ok()) return db.status();
  db_ = *std::move(db);
  return absl::OkStatus();
}

void StressRunner::Close() {
  if (db_ == nullptr) return;
  for (const Snap& s : snaps_) db_->ReleaseSnapshot(s.snapshot);
  snaps_.clear();
  db_.reset();
}

absl::Status StressRunner::Run(const std::vector<StressOp>& ops) {
  RETURN_IF_ERROR(Open());
  for (size_t i = 0; i < ops.size(); ++i) {
    ++counts_.ops;
    const absl::Status s = Apply(ops[i]);
    if (!s.ok()) {
      return absl::Status(
          s.code(),
          absl::StrCat("op ", i, " (", ops[i].ToString(), "): ", s.message()));
    }
  }
  RETURN_IF_ERROR(Scan(true));
  return Reopen(0);
}

absl::Status StressRunner::Apply(const StressOp& op) {
  switch (op.kind) {
    case StressOp::kWrite:
      return Write(op.batch, op.sync);
    case StressOp::kDeleteRange:
      return DeleteRange(op);
    case StressOp::kGet:
      return Get(op);
    case StressOp::kMultiGet:
      return MultiGet(op);
    case StressOp::kScan:
      return Scan(op.flag);
    case StressOp::kSeekWalk:
      return SeekWalk(op);
    case StressOp::kSnapshot:
      if (snaps_.size() < 4) snaps_.push_back({db_->GetSnapshot(), model_});
      return absl::OkStatus();
    case StressOp::kRelease:
      if (!snaps_.empty()) {
        const size_t i = op.n % snaps_.size();
        db_->ReleaseSnapshot(snaps_[i].snapshot);
        snaps_.erase(snaps_.begin() + static_cast<ptrdiff_t>(i));
      }
      return absl::OkStatus();
    case StressOp::kFlush:
      RETURN_IF_ERROR(db_->Flush());
      expected_.MarkAllDurable();
      return absl::OkStatus();
    case StressOp::kCompact: {
      std::optional<std::string_view> a, b;
      if (!op.key.empty()) a = op.key;
      if (!op.key2.empty()) b = op.key2;
      RETURN_IF_ERROR(db_->CompactRange(a, b));
      expected_.MarkAllDurable();  // CompactRange flushes first
      return absl::OkStatus();
    }
    case StressOp::kReopen:
      return Reopen(op.n);
    case StressOp::kCrash:
      return Crash();
    case StressOp::kFault:
      return Fault(op);
  }
  return absl::InternalError("unknown op");
}

absl::Status StressRunner::Write(const WriteOps& ops, bool sync) {
  WriteBatch batch = ToBatch(ops);
  WriteOptions wo;
  wo.sync = sync;
  RETURN_IF_ERROR(db_->Write(wo, &batch));
  for (const auto& [k, v] : ops) {
    if (v) {
      model_[k] = *v;
    } else {
      model_.erase(k);
    }
  }
  expected_.Add(ops, sync);
  ++counts_.writes_acked;
  return absl::OkStatus();
}

// The crash model knows writes of single keys: a range deletion enters it
// as a Delete of each key the model holds in the range, which is exactly
// what it removes from the state it applies to.
absl::Status StressRunner::DeleteRange(const StressOp& op) {
  WriteOps removed;
  for (auto it = model_.lower_bound(op.key);
       it != model_.end() && it->first < op.key2; ++it) {
    removed.emplace_back(it->first, std::nullopt);
  }
  WriteOptions wo;
  wo.sync = op.sync;
  RETURN_IF_ERROR(db_->DeleteRange(wo, op.key, op.key2));
  for (const auto& [k, v] : removed) model_.erase(k);
  expected_.Add(std::move(removed), op.sync);
  ++counts_.writes_acked;
  return absl::OkStatus();
}

absl::Status StressRunner::Get(const StressOp& op) {
  const Snap* snap =
      op.flag && !snaps_.empty() ? &snaps_[op.n % snaps_.size()] : nullptr;
  ReadOptions ro;
  ro.snapshot = snap != nullptr ? snap->snapshot : nullptr;
  std::string v;
  const absl::Status s = db_->Get(ro, op.key, &v);
  return CheckRead(snap != nullptr ? snap->model : model_, op.key, s, v);
}

absl::Status StressRunner::MultiGet(const StressOp& op) {
  const Snap* snap =
      op.flag && !snaps_.empty() ? &snaps_[op.n % snaps_.size()] : nullptr;
  ReadOptions ro;
  ro.snapshot = snap != nullptr ? snap->snapshot : nullptr;
  const std::vector<std::string_view> keys(op.keys.begin(), op.keys.end());
  std::vector<std::string> values(3, "stale");  // a reused vector
  const std::vector<absl::Status> statuses = db_->MultiGet(ro, keys, &values);
  if (statuses.size() != keys.size() || values.size() != keys.size()) {
    return absl::InternalError(absl::StrCat(
        "MultiGet of ", keys.size(), " keys returned ", statuses.size(),
        " statuses and ", values.size(), " values"));
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    const absl::Status s = CheckRead(snap != nullptr ? snap->model : model_,
                                     op.keys[i], statuses[i], values[i]);
    if (!s.ok())
      return absl::Status(s.code(), absl::StrCat("key ", i, " (", op.keys[i],
                                                 "): ", s.message()));
  }
  return absl::OkStatus();
}

// What a read of key returned (s, v) against what model m holds for it.
absl::Status StressRunner::CheckRead(const Model& m, const std::string& key,
                                     const absl::Status& s,
                                     const std::string& v) {
  auto it = m.find(key);
  if (it == m.end()) {
    if (absl::IsNotFound(s)) return absl::OkStatus();
    return absl::InternalError(
        absl::StrCat("expected NotFound, got ", s.ToString(), " '", v, "'"));
  }
  if (!s.ok()) return s;
  if (v != it->second) {
    return absl::InternalError(
        absl::StrCat("got '", v, "', expected '", it->second, "'"));
  }
  return absl::OkStatus();
}

absl::Status StressRunner::Scan(bool forward) {
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
  return CheckScan(it.get(), model_, forward);
}

absl::Status StressRunner::SeekWalk(const StressOp& op) {
  const Snap* snap =
      op.flag && !snaps_.empty() ? &snaps_[op.n % snaps_.size()] : nullptr;
  ReadOptions ro;
  ro.snapshot = snap != nullptr ? snap->snapshot : nullptr;
  const ModelMap& full = snap != nullptr ? snap->model : model_;
  // One walk in four is bounded below at its seek key, one in four above,
  // a few keys past it (ReadOptions' iterate bounds): the walk then sees
  // the model clipped to them.
  ModelMap clipped(full.key_comp());
  const bool bounded = op.n % 4 < 2;
  if (bounded) {
    auto from = full.begin(), to = full.end();
    if (op.n % 4 == 0) {
      ro.iterate_lower_bound = op.key;
      from = full.lower_bound(op.key);
    } else {
      to = full.lower_bound(op.key);
      for (int i = 0; i < 8 && to != full.end(); ++i) ++to;
      if (to != full.end()) ro.iterate_upper_bound = to->first;
    }
    clipped.insert(from, to);
  }
  std::unique_ptr<Iterator> it = db_->NewIterator(ro);
  Random rnd(op.n);
  return CheckSeekWalk(it.get(), bounded ? clipped : full, op.key, &rnd);
}

absl::Status StressRunner::Settle(const char* after) {
  const size_t pending = expected_.pending_writes();
  size_t found = 0;
  const absl::Status v = expected_.Verify(db_.get(), &found);
  if (!v.ok()) {
    return absl::Status(v.code(),
                        absl::StrCat("after ", after, ": ", v.message()));
  }
  counts_.writes_dropped += pending - found;
  model_ = Model(expected_.base().begin(), expected_.base().end());
  return absl::OkStatus();
}

absl::Status StressRunner::Reopen(uint32_t seed) {
  Close();
  ++counts_.reopens;
  if (seed != 0) DrawReopenOptions(seed, &options_);
  RETURN_IF_ERROR(Open());
  // A clean close loses nothing acknowledged, and Open writes what it
  // recovered to a table.
  expected_.MarkAllDurable();
  return Settle("reopen");
}

absl::Status StressRunner::Crash() {
  ++counts_.crashes;
  env_->SetFilesystemActive(false);
  Close();
  RETURN_IF_ERROR(env_->SimulateCrash());
  env_->SetFilesystemActive(true);
  RETURN_IF_ERROR(Open());
  return Settle("crash");
}

// Injects a fault, writes (flushing now and then) until something fails,
// clears the fault and recovers by Resume or by reopening. No crash: every
// acknowledged write must survive; the failed one may or may not.
absl::Status StressRunner::Fault(const StressOp& op) {
  const FaultSpec& f = kFaults[op.n % kNumFaults];
  env_->InjectError(f.op, f.file, FaultInjectionEnv::NoSpaceError(),
                    static_cast<int>(op.n / kNumFaults % 20));
  Random rnd(op.n);
  absl::Status failure;
  for (int i = 0; i < 40 && failure.ok(); ++i) {
    WriteOps ops = RandomWrite(&rnd, absl::StrCat("f", op.n, ".", i));
    WriteBatch batch = ToBatch(ops);
    WriteOptions wo;
    wo.sync = rnd.OneIn(4);
    failure = db_->Write(wo, &batch);
    if (failure.ok()) {
      ++counts_.writes_acked;
      expected_.Add(ops, wo.sync);
    } else {
      expected_.MarkAllDurable();
      expected_.Add(ops, false);
    }
    if (failure.ok() && i % 10 == 9) {
      failure = db_->Flush();
      if (!failure.ok()) expected_.MarkAllDurable();
    }
  }
  if (failure.ok()) {
    failure = db_->WaitForCompaction();
    if (!failure.ok()) expected_.MarkAllDurable();
  }
  env_->ClearErrors();
  if (failure.ok()) return Settle("a fault never met");
  ++counts_.faults;
  if (op.flag) {
    const absl::Status s = db_->Resume();
    if (!s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat("Resume after ", failure.ToString(),
                                       " was cleared: ", s.message()));
    }
  } else {
    Close();
    RETURN_IF_ERROR(Open());
  }
  return Settle(op.flag ? "Resume" : "reopen after a fault");
}

}  // namespace sift::test
