// ldb, run as a user runs it: RocksDB's output lines, exit codes, hex in
// and out, bad command lines, and read-only commands that leave every byte
// of the database directory as it was -- also beside a writer holding LOCK.

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/sst_file_writer.h"
#include "tests/testutil/dir_snapshot.h"
#include "tests/testutil/subprocess.h"
#include "tests/testutil/test_comparators.h"
#include "tests/testutil/testutil.h"

namespace sift {
namespace {

using test::CommandResult;

std::string Key(int i) { return absl::StrFormat("key%06d", i); }
std::string Value(int i) { return absl::StrFormat("value%d", i); }

int CountOf(const std::string& s, const std::string& needle) {
  int n = 0;
  for (size_t at = s.find(needle); at != std::string::npos;
       at = s.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

class LdbTest : public ::testing::Test {
 protected:
  LdbTest()
      : dir_(test::TempDir(
            ::testing::UnitTest::GetInstance()->current_test_info()->name())),
        db_(dir_ + "/db"),
        scratch_(dir_ + "/scratch") {
    std::filesystem::create_directories(scratch_);
  }
  ~LdbTest() override { std::filesystem::remove_all(dir_); }

  // Runs ldb with args (a shell command line; the caller quotes).
  CommandResult Ldb(const std::string& args) {
    return test::RunCommand(absl::StrCat(test::ToolPath("ldb"), " ", args),
                            scratch_);
  }
  CommandResult LdbDb(const std::string& args) {
    return Ldb(absl::StrCat("--db=", db_, " ", args));
  }

  // Keys [0, n): the first half flushed to a table, the rest only in the
  // WAL. Closes the DB.
  void Fill(int n = 300) {
    Options options;
    options.create_if_missing = true;
    auto db = DB::Open(options, db_);
    ASSERT_TRUE(db.ok()) << db.status();
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE((*db)->Put(WriteOptions(), Key(i), Value(i)).ok());
      if (i == n / 2) {
        ASSERT_TRUE((*db)->Flush().ok());
      }
    }
  }

  // The files of db_ whose names end with suffix.
  std::vector<std::string> Files(const std::string& suffix) {
    std::vector<std::string> out;
    for (const auto& [name, bytes] : test::SnapshotDir(db_)) {
      if (name.ends_with(suffix)) out.push_back(db_ + "/" + name);
    }
    return out;
  }

  std::string dir_, db_, scratch_;
};

// Tables but no CURRENT: a damaged database, and every command says so in
// the words DB::Open uses, not "no database here".
TEST_F(LdbTest, DataWithoutCurrentIsTheOpenMessage) {
  Fill();
  std::filesystem::remove(db_ + "/CURRENT");
  Options options;
  const auto opened = DB::Open(options, db_);
  ASSERT_TRUE(absl::IsDataLoss(opened.status())) << opened.status();
  const std::string message(opened.status().message());
  EXPECT_NE(message.find("but no CURRENT file"), std::string::npos) << message;
  for (const char* command :
       {"get key000001", "scan", "put a 1", "rebuild_filters"}) {
    const CommandResult r = LdbDb(command);
    EXPECT_EQ(r.exit_code, 1) << command;
    EXPECT_NE(r.err.find(message), std::string::npos)
        << command << ": " << r.err;
    EXPECT_EQ(r.err.find("no database here"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(db_ + "/CURRENT"));
}

TEST_F(LdbTest, DataCommandsPrintRocksDbLines) {
  CommandResult r = LdbDb("--create_if_missing put a 1");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "OK\n");
  r = LdbDb("batchput b 2 c 3");
  EXPECT_EQ(r.out, "OK\n") << r.err;
  r = LdbDb("get a");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1\n");
  EXPECT_EQ(LdbDb("scan").out, "a : 1\nb : 2\nc : 3\n");
  EXPECT_EQ(LdbDb("dump").out, "a ==> 1\nb ==> 2\nc ==> 3\nKeys in range: 3\n");
  EXPECT_EQ(LdbDb("dump --count_only").out, "Keys in range: 3\n");
  // [from, to), as RocksDB: to is exclusive.
  EXPECT_EQ(LdbDb("scan --from=b --to=c").out, "b : 2\n");
  EXPECT_EQ(LdbDb("dump --from=b").out, "b ==> 2\nc ==> 3\nKeys in range: 2\n");
  EXPECT_EQ(LdbDb("scan --max_keys=2").out, "a : 1\nb : 2\n");
  EXPECT_EQ(LdbDb("scan --no_value").out, "a\nb\nc\n");
  EXPECT_EQ(LdbDb("--column_family=default get a").out, "1\n");
  EXPECT_EQ(LdbDb("list_column_families").out,
            "Column families in " + db_ + ": \n{default}\n");
  EXPECT_EQ(LdbDb("dump --max_keys=0").out, "Keys in range: 0\n");

  r = LdbDb("delete b");
  EXPECT_EQ(r.out, "OK\n") << r.err;
  r = LdbDb("get b");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "Failed: Get failed: NotFound: \n");
  EXPECT_EQ(LdbDb("scan").out, "a : 1\nc : 3\n");

  r = LdbDb("compact");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = LdbDb("compact --from=a --to=b");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(LdbDb("get_property sift.num-files-at-level0").out,
            "sift.num-files-at-level0: 0\n");
  r = LdbDb("get_property sift.levels");
  EXPECT_EQ(r.out.rfind("sift.levels: ", 0), 0u) << r.out;
  EXPECT_EQ(LdbDb("checkconsistency").out, "OK\n");
  EXPECT_EQ(LdbDb("dump").out, "a ==> 1\nc ==> 3\nKeys in range: 2\n");
}

TEST_F(LdbTest, DeleteRangeRemovesTheHalfOpenRange) {
  ASSERT_EQ(LdbDb("--create_if_missing put a 1").exit_code, 0);
  ASSERT_EQ(LdbDb("batchput b 2 c 3 d 4").exit_code, 0);
  CommandResult r = LdbDb("deleterange b d");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "OK\n");
  EXPECT_EQ(LdbDb("scan").out, "a : 1\nd : 4\n");
  r = LdbDb("deleterange d b");  // reversed: refused, nothing written
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("'d'"), std::string::npos) << r.err;
  EXPECT_EQ(LdbDb("scan").out, "a : 1\nd : 4\n");
  ASSERT_EQ(LdbDb("compact").exit_code, 0);
  EXPECT_EQ(LdbDb("dump").out, "a ==> 1\nd ==> 4\nKeys in range: 2\n");
}

TEST_F(LdbTest, DumpThenLoadCopiesADatabase) {
  Fill(500);
  ASSERT_EQ(LdbDb("--hex batchput 0x00FF 0x0A00").exit_code, 0);
  const std::string ldb = test::ToolPath("ldb");
  const std::string copy = dir_ + "/copy";
  CommandResult r = test::RunCommand(
      // In parentheses: RunCommand's "</dev/null" is for the whole pipe.
      absl::StrCat("(", ldb, " --db=", db_, " --hex dump | ", ldb, " --db=",
                   copy, " --hex --create_if_missing --compact load)"),
      scratch_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const std::string original = LdbDb("--hex scan").out;
  EXPECT_EQ(CountOf(original, "\n"), 501);
  EXPECT_EQ(Ldb("--db=" + copy + " --hex scan").out, original);

  r = test::RunCommand(
      absl::StrCat("(printf '0x61 ==> 0x62\\nnot a line\\n0xZZ ==> 0x00\\n"
                   "Keys in range: 1\\n' | ",
                   ldb, " --db=", copy, " --hex load)"),
      scratch_);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Warning: 2 bad lines ignored.\n");
  EXPECT_EQ(Ldb("--db=" + copy + " get a").out, "b\n");
}

TEST_F(LdbTest, HexRoundTripsInAndOut) {
  // A key with NUL and 0xFF, a value with a newline and NUL.
  CommandResult r = LdbDb("--create_if_missing --hex put 0x00FF 0x0A00");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = LdbDb("--hex get 0x00ff");  // either case of digits goes in
  EXPECT_EQ(r.out, "0x0A00\n") << r.err;
  r = LdbDb("--key_hex get 0x00FF");  // the value comes out raw
  EXPECT_EQ(r.out, std::string("\n\0\n", 3));
  EXPECT_EQ(LdbDb("--hex scan").out, "0x00FF : 0x0A00\n");
  EXPECT_EQ(LdbDb("--key_hex dump").out,
            "0x00FF ==> " + std::string("\n\0", 2) + "\nKeys in range: 1\n");
  r = LdbDb("--value_hex batchput k 0x76");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(LdbDb("get k").out, "v\n");
  EXPECT_EQ(LdbDb("--hex scan --from=0x6B").out, "0x6B : 0x76\n");
  EXPECT_EQ(LdbDb("--hex delete 0x00FF").out, "OK\n");
  EXPECT_EQ(LdbDb("--value_hex scan").out, "k : 0x76\n");

  // What ldb wrote is what the API reads.
  auto db = DB::OpenForReadOnly(Options(), db_);
  ASSERT_TRUE(db.ok()) << db.status();
  std::string value;
  ASSERT_TRUE((*db)->Get(ReadOptions(), "k", &value).ok());
  EXPECT_EQ(value, "v");
  EXPECT_TRUE(absl::IsNotFound(
      (*db)->Get(ReadOptions(), std::string("\0\xff", 2), &value)));
}

TEST_F(LdbTest, ReadOnlyCommandsLeaveTheDirectoryByteIdentical) {
  Fill();
  const std::vector<std::string> logs = Files(".log");
  ASSERT_FALSE(logs.empty());
  const test::DirSnapshot before = test::SnapshotDir(db_);
  const std::vector<std::string> commands = {
      "get " + Key(299),  // only in the WAL
      "scan",
      "dump",
      "dump --count_only",
      "approxsize --from=key000010 --to=key000100",
      "get_property sift.levels",
      "list_column_families",
      "scan --no_value",
      "manifest_dump",
      "manifest_dump --verbose",
      "dump_wal --walfile=" + logs[0] + " --print_value --header",
      "dump_live_files",
      "list_live_files_metadata",
      "list_live_files_metadata --sort_by_filename",
      "checkconsistency",
  };
  for (const std::string& c : commands) {
    CommandResult r = LdbDb(c);
    EXPECT_EQ(r.exit_code, 0) << c << ": " << r.err;
    EXPECT_EQ(test::DescribeDirChanges(before, test::SnapshotDir(db_)), "")
        << c;
  }
  EXPECT_EQ(LdbDb("get " + Key(299)).out, Value(299) + "\n");
  EXPECT_EQ(LdbDb("dump --count_only").out, "Keys in range: 300\n");
}

TEST_F(LdbTest, ReadOnlyCommandsWorkBesideAWriterHoldingTheLock) {
  Options options;
  options.create_if_missing = true;
  auto writer = DB::Open(options, db_);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE((*writer)->Put(WriteOptions(), "t", "in-table").ok());
  ASSERT_TRUE((*writer)->Flush().ok());
  ASSERT_TRUE((*writer)->Put(WriteOptions(), "w", "in-wal").ok());
  const test::DirSnapshot before = test::SnapshotDir(db_);

  EXPECT_EQ(LdbDb("scan").out, "t : in-table\nw : in-wal\n");
  EXPECT_EQ(LdbDb("get w").out, "in-wal\n");
  EXPECT_EQ(LdbDb("checkconsistency").out, "OK\n");
  EXPECT_EQ(test::DescribeDirChanges(before, test::SnapshotDir(db_)), "");

  CommandResult r = LdbDb("put x y");  // needs the lock the writer holds
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("Failed: ", 0), 0u) << r.err;
  EXPECT_EQ(CountOf(r.err, "\n"), 1) << r.err;
  EXPECT_TRUE((*writer)->Put(WriteOptions(), "x", "from-writer").ok());
}

TEST_F(LdbTest, BadInputIsOneLineNonZeroAndTouchesNothing) {
  Fill(20);
  const test::DirSnapshot before = test::SnapshotDir(db_);
  const std::string missing = dir_ + "/missing";
  const std::vector<std::string> bad = {
      "",                                      // no command
      "--db=" + db_ + " nosuchcommand",        // unknown command
      "--db=" + db_ + " get a --bogus",        // unknown flag
      "--db=" + db_ + " get a --bogus=1",      // unknown option
      "--db=" + db_ + " get a --count_only",   // a flag of another command
      "--db=" + db_ + " dump --count_only=1",  // a flag given a value
      "--db=" + db_ + " scan --from",          // an option without one
      "--db " + db_ + " get a",                // --db without '='
      "--db=" + db_ + " get",                  // missing argument
      "--db=" + db_ + " get a b",              // one too many
      "--db=" + db_ + " put a",
      "--db=" + db_ + " scan extra",
      "--db=" + db_ + " batchput a",
      "--db=" + db_ + " batchput a 1 b",
      "--db=" + db_ + " get_property",
      "--db=" + db_ + " get_property no.such.property",
      "--db=" + db_ + " --hex get zz",  // hex without 0x
      "--db=" + db_ + " --hex get 0xZZ",
      "--db=" + db_ + " --hex get 0x123",
      "--db=" + db_ + " --hex put 0x61 v",
      "--db=" + db_ + " --key_hex scan --from=61",
      "--db=" + db_ + " scan --max_keys=x",
      "--db=" + db_ + " dump --max_keys=-1",
      "--db=" + db_ + " --column_family=cf1 get a",
      "get a",  // no --db
      "dump_wal",
      "dump_wal --walfile=" + missing + "/000001.log",
      "manifest_dump",
      "manifest_dump --path=" + missing + "/MANIFEST-000001",
  };
  for (const std::string& args : bad) {
    CommandResult r = Ldb(args);
    EXPECT_EQ(r.exit_code, 1) << args;
    EXPECT_EQ(r.out, "") << args;
    EXPECT_EQ(CountOf(r.err, "\n"), 1) << args << "\n" << r.err;
    EXPECT_EQ(test::DescribeDirChanges(before, test::SnapshotDir(db_)), "")
        << args;
  }
  // A missing database: every command fails and nothing is created.
  for (const char* c :
       {"get a", "put a b", "delete a", "batchput a b", "scan", "dump",
        "approxsize", "compact", "checkconsistency", "manifest_dump",
        "dump_live_files", "list_live_files_metadata",
        "get_property sift.levels", "list_column_families"}) {
    CommandResult r = Ldb(absl::StrCat("--db=", missing, " ", c));
    EXPECT_EQ(r.exit_code, 1) << c;
    EXPECT_EQ(r.err.rfind("Failed: ", 0), 0u) << c << ": " << r.err;
    EXPECT_EQ(CountOf(r.err, "\n"), 1) << c << "\n" << r.err;
    EXPECT_FALSE(std::filesystem::exists(missing)) << c;
  }
  // The messages name what was wrong.
  EXPECT_NE(Ldb("--db=" + db_ + " frobnicate").err.find("frobnicate"),
            std::string::npos);
  EXPECT_NE(Ldb("--db=" + db_ + " get a --bogus").err.find("bogus"),
            std::string::npos);
  EXPECT_NE(Ldb("--db=" + db_ + " --hex get zz").err.find("zz"),
            std::string::npos);
  EXPECT_NE(Ldb("--db=" + missing + " get a").err.find(missing),
            std::string::npos);
}

TEST_F(LdbTest, HelpListsTheCommandsAndExitsZero) {
  CommandResult r = Ldb("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* want :
       {"put <key> <value>", "get <key>", "batchput", "scan", "delete",
        "approxsize", "checkconsistency", "dump_wal --walfile=", "compact",
        "dump ", "manifest_dump", "get_property", "dump_live_files",
        "list_live_files_metadata", "--hex"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want;
  }
}

TEST_F(LdbTest, ManifestDumpShowsLevelsFilesKeyRangesAndFilters) {
  Fill();  // keys 0..150 in one table, 151..299 in the WAL
  ASSERT_EQ(LdbDb("compact").exit_code, 0);  // the WAL's keys to a table
  CommandResult r = LdbDb("manifest_dump");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int level = 0; level < 7; ++level) {
    EXPECT_NE(r.out.find(absl::StrCat("--- level ", level, " --- version# 1")),
              std::string::npos);
  }
  EXPECT_NE(r.out.find("comparator: sift.BytewiseComparator\n"),
            std::string::npos);
  // Each table with its number, size, key range and filter.
  const std::string filter =
      R"(filter: blocked, fp chance 0\.01, [0-9.]+ bits/key, )";
  EXPECT_TRUE(std::regex_search(
      r.out,
      std::regex(R"( \d+:\d+\[1 \.\. 151\]\['key000000' seq:1, type:1 \.\. )"
                 R"('key000150' seq:151, type:1\] entries 151, deletions 0, )" +
                 filter + "151 keys\n")))
      << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out,
      std::regex(R"( \d+:\d+\[152 \.\. 300\]\['key000151' seq:152, type:1 )"
                 R"(\.\. 'key000299' seq:300, type:1\] entries 149, )"
                 R"(deletions 0, )" +
                 filter + "149 keys\n")))
      << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(next_file_number \d+ last_sequence 300\n$)")));

  std::string manifest;
  for (const std::string& f : Files("")) {
    if (f.find("/MANIFEST-") != std::string::npos) manifest = f;
  }
  CommandResult by_path = Ldb("manifest_dump --path=" + manifest);
  EXPECT_EQ(by_path.out, r.out);
  r = LdbDb("manifest_dump --verbose");
  EXPECT_EQ(r.out.rfind("Processing Manifest file " + manifest + "\n", 0), 0u);
  EXPECT_NE(r.out.find("VersionEdit {"), std::string::npos);

  // Every table once, with its level; the same level in each listing.
  r = LdbDb("list_live_files_metadata --sort_by_filename");
  const std::vector<std::string> tables = Files(".sst");
  ASSERT_EQ(tables.size(), 2u);
  std::string expected = "Live SST Files:\n";
  const std::regex line(
      R"(([^ ]+\.sst) : level (\d), column family 'default')");
  std::map<std::string, std::string> level_of;
  const std::vector<std::string> lines = absl::StrSplit(r.out, '\n');
  for (const std::string& l : lines) {
    std::smatch m;
    if (std::regex_match(l, m, line)) level_of[m[1]] = m[2];
  }
  for (const std::string& t : tables) {
    ASSERT_EQ(level_of.count(t), 1u) << t << "\n" << r.out;
    absl::StrAppend(&expected, t, " : level ", level_of[t],
                    ", column family 'default'\n");
  }
  EXPECT_EQ(r.out, expected + "------------------------------\n");
  r = LdbDb("list_live_files_metadata");
  EXPECT_EQ(r.out.rfind("===== Column Family: default =====\n", 0), 0u);
  EXPECT_TRUE(r.out.ends_with("------------------------------\n"));
  const std::string dump = LdbDb("dump_live_files").out;
  for (const std::string& t : tables) {
    const std::string header =
        absl::StrCat("---------- level ", level_of[t], " ----------\n");
    const size_t at = r.out.find(header);
    ASSERT_NE(at, std::string::npos) << r.out;
    // Listed under its level's header, before the next one.
    EXPECT_LT(r.out.find(t + "\n", at),
              r.out.find("---------- level", at + header.size()))
        << r.out;
    EXPECT_NE(dump.find(absl::StrCat(t, " level:", level_of[t], "\n")),
              std::string::npos)
        << t;
    EXPECT_NE(dump.find("Process " + t + "\n"), std::string::npos) << t;
  }
  for (const char* want :
       {"Manifest File\n", "SST Files\n", "Write Ahead Log Files\n",
        "'key000123' seq:124, type:1 => value123\n",
        "Table Properties:", "filter fp chance: 0.01"}) {
    EXPECT_NE(dump.find(want), std::string::npos) << want;
  }
}

// A DB with a second family: manifest_dump has a section per family
// (RocksDB's shape), each listing only its own tables; the file listings
// name each table's family; approxsize reads the family --column_family
// names; sst_dump shows the family a table belongs to.
TEST_F(LdbTest, FileCommandsShowEachFamilyApart) {
  {
    Options options;
    options.create_if_missing = true;
    auto db = DB::Open(options, db_);
    ASSERT_TRUE(db.ok()) << db.status();
    auto users = (*db)->CreateColumnFamily(ColumnFamilyOptions(), "users");
    ASSERT_TRUE(users.ok()) << users.status();
    for (int i = 0; i < 100; ++i) {
      ASSERT_TRUE((*db)->Put(WriteOptions(), Key(i), Value(i)).ok());
    }
    for (int i = 0; i < 300; ++i) {
      ASSERT_TRUE(
          (*db)
              ->Put(WriteOptions(), users->get(), "u" + Key(i), Value(i))
              .ok());
    }
    ASSERT_TRUE((*db)->Flush().ok());
  }
  const std::vector<std::string> tables = Files(".sst");
  ASSERT_EQ(tables.size(), 2u);

  CommandResult r = LdbDb("manifest_dump");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t default_at =
      r.out.find("--------------- Column family \"default\"  (ID 0) ");
  const size_t users_at =
      r.out.find("--------------- Column family \"users\"  (ID 1) ");
  ASSERT_NE(default_at, std::string::npos) << r.out;
  ASSERT_NE(users_at, std::string::npos) << r.out;
  ASSERT_LT(default_at, users_at);
  const std::string default_part =
      r.out.substr(default_at, users_at - default_at);
  const std::string users_part = r.out.substr(users_at);
  EXPECT_NE(default_part.find("'key000099' seq:"), std::string::npos) << r.out;
  EXPECT_EQ(default_part.find("'ukey"), std::string::npos) << r.out;
  EXPECT_NE(users_part.find("'ukey000299' seq:"), std::string::npos) << r.out;
  EXPECT_EQ(users_part.find("'key0"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(next_file_number \d+ last_sequence 400 )"
                        R"(max_column_family 1\n$)")))
      << r.out;

  r = LdbDb("list_live_files_metadata --sort_by_filename");
  EXPECT_EQ(CountOf(r.out, ", column family 'default'\n"), 1) << r.out;
  EXPECT_EQ(CountOf(r.out, ", column family 'users'\n"), 1) << r.out;
  r = LdbDb("list_live_files_metadata");
  EXPECT_NE(r.out.find("===== Column Family: users =====\n"), std::string::npos)
      << r.out;

  const CommandResult all_default = LdbDb("approxsize");
  const CommandResult all_users = LdbDb("--column_family=users approxsize");
  ASSERT_EQ(all_users.exit_code, 0) << all_users.err;
  // Three times the entries: the users table is the larger.
  EXPECT_GT(std::stoull(all_users.out), std::stoull(all_default.out));
  EXPECT_EQ(LdbDb("--column_family=users approxsize --from=x").out, "0\n");
  r = LdbDb("--column_family=nope approxsize");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Column family nope does not exist"), std::string::npos)
      << r.err;

  std::map<std::string, int> families;
  for (const std::string& t : tables) {
    const CommandResult dump =
        test::RunCommand(absl::StrCat(test::ToolPath("sst_dump"), " --file=", t,
                                      " --show_properties"),
                         scratch_);
    ASSERT_EQ(dump.exit_code, 0) << dump.err;
    const bool users =
        dump.out.find("  column family ID: 1\n") != std::string::npos;
    EXPECT_NE(dump.out.find(users ? "  column family name: users\n"
                                  : "  column family name: default\n"),
              std::string::npos)
        << dump.out;
    ++families[users ? "users" : "default"];
  }
  EXPECT_EQ(families["users"], 1);
  EXPECT_EQ(families["default"], 1);
}

TEST_F(LdbTest, DumpWalPrintsOneLinePerBatch) {
  {
    Options options;
    options.create_if_missing = true;
    auto db = DB::Open(options, db_);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE((*db)->Put(WriteOptions(), "a", "1").ok());
    WriteBatch batch;
    batch.Put("b", "2");
    batch.Delete("c");
    ASSERT_TRUE((*db)->Write(WriteOptions(), &batch).ok());
  }
  const std::string log = Files(".log").at(0);
  // Batch sizes (db/FORMAT.md): a 12-byte header, then a put of "a" => "1"
  // is 5 bytes and a delete of "c" 3; the second record follows the first
  // one's 7-byte fragment header and 17 bytes.
  CommandResult r = Ldb("dump_wal --walfile=" + log + " --header");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "Sequence,Count,ByteSize,Physical Offset,Key(s)\n"
            "1,1,17,0,PUT(0) : 0x61 \n"
            "2,2,20,24,PUT(0) : 0x62 DELETE(0) : 0x63 \n");
  r = Ldb("dump_wal --walfile=" + log + " --print_value");
  EXPECT_EQ(r.out,
            "1,1,17,0,PUT(0) : 0x61 : 0x31 \n"
            "2,2,20,24,PUT(0) : 0x62 : 0x32 DELETE(0) : 0x63 \n");
  // A torn tail (a crash mid-write) is reported on stderr, not a failure.
  std::filesystem::resize_file(log, std::filesystem::file_size(log) - 3);
  r = Ldb("dump_wal --walfile=" + log);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1,1,17,0,PUT(0) : 0x61 \n");
  EXPECT_NE(r.err.find("offset 24"), std::string::npos) << r.err;
}

TEST_F(LdbTest, ApproxsizeFollowsTheKeyRange) {
  Fill(2000);
  ASSERT_EQ(LdbDb("compact").exit_code, 0);
  uint64_t total = 0;
  for (const std::string& f : Files(".sst")) {
    total += std::filesystem::file_size(f);
  }
  auto size = [this](const std::string& args) {
    CommandResult r = LdbDb("approxsize " + args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return std::stoull(r.out);
  };
  EXPECT_EQ(size(""), total);
  const uint64_t half = size("--from=key000000 --to=key001000");
  EXPECT_GT(half, total * 3 / 10);
  EXPECT_LT(half, total * 7 / 10);
  EXPECT_EQ(size("--from=zzz"), 0u);
  EXPECT_EQ(size("--to=a"), 0u);
  EXPECT_EQ(size("--key_hex --from=0x6B6579303031303030"),  // key001000
            total - half);
}

TEST_F(LdbTest, CheckconsistencyFindsAMissingOrDamagedTable) {
  Fill();
  const std::string table = Files(".sst").at(0);
  std::string bytes = test::SnapshotDir(db_)[table.substr(db_.size() + 1)];
  bytes[10] ^= 0x20;
  {
    std::ofstream out(table, std::ios::binary | std::ios::trunc);
    out << bytes;
  }
  CommandResult r = LdbDb("checkconsistency");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("Failed: Corruption: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(table), std::string::npos) << r.err;
  std::filesystem::remove(table);
  r = LdbDb("checkconsistency");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(table), std::string::npos) << r.err;
}

TEST_F(LdbTest, RepairRebuildsALostManifest) {
  Fill();  // half in a table, half only in the WAL
  for (const std::string& f : Files("")) {
    const std::string name = std::filesystem::path(f).filename();
    if (name == "CURRENT" || name.starts_with("MANIFEST-")) {
      std::filesystem::remove(f);
    }
  }
  CommandResult r = LdbDb("get " + Key(0));
  EXPECT_EQ(r.exit_code, 1) << "opened without a MANIFEST: " << r.out;

  r = LdbDb("repair");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "OK\n");
  EXPECT_NE(r.err.find("tables kept: "), std::string::npos) << r.err;
  r = LdbDb("dump --count_only");
  EXPECT_EQ(r.out, "Keys in range: 300\n") << r.err;
  EXPECT_EQ(LdbDb("get " + Key(299)).out, Value(299) + "\n");

  // Not a database: one line, exit 1, nothing created.
  const std::string empty = scratch_ + "/empty";
  std::filesystem::create_directories(empty);
  r = Ldb("--db=" + empty + " repair");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("Failed: Repair failed: ", 0), 0u) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(empty));
}

TEST_F(LdbTest, RepairRefusesADatabaseOfAnotherComparator) {
  // ldb opens with the bytewise comparator only: a repair under it would
  // read a user comparator's tables as damaged.
  Options options;
  options.create_if_missing = true;
  options.comparator = test::ReverseBytewiseComparator();
  {
    auto db = DB::Open(options, db_);
    ASSERT_TRUE(db.ok()) << db.status();
    for (int i = 0; i < 1001; ++i) {
      ASSERT_TRUE((*db)->Put(WriteOptions(), Key(i), Value(i)).ok());
      if (i == 999) {
        ASSERT_TRUE((*db)->Flush().ok());
      }
    }
  }
  const test::DirSnapshot before = test::SnapshotDir(db_);
  CommandResult r = LdbDb("repair");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("Failed: Repair failed: Invalid argument: ", 0), 0u)
      << r.err;
  EXPECT_NE(r.err.find("'sift.test.Reverse'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'sift.BytewiseComparator'"), std::string::npos)
      << r.err;
  EXPECT_EQ(CountOf(r.err, "\n"), 1) << r.err;
  EXPECT_EQ(test::DescribeDirChanges(before, test::SnapshotDir(db_)), "");

  options.create_if_missing = false;
  auto db = DB::Open(options, db_);
  ASSERT_TRUE(db.ok()) << db.status();
  std::unique_ptr<Iterator> it = (*db)->NewIterator(ReadOptions());
  int n = 0;
  std::string last;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
    if (n > 0) {
      EXPECT_GT(last, std::string(it->key()));  // reverse order
    }
    last = std::string(it->key());
  }
  EXPECT_TRUE(it->status().ok()) << it->status();
  EXPECT_EQ(n, 1001);
}

TEST_F(LdbTest, CheckpointMakesADatabaseThatOpens) {
  Fill();  // half in a table, half only in the WAL
  const std::string ckpt = scratch_ + "/ckpt";
  CommandResult r = LdbDb("checkpoint --checkpoint_dir=" + ckpt);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "OK\n");
  r = Ldb("--db=" + ckpt + " dump --count_only");
  EXPECT_EQ(r.out, "Keys in range: 300\n") << r.err;

  // The target exists now: refused, one line.
  r = LdbDb("checkpoint --checkpoint_dir=" + ckpt);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("Failed: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(ckpt), std::string::npos) << r.err;
  EXPECT_EQ(LdbDb("checkpoint").exit_code, 1);
}

TEST_F(LdbTest, IngestExternSstAddsAnSstFileWriterFile) {
  Fill();
  const std::string sst = scratch_ + "/in.sst";
  {
    SstFileWriter w{Options()};
    ASSERT_TRUE(w.Open(sst).ok());
    ASSERT_TRUE(w.Put(Key(5), "ingested").ok());
    ASSERT_TRUE(w.Put(Key(1000), "new").ok());
    ASSERT_TRUE(w.Finish().ok());
  }
  CommandResult r = LdbDb("ingest_extern_sst " + sst + " --move_files");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "external SST files ingested\n");
  EXPECT_FALSE(std::filesystem::exists(sst));  // moved
  EXPECT_EQ(LdbDb("get " + Key(5)).out, "ingested\n");
  EXPECT_EQ(LdbDb("get " + Key(1000)).out, "new\n");
  EXPECT_EQ(LdbDb("get " + Key(6)).out, Value(6) + "\n");

  r = LdbDb("ingest_extern_sst " + scratch_ + "/missing.sst");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("Failed: failed to ingest external SST: ", 0), 0u)
      << r.err;
  EXPECT_EQ(LdbDb("ingest_extern_sst").exit_code, 1);
}

TEST_F(LdbTest, RebuildFiltersWritesFilterFilesForTheGivenOptions) {
  Fill();
  ASSERT_EQ(Files(".filter").size(), 0u);
  CommandResult r = LdbDb("rebuild_filters --bloom_filter_fp_chance=0.001");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("OK: ", 0), 0u) << r.out;
  EXPECT_EQ(CountOf(r.out, " 0 filters rebuilt"), 0) << r.out;
  const size_t filter_files = Files(".filter").size();
  EXPECT_GE(filter_files, 1u);
  EXPECT_EQ(LdbDb("get " + Key(299)).out, Value(299) + "\n");
  // Current now: nothing more to write.
  r = LdbDb("rebuild_filters --bloom_filter_fp_chance=0.001");
  EXPECT_EQ(r.out, "OK: 0 filters rebuilt, 0 bytes written\n") << r.err;
  EXPECT_EQ(Files(".filter").size(), filter_files);

  r = LdbDb("rebuild_filters --filter_layout=bogus");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--filter_layout=bogus"), std::string::npos) << r.err;
  r = LdbDb("rebuild_filters --filter_bits_per_key_budget=-2");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("-2"), std::string::npos) << r.err;
  // Too large for an int, or not whole: refused as given, never wrapped.
  for (const char* level : {"99999999999", "1.5", "-99999999999"}) {
    r = LdbDb(absl::StrCat("rebuild_filters --bloom_before_level=", level));
    EXPECT_EQ(r.exit_code, 1) << level;
    EXPECT_NE(r.err.find(absl::StrCat("--bloom_before_level=", level)),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("-2147483648"), std::string::npos) << r.err;
  }
  EXPECT_EQ(Files(".filter").size(), filter_files);
}

}  // namespace
}  // namespace sift
