// YCSB's request distributions and core workloads (bench/ycsb.h,
// bench/ycsb_distributions.h): the hash that names records, zeta and the
// shape of each distribution under fixed seeds, the insert sequence, the
// record layout, and each workload's operation mix as a store sees it.

#include "bench/ycsb.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bench/ycsb_distributions.h"
#include "gtest/gtest.h"
#include "tests/testutil/testutil.h"
#include "util/mutex.h"

namespace sift::bench::ycsb {
namespace {

double DirectZeta(uint64_t n, double theta) {
  double sum = 0;
  for (uint64_t i = 1; i <= n; ++i) {
    sum += std::pow(static_cast<double>(i), -theta);
  }
  return sum;
}

TEST(YcsbFnvTest, MatchesFnv1aOverTheBytesLowFirst) {
  // From an independent FNV-1a 64 (offset basis 0xcbf29ce484222325, prime
  // 0x100000001b3), made non-negative as a signed value.
  EXPECT_EQ(FnvHash64(0), 6284781860667377211u);
  EXPECT_EQ(FnvHash64(1), 8517097267634966620u);
  EXPECT_EQ(FnvHash64(2), 1820151046732198393u);
  EXPECT_EQ(FnvHash64(12345), 1792800413050876852u);
  EXPECT_EQ(FnvHash64(999999), 2744965632448235251u);
  // YCSB's first record, "user6284781860667377211".
  EXPECT_EQ(KeyName(0), "user6284781860667377211");
  for (uint64_t v = 0; v < 100000; ++v) {
    ASSERT_LT(FnvHash64(v), uint64_t{1} << 63) << v;
  }
}

TEST(YcsbZipfianTest, ZetaMatchesTheDirectSum) {
  ZipfianGenerator z(10);
  for (uint64_t n : {1u, 2u, 999u, 1000u, 1001u, 5000u, 123457u, 1000000u}) {
    const double direct = DirectZeta(n, kZipfianConstant);
    EXPECT_NEAR(z.Zeta(n), direct, direct * 1e-12) << n;
  }
  EXPECT_NEAR(z.Zeta(1000), 7.728953217284729, 1e-12);
}

TEST(YcsbZipfianTest, ZetaOfTheScrambledDomainIsYcsbsConstant) {
  // YCSB's ScrambledZipfianGenerator.ZETAN: zeta(10^10, 0.99), which YCSB
  // hard-codes because summing 10^10 terms takes minutes.
  ZipfianGenerator z(kScrambledItemCount);
  EXPECT_NEAR(z.Zeta(kScrambledItemCount), 26.46902820178302, 1e-9);
}

TEST(YcsbZipfianTest, RanksFollowTheZipfianShape) {
  constexpr uint64_t kItems = 1000;
  constexpr int kDraws = 2000000;
  ZipfianGenerator z(kItems);
  Random rnd(test::TestSeed(7));
  std::vector<int64_t> count(kItems);
  for (int i = 0; i < kDraws; ++i) {
    const uint64_t r = z.Next(&rnd);
    ASSERT_LT(r, kItems);
    ++count[r];
  }
  // Ranks 0 and 1 are exact in Gray et al.'s algorithm: 1 / zeta(n) and
  // 0.5^theta / zeta(n).
  const double zetan = z.Zeta(kItems);
  EXPECT_NEAR(count[0] / double{kDraws}, 1 / zetan, 0.002);
  EXPECT_NEAR(count[1] / double{kDraws}, std::pow(0.5, 0.99) / zetan, 0.002);
  // The tail follows 1 / rank^theta: the log-log slope of the counts of
  // ranks 10 .. 200 (their sums over decades of width) is -theta.
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int n = 0;
  for (uint64_t r = 10; r <= 200; ++r) {
    const double x = std::log(static_cast<double>(r + 1));
    const double y = std::log(static_cast<double>(count[r]));
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
    ++n;
  }
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  EXPECT_NEAR(slope, -kZipfianConstant, 0.08);
  // Popularity falls with rank.
  EXPECT_GT(count[0], count[1]);
  EXPECT_GT(count[1], count[10]);
  EXPECT_GT(count[10], count[500]);
}

TEST(YcsbZipfianTest, GrowingTheItemsIsTheSameAsStartingThere) {
  ZipfianGenerator grown(500);
  grown.SetItems(1500);
  grown.SetItems(250000);
  ZipfianGenerator fresh(250000);
  for (double u = 0; u < 1; u += 0.0137) {
    EXPECT_EQ(grown.FromUniform(u), fresh.FromUniform(u)) << u;
  }
  EXPECT_EQ(grown.FromUniform(0), 0u);
  EXPECT_LT(fresh.FromUniform(0.999999999), 250000u);
}

TEST(YcsbChooserTest, ScrambledZipfianSpreadsTheHotRecords) {
  constexpr uint64_t kRecords = 10000;
  constexpr int kDraws = 1000000;
  InsertSequence inserts(kRecords);
  KeyChooser chooser(Distribution::kZipfian, kRecords, 0, &inserts);
  Random rnd(test::TestSeed(11));
  std::map<uint64_t, int64_t> count;
  for (int i = 0; i < kDraws; ++i) {
    const uint64_t n = chooser.Next(&rnd);
    ASSERT_LT(n, kRecords);
    ++count[n];
  }
  std::vector<std::pair<int64_t, uint64_t>> by_count;
  for (const auto& [n, c] : count) by_count.emplace_back(c, n);
  std::sort(by_count.rbegin(), by_count.rend());
  // The hottest record is rank 0's hash, with 1 / zeta(10^10) = 3.78% of
  // the requests (plus what other ranks hash onto it).
  EXPECT_EQ(by_count[0].second, FnvHash64(0) % (kRecords + 1));
  EXPECT_NEAR(by_count[0].first / double{kDraws}, 1 / 26.469, 0.003);
  // The ten hottest are spread over the records, not the first numbers.
  uint64_t lo = kRecords, hi = 0;
  for (int i = 0; i < 10; ++i) {
    lo = std::min(lo, by_count[i].second);
    hi = std::max(hi, by_count[i].second);
  }
  EXPECT_GT(hi - lo, kRecords / 4);
  // Still skewed: the hottest 1% of the records take at least what the 100
  // most popular ranks draw, zeta(100) / zeta(10^10) = 20% (uniform keys
  // would give them 1%).
  int64_t top = 0;
  for (size_t i = 0; i < kRecords / 100; ++i) top += by_count[i].first;
  const ZipfianGenerator z(100);
  EXPECT_GT(top / double{kDraws}, z.Zeta(100) / 26.469);
}

TEST(YcsbChooserTest, ZipfianSkipsRecordsNotInsertedYet) {
  // The domain covers the records and twice the expected inserts; draws
  // past the last acknowledged insert are drawn again.
  constexpr uint64_t kRecords = 100;
  InsertSequence inserts(kRecords);
  KeyChooser chooser(Distribution::kZipfian, kRecords, 1000, &inserts);
  Random rnd(3);
  for (int i = 0; i < 20000; ++i) ASSERT_LT(chooser.Next(&rnd), kRecords);
  for (uint64_t i = 0; i < 500; ++i) inserts.Acknowledge(inserts.Next());
  uint64_t highest = 0;
  for (int i = 0; i < 50000; ++i) {
    const uint64_t n = chooser.Next(&rnd);
    ASSERT_LT(n, kRecords + 500);
    highest = std::max(highest, n);
  }
  EXPECT_GE(highest, kRecords);  // the new records are asked for too
}

TEST(YcsbChooserTest, LatestFavoursTheNewestInsert) {
  constexpr uint64_t kRecords = 1000;
  constexpr int kDraws = 500000;
  InsertSequence inserts(kRecords);
  KeyChooser chooser(Distribution::kLatest, kRecords, 0, &inserts);
  Random rnd(test::TestSeed(5));
  auto hottest = [&](double* share) {
    std::map<uint64_t, int64_t> count;
    for (int i = 0; i < kDraws; ++i) {
      const uint64_t n = chooser.Next(&rnd);
      EXPECT_LE(n, inserts.LastAcknowledged());
      ++count[n];
    }
    auto best = std::max_element(
        count.begin(), count.end(),
        [](const auto& a, const auto& b) { return a.second < b.second; });
    *share = best->second / double{kDraws};
    return best->first;
  };
  double share = 0;
  EXPECT_EQ(hottest(&share), kRecords - 1);
  ZipfianGenerator z(kRecords);
  EXPECT_NEAR(share, 1 / z.Zeta(kRecords), 0.004);
  for (int i = 0; i < 100; ++i) inserts.Acknowledge(inserts.Next());
  EXPECT_EQ(hottest(&share), kRecords + 99);
  EXPECT_NEAR(share, 1 / z.Zeta(kRecords + 100), 0.004);
}

TEST(YcsbChooserTest, UniformCoversTheLoadedRecordsEvenly) {
  constexpr uint64_t kRecords = 100000;
  constexpr int kDraws = 1000000;
  InsertSequence inserts(kRecords);
  for (int i = 0; i < 1000; ++i) inserts.Acknowledge(inserts.Next());
  KeyChooser chooser(Distribution::kUniform, kRecords, 1000, &inserts);
  Random rnd(test::TestSeed(9));
  std::vector<int64_t> bucket(100);
  for (int i = 0; i < kDraws; ++i) {
    const uint64_t n = chooser.Next(&rnd);
    ASSERT_LT(n, kRecords);  // later inserts are never asked for
    ++bucket[n / (kRecords / 100)];
  }
  for (int64_t b : bucket) EXPECT_NEAR(b, kDraws / 100, kDraws / 100 * 0.05);
}

TEST(YcsbInsertSequenceTest, LastAcknowledgedIsTheContiguousPrefix) {
  InsertSequence s(10);
  EXPECT_EQ(s.LastAcknowledged(), 9u);
  EXPECT_EQ(s.Next(), 10u);
  EXPECT_EQ(s.Next(), 11u);
  EXPECT_EQ(s.Next(), 12u);
  s.Acknowledge(12);
  s.Acknowledge(11);
  EXPECT_EQ(s.LastAcknowledged(), 9u);  // 10 is still being written
  s.Acknowledge(10);
  EXPECT_EQ(s.LastAcknowledged(), 12u);
}

TEST(YcsbInsertSequenceTest, ThreadsAcknowledgingInAnyOrder) {
  InsertSequence s(1);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&s] {
      for (int i = 0; i < 5000; ++i) s.Acknowledge(s.Next());
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(s.LastAcknowledged(), 20000u);
}

TEST(YcsbRecordTest, FieldsRoundTrip) {
  std::vector<Field> fields;
  for (int i = 0; i < 10; ++i) {
    fields.emplace_back(absl::StrCat("field", i), std::string(100, 'a' + i));
  }
  std::string bytes;
  EncodeRecord(fields, &bytes);
  EXPECT_EQ(bytes.size(), 10u * (4 + 6 + 4 + 100));
  std::vector<Field> back = {{"stale", "x"}};
  ASSERT_TRUE(DecodeRecord(bytes, &back));
  EXPECT_EQ(back, fields);
  for (size_t cut : {bytes.size() - 1, size_t{3}, size_t{12}}) {
    EXPECT_FALSE(DecodeRecord(std::string_view(bytes).substr(0, cut), &back))
        << cut;
  }
  EXPECT_TRUE(DecodeRecord("", &back));
  EXPECT_TRUE(back.empty());
}

TEST(YcsbConfigTest, BadValuesAreNamed) {
  Config c;
  EXPECT_TRUE(ValidateConfig(c).ok());
  c.field_count = 0;
  EXPECT_NE(ValidateConfig(c).message().find("field_count=0"),
            std::string::npos);
  c = Config();
  c.max_scan_length = 0;
  EXPECT_NE(ValidateConfig(c).message().find("max_scan_length=0"),
            std::string::npos);
  c = Config();
  c.record_count = 0;
  EXPECT_FALSE(ValidateConfig(c).ok());
  EXPECT_FALSE(CoreWorkload("g").has_value());
  EXPECT_FALSE(CoreWorkload("").has_value());
  Distribution d;
  EXPECT_FALSE(ParseDistribution("pareto", &d));
  ASSERT_TRUE(ParseDistribution("latest", &d));
  EXPECT_EQ(d, Distribution::kLatest);
}

TEST(YcsbConfigTest, RunSharesSumToTheTotal) {
  for (int threads : {1, 2, 3, 7}) {
    uint64_t sum = 0;
    for (int t = 0; t < threads; ++t) sum += RunShare(1000001, threads, t);
    EXPECT_EQ(sum, 1000001u) << threads;
  }
  EXPECT_EQ(RunShare(10, 3, 0), 4u);
  EXPECT_EQ(RunShare(10, 3, 2), 3u);
}

// A thread-safe std::map that counts what the workloads ask of it.
class MapStore final : public Store {
 public:
  absl::Status Get(std::string_view key, std::string* value) override {
    MutexLock l(&mu_);
    ++gets;
    auto it = map.find(std::string(key));
    if (it == map.end()) return absl::NotFoundError("");
    *value = it->second;
    return absl::OkStatus();
  }
  absl::Status Put(std::string_view key, std::string_view value) override {
    MutexLock l(&mu_);
    ++puts;
    map[std::string(key)] = std::string(value);
    return absl::OkStatus();
  }
  absl::Status Scan(
      std::string_view start, int n,
      const std::function<void(std::string_view, std::string_view)>& visit)
      override {
    MutexLock l(&mu_);
    ++scans;
    int i = 0;
    for (auto it = map.lower_bound(std::string(start));
         it != map.end() && i < n; ++it, ++i) {
      visit(it->first, it->second);
      ++scanned;
    }
    return absl::OkStatus();
  }

  Mutex mu_;
  std::map<std::string, std::string> map;
  int64_t gets = 0, puts = 0, scans = 0, scanned = 0;
};

struct Mix {
  MapStore store;
  Results results;
};

// Loads `records` records, then runs `ops` operations of workload `name`.
void LoadAndRun(const Config& config, const std::string& name, int threads,
                Mix* mix) {
  Session session(config);
  double seconds = 0;
  absl::StatusOr<Results> load =
      Run(&session, nullptr, &mix->store, threads, 1, &seconds);
  ASSERT_TRUE(load.ok()) << load.status();
  ASSERT_EQ(load->latency[static_cast<int>(Op::kInsert)].count(),
            config.record_count);
  ASSERT_EQ(mix->store.map.size(), config.record_count);
  mix->store.gets = mix->store.puts = 0;
  std::optional<Workload> w = CoreWorkload(name);
  ASSERT_TRUE(w.has_value());
  absl::StatusOr<Results> r =
      Run(&session, &*w, &mix->store, threads, test::TestSeed(100), &seconds);
  ASSERT_TRUE(r.ok()) << r.status();
  mix->results = *r;
}

int64_t Count(const Mix& m, Op op) {
  return static_cast<int64_t>(m.results.latency[static_cast<int>(op)].count());
}

Config Small() {
  Config c;
  c.record_count = 2000;
  c.operation_count = 20000;
  c.field_count = 4;
  c.field_length = 10;
  return c;
}

TEST(YcsbWorkloadTest, EachWorkloadRunsItsMix) {
  const Config c = Small();
  const int64_t ops = static_cast<int64_t>(c.operation_count);
  // Within 1.5% of the operations (binomial sd at 20000 draws: 0.35%).
  const double tolerance = ops * 0.015;
  for (const char* name : {"a", "b", "c", "d", "e", "f"}) {
    SCOPED_TRACE(name);
    Mix m;
    LoadAndRun(c, name, 2, &m);
    const Workload w = *CoreWorkload(name);
    EXPECT_EQ(m.results.Operations(), ops);
    for (int i = 0; i < kNumOps; ++i) {
      EXPECT_NEAR(Count(m, static_cast<Op>(i)), w.proportion[i] * ops,
                  tolerance)
          << OpName(static_cast<Op>(i));
    }
    // Every record asked for exists: the choosers ask only for inserted
    // records.
    EXPECT_EQ(m.results.found, m.results.lookups);
    EXPECT_EQ(m.results.lookups, Count(m, Op::kRead) + Count(m, Op::kUpdate) +
                                     Count(m, Op::kReadModifyWrite));
    // What the store saw: an update reads and rewrites its record, a
    // read-modify-write reads it, then updates it; an insert adds one.
    const int64_t updates = Count(m, Op::kUpdate);
    const int64_t rmw = Count(m, Op::kReadModifyWrite);
    EXPECT_EQ(m.store.gets, Count(m, Op::kRead) + updates + 2 * rmw);
    EXPECT_EQ(m.store.puts, updates + rmw + Count(m, Op::kInsert));
    EXPECT_EQ(m.store.map.size(), c.record_count + Count(m, Op::kInsert));
    EXPECT_EQ(m.store.scans, Count(m, Op::kScan));
  }
}

TEST(YcsbWorkloadTest, ScansAreUniformUpToTheMaximum) {
  Config c = Small();
  c.record_count = 20000;
  c.operation_count = 10000;
  Mix m;
  LoadAndRun(c, "e", 1, &m);
  // Lengths uniform in [1, 100]: 50.5 records on average, a little less
  // where a scan meets the end of the keys.
  const double mean =
      static_cast<double>(m.store.scanned) / static_cast<double>(m.store.scans);
  EXPECT_NEAR(mean, 50.5, 2.0);
}

TEST(YcsbWorkloadTest, UpdatesReplaceOneFieldOrTheWholeRecord) {
  Config c = Small();
  c.record_count = 1;
  c.operation_count = 50;
  Mix m;
  LoadAndRun(c, "a", 1, &m);
  std::vector<Field> fields;
  ASSERT_TRUE(DecodeRecord(m.store.map.at(KeyName(0)), &fields));
  ASSERT_EQ(fields.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(fields[i].first, absl::StrCat("field", i));
    EXPECT_EQ(fields[i].second.size(), 10u);
  }
  // writeallfields: a blind write of a whole record, no read.
  c.write_all_fields = true;
  Mix blind;
  LoadAndRun(c, "a", 1, &blind);
  EXPECT_EQ(blind.store.gets, Count(blind, Op::kRead));
  EXPECT_EQ(blind.store.puts, Count(blind, Op::kUpdate));
}

TEST(YcsbWorkloadTest, ReportHasYcsbsLinesPerOperation) {
  Mix m;
  LoadAndRun(Small(), "f", 1, &m);
  const std::string r = m.results.Report(2.0);
  for (const char* line :
       {"[OVERALL], RunTime(ms), 2000\n",
        "[OVERALL], Throughput(ops/sec), 10000.0\n", "[READ], Operations, ",
        "[READ], 99thPercentileLatency(us), ",
        "[READ-MODIFY-WRITE], 99.9PercentileLatency(us), ",
        "[READ-MODIFY-WRITE], MaxLatency(us), ",
        "[READ-MODIFY-WRITE], 95thPercentileLatency(us), "}) {
    EXPECT_NE(r.find(line), std::string::npos) << line << "\n" << r;
  }
  EXPECT_EQ(r.find("[UPDATE]"), std::string::npos) << r;
  EXPECT_EQ(r.find("NOT_FOUND"), std::string::npos) << r;
}

}  // namespace
}  // namespace sift::bench::ycsb
