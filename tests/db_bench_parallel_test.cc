// db_bench's threads and batches, run as users run them: --threads=N does
// the count in each thread and merges them into one line with RocksDB's
// arithmetic, and multireadrandom counts keys in whole --batch_size batches.

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testutil/db_bench_output.h"
#include "tests/testutil/subprocess.h"

namespace sift {
namespace {

using test::CommandResult;
using test::DbBenchTest;
using test::ParseReport;
using test::ParseStatistics;
using test::ReportLine;

TEST_F(DbBenchTest, MultiReadRandomCountsKeysInWholeBatches) {
  CommandResult r = Bench(
      "--num=2048 --reads=700 --batch_size=32 --threads=2 --seed=17 "
      "--histogram=1 --statistics=1 "
      "--benchmarks=fillseq,resetstats,multireadrandom,multireadmissing");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<ReportLine> lines = ParseReport(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  // 21 batches of 32 fit in 700 reads, per thread.
  EXPECT_EQ(lines[1].name, "multireadrandom");
  EXPECT_EQ(lines[1].operations, 2 * 21 * 32);
  EXPECT_EQ(lines[1].of, 2 * 21 * 32);
  // fillseq wrote every key (64 batches of 32: --batch_size is its too).
  EXPECT_EQ(lines[1].found, 2 * 21 * 32);
  EXPECT_EQ(lines[2].name, "multireadmissing");
  EXPECT_EQ(lines[2].of, 2 * 21 * 32);
  EXPECT_EQ(lines[2].found, 0);
  EXPECT_NE(r.out.find("Microseconds per read:"), std::string::npos);
  // The DB counted every key of every batch.
  auto c = ParseStatistics(r.out);
  EXPECT_EQ(c["sift.number.keys.read"], 2u * 2 * 21 * 32) << r.out;
  EXPECT_EQ(c["sift.number.keys.found"], 2u * 21 * 32) << r.out;
}

TEST_F(DbBenchTest, ThreadsEachDoTheCountAndTheLineMergesThem) {
  CommandResult r = Bench(
      "--num=2000 --reads=700 --threads=3 --seed=13 "
      "--benchmarks=fillseq,readrandom,readmissing,readwhilewriting");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<ReportLine> lines = ParseReport(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_EQ(lines[0].operations, 3 * 2000);  // fillseq: each thread, num
  EXPECT_EQ(lines[1].operations, 3 * 700);
  EXPECT_EQ(lines[1].found, 3 * 700);
  EXPECT_EQ(lines[1].of, 3 * 700);
  EXPECT_EQ(lines[2].found, 0);
  EXPECT_EQ(lines[2].of, 3 * 700);
  // Three readers plus a writer that is not counted.
  EXPECT_EQ(lines[3].operations, 3 * 700);
  EXPECT_EQ(lines[3].of, 3 * 700);
  for (const ReportLine& l : lines) {
    // RocksDB's arithmetic: micros/op is the threads' summed busy time over
    // the operations, and each thread is busy at most the wall time, so
    // micros/op <= threads x 1e6 / (ops/sec) (+ the 3 printed decimals).
    EXPECT_LE(l.micros_per_op,
              3 * 1e6 / static_cast<double>(l.ops_per_sec) * 1.02 + 0.002)
        << l.name;
    // ops/sec is over the wall time (seconds, printed to the millisecond:
    // only long enough runs can be checked against it).
    if (l.seconds >= 0.05) {
      EXPECT_NEAR(static_cast<double>(l.ops_per_sec),
                  static_cast<double>(l.operations) / l.seconds,
                  0.03 * static_cast<double>(l.ops_per_sec))
          << l.name;
    }
  }
  // One thread is busy exactly the wall time: micros/op x ops/sec = 1e6.
  r = Bench(
      "--num=2000 --reads=50000 --seed=13 --use_existing_db=1 "
      "--benchmarks=readrandom");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<ReportLine> one = ParseReport(r.out);
  ASSERT_EQ(one.size(), 1u) << r.out;
  EXPECT_NEAR(one[0].micros_per_op * static_cast<double>(one[0].ops_per_sec),
              1e6, 0.01e6 + 0.0005 * static_cast<double>(one[0].ops_per_sec))
      << r.out;
}

}  // namespace
}  // namespace sift
