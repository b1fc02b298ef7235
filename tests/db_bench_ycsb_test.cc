// db_bench's YCSB benchmarks, run as users run them: ycsbload and ycsba ..
// ycsbf print RocksDB's report line and YCSB's latency lines, count their
// operations over all threads, do each workload's mix against the database,
// refuse bad --ycsb_* flags by name, and read a database loaded by an
// earlier process.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/testutil/db_bench_output.h"
#include "tests/testutil/subprocess.h"
#include "tests/testutil/testutil.h"

namespace sift {
namespace {

using test::CommandResult;
using test::DbBenchTest;
using test::ParseReport;
using test::ParseStatistics;
using test::ParseYcsb;
using test::ReportLine;

constexpr const char* kSmall =
    "--ycsb_record_count=3000 --ycsb_operation_count=4000 "
    "--ycsb_field_count=4 --ycsb_field_length=50 --write_buffer_size=65536 "
    "--target_file_size_base=65536 ";

TEST_F(DbBenchTest, YcsbWorkloadsReportTheirMixOverAllThreads) {
  const uint64_t seed = test::TestSeed(20261202);
  std::printf("seed %llu (replay with SIFT_TEST_SEED)\n",
              static_cast<unsigned long long>(seed));
  CommandResult r = Bench(absl::StrCat(
      kSmall, "--threads=2 --statistics=1 --seed=", seed,
      " --benchmarks=ycsbload,ycsba,ycsbb,ycsbc,ycsbf,ycsbd,ycsbe"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("YCSB:       3000 records of 4 fields x 50 bytes, "
                       "4000 operations per workload over all threads"),
            std::string::npos)
      << r.out;
  const std::vector<ReportLine> lines = ParseReport(r.out);
  std::vector<std::string> names;
  for (const ReportLine& l : lines) names.push_back(l.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"ycsbload", "ycsba", "ycsbb", "ycsbc",
                                      "ycsbf", "ycsbd", "ycsbe"}));
  auto ycsb = ParseYcsb(r.out);
  // Written to the DB: the load, every update and read-modify-write, every
  // insert.
  uint64_t written = 0;
  for (const ReportLine& l : lines) {
    SCOPED_TRACE(l.name);
    EXPECT_GT(l.ops_per_sec, 0);
    EXPECT_EQ(l.operations, l.name == "ycsbload" ? 3000 : 4000);
    double ops = 0;
    for (const auto& [op, values] : ycsb[l.name]) {
      if (op == "OVERALL") continue;
      ops += values.at("Operations");
      EXPECT_EQ(values.at("Return=OK"), values.at("Operations")) << op;
      EXPECT_EQ(values.count("Return=NOT_FOUND"), 0u) << op;
      EXPECT_LE(values.at("MinLatency(us)"),
                values.at("50thPercentileLatency(us)"));
      EXPECT_LE(values.at("50thPercentileLatency(us)"),
                values.at("99thPercentileLatency(us)"));
      EXPECT_LE(values.at("99.9PercentileLatency(us)"),
                values.at("MaxLatency(us)"));
      if (op != "READ" && op != "SCAN") written += values.at("Operations");
    }
    EXPECT_EQ(ops, l.operations);
    EXPECT_GT(ycsb[l.name]["OVERALL"]["Throughput(ops/sec)"], 0);
    // Every record a workload looked up was there.
    if (l.name != "ycsbload" && l.name != "ycsbe") {
      ASSERT_TRUE(l.has_found);
      EXPECT_EQ(l.found, l.of);
    }
  }
  // Each workload's mix (within 4% of 4000 operations).
  EXPECT_NEAR(ycsb["ycsba"]["UPDATE"]["Operations"], 2000, 160);
  EXPECT_NEAR(ycsb["ycsbb"]["UPDATE"]["Operations"], 200, 160);
  EXPECT_EQ(ycsb["ycsbc"]["READ"]["Operations"], 4000);
  EXPECT_NEAR(ycsb["ycsbf"]["READ-MODIFY-WRITE"]["Operations"], 2000, 160);
  EXPECT_NEAR(ycsb["ycsbd"]["INSERT"]["Operations"], 200, 160);
  EXPECT_NEAR(ycsb["ycsbe"]["SCAN"]["Operations"], 3800, 160);
  EXPECT_EQ(ycsb["ycsbe"].count("READ"), 0u);
  // The DB saw those writes: sift.number.keys.written counts every Put.
  EXPECT_EQ(ParseStatistics(r.out)["sift.number.keys.written"], written);
}

TEST_F(DbBenchTest, YcsbReadsADatabaseAnEarlierProcessLoaded) {
  CommandResult load = Bench(absl::StrCat(kSmall, "--benchmarks=ycsbload"));
  ASSERT_EQ(load.exit_code, 0) << load.err;
  CommandResult r = Bench(
      absl::StrCat(kSmall,
                   "--use_existing_db=1 --ycsb_request_distribution=uniform "
                   "--benchmarks=ycsbload,ycsbc"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ycsbload     : skipped (--use_existing_db is true)"),
            std::string::npos)
      << r.out;
  const std::vector<ReportLine> lines = ParseReport(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_EQ(lines[0].name, "ycsbc");
  EXPECT_EQ(lines[0].found, 4000);
  EXPECT_EQ(lines[0].of, 4000);
  EXPECT_NE(r.out.find("request distribution uniform"), std::string::npos);
}

TEST_F(DbBenchTest, BadYcsbFlagsAreRefusedByName) {
  for (const char* args : {
           "--ycsb_record_count=0",
           "--ycsb_operation_count=-1",
           "--ycsb_field_count=0",
           "--ycsb_field_length=-5",
           "--ycsb_max_scan_length=0",
           "--ycsb_request_distribution=pareto",
       }) {
    CommandResult r = Bench(absl::StrCat("--benchmarks=ycsbload ", args));
    EXPECT_EQ(r.exit_code, 1) << args;
    const std::string flag(args, std::string_view(args).find('='));
    EXPECT_NE(r.err.find(flag), std::string::npos) << args << ": " << r.err;
    EXPECT_TRUE(ParseReport(r.out).empty()) << args << "\n" << r.out;
  }
  CommandResult r = Bench("--benchmarks=ycsbg");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("unknown benchmark 'ycsbg'"), std::string::npos);
}

TEST_F(DbBenchTest, HelpListsTheYcsbBenchmarksAndFlags) {
  CommandResult r = Bench("--help");
  ASSERT_EQ(r.exit_code, 0);
  for (const char* s :
       {"ycsbload", "ycsba", "ycsbe", "ycsbf", "--ycsb_record_count",
        "--ycsb_operation_count", "--ycsb_field_count", "--ycsb_field_length",
        "--ycsb_max_scan_length", "--ycsb_request_distribution",
        "--ycsb_write_all_fields"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  }
}

}  // namespace
}  // namespace sift
