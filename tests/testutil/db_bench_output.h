// What the tests of db_bench share: a fixture that runs the built db_bench
// on a database in a fresh directory, and parsers of its output (RocksDB's
// report lines and --statistics counts).
#ifndef SIFT_TESTS_TESTUTIL_DB_BENCH_OUTPUT_H_
#define SIFT_TESTS_TESTUTIL_DB_BENCH_OUTPUT_H_

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/testutil/subprocess.h"
#include "tests/testutil/testutil.h"

namespace sift::test {

class DbBenchTest : public ::testing::Test {
 protected:
  DbBenchTest()
      : dir_(TempDir(
            ::testing::UnitTest::GetInstance()->current_test_info()->name())) {}
  ~DbBenchTest() override { std::filesystem::remove_all(dir_); }

  CommandResult Bench(const std::string& args) {
    return RunCommand(
        absl::StrCat(ToolPath("db_bench"), " --db=", dir_, "/db ", args), dir_);
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
  // readrandomwriterandom: "( reads:R writes:W total:T found:F)".
  int64_t reads = -1, writes = -1, total = -1;
  // updaterandom: "( updates:U found:F)" (found is in found).
  int64_t updates = -1;
};

// Every line that looks like a report ("name   : ...") must parse fully:
// one that does not fails the calling test.
std::vector<ReportLine> ParseReport(const std::string& out);

// "name COUNT : N" lines after "STATISTICS:".
std::map<std::string, uint64_t> ParseStatistics(const std::string& out);

// YCSB's lines ("[READ], Operations, 500"), by the workload of the report
// line before them (the last word before " : ": "ycsba" of db_bench's
// "ycsba   : ..." and of peer_bench's "sift   ycsba   : ..."):
// ycsb["ycsba"]["READ"]["Operations"] == 500. A YCSB line whose value is
// not a number fails the calling test.
using YcsbLines = std::map<std::string, std::map<std::string, double>>;
std::map<std::string, YcsbLines> ParseYcsb(const std::string& out);

}  // namespace sift::test

#endif  // SIFT_TESTS_TESTUTIL_DB_BENCH_OUTPUT_H_
