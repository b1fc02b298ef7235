// peer_bench, run as tools/ycsb.sh, compare.sh and scale.sh run it: for
// each engine (siftdb, RocksDB, LevelDB) the YCSB workloads' lines and
// YCSB's latency lines, the facts line (filters, bytes written, stalls),
// a database reopened by a second process, and its errors. Skipped where
// peer_bench is not built (it needs the peers: tools/setup.sh --peers).

#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
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

// "<engine> <workload> : <us> micros/op; [<ops> ops/sec; ](<f> of <n> found)"
struct PeerLine {
  std::string engine, workload;
  double micros = 0, ops_per_sec = -1;
  int64_t found = 0, of = 0;
};

std::vector<PeerLine> ParsePeerLines(const std::string& out) {
  static const std::regex kLine(
      R"(^([a-z]+) +([a-z0-9-]+) +: +([0-9]+\.[0-9]{3}) micros/op; )"
      R"((([0-9]+) ops/sec; )?\(([0-9]+) of ([0-9]+) found\)$)");
  std::vector<PeerLine> lines;
  std::istringstream in(out);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (line.find("micros/op") == std::string::npos) continue;
    EXPECT_TRUE(std::regex_match(line, m, kLine)) << "unparsable: " << line;
    if (m.empty()) continue;
    PeerLine p;
    p.engine = m[1];
    p.workload = m[2];
    p.micros = std::stod(m[3]);
    if (m[5].matched) p.ops_per_sec = std::stod(m[5]);
    p.found = std::stoll(m[6]);
    p.of = std::stoll(m[7]);
    lines.push_back(p);
  }
  return lines;
}

// "<engine> facts : filter_bytes=N table_bytes_written=N stall_micros=N"
std::map<std::string, int64_t> ParseFacts(const std::string& out) {
  static const std::regex kFacts(
      R"(facts +: filter_bytes=(-?[0-9]+) table_bytes_written=(-?[0-9]+) )"
      R"(stall_micros=(-?[0-9]+))");
  std::smatch m;
  std::map<std::string, int64_t> f;
  if (std::regex_search(out, m, kFacts)) {
    f["filter_bytes"] = std::stoll(m[1]);
    f["table_bytes_written"] = std::stoll(m[2]);
    f["stall_micros"] = std::stoll(m[3]);
  }
  return f;
}

class PeerBenchTest : public ::testing::TestWithParam<std::string> {
 protected:
  PeerBenchTest()
      : dir_(test::TempDir(absl::StrCat(
            "peer_bench_",
            ::testing::UnitTest::GetInstance()->current_test_info()->name()))) {
  }
  ~PeerBenchTest() override { std::filesystem::remove_all(dir_); }

  void SetUp() override {
    if (!std::filesystem::exists(test::ToolPath("peer_bench"))) {
      GTEST_SKIP() << "peer_bench is not built (tools/setup.sh --peers)";
    }
  }

  CommandResult Peer(const std::string& args) {
    return test::RunCommand(
        absl::StrCat(test::ToolPath("peer_bench"), " --engine=", GetParam(),
                     " --db=", dir_, "/db ", args),
        dir_);
  }

  std::string dir_;
};

TEST_P(PeerBenchTest, YcsbWorkloadsAndFacts) {
  // 6000 records of 1140 bytes: the load flushes at least one 4 MiB
  // memtable.
  CommandResult r = Peer(
      "--threads=2 --ycsb_record_count=6000 --ycsb_operation_count=3000 "
      "--benchmarks=ycsbload,ycsba,ycsbf,ycsbd,ycsbe,facts");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<PeerLine> lines = ParsePeerLines(r.out);
  std::vector<std::string> names;
  for (const PeerLine& l : lines) {
    names.push_back(l.workload);
    EXPECT_EQ(l.engine, GetParam());
    EXPECT_GT(l.ops_per_sec, 0) << l.workload;
    EXPECT_EQ(l.found, l.of) << l.workload;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"ycsbload", "ycsba", "ycsbf",
                                             "ycsbd", "ycsbe"}));
  auto ycsb = test::ParseYcsb(r.out);
  EXPECT_EQ(ycsb["ycsbload"]["INSERT"]["Operations"], 6000);
  EXPECT_EQ(ycsb["ycsba"]["READ"]["Operations"] +
                ycsb["ycsba"]["UPDATE"]["Operations"],
            3000);
  EXPECT_EQ(ycsb["ycsbf"]["READ"]["Operations"] +
                ycsb["ycsbf"]["READ-MODIFY-WRITE"]["Operations"],
            3000);
  EXPECT_GT(ycsb["ycsbe"]["SCAN"]["99thPercentileLatency(us)"], 0);
  EXPECT_GT(ycsb["ycsbd"]["INSERT"]["Operations"], 0);
  EXPECT_EQ(lines[1].of, 3000);  // a: every read and update found its record
  const auto facts = ParseFacts(r.out);
  ASSERT_EQ(facts.size(), 3u) << r.out;
  EXPECT_GT(facts.at("filter_bytes"), 0);
  EXPECT_GT(facts.at("table_bytes_written"), 4 << 20);
  if (GetParam() == "leveldb") {
    EXPECT_EQ(facts.at("stall_micros"), -1);  // LevelDB does not say
  } else {
    EXPECT_GE(facts.at("stall_micros"), 0);
  }
}

TEST_P(PeerBenchTest, ASecondProcessReadsTheDatabaseAndItsFilters) {
  // 60000 entries of 116 bytes: one memtable flushed by the fill, the rest
  // by the reopen's recovery.
  CommandResult fill =
      Peer("--num=60000 --benchmarks=fillrandom,waitforcompaction");
  ASSERT_EQ(fill.exit_code, 0) << fill.err;
  CommandResult r = Peer(
      "--num=60000 --reads=5000 --use_existing_db "
      "--benchmarks=readrandom,readmissing,facts");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<PeerLine> lines = ParsePeerLines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  // 60000 draws over 60000 numbers cover 1 - 1/e = 63.2% of them.
  EXPECT_EQ(lines[0].workload, "readrandom");
  EXPECT_NEAR(lines[0].found, 5000 * 0.632, 150);
  EXPECT_EQ(lines[1].workload, "readmissing");
  EXPECT_EQ(lines[1].found, 0);
  // The filters of every engine hold each file's distinct keys at ~1%
  // (about 10 bits, 1.25 bytes, per key): at least the 37,900 distinct
  // keys, at most the 60,000 written (two files may both hold a key).
  const auto facts = ParseFacts(r.out);
  ASSERT_EQ(facts.size(), 3u) << r.out;
  EXPECT_GT(facts.at("filter_bytes"), 37900 * 1.1);
  EXPECT_LT(facts.at("filter_bytes"), 60000 * 1.6);
}

TEST_P(PeerBenchTest, ErrorsNameWhatIsWrong) {
  CommandResult r = Peer("--benchmarks=fillrandom,readrandum");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("unknown benchmark 'readrandum'"), std::string::npos)
      << r.err;
  r = Peer("--use_existing_db --benchmarks=ycsbload");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("ycsbload needs a fresh database"), std::string::npos)
      << r.err;
  r = Peer("--ycsb_field_count=0 --benchmarks=ycsbload");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--ycsb_field_count=0"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Engines, PeerBenchTest,
                         ::testing::Values("sift", "rocksdb", "leveldb"));

}  // namespace
}  // namespace sift
