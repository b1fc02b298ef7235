// db_bench, run as users run it: flag errors, report lines that parse as
// RocksDB's, the found counts, the filter counters of --statistics, the
// RocksDB flags and benchmarks it accepts or refuses by name, --report_file's
// CSV and the default database's clean-up. Threads and batches:
// db_bench_parallel_test.cc.

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "tests/testutil/db_bench_output.h"
#include "tests/testutil/subprocess.h"
#include "tests/testutil/testutil.h"

namespace sift {
namespace {

using test::CommandResult;

using test::DbBenchTest;
using test::ParseReport;
using test::ParseStatistics;
using test::ReportLine;

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
           "--filter_layout=cuckoo",
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

TEST_F(DbBenchTest, FilterBudgetAndRebuildFilters) {
  CommandResult r = Bench(
      "--num=20000 --seed=9 --write_buffer_size=262144 "
      "--target_file_size_base=262144 --filter_bits_per_key_budget=8 "
      "--filter_layout=ribbon --bloom_before_level=1 "
      "--benchmarks=fillrandom,waitforcompaction");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Reopened for 0.1%: every file's filter is rebuilt, no data rewritten.
  r = Bench(
      "--num=20000 --use_existing_db --statistics=1 "
      "--bloom_filter_fp_chance=0.001 --benchmarks=rebuildfilters,stats");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<ReportLine> lines = ParseReport(r.out);
  ASSERT_EQ(lines.size(), 1u) << r.out;
  EXPECT_EQ(lines[0].name, "rebuildfilters");
  EXPECT_EQ(lines[0].operations, 1);
  auto c = ParseStatistics(r.out);
  EXPECT_GT(c["sift.filter.rebuild.count"], 0u) << r.out;
  EXPECT_GT(c["sift.filter.rebuild.write.bytes"], 0u);
  EXPECT_EQ(c["sift.compact.write.bytes"], 0u);

  r = Bench(
      "--num=10 --filter_bits_per_key_budget=8 --bloom_bits=10 "
      "--benchmarks=fillseq");
  EXPECT_NE(r.exit_code, 0);
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

// --num_column_families=N (RocksDB's): key k goes to family k % N, named
// as RocksDB's db_bench names them, and the reads find every key there.
TEST_F(DbBenchTest, NumColumnFamiliesSpreadsKeysOverTheFamilies) {
  CommandResult r = Bench(
      "--num=3000 --reads=3000 --num_column_families=3 "
      "--benchmarks=fillseq,readrandom,multireadrandom,readmissing");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, ReportLine> by_name;
  for (const ReportLine& l : ParseReport(r.out)) by_name[l.name] = l;
  EXPECT_EQ(by_name["readrandom"].found, 3000) << r.out;
  EXPECT_EQ(by_name["multireadrandom"].found, 3000) << r.out;
  EXPECT_EQ(by_name["readmissing"].found, 0) << r.out;

  const std::string db = dir_ + "/db";
  auto names = DB::ListColumnFamilies(DBOptions(), db);
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_EQ(*names,
            (std::vector<std::string>{"default", "column_family_name_000001",
                                      "column_family_name_000002"}));
  std::vector<ColumnFamilyDescriptor> families;
  for (const std::string& name : *names) {
    families.emplace_back(name, ColumnFamilyOptions());
  }
  std::vector<std::unique_ptr<ColumnFamilyHandle>> handles;
  {
    auto opened = DB::Open(DBOptions(), db, families, &handles);
    ASSERT_TRUE(opened.ok()) << opened.status();
    for (const auto& h : handles) {
      std::unique_ptr<Iterator> it =
          (*opened)->NewIterator(ReadOptions(), h.get());
      int n = 0;
      for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
      EXPECT_EQ(n, 1000) << h->GetName();
    }
    handles.clear();
  }

  // Opening it with fewer families than it has names the ones left out.
  r = Bench("--num=3000 --use_existing_db=1 --benchmarks=readrandom");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("column_family_name_000001"), std::string::npos)
      << r.err;
  r = Bench("--benchmarks=fillseq --num_column_families=0");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("num_column_families"), std::string::npos) << r.err;
}

TEST_F(DbBenchTest, HelpListsTheBenchmarksAndExitsZero) {
  CommandResult r = test::RunCommand(
      absl::StrCat(test::ToolPath("db_bench"), " --help"), dir_);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* want :
       {"Benchmarks", "readrandomwriterandom", "seekrandomwhilewriting",
        "fill100K", "resetstats", "--disable_wal", "--report_file",
        "--perf_level", "--threads"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }
  // No build-machine paths (Abseil's own --help names each flag's file).
  EXPECT_EQ(r.out.find(".cc"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(SIFT_SOURCE_DIR), std::string::npos);
}

// Flags siftdb cannot honour are refused by name (exit 1, nothing run).
TEST_F(DbBenchTest, FlagsThatCannotBeHonouredAreRefusedByName) {
  for (const char* args : {
           "--disable_wal=1",
           "--compression_type=zstd",
           "--num_levels=4",
           "--cache_numshardbits=6",
           "--max_bytes_for_level_base=100",
           "--max_bytes_for_level_multiplier=1.5",
           "--open_files=5",
           "--readwritepercent=101",
           "--batch_size=0",
           "--perf_level=9",
           "--max_background_jobs=0",
           "--stats_interval_seconds=-1",
       }) {
    CommandResult r =
        Bench(absl::StrCat("--num=100 --benchmarks=fillseq ", args));
    EXPECT_EQ(r.exit_code, 1) << args;
    // The flag's name (db_bench's words, or DB::Open's for the Options
    // field of the same name).
    const std::string flag(args + 2, std::string_view(args).find('=') - 2);
    EXPECT_NE(r.err.find(flag), std::string::npos) << args << ": " << r.err;
    EXPECT_TRUE(ParseReport(r.out).empty()) << args << "\n" << r.out;
  }
}

// multireadrandom (RocksDB's): --batch_size keys per MultiGet, --reads keys
// per thread in whole batches, each key one operation; multireadmissing
// asks for keys no one wrote.
TEST_F(DbBenchTest, RocksDbFlagsAreAcceptedWithTheirMeaning) {
  CommandResult r = Bench(
      "--num=2000 --writes=700 --reads=300 --batch_size=10 --seed=9 "
      "--disable_wal=0 --sync=0 --open_files=-1 --num_levels=7 "
      "--max_background_jobs=4 --verify_checksum=1 "
      "--block_restart_interval=8 --cache_numshardbits=-1 --perf_level=2 "
      "--max_bytes_for_level_base=1048576 --max_bytes_for_level_multiplier=4 "
      "--benchmarks=fillseq,fillrandom,readrandom,deleteseq,readseq,"
      "levelstats");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The level targets follow the flags: 1 MiB at level 1, x4 per level.
  EXPECT_TRUE(
      std::regex_search(r.out, std::regex(R"(\n +1 +\d+ +[0-9.]+ +1\.0 )")))
      << r.out;
  EXPECT_TRUE(
      std::regex_search(r.out, std::regex(R"(\n +2 +\d+ +[0-9.]+ +4\.0 )")))
      << r.out;
  const std::vector<ReportLine> lines = ParseReport(r.out);
  ASSERT_EQ(lines.size(), 5u) << r.out;
  EXPECT_EQ(lines[0].operations, 700);  // --writes, in batches of 10
  EXPECT_EQ(lines[1].operations, 700);
  EXPECT_EQ(lines[2].of, 300);
  // fillrandom recreated the DB: 700 draws over 2000 numbers.
  EXPECT_GT(lines[2].found, 0);
  EXPECT_LT(lines[2].found, 150);
  EXPECT_EQ(lines[3].operations, 2000);  // deleteseq deletes --num keys
  EXPECT_EQ(lines[4].operations, 1);  // nothing left to scan: "1", as RocksDB
}

// RocksDB's --rate_limiter_bytes_per_sec: flushes and compactions are
// charged to a limiter of that rate (every table byte they write).
TEST_F(DbBenchTest, RateLimiterFlagChargesEveryTableByte) {
  CommandResult r = Bench(
      "--num=20000 --write_buffer_size=262144 --target_file_size_base=262144 "
      "--rate_limiter_bytes_per_sec=67108864 --statistics=1 --seed=3 "
      "--benchmarks=fillrandom,waitforcompaction,compactall");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Rate limiter: 67108864 bytes/second"),
            std::string::npos);
  auto c = ParseStatistics(r.out);
  EXPECT_GT(c["sift.flush.write.bytes"], 1000000u);
  EXPECT_GT(c["sift.compact.write.bytes"], 1000000u);
  EXPECT_EQ(c["sift.rate.limiter.bytes"],
            c["sift.flush.write.bytes"] + c["sift.compact.write.bytes"]);
  for (const char* bad : {"--rate_limiter_bytes_per_sec=-1",
                          "--rate_limiter_refill_period_us=0"}) {
    CommandResult e = Bench(absl::StrCat("--benchmarks=fillseq ", bad));
    EXPECT_EQ(e.exit_code, 1) << bad;
    EXPECT_NE(e.err.find(std::string(bad).substr(2, 20)), std::string::npos)
        << bad << ": " << e.err;
  }
}

TEST_F(DbBenchTest, NewBenchmarksReportWhatTheyDid) {
  CommandResult r = Bench(
      "--num=3000 --reads=1000 --seed=11 --readwritepercent=80 "
      "--statistics=1 --benchmarks=fillseq,updaterandom,"
      "readrandomwriterandom,newiterator,readtocache,compactall,resetstats,"
      "seekrandomwhilewriting,fill100K,deleteseq,readrandom");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, ReportLine> by;
  std::vector<std::string> names;
  for (const ReportLine& l : ParseReport(r.out)) {
    by[l.name] = l;
    names.push_back(l.name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{
                       "fillseq", "updaterandom", "readrandomwriterandom",
                       "newiterator", "readtocache", "seekrandomwhilewriting",
                       "fill100K", "deleteseq", "readrandom"}))
      << r.out;
  // --reads=1000 and no --writes: the mixed ones run 1000 operations.
  EXPECT_EQ(by["updaterandom"].updates, 1000);
  EXPECT_EQ(by["updaterandom"].found, 1000);  // fillseq wrote every key
  const ReportLine& rw = by["readrandomwriterandom"];
  EXPECT_EQ(rw.reads, 800);
  EXPECT_EQ(rw.writes, 200);
  EXPECT_EQ(rw.total, 1000);
  EXPECT_EQ(rw.found, 800);
  EXPECT_EQ(by["newiterator"].operations, 1000);
  EXPECT_EQ(by["readtocache"].operations, 3000);  // the whole DB, one thread
  EXPECT_EQ(by["seekrandomwhilewriting"].of, 1000);
  EXPECT_EQ(by["fill100K"].operations, 3);  // num / 1000 values of 100 KB
  EXPECT_EQ(by["deleteseq"].operations, 3000);
  EXPECT_EQ(by["readrandom"].found, 0);  // deleteseq removed every key
  // resetstats: --statistics counts only what came after it: the 1000
  // readrandom Gets, not the 1800 Gets before.
  auto c = ParseStatistics(r.out);
  ASSERT_TRUE(c.count("sift.number.keys.read")) << r.out;
  EXPECT_EQ(c["sift.number.keys.read"], 1000u);
}

std::vector<std::vector<std::string>> ReadCsv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

TEST_F(DbBenchTest, ReportFileIsRocksDbsCsvOfOpsPerInterval) {
  const std::string csv = dir_ + "/report.csv";
  CommandResult r = Bench(absl::StrCat(
      "--num=2000 --seed=17 --duration=3 --report_interval_seconds=1 "
      "--report_file=",
      csv, " --benchmarks=fillseq,readrandom"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<ReportLine> lines = ParseReport(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  // The last benchmark's, as in RocksDB: readrandom ran 3 seconds.
  auto rows = ReadCsv(csv);
  ASSERT_GE(rows.size(), 3u);
  EXPECT_EQ(rows[0],
            (std::vector<std::string>{"secs_elapsed", "interval_qps"}));
  int64_t sum = 0, last_secs = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 2u);
    int64_t secs, ops;
    ASSERT_TRUE(absl::SimpleAtoi(rows[i][0], &secs)) << rows[i][0];
    ASSERT_TRUE(absl::SimpleAtoi(rows[i][1], &ops)) << rows[i][1];
    EXPECT_GT(secs, last_secs);
    EXPECT_GT(ops, 0);
    last_secs = secs;
    sum += ops;
  }
  EXPECT_LE(sum, lines[1].operations);

  // siftdb's --report_latency adds the interval's P50 and P99.
  r = Bench(absl::StrCat(
      "--num=2000 --seed=17 --duration=2 --report_interval_seconds=1 "
      "--report_latency=1 --use_existing_db=1 --report_file=",
      csv, " --benchmarks=readrandom"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  rows = ReadCsv(csv);
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows[0],
            (std::vector<std::string>{"secs_elapsed", "interval_qps",
                                      "interval_p50_us", "interval_p99_us"}));
  double p50, p99;
  ASSERT_TRUE(absl::SimpleAtod(rows[1][2], &p50));
  ASSERT_TRUE(absl::SimpleAtod(rows[1][3], &p99));
  EXPECT_GT(p50, 0);
  EXPECT_GE(p99, p50);

  r = Bench(
      "--num=100 --report_interval_seconds=1 "
      "--report_file=/no/such/dir/r.csv --benchmarks=fillseq");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--report_file=/no/such/dir/r.csv"), std::string::npos)
      << r.err;
}

TEST_F(DbBenchTest, StatsIntervalPrintsRocksDbsIntervalLines) {
  CommandResult r = Bench(
      "--num=2000 --seed=19 --duration=3 --stats_interval_seconds=1 "
      "--threads=2 --benchmarks=fillseq,readrandom");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  static const std::regex kInterval(
      R"(\d{4}/\d\d/\d\d-\d\d:\d\d:\d\d \.\.\. thread ([01]): \((\d+),(\d+)\) )"
      R"(ops and \(([0-9.]+),([0-9.]+)\) ops/second in \(([0-9.]+),([0-9.]+)\) )"
      R"(seconds)");
  int per_thread[2] = {0, 0};
  for (auto it = std::sregex_iterator(r.err.begin(), r.err.end(), kInterval);
       it != std::sregex_iterator(); ++it) {
    ++per_thread[std::stoi((*it)[1])];
    EXPECT_LE(std::stoll((*it)[2]), std::stoll((*it)[3]));
    EXPECT_GE(std::stod((*it)[6]), 1.0);  // at least the interval
  }
  EXPECT_GE(per_thread[0], 1) << r.err;
  EXPECT_GE(per_thread[1], 1) << r.err;
}

TEST_F(DbBenchTest, DefaultDbIsUnderTmpdirPrintedOnceAndRemoved) {
  const std::string tmp = dir_ + "/tmp";
  std::filesystem::create_directories(tmp);
  CommandResult r = test::RunCommand(
      absl::StrCat("TMPDIR=", tmp, " ", test::ToolPath("db_bench"),
                   " --num=3000 --seed=23 --benchmarks=fillseq,fillrandom,"
                   "readrandom"),
      dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t at = r.out.find("DB path: [" + tmp + "/siftdb-bench-");
  EXPECT_NE(at, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("DB path:", at + 1), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::is_empty(tmp));
  // Not on a terminal: each progress report is a line of its own.
  EXPECT_NE(r.err.find("... finished 1000 ops\n"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos);

  // An explicit --db stays.
  r = Bench("--num=100 --benchmarks=fillseq");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/db/CURRENT"));
}

}  // namespace
}  // namespace sift
