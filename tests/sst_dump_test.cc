// sst_dump, run as a user runs it, on clean, damaged, truncated, missing and
// foreign files: what it prints and the exit codes.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/sst_file_writer.h"
#include "table/table.h"
#include "tests/testutil/dir_snapshot.h"
#include "tests/testutil/subprocess.h"
#include "tests/testutil/testutil.h"

namespace sift {
namespace {

using test::CommandResult;

// Keys hold a NUL byte, so a dump that stops at NUL is caught.
std::string Key(int i) {
  return absl::StrCat(std::string("k\0", 2), absl::StrFormat("%06d", i));
}
std::string Value(int i) {
  return absl::StrCat("v", i, std::string("\0tail", 5));
}

int CountLines(const std::string& s, const std::string& needle) {
  int n = 0;
  for (size_t at = s.find(needle); at != std::string::npos;
       at = s.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

class SstDumpTest : public ::testing::Test {
 protected:
  SstDumpTest()
      : dir_(test::TempDir(
            ::testing::UnitTest::GetInstance()->current_test_info()->name())) {}
  ~SstDumpTest() override { std::filesystem::remove_all(dir_); }

  // Keys 0..n-1, every tenth one a tombstone.
  std::string Write(const std::string& name, int n, double fp_chance = 0.01) {
    Options options;
    options.bloom_filter_fp_chance = fp_chance;
    SstFileWriter w(options);
    const std::string path = dir_ + "/" + name;
    EXPECT_TRUE(w.Open(path).ok());
    for (int i = 0; i < n; ++i) {
      EXPECT_TRUE(
          (i % 10 == 9 ? w.Delete(Key(i)) : w.Put(Key(i), Value(i))).ok());
    }
    EXPECT_TRUE(w.Finish().ok());
    return path;
  }

  CommandResult Dump(const std::string& args) {
    return test::RunCommand(absl::StrCat(test::ToolPath("sst_dump"), " ", args),
                            dir_);
  }

  static std::string Read(const std::string& path) {
    std::string data;
    EXPECT_TRUE(ReadFileToString(Env::Default(), path, &data).ok());
    return data;
  }
  static void Store(const std::string& path, const std::string& data) {
    ASSERT_TRUE(WriteStringToFile(Env::Default(), data, path, false).ok());
  }

  static BlockHandle FindBlock(const std::string& path,
                               const std::string& kind) {
    auto file = Env::Default()->NewRandomAccessFile(path);
    auto size = Env::Default()->GetFileSize(path);
    auto t = Table::Open(path, std::move(*file), *size, nullptr,
                         BytewiseComparator());
    EXPECT_TRUE(t.ok()) << t.status();
    for (const auto& b : (*t)->Blocks()) {
      if (b.kind == kind) return b.handle;
    }
    ADD_FAILURE() << "no " << kind << " block";
    return BlockHandle();
  }

  std::string dir_;
};

TEST_F(SstDumpTest, CleanFilePassesEveryCommand) {
  const std::string f = Write("a.sst", 5000);
  CommandResult r = Dump("--file=" + f);  // check is the default
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(f + ": 5000 entries read back ok"), std::string::npos)
      << r.out;
  r = Dump("--file=" + f + " --command=verify");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("The file is ok"), std::string::npos);
  r = Dump("--file=" + f + " --command=identify");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(f + " is a valid SST file"), std::string::npos);
}

TEST_F(SstDumpTest, PropertiesShowTheFilterAndItsExpectedRate) {
  const std::string f = Write("p.sst", 20000);
  CommandResult r = Dump("--file=" + f + " --show_properties");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* want :
       {"  # entries: 20000\n", "  # deletions: 2000\n",
        "  # range deletions: 0\n", "  filter layout: blocked\n",
        "  filter fp chance: 0.01\n", "  # entries for filter: 20000\n",
        "  filter bits per key: ", "  filter probes: ",
        "  SST file compression algo: Snappy\n", "  format version: 1\n",
        "  comparator name: sift.BytewiseComparator\n",
        "  smallest key: 'k\\x00000000'\n"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.out, m, std::regex(R"(filter expected fp rate: ([0-9.e-]+) )")));
  const double expected = std::stod(m[1]);
  EXPECT_GT(expected, 0.008);
  EXPECT_LT(expected, 0.0101);

  const std::string none = Write("none.sst", 100, 1.0);
  r = Dump("--file=" + none + " --show_properties");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  filter policy name: N/A\n"), std::string::npos);
  EXPECT_NE(r.out.find("  filter fp chance: 1 (no filter)\n"),
            std::string::npos);
}

TEST_F(SstDumpTest, ShowsTheFilterTheDatabaseUsesForATable) {
  const std::string db_dir = dir_ + "/db";
  Options options;
  options.create_if_missing = true;
  {
    auto db = DB::Open(options, db_dir);
    ASSERT_TRUE(db.ok()) << db.status();
    for (int i = 0; i < 500; ++i) {
      ASSERT_TRUE((*db)->Put(WriteOptions(), Key(i), Value(i)).ok());
    }
    ASSERT_TRUE((*db)->Flush().ok());
  }
  std::string table;
  for (const auto& entry : std::filesystem::directory_iterator(db_dir)) {
    if (entry.path().extension() == ".sst") table = entry.path();
  }
  ASSERT_FALSE(table.empty());
  CommandResult r = Dump("--file=" + table + " --show_properties");
  EXPECT_NE(r.out.find("filter in use: the table's own"), std::string::npos)
      << r.out;
  options.create_if_missing = false;
  options.bloom_filter_fp_chance = 0.001;
  {
    auto db = DB::Open(options, db_dir);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE((*db)->RebuildFilters().ok());
  }
  r = Dump("--file=" + table + " --show_properties");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("filter in use: replacement filter file (blocked"),
            std::string::npos)
      << r.out;
  // Outside its database the table is read with its own filter.
  const std::string copy = dir_ + "/copy.sst";
  std::filesystem::copy_file(table, copy);
  r = Dump("--file=" + copy + " --show_properties");
  EXPECT_NE(r.out.find("filter in use: the table's own"), std::string::npos)
      << r.out;
}

TEST_F(SstDumpTest, ScanPrintsEntriesWithoutCuttingAtNul) {
  const std::string f = Write("s.sst", 100);
  CommandResult r = Dump("--file=" + f + " --command=scan");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CountLines(r.out, " seq:0, type:"), 100);
  EXPECT_NE(r.out.find("'k\\x00000003' seq:0, type:1 => v3\\x00tail\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("'k\\x00000009' seq:0, type:0 => \n"),
            std::string::npos);

  r = Dump("--file=" + f + " --command=scan --output_hex --read_num=1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CountLines(r.out, " seq:0, type:"), 1);
  EXPECT_NE(r.out.find("'6B00303030303030' seq:0, type:1 => 7630007461696C\n"),
            std::string::npos)
      << r.out;

  // [from, to) in user keys, given in hex: keys 10..19.
  r = Dump("--file=" + f +
           " --command=scan --input_key_hex --from=6B00303030303130"
           " --to=6B00303030303230");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CountLines(r.out, " seq:0, type:"), 10);
  EXPECT_NE(r.out.find("'k\\x00000010'"), std::string::npos);
  EXPECT_EQ(r.out.find("'k\\x00000020'"), std::string::npos);
}

TEST_F(SstDumpTest, FlippedByteInDataBlockFailsNamingFileAndOffset) {
  const std::string f = Write("c.sst", 5000);
  std::string data = Read(f);
  data[100] ^= 0x40;
  Store(f, data);
  CommandResult r = Dump("--file=" + f + " --command=verify");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out.find("The file is ok"), std::string::npos);
  EXPECT_EQ(r.err.rfind(f + ": ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("checksum mismatch at offset 0"), std::string::npos)
      << r.err;
  for (const char* cmd : {"check", "scan"}) {
    r = Dump("--file=" + f + " --command=" + cmd);
    EXPECT_EQ(r.exit_code, 1) << cmd;
    EXPECT_NE(r.err.find(f), std::string::npos) << cmd << r.err;
  }
}

TEST_F(SstDumpTest, DamagedFilterIsReportedByVerifyAndCheck) {
  const std::string f = Write("fl.sst", 3000);
  const BlockHandle h = FindBlock(f, "filter");
  std::string data = Read(f);
  data[h.offset + h.size / 2] ^= 0x01;
  Store(f, data);
  for (const char* cmd : {"verify", "check"}) {
    CommandResult r = Dump("--file=" + f + " --command=" + cmd);
    EXPECT_EQ(r.exit_code, 1) << cmd;
    EXPECT_NE(r.err.find("filter"), std::string::npos) << cmd << r.err;
  }
}

TEST_F(SstDumpTest, TruncatedMissingAndForeignFilesExitOne) {
  const std::string f = Write("t.sst", 3000);
  const std::string data = Read(f);
  Store(f, data.substr(0, data.size() / 2));
  const std::string foreign = dir_ + "/text.sst";
  Store(foreign, std::string(4096, 'x'));
  for (const std::string& path : {f, foreign, dir_ + "/missing.sst"}) {
    for (const char* cmd : {"check", "verify", "identify", "scan", "raw"}) {
      CommandResult r = Dump("--file=" + path + " --command=" + cmd);
      EXPECT_EQ(r.exit_code, 1) << path << " " << cmd;
      EXPECT_EQ(r.err.rfind(path + ": ", 0), 0u) << path << " " << r.err;
    }
  }
  CommandResult r = Dump("--file=" + foreign + " --command=identify");
  EXPECT_NE(r.out.find(foreign + " is not a valid SST file"),
            std::string::npos);
}

TEST_F(SstDumpTest, DirectoryMeansEverySstFileInIt) {
  Write("1.sst", 1000);
  const std::string two = Write("2.sst", 2000);
  Store(dir_ + "/CURRENT", "MANIFEST-000001\n");
  CommandResult r = Dump("--file=" + dir_ + " --command=verify --show_summary");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CountLines(r.out, "The file is ok"), 2);
  EXPECT_NE(r.out.find("total number of files: 2\n"), std::string::npos);
  EXPECT_NE(r.out.find("total number of entries: 3000\n"), std::string::npos);
  r = Dump("--file=" + dir_ + " --command=identify");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Number of valid SST files: 2"), std::string::npos);

  std::string data = Read(two);
  data[10] ^= 0x01;
  Store(two, data);
  r = Dump("--file=" + dir_ + " --command=verify");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(CountLines(r.out, "The file is ok"), 1);  // the other still ran
  EXPECT_NE(r.err.find(two + ": "), std::string::npos) << r.err;
}

TEST_F(SstDumpTest, RawWritesAReadableDumpOfEveryBlock) {
  const std::string f = Write("r.sst", 2000);
  CommandResult r = Dump("--file=" + f + " --command=raw");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string dump = Read(dir_ + "/r_dump.txt");
  for (const char* want :
       {"Footer Details:", "Metaindex Details:", "'sift.filter' => offset ",
        "'sift.properties' => offset ", "Table Properties:",
        "filter fp chance: 0.01", "Index Details:", "Data Block # 1 @ offset 0",
        "ASCII  'k\\x00000000' @ 0 : 1 => 'v0\\x00tail'"}) {
    EXPECT_NE(dump.find(want), std::string::npos) << want;
  }
  const uint64_t blocks =
      static_cast<uint64_t>(CountLines(dump, "Data Block #"));
  EXPECT_GT(blocks, 1u);
}

TEST_F(SstDumpTest, BadArgumentsExitOne) {
  const std::string f = Write("b.sst", 10);
  for (const std::string& args :
       {std::string(""), "--file=" + f + " --command=frobnicate",
        "--file=" + f + " --no_such_flag", "--file=" + f + " extra",
        "--file=" + f + " --input_key_hex --from=6Z",
        "--file=" + f + " --input_key_hex --from=0x6",
        "--file=" + f + " --command=recompress --set_block_size=0"}) {
    CommandResult r = Dump(args);
    EXPECT_EQ(r.exit_code, 1) << args;
    EXPECT_FALSE(r.err.empty()) << args;
  }
}

TEST_F(SstDumpTest, HelpExitsZero) {
  CommandResult r = Dump("--help");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* want : {"--file=", "recompress", "--verify_checksum",
                           "--parse_internal_key", "--input_key_hex"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want;
  }
}

TEST_F(SstDumpTest, InputKeyHexTakesRocksDbsZeroXForm) {
  const std::string f = Write("x.sst", 100);
  // Keys 10..19, with RocksDB's 0x prefix (either case).
  CommandResult r = Dump("--file=" + f +
                         " --command=scan --input_key_hex"
                         " --from=0x6B00303030303130 --to=0X6b00303030303230");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CountLines(r.out, " seq:0, type:"), 10);
  EXPECT_NE(r.out.find("'k\\x00000010'"), std::string::npos) << r.out;
}

TEST_F(SstDumpTest, DirectoryWithoutTablesExitsOne) {
  Store(dir_ + "/CURRENT", "MANIFEST-000001\n");
  CommandResult r = Dump("--file=" + dir_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "No valid SST files found in " + dir_ + "\n");
}

TEST_F(SstDumpTest, VerifyNamesTheFileOnce) {
  const std::string f = Write("v.sst", 5000);
  std::string data = Read(f);
  data[100] ^= 0x40;
  Store(f, data);
  CommandResult r = Dump("--file=" + f + " --command=verify");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(CountLines(r.err, f), 1) << r.err;
}

TEST_F(SstDumpTest, VerifyChecksumChecksBlocksAPartialScanSkips) {
  const std::string f = Write("vc.sst", 5000);
  const Table::BlockInfo last = [&] {
    auto file = Env::Default()->NewRandomAccessFile(f);
    auto t = Table::Open(f, std::move(*file), *Env::Default()->GetFileSize(f),
                         nullptr, BytewiseComparator());
    Table::BlockInfo b;
    for (const auto& info : (*t)->Blocks()) {
      if (info.kind == "data") b = info;
    }
    return b;
  }();
  std::string data = Read(f);
  data[last.handle.offset + 1] ^= 0x40;
  Store(f, data);
  // The first entry's block is fine: a one-entry scan never reads the
  // damaged last block...
  CommandResult r = Dump("--file=" + f + " --command=scan --read_num=1");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // ...unless asked to verify every checksum first.
  for (const char* cmd : {"scan", "check"}) {
    r = Dump("--file=" + f + " --command=" + cmd +
             " --read_num=1 --verify_checksum");
    EXPECT_EQ(r.exit_code, 1) << cmd;
    EXPECT_NE(r.err.find("checksum mismatch at offset " +
                         std::to_string(last.handle.offset)),
              std::string::npos)
        << cmd << ": " << r.err;
  }
}

TEST_F(SstDumpTest, RecompressReportsEachCompressionAndWritesNothing) {
  // Values that compress: Snappy must come out smaller than none.
  Options options;
  SstFileWriter w(options);
  const std::string tables = dir_ + "/tables";  // apart from cmd.std*
  std::filesystem::create_directories(tables);
  const std::string f = tables + "/rc.sst";
  ASSERT_TRUE(w.Open(f).ok());
  for (int i = 0; i < 2000; ++i) {
    ASSERT_TRUE(w.Put(Key(i), std::string(100, 'a' + i % 3)).ok());
  }
  ASSERT_TRUE(w.Finish().ok());
  const test::DirSnapshot before = test::SnapshotDir(tables);
  CommandResult r = Dump("--file=" + f + " --command=recompress");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::DescribeDirChanges(before, test::SnapshotDir(tables)), "");
  std::smatch none, snappy;
  ASSERT_TRUE(std::regex_search(
      r.out, none, std::regex(R"(Compression: kNoCompression +Size: +(\d+))")))
      << r.out;
  ASSERT_TRUE(std::regex_search(
      r.out, snappy,
      std::regex(R"(Compression: kSnappyCompression +Size: +(\d+))")));
  const uint64_t none_size = std::stoull(none[1]);
  const uint64_t snappy_size = std::stoull(snappy[1]);
  EXPECT_GT(none_size, 2000u * 100);
  EXPECT_LT(snappy_size, none_size / 2);
  // The file was written with Snappy at the default block size: rebuilt
  // the same way it comes out the same size.
  EXPECT_EQ(snappy_size, std::filesystem::file_size(f));
  EXPECT_NE(r.out.find("Block Size: 4096\n"), std::string::npos);
}

TEST_F(SstDumpTest, ParseInternalKeyAsRocksDb) {
  // "key" + fixed64 little-endian (5 << 8 | 1): sequence 5, a value.
  CommandResult r = Dump("--parse_internal_key=0x6B65790105000000000000");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "key='6B6579' seq:5, type:1\n");
  r = Dump("--parse_internal_key=0x6B657900FFFFFFFFFFFFFF");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "key='6B6579' seq:72057594037927935, type:0\n");
  for (const char* bad : {"6B65790105000000000000",  // no 0x, as RocksDB
                          "0x6B65", "0xZZ", "0x6B65790905000000000000"}) {
    r = Dump(std::string("--parse_internal_key=") + bad);
    EXPECT_EQ(r.exit_code, 1) << bad;
    EXPECT_FALSE(r.err.empty()) << bad;
  }
}

}  // namespace
}  // namespace sift
