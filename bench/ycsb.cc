#include "bench/ycsb.h"

#include <cassert>
#include <chrono>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "util/coding.h"

namespace sift::bench::ycsb {
namespace {

// Random printable bytes that field values are cut from: a fresh random
// string per field would cost more than the store's own Put. Values cut at
// random offsets of a 1 MiB pool do not repeat within a block, so they
// compress about as little as YCSB's random values.
const std::string& ValuePool() {
  static const std::string* pool = [] {
    Random rnd(301);
    auto* p = new std::string;
    rnd.RandomString(1 << 20, p);
    return p;
  }();
  return *pool;
}

}  // namespace

const char* OpName(Op op) {
  switch (op) {
    case Op::kRead:
      return "READ";
    case Op::kUpdate:
      return "UPDATE";
    case Op::kInsert:
      return "INSERT";
    case Op::kScan:
      return "SCAN";
    case Op::kReadModifyWrite:
      return "READ-MODIFY-WRITE";
  }
  return "?";
}

std::optional<Workload> CoreWorkload(std::string_view name) {
  // read, update, insert, scan, read-modify-write.
  struct Def {
    const char* name;
    std::array<double, kNumOps> proportion;
    Distribution distribution;
  };
  static constexpr Def kDefs[] = {
      {"a", {0.50, 0.50, 0, 0, 0}, Distribution::kZipfian},
      {"b", {0.95, 0.05, 0, 0, 0}, Distribution::kZipfian},
      {"c", {1.00, 0, 0, 0, 0}, Distribution::kZipfian},
      {"d", {0.95, 0, 0.05, 0, 0}, Distribution::kLatest},
      {"e", {0, 0, 0.05, 0.95, 0}, Distribution::kZipfian},
      {"f", {0.50, 0, 0, 0, 0.50}, Distribution::kZipfian},
  };
  for (const Def& d : kDefs) {
    if (name == d.name) return Workload{d.name, d.proportion, d.distribution};
  }
  return std::nullopt;
}

absl::Status ValidateConfig(const Config& c) {
  auto bad = [](const char* field, auto v, const char* want) {
    return absl::InvalidArgumentError(absl::StrCat(field, "=", v, ": ", want));
  };
  if (c.record_count < 1) {
    return bad("record_count", c.record_count, "must be at least 1");
  }
  if (c.field_count < 1 || c.field_count > 1000) {
    return bad("field_count", c.field_count, "must be in [1, 1000]");
  }
  if (c.field_length < 0 || c.field_length > (1 << 20)) {
    return bad("field_length", c.field_length, "must be in [0, 1048576]");
  }
  if (c.max_scan_length < 1) {
    return bad("max_scan_length", c.max_scan_length, "must be at least 1");
  }
  return absl::OkStatus();
}

std::string KeyName(uint64_t n) { return absl::StrCat("user", FnvHash64(n)); }

void EncodeRecord(const std::vector<Field>& fields, std::string* out) {
  out->clear();
  for (const auto& [name, value] : fields) {
    PutFixed32(out, static_cast<uint32_t>(name.size()));
    out->append(name);
    PutFixed32(out, static_cast<uint32_t>(value.size()));
    out->append(value);
  }
}

bool DecodeRecord(std::string_view in, std::vector<Field>* fields) {
  // The vector's strings are reused: a read decodes without allocating.
  size_t n = 0;
  while (!in.empty()) {
    if (n == fields->size()) fields->emplace_back();
    Field& f = (*fields)[n++];
    uint32_t len = 0;
    for (std::string* part : {&f.first, &f.second}) {
      if (!GetFixed32(&in, &len) || len > in.size()) {
        fields->resize(n - 1);
        return false;
      }
      part->assign(in.data(), len);
      in.remove_prefix(len);
    }
  }
  fields->resize(n);
  return true;
}

Session::Session(const Config& config)
    : config_(config), inserts_(config.record_count) {}

bool Session::NextLoadRecord(uint64_t* n) {
  *n = next_load_.fetch_add(1, std::memory_order_relaxed);
  return *n < config_.record_count;
}

int64_t Results::Operations() const {
  int64_t n = 0;
  for (const Histogram& h : latency) n += static_cast<int64_t>(h.count());
  return n;
}

void Results::Merge(const Results& other) {
  for (int i = 0; i < kNumOps; ++i) {
    latency[i].Merge(other.latency[i]);
    not_found[i] += other.not_found[i];
  }
  lookups += other.lookups;
  found += other.found;
  bytes += other.bytes;
}

std::string Results::Report(double seconds) const {
  std::string r;
  absl::StrAppendFormat(&r, "[OVERALL], RunTime(ms), %.0f\n", seconds * 1e3);
  absl::StrAppendFormat(
      &r, "[OVERALL], Throughput(ops/sec), %.1f\n",
      seconds > 0 ? static_cast<double>(Operations()) / seconds : 0.0);
  for (int i = 0; i < kNumOps; ++i) {
    const Histogram& h = latency[i];
    if (h.count() == 0) continue;
    const char* op = OpName(static_cast<Op>(i));
    absl::StrAppendFormat(&r, "[%s], Operations, %d\n", op, h.count());
    absl::StrAppendFormat(&r, "[%s], AverageLatency(us), %.1f\n", op,
                          h.Average());
    absl::StrAppendFormat(&r, "[%s], MinLatency(us), %.1f\n", op, h.min());
    absl::StrAppendFormat(&r, "[%s], MaxLatency(us), %.1f\n", op, h.max());
    for (const auto& [label, p] : {std::pair{"50th", 50.0},
                                   {"95th", 95.0},
                                   {"99th", 99.0},
                                   {"99.9", 99.9}}) {
      absl::StrAppendFormat(&r, "[%s], %sPercentileLatency(us), %.1f\n", op,
                            label, h.Percentile(p));
    }
    absl::StrAppendFormat(&r, "[%s], Return=OK, %d\n", op,
                          static_cast<int64_t>(h.count()) - not_found[i]);
    if (not_found[i] > 0) {
      absl::StrAppendFormat(&r, "[%s], Return=NOT_FOUND, %d\n", op,
                            not_found[i]);
    }
  }
  return r;
}

Runner::Runner(Session* session, const Workload* workload, uint64_t seed)
    : session_(session), workload_(workload), rnd_(seed) {
  if (workload != nullptr) {
    const Config& c = session->config();
    const Distribution d = c.distribution.value_or(workload->distribution);
    const double inserts = static_cast<double>(c.operation_count) *
                           workload->proportion[static_cast<int>(Op::kInsert)];
    chooser_.emplace(d, c.record_count, static_cast<uint64_t>(inserts),
                     session->inserts());
  }
}

uint64_t Runner::Now() const {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

void Runner::NewValue(std::string* value) {
  const std::string& pool = ValuePool();
  const size_t len = static_cast<size_t>(session_->config().field_length);
  if (len >= pool.size()) {
    rnd_.RandomString(len, value);
    return;
  }
  const size_t at = rnd_.Uniform(static_cast<uint32_t>(pool.size() - len));
  value->assign(pool, at, len);
}

void Runner::NewRecord(std::vector<Field>* fields) {
  const int n = session_->config().field_count;
  fields->resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    (*fields)[i].first = absl::StrCat("field", i);
    NewValue(&(*fields)[i].second);
  }
}

absl::Status Runner::Insert(Store* store, uint64_t n) {
  key_ = KeyName(n);
  NewRecord(&fields_);
  EncodeRecord(fields_, &record_);
  results_.bytes += static_cast<int64_t>(key_.size() + record_.size());
  return store->Put(key_, record_);
}

absl::Status Runner::Read(Store* store, const std::string& key, bool* found) {
  absl::Status s = store->Get(key, &value_);
  *found = s.ok();
  if (absl::IsNotFound(s)) return absl::OkStatus();
  if (!s.ok()) return s;
  if (!DecodeRecord(value_, &fields_)) {
    return absl::DataLossError(
        absl::StrCat("ycsb: the value of ", key, " is not a record"));
  }
  results_.bytes += static_cast<int64_t>(key.size() + value_.size());
  return absl::OkStatus();
}

absl::Status Runner::Update(Store* store, const std::string& key, bool* found) {
  const Config& c = session_->config();
  if (c.write_all_fields) {
    *found = true;  // a blind write: nothing was looked up
    NewRecord(&fields_);
  } else {
    absl::Status s = Read(store, key, found);
    if (!s.ok()) return s;
    // A record that is not there (it never should be) gets the one field.
    if (!*found) fields_.clear();
    const int i =
        static_cast<int>(rnd_.Uniform(static_cast<uint32_t>(c.field_count)));
    const std::string name = absl::StrCat("field", i);
    auto it = fields_.begin();
    while (it != fields_.end() && it->first != name) ++it;
    if (it == fields_.end()) it = fields_.emplace(fields_.end(), name, "");
    NewValue(&it->second);
  }
  EncodeRecord(fields_, &record_);
  results_.bytes += static_cast<int64_t>(key.size() + record_.size());
  return store->Put(key, record_);
}

absl::Status Runner::Scan(Store* store, const std::string& key) {
  const int len = 1 + static_cast<int>(rnd_.Uniform(static_cast<uint32_t>(
                          session_->config().max_scan_length)));
  bool bad = false;
  absl::Status s =
      store->Scan(key, len, [&](std::string_view k, std::string_view v) {
        if (!DecodeRecord(v, &fields_)) bad = true;
        results_.bytes += static_cast<int64_t>(k.size() + v.size());
      });
  if (s.ok() && bad) {
    return absl::DataLossError("ycsb: a scanned value is not a record");
  }
  return s;
}

void Runner::Record(Op op, uint64_t start_nanos, bool found) {
  const int i = static_cast<int>(op);
  results_.latency[i].Add(static_cast<double>(Now() - start_nanos) * 1e-3);
  if (!found) ++results_.not_found[i];
}

absl::StatusOr<bool> Runner::LoadOne(Store* store) {
  assert(loading());
  uint64_t n = 0;
  if (!session_->NextLoadRecord(&n)) return false;
  const uint64_t start = Now();
  absl::Status s = Insert(store, n);
  if (!s.ok()) return s;
  Record(Op::kInsert, start, true);
  return true;
}

absl::StatusOr<Op> Runner::RunOne(Store* store) {
  assert(!loading());
  // Pick the operation from the mix.
  double u = UniformDouble(&rnd_);
  int pick = kNumOps - 1;
  for (int i = 0; i < kNumOps; ++i) {
    if (u < workload_->proportion[i]) {
      pick = i;
      break;
    }
    u -= workload_->proportion[i];
  }
  // Rounding may leave u past the last share: take the last non-zero one.
  while (workload_->proportion[pick] == 0 && pick > 0) --pick;
  const Op op = static_cast<Op>(pick);
  const uint64_t start = Now();
  bool found = true;
  absl::Status s;
  if (op == Op::kInsert) {
    const uint64_t n = session_->inserts()->Next();
    s = Insert(store, n);
    if (s.ok()) session_->inserts()->Acknowledge(n);
  } else {
    const std::string key = KeyName(chooser_->Next(&rnd_));
    switch (op) {
      case Op::kRead:
        s = Read(store, key, &found);
        break;
      case Op::kUpdate:
        s = Update(store, key, &found);
        break;
      case Op::kScan:
        s = Scan(store, key);
        break;
      case Op::kReadModifyWrite: {
        s = Read(store, key, &found);
        bool updated = false;
        if (s.ok()) s = Update(store, key, &updated);
        break;
      }
      case Op::kInsert:
        break;
    }
    if (op != Op::kScan) {
      ++results_.lookups;
      if (found) ++results_.found;
    }
  }
  if (!s.ok()) return s;
  Record(op, start, found);
  return op;
}

uint64_t RunShare(uint64_t total, int threads, int tid) {
  const uint64_t t = static_cast<uint64_t>(threads);
  return total / t + (static_cast<uint64_t>(tid) < total % t ? 1 : 0);
}

absl::Status RunThread(Runner* runner, Store* store, uint64_t ops,
                       const std::function<bool(Op)>& done) {
  if (runner->loading()) {
    while (true) {
      absl::StatusOr<bool> more = runner->LoadOne(store);
      if (!more.ok()) return more.status();
      if (!*more || done(Op::kInsert)) return absl::OkStatus();
    }
  }
  for (uint64_t i = 0; i < ops; ++i) {
    absl::StatusOr<Op> op = runner->RunOne(store);
    if (!op.ok()) return op.status();
    if (done(*op)) break;
  }
  return absl::OkStatus();
}

absl::StatusOr<Results> Run(Session* session, const Workload* workload,
                            Store* store, int threads, uint64_t seed,
                            double* seconds) {
  std::vector<std::unique_ptr<Runner>> runners;
  std::vector<absl::Status> status(static_cast<size_t>(threads));
  for (int i = 0; i < threads; ++i) {
    runners.push_back(std::make_unique<Runner>(
        session, workload, seed + static_cast<uint64_t>(i)));
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) {
    const uint64_t ops =
        RunShare(session->config().operation_count, threads, i);
    pool.emplace_back([&, i, ops] {
      status[i] =
          RunThread(runners[i].get(), store, ops, [](Op) { return false; });
    });
  }
  for (std::thread& t : pool) t.join();
  *seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  Results merged;
  for (int i = 0; i < threads; ++i) {
    if (!status[i].ok()) return status[i];
    merged.Merge(runners[i]->results());
  }
  return merged;
}

}  // namespace sift::bench::ycsb
