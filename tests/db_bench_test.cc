// db_bench, run as users run it: flag errors, report lines that parse as
// RocksDB's, the found counts, and the filter counters of --statistics.

#include <cstdint>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/testutil/subprocess.h"
#include "tests/testutil/testutil.h"

namespace sift {
namespace {

using test::CommandResult;

class DbBenchTest : public ::testing::Test {
 protected:
  DbBenchTest()
      : dir_(test::TempDir(
            ::testing::UnitTest::GetInstance()->current_test_info()->name())) {}
  ~DbBenchTest() override { std::filesystem::remove_all(dir_); }

  CommandResult Bench(const std::string& args) {
    return test::RunCommand(
        absl::StrCat(test::ToolPath("db_bench"), " --db=", dir_, "/db ", args),
        dir_);
  }

  std::string dir_;
};

// One benchmark's report line, as RocksDB's db_bench prints it.
struct ReportLine {
  std::string name;
  double micros_per_op = 0;
  int64_t ops_per_sec = 0;
  double seconds = 0;
  int64_t operations = 0;
  bool has_found = false;
  int64_t found = 0, of = 0;
};

// Every line that looks like a report ("name   : ...") must parse fully.
std::vector<ReportLine> ParseReport(const std::string& out) {
  static const std::regex kLine(
      R"(^([a-z]+) +: +([0-9]+\.[0-9]{3}) micros/op ([0-9]+) ops/sec )"
      R"(([0-9]+\.[0-9]{3}) seconds ([0-9]+) operations;)"
      R"(( +[0-9]+\.[0-9] MB/s)?( \(([0-9]+) of ([0-9]+) found\))?$)");
  static const std::regex kLooksLikeReport(R"(^[a-z]+ +: )");
  std::vector<ReportLine> lines;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (!std::regex_search(line, kLooksLikeReport)) continue;
    if (line.find(" : skipped (") != std::string::npos) continue;
    std::smatch m;
    EXPECT_TRUE(std::regex_match(line, m, kLine)) << "unparsable: " << line;
    if (m.empty()) continue;
    ReportLine r;
    r.name = m[1];
    r.micros_per_op = std::stod(m[2]);
    r.ops_per_sec = std::stoll(m[3]);
    r.seconds = std::stod(m[4]);
    r.operations = std::stoll(m[5]);
    r.has_found = m[7].matched;
    if (r.has_found) {
      r.found = std::stoll(m[8]);
      r.of = std::stoll(m[9]);
    }
    lines.push_back(r);
  }
  return lines;
}

// "name COUNT : N" lines after "STATISTICS:".
std::map<std::string, uint64_t> ParseStatistics(const std::string& out) {
  static const std::regex kCount(R"(^([a-z0-9.]+) COUNT : ([0-9]+)$)");
  std::map<std::string, uint64_t> counts;
  const size_t at = out.find("STATISTICS:\n");
  if (at == std::string::npos) return counts;
  std::istringstream in(out.substr(at));
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, kCount)) counts[m[1]] = std::stoull(m[2]);
  }
  return counts;
}

TEST_F(DbBenchTest, UnknownFlagExitsOneNamingIt) {
  CommandResult r = Bench("--benchmarks=fillseq --no_such_flag=3");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no_such_flag"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("fillseq"), std::string::npos) << r.out;
}

TEST_F(DbBenchTest, UnknownBenchmarkExitsOneBeforeRunningAny) {
  CommandResult r = Bench("--num=100 --benchmarks=fillseq,readrandum");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("unknown benchmark 'readrandum'"), std::string::npos)
      << r.err;
  EXPECT_TRUE(ParseReport(r.out).empty()) << r.out;
}

TEST_F(DbBenchTest, BadFlagValuesExitOne) {
  for (const char* args : {
           "--bloom_bits=10 --bloom_filter_fp_chance=0.01",
           "--bloom_filter_fp_chance=0",
           "--bloom_filter_fp_chance=1.5",
           "--compression_type=zlib",
           "--filter_layout=ribbon",
           "--key_size=4",
           "--num=0",
           "--threads=0",
           "--compression_ratio=0",
           "--write_buffer_size=-1",
           "--num=ten",
       }) {
    CommandResult r = Bench(absl::StrCat("--benchmarks=fillseq ", args));
    EXPECT_EQ(r.exit_code, 1) << args;
    EXPECT_FALSE(r.err.empty()) << args;
    EXPECT_TRUE(ParseReport(r.out).empty()) << args << "\n" << r.out;
  }
}

TEST_F(DbBenchTest, EveryBenchmarkReportsALineThatParsesAsRocksDbs) {
  const uint64_t seed = test::TestSeed(20240601);
  std::printf("seed %llu (replay with SIFT_TEST_SEED)\n",
              static_cast<unsigned long long>(seed));
  const std::vector<std::string> timed = {
      "fillsync",    "fillseq",     "fillrandom", "overwrite",
      "readrandom",  "readmissing", "readhot",    "seekrandom",
      "readseq",     "readreverse", "compact",    "readwhilewriting",
      "deleterandom"};
  CommandResult r = Bench(absl::StrCat(
      "--num=20000 --reads=5000 --write_buffer_size=262144 "
      "--target_file_size_base=262144 --histogram=1 --seed=",
      seed,
      " --benchmarks=fillsync,fillseq,fillrandom,overwrite,waitforcompaction,"
      "readrandom,readmissing,readhot,seekrandom,readseq,readreverse,flush,"
      "compact,readwhilewriting,deleterandom,stats,levelstats,sstables"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Keys:       16 bytes each"), std::string::npos);
  EXPECT_NE(r.out.find("Values:     100 bytes each (50 bytes after "
                       "compression)"),
            std::string::npos);
  EXPECT_NE(r.out.find("Entries:    20000\n"), std::string::npos);
  EXPECT_NE(r.out.find("Microseconds per read:"), std::string::npos);
  EXPECT_NE(r.out.find("Percentiles: P50: "), std::string::npos);
  EXPECT_NE(r.out.find("P99.99: "), std::string::npos);

  const std::vector<ReportLine> lines = ParseReport(r.out);
  std::vector<std::string> names;
  std::map<std::string, ReportLine> by_name;
  for (const ReportLine& l : lines) {
    names.push_back(l.name);
    by_name[l.name] = l;
    EXPECT_GT(l.ops_per_sec, 0) << l.name;
  }
  EXPECT_EQ(names, timed);
  EXPECT_EQ(by_name["fillseq"].operations, 20000);
  EXPECT_EQ(by_name["fillsync"].operations, 20);  // num / 1000, synced
  EXPECT_EQ(by_name["compact"].operations, 1);
  const ReportLine& rr = by_name["readrandom"];
  ASSERT_TRUE(rr.has_found);
  EXPECT_EQ(rr.of, 5000);
  // fillrandom + overwrite: 40000 uniform draws over 20000 numbers cover
  // 1 - e^-2 = 86.5% of them.
  EXPECT_GT(rr.found, 4000);
  EXPECT_LT(rr.found, 4650);
  const ReportLine& rm = by_name["readmissing"];
  ASSERT_TRUE(rm.has_found);
  EXPECT_EQ(rm.found, 0);
  EXPECT_EQ(rm.of, 5000);
  EXPECT_NE(r.out.find("(0 of 5000 found)"), std::string::npos);
  EXPECT_EQ(by_name["readseq"].operations, 5000);
  EXPECT_EQ(by_name["readreverse"].operations, 5000);
  EXPECT_TRUE(by_name["readwhilewriting"].has_found);
  EXPECT_EQ(by_name["readwhilewriting"].of, 5000);
}

// A filter-accuracy run, scaled down: the three filter counters give
// an FP rate near the configured chance, and db_bench prints the same rate.
// (No readhot here: it probes the same few absent keys over and over, so
// its false positives come in correlated bunches.)
TEST_F(DbBenchTest, FilterCountersGiveTheConfiguredFpRate) {
  const uint64_t seed = test::TestSeed(20240602);
  std::printf("seed %llu (replay with SIFT_TEST_SEED)\n",
              static_cast<unsigned long long>(seed));
  CommandResult r = Bench(absl::StrCat(
      "--num=20000 --reads=5000 --write_buffer_size=262144 "
      "--target_file_size_base=262144 --bloom_filter_fp_chance=0.01 "
      "--statistics=1 --seed=",
      seed,
      " --benchmarks=fillrandom,waitforcompaction,readrandom,readmissing"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(0 of 5000 found)"), std::string::npos) << r.out;
  auto c = ParseStatistics(r.out);
  ASSERT_TRUE(c.count("sift.bloom.filter.useful")) << r.out;
  ASSERT_TRUE(c.count("sift.bloom.filter.full.positive"));
  ASSERT_TRUE(c.count("sift.bloom.filter.full.true.positive"));
  const double useful = c["sift.bloom.filter.useful"];
  const double positive = c["sift.bloom.filter.full.positive"];
  const double tp = c["sift.bloom.filter.full.true.positive"];
  // About 20k probes of absent keys, so about 200 false positives: 1 sigma
  // is 7% of the rate; the band is +-50%.
  ASSERT_GT(useful, 10000);
  const double fp = (positive - tp) / (useful + positive - tp);
  EXPECT_GT(fp, 0.005);
  EXPECT_LT(fp, 0.015);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.out, m,
      std::regex(R"(\nsift\.bloom\.filter\.observed\.fp\.rate : ([0-9.]+) )"
                 R"(\(fp chance 0\.01)")));
  EXPECT_NEAR(std::stod(m[1]), fp, 1e-6);
  EXPECT_NE(r.out.find("sift.bloom.filter.observed.fp.rate.level"),
            std::string::npos);

  // The database it leaves passes sst_dump's verify.
  CommandResult v =
      test::RunCommand(absl::StrCat(test::ToolPath("sst_dump"),
                                    " --file=", dir_, "/db --command=verify"),
                       dir_);
  EXPECT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(v.out.find("The file is ok"), std::string::npos);
}

TEST_F(DbBenchTest, BloomBitsFollowsRocksDb) {
  // 10 bits per key of a standard Bloom filter (7 probes): 0.82%.
  CommandResult r = Bench("--num=1000 --bloom_bits=10 --benchmarks=fillseq");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("fp chance 0.0081"), std::string::npos) << r.out;

  // 0 disables filters: no probe is counted, every miss reads the data.
  r = Bench(
      "--num=3000 --reads=500 --bloom_bits=0 --statistics=1 --seed=7 "
      "--benchmarks=fillrandom,flush,readmissing");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Filter:     none"), std::string::npos) << r.out;
  auto c = ParseStatistics(r.out);
  EXPECT_EQ(c["sift.bloom.filter.checked"], 0u);
  EXPECT_GT(c["sift.block.cache.data.hit"] + c["sift.data.blocks.read"], 0u);
}

TEST_F(DbBenchTest, DurationBoundsRandomOpsByTime) {
  // --duration runs random operations for that long, whatever --reads says;
  // sequential fills still write --num entries (as in RocksDB).
  CommandResult r = Bench(
      "--num=1000 --reads=10 --duration=1 --seed=5 "
      "--benchmarks=fillseq,readrandom");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<ReportLine> lines = ParseReport(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0].operations, 1000);
  EXPECT_GE(lines[1].seconds, 1.0);
  EXPECT_LT(lines[1].seconds, 3.0);  // the clock is read every 100 ops
  EXPECT_GT(lines[1].operations, 1000);
  EXPECT_EQ(lines[1].found, lines[1].of);  // fillseq wrote every number
}

TEST_F(DbBenchTest, UseExistingDbSkipsFillsAndReadsTheOldData) {
  CommandResult r = Bench("--num=2000 --seed=3 --benchmarks=fillseq");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Bench(
      "--num=2000 --reads=300 --seed=3 --use_existing_db=1 "
      "--benchmarks=fillseq,readrandom");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("fillseq      : skipped (--use_existing_db is true)"),
            std::string::npos)
      << r.out;
  const std::vector<ReportLine> lines = ParseReport(r.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].name, "readrandom");
  EXPECT_EQ(lines[0].found, 300);  // fillseq wrote every number
}

}  // namespace
}  // namespace sift
