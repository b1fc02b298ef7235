// File facts in the MANIFEST (db/FORMAT.md, "File facts"): the worked
// example byte for byte, round trips and malformed facts; a database
// written in format 1 (tests/data/format1_db, made by
// tests/data/make_format1_db.cc with the last format-1 build) opens, reads
// back, and gets its facts filled and recorded; and compaction decisions
// and sift.levels come from the facts, not from whichever tables happen to
// be open.

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "db/file_meta.h"
#include "db/filter_allocation.h"
#include "db/log_reader.h"
#include "db/version_edit.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "table/internal_key.h"
#include "tests/testutil/db_files.h"
#include "tests/testutil/mem_db_test.h"
#include "tests/testutil/testutil.h"
#include "util/coding.h"

namespace sift {
namespace {

using test::Hex;

std::string Ikey(std::string_view user_key, SequenceNumber seq,
                 ValueType type) {
  std::string k;
  AppendInternalKey(&k, user_key, seq, type);
  return k;
}

// The file of db/FORMAT.md's worked example.
std::shared_ptr<FileMetaData> ExampleFile() {
  auto f = std::make_shared<FileMetaData>();
  f->number = 7;
  f->file_size = 1000;
  f->smallest = Ikey("a", 1, kTypeValue);
  f->largest = Ikey("b", 2, kTypeDeletion);
  FileFacts& x = f->facts.emplace();
  x.num_entries = 2;
  x.num_deletions = 1;
  x.smallest_seq = 1;
  x.largest_seq = 2;
  x.filter = FilterFacts{FilterLayout::kBlocked, 0.01, 12.0, 2};
  x.replacement = ReplacementFilter{
      9, 128, FilterFacts{FilterLayout::kStandard, 0.001, 14.5, 2}};
  return f;
}

// If this test fails, the MANIFEST format changed: fix the code, not the
// bytes (they are db/FORMAT.md's worked example).
TEST(FileFactsTest, WorkedExample) {
  VersionEdit edit;
  edit.AddFile(1, ExampleFile());
  std::string bytes;
  edit.EncodeTo(&bytes);
  EXPECT_EQ(Hex(bytes),
            "09 01 07 e8 07 "
            "09 61 01 01 00 00 00 00 00 00 "
            "09 62 00 02 00 00 00 00 00 00 "
            "2c 02 01 01 02 01 7b 14 ae 47 e1 7a 84 3f "
            "00 00 00 00 00 00 28 40 02 01 09 80 01 00 "
            "fc a9 f1 d2 4d 62 50 3f 00 00 00 00 00 00 2d 40 02");
  VersionEdit decoded;
  ASSERT_TRUE(decoded.DecodeFrom(bytes).ok());
  ASSERT_EQ(decoded.new_files_.size(), 1u);
  EXPECT_EQ(decoded.new_files_[0].first, 1);
  const FileMetaData& f = *decoded.new_files_[0].second;
  EXPECT_EQ(f.number, 7u);
  EXPECT_EQ(f.file_size, 1000u);
  EXPECT_EQ(f.smallest, ExampleFile()->smallest);
  EXPECT_EQ(f.largest, ExampleFile()->largest);
  EXPECT_EQ(f.facts, ExampleFile()->facts);
}

TEST(FileFactsTest, FormatOneRecordsHaveNoFacts) {
  auto f = ExampleFile();
  f->facts.reset();
  VersionEdit edit;
  edit.AddFile(2, f);
  std::string bytes;
  edit.EncodeTo(&bytes);
  EXPECT_EQ(bytes[0], 7);  // tag 7, as format 1 wrote it
  VersionEdit decoded;
  ASSERT_TRUE(decoded.DecodeFrom(bytes).ok());
  EXPECT_FALSE(decoded.new_files_[0].second->facts.has_value());
}

// Facts bytes of the example with `edit` applied, as a whole tag-9 record.
std::string RecordWithFacts(const std::function<void(std::string*)>& edit) {
  std::string facts;
  EncodeFileFacts(*ExampleFile()->facts, &facts);
  edit(&facts);
  std::string rec;
  PutVarint32(&rec, 9);
  PutVarint32(&rec, 1);
  PutVarint64(&rec, 7);
  PutVarint64(&rec, 1000);
  PutLengthPrefixed(&rec, ExampleFile()->smallest);
  PutLengthPrefixed(&rec, ExampleFile()->largest);
  PutLengthPrefixed(&rec, facts);
  return rec;
}

TEST(FileFactsTest, MalformedFactsAreDataLoss) {
  // Offsets into the example's facts: 0 entries, 1 deletions, 2 and 3 the
  // sequences, 5..12 the fp chance, 22 the replacement count.
  const std::vector<std::pair<std::string, std::function<void(std::string*)>>>
      cases = {
          {"truncated", [](std::string* s) { s->resize(s->size() - 1); }},
          {"no replacement count", [](std::string* s) { s->resize(22); }},
          {"more deletions than entries", [](std::string* s) { (*s)[1] = 3; }},
          {"sequences reversed", [](std::string* s) { (*s)[2] = 5; }},
          {"fp chance 0",
           [](std::string* s) { s->replace(5, 8, std::string(8, '\0')); }},
          {"fp chance NaN",
           [](std::string* s) {
             s->replace(5, 8, "\x00\x00\x00\x00\x00\x00\xf8\x7f", 8);
           }},
          {"fp chance 2",
           [](std::string* s) {
             s->replace(5, 8, "\x00\x00\x00\x00\x00\x00\x00\x40", 8);
           }},
          {"two replacements", [](std::string* s) { (*s)[22] = 2; }},
          // Format 3: a global sequence must be the whole sequence range
          // (the example's is 1..2).
          {"global sequence outside the range",
           [](std::string* s) { s->push_back(1); }},
          {"global sequence 0", [](std::string* s) { s->push_back(0); }},
          // Format 4: a global sequence of 0 only makes room for a nonzero
          // range tombstone count.
          {"global sequence 0, count 0",
           [](std::string* s) { s->append(2, '\0'); }},
      };
  for (const auto& [name, edit] : cases) {
    VersionEdit decoded;
    const absl::Status s = decoded.DecodeFrom(RecordWithFacts(edit));
    EXPECT_TRUE(absl::IsDataLoss(s)) << name << ": " << s;
  }
  // Bytes after the known fields belong to a later format: skipped. Since
  // format 4 the last known field is the range tombstone count.
  auto ingested = ExampleFile();
  ingested->facts->smallest_seq = ingested->facts->largest_seq = 5;
  ingested->facts->global_sequence = 5;
  ingested->facts->num_range_deletions = 3;
  VersionEdit edit;
  edit.AddFile(1, ingested);
  std::string bytes;
  edit.EncodeTo(&bytes);
  const size_t facts_length_at = bytes.size() - 47;  // 46 bytes of facts
  ASSERT_EQ(bytes[facts_length_at], 46);
  bytes[facts_length_at] = 48;
  bytes += "zz";
  VersionEdit decoded;
  ASSERT_TRUE(decoded.DecodeFrom(bytes).ok());
  EXPECT_EQ(decoded.new_files_[0].second->facts, ingested->facts);
}

// FilterIsCurrent against what the options call for at `level` without a
// filter budget (so for any tree), as compaction and CompactRange ask it.
bool Current(const FileFacts& facts, const Options& options, int level) {
  return FilterIsCurrent(facts, TargetFilter(options, TreeKeys(), level,
                                             facts.read_filter().num_keys));
}

TEST(FileFactsTest, FilterIsCurrent) {
  Options o;
  o.bloom_filter_fp_chance = 0.01;
  o.filter_layout = FilterLayout::kBlocked;
  FileFacts x;
  x.filter = FilterFacts{FilterLayout::kBlocked, 0.01, 10, 5};
  EXPECT_TRUE(Current(x, o, 1));
  x.filter.layout = FilterLayout::kStandard;
  EXPECT_FALSE(Current(x, o, 1));
  x.filter.layout = FilterLayout::kBlocked;
  x.filter.fp_chance = 0.02;
  EXPECT_FALSE(Current(x, o, 1));
  // A replacement filter is the one that counts.
  x.replacement = ReplacementFilter{20, 64, FilterFacts{}};
  x.replacement->filter = FilterFacts{FilterLayout::kBlocked, 0.01, 10, 5};
  EXPECT_TRUE(Current(x, o, 1));
  x.replacement.reset();
  // No filter wanted: current only without one.
  o.bloom_filter_fp_chance = 1.0;
  EXPECT_FALSE(Current(x, o, 1));
  x.filter.fp_chance = 1.0;
  EXPECT_TRUE(Current(x, o, 1));
  o.bloom_filter_fp_chance = 0.01;
  EXPECT_FALSE(Current(x, o, 1));
  // With kRibbon, levels below bloom_before_level call for blocked Bloom.
  o.filter_layout = FilterLayout::kRibbon;
  o.bloom_before_level = 2;
  x.filter = FilterFacts{FilterLayout::kBlocked, 0.01, 10, 5};
  EXPECT_TRUE(Current(x, o, 0));
  EXPECT_TRUE(Current(x, o, 1));
  EXPECT_FALSE(Current(x, o, 2));
  x.filter.layout = FilterLayout::kRibbon;
  EXPECT_FALSE(Current(x, o, 1));
  EXPECT_TRUE(Current(x, o, 2));
}

// ---- a format-1 database ------------------------------------------------

std::string Key(int i) { return absl::StrFormat("key%03d", i); }

// What tests/data/make_format1_db.cc left in the database.
std::map<std::string, std::string> Format1Contents() {
  std::map<std::string, std::string> m;
  for (int i = 0; i < 300; ++i) {
    if (i % 11 == 0) {
      m[Key(i)] = "c" + Key(i);
    } else if (i % 5 == 0) {
      m[Key(i)] = "b" + Key(i);
    } else if (i % 7 != 0) {
      m[Key(i)] = "a" + Key(i);
    }
  }
  for (int i = 300; i < 340; ++i) m[Key(i)] = "b" + Key(i);
  for (int i = 340; i < 350; ++i) m[Key(i)] = "d" + Key(i);
  return m;
}

// The live files (number -> level and record) and the format version a
// MANIFEST describes, from its edits.
struct ManifestState {
  std::optional<uint32_t> format_version;
  SequenceNumber last_sequence = 0;
  std::map<uint64_t, std::pair<int, std::shared_ptr<FileMetaData>>> files;
};

ManifestState ReadManifest(Env* env, const std::string& dir) {
  ManifestState st;
  std::string current;
  EXPECT_TRUE(ReadFileToString(env, dir + "/CURRENT", &current).ok());
  if (!current.empty()) current.pop_back();
  std::string contents;
  EXPECT_TRUE(ReadFileToString(env, dir + "/" + current, &contents).ok());
  log::Reader reader(contents, current);
  std::string_view record;
  std::string scratch;
  while (reader.ReadRecord(&record, &scratch)) {
    VersionEdit edit;
    EXPECT_TRUE(edit.DecodeFrom(record).ok());
    if (edit.format_version_) st.format_version = edit.format_version_;
    if (edit.last_sequence_) st.last_sequence = *edit.last_sequence_;
    for (const auto& [level, number] : edit.deleted_files_) {
      st.files.erase(number);
    }
    for (const auto& [level, f] : edit.new_files_) {
      st.files[f->number] = {level, f};
    }
  }
  EXPECT_TRUE(reader.status().ok());
  return st;
}

class Format1DbTest : public test::MemDBTest {
 protected:
  Format1DbTest() {
    options_.create_if_missing = false;
    // No compaction while the test looks at the files.
    options_.level0_compaction_trigger = 20;
    // Copy the checked-in database into the in-memory Env (Open writes).
    const std::string src = std::string(SIFT_TEST_DATA_DIR) + "/format1_db";
    Env* disk = Env::Default();
    EXPECT_TRUE(env_->CreateDir(path_).ok());
    auto children = disk->GetChildren(src);
    EXPECT_TRUE(children.ok()) << children.status();
    if (!children.ok()) return;
    for (const std::string& name : *children) {
      if (name == "." || name == "..") continue;
      std::string bytes;
      EXPECT_TRUE(ReadFileToString(disk, src + "/" + name, &bytes).ok());
      EXPECT_TRUE(
          WriteStringToFile(env_.get(), bytes, path_ + "/" + name, false).ok());
    }
  }

  void CheckContents() {
    const auto want = Format1Contents();
    std::string v;
    for (int i = 0; i < 360; ++i) {
      auto it = want.find(Key(i));
      const absl::Status s = db_->Get(ReadOptions(), Key(i), &v);
      if (it == want.end()) {
        EXPECT_TRUE(absl::IsNotFound(s)) << Key(i) << " " << s;
      } else {
        ASSERT_TRUE(s.ok()) << Key(i) << " " << s;
        EXPECT_EQ(v, it->second) << Key(i);
      }
    }
    std::map<std::string, std::string> scanned;
    std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions());
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      scanned[std::string(it->key())] = std::string(it->value());
    }
    EXPECT_TRUE(it->status().ok());
    EXPECT_EQ(scanned, want);
  }

  // Every live file is recorded with facts that match its table's
  // properties (sequences: the bound recorded at the upgrade).
  void CheckFactsRecorded(SequenceNumber upgrade_sequence) {
    const ManifestState st = ReadManifest(env_.get(), path_);
    EXPECT_EQ(st.format_version, kDbFormatVersionOneFamily);
    EXPECT_EQ(st.files.size(), test::ListTableFiles(env_.get(), path_).size());
    for (const auto& [number, entry] : st.files) {
      const FileMetaData& f = *entry.second;
      ASSERT_TRUE(f.facts.has_value()) << number;
      auto p = test::ReadTableProperties(
          env_.get(), absl::StrFormat("%s/%06d.sst", path_, number));
      ASSERT_TRUE(p.ok()) << p.status();
      EXPECT_EQ(f.facts->num_entries, p->num_entries) << number;
      EXPECT_EQ(f.facts->num_deletions, p->num_deletions) << number;
      EXPECT_EQ(f.facts->filter.fp_chance, p->bloom_filter_fp_chance);
      EXPECT_EQ(f.facts->filter.layout, p->filter_layout) << number;
      EXPECT_EQ(f.facts->filter.bits_per_key, p->filter_bits_per_key);
      EXPECT_EQ(f.facts->filter.num_keys, p->filter_num_keys) << number;
      EXPECT_FALSE(f.facts->replacement.has_value());
      EXPECT_LE(f.facts->smallest_seq, f.facts->largest_seq);
      if (number < upgrade_first_new_file_) {
        EXPECT_EQ(f.facts->smallest_seq, 0u) << number;
        EXPECT_EQ(f.facts->largest_seq, upgrade_sequence) << number;
      }
    }
  }

  uint64_t upgrade_first_new_file_ = 0;
};

TEST_F(Format1DbTest, OpensReadsBackAndRecordsFacts) {
  // The fixture is format 1: no format 2 record, no file with facts, and
  // files built with three filter settings (0.01 blocked, none, 0.05
  // standard).
  const ManifestState before = ReadManifest(env_.get(), path_);
  ASSERT_EQ(before.format_version, 1u);
  ASSERT_GE(before.files.size(), 3u);
  std::set<double> fps;
  for (const auto& [number, entry] : before.files) {
    EXPECT_FALSE(entry.second->facts.has_value()) << number;
    auto p = test::ReadTableProperties(
        env_.get(), absl::StrFormat("%s/%06d.sst", path_, number));
    ASSERT_TRUE(p.ok()) << p.status();
    fps.insert(p->bloom_filter_fp_chance);
    upgrade_first_new_file_ = std::max(upgrade_first_new_file_, number + 1);
  }
  EXPECT_EQ(fps, (std::set<double>{0.01, 0.05, 1.0}));

  Open();
  ASSERT_NO_FATAL_FAILURE(CheckContents());
  // sift.levels shows the fp chances from the filled facts.
  const std::string levels = *db_->GetProperty("sift.levels");
  for (const char* fp : {"0.01", "0.05", "1"}) {
    EXPECT_NE(levels.find(fp), std::string::npos) << fp << "\n" << levels;
  }
  db_.reset();
  // Open wrote a new MANIFEST: its snapshot records every file's facts.
  const SequenceNumber upgraded_at = before.last_sequence;
  ASSERT_NO_FATAL_FAILURE(CheckFactsRecorded(upgraded_at));

  // Reopened from the new MANIFEST, nothing is lost or refilled.
  const ManifestState first = ReadManifest(env_.get(), path_);
  Open();
  ASSERT_NO_FATAL_FAILURE(CheckContents());
  db_.reset();
  const ManifestState second = ReadManifest(env_.get(), path_);
  ASSERT_EQ(first.files.size(), second.files.size());
  for (const auto& [number, entry] : first.files) {
    auto it = second.files.find(number);
    ASSERT_NE(it, second.files.end()) << number;
    EXPECT_EQ(it->second.first, entry.first) << number;
    EXPECT_EQ(it->second.second->facts, entry.second->facts) << number;
  }
}

// ---- decisions from facts, whatever is open ------------------------------

class FactsDecideTest : public test::MemDBTest {
 protected:
  FactsDecideTest() {
    options_.max_open_files = 10;  // 5 pinned tables, 5 in the LRU
    options_.write_buffer_size = 64 << 10;
    options_.max_file_size = 1 << 10;
    options_.block_size = 256;  // outputs are cut at block boundaries
    options_.compression = Compression::kNone;
    options_.level0_compaction_trigger = 100;
    options_.level0_slowdown_writes_trigger = 100;
    options_.level0_stop_writes_trigger = 100;
  }

  // Keys [from, to) in a scattered order, so that flushes overlap.
  void Fill(int from, int to) {
    const int n = to - from;
    for (int i = 0; i < n; ++i) {
      const int k = from + static_cast<int>((int64_t{i} * 7919) % n);
      ASSERT_TRUE(db_->Put(WriteOptions(), absl::StrFormat("k%06d", k),
                           std::string(40, 'v'))
                      .ok());
    }
  }

  // Per level, the fp chances of its files' tables ("-" when empty), in
  // the format of sift.levels' FpChance column.
  std::vector<std::string> FpChancesOnDisk() {
    std::map<int, std::set<double>> by_level;
    std::istringstream in(*db_->GetProperty("sift.sstables"));
    std::string line;
    int level = -1;
    while (std::getline(in, line)) {
      if (std::sscanf(line.c_str(), "--- level %d ---", &level) == 1) continue;
      unsigned long long number;
      if (std::sscanf(line.c_str(), " %llu:", &number) != 1) continue;
      auto p = test::ReadTableProperties(
          env_.get(), absl::StrFormat("%s/%06d.sst", path_, number));
      EXPECT_TRUE(p.ok()) << p.status();
      if (p.ok()) by_level[level].insert(p->bloom_filter_fp_chance);
    }
    std::vector<std::string> out;
    for (int l = 0; l < 7; ++l) {
      std::string s;
      for (double fp : by_level[l]) {
        absl::StrAppendFormat(&s, "%s%g", s.empty() ? "" : ",", fp);
      }
      out.push_back(s.empty() ? "-" : s);
    }
    return out;
  }

  // sift.levels' FpChance column, per level.
  std::vector<std::string> FpChancesShown() {
    std::istringstream in(*db_->GetProperty("sift.levels"));
    std::string line;
    std::vector<std::string> out;
    std::getline(in, line);
    std::getline(in, line);
    while (std::getline(in, line)) {
      int level, files;
      double size, target;
      char fp[64];
      EXPECT_EQ(std::sscanf(line.c_str(), "%d %d %lf %lf %63s", &level, &files,
                            &size, &target, fp),
                5)
          << line;
      out.push_back(fp);
    }
    return out;
  }
};

TEST_F(FactsDecideTest, CompactRangeRewritesNoFileWhoseFilterIsCurrent) {
  Open();
  ASSERT_NO_FATAL_FAILURE(Fill(0, 6000));
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  const std::vector<std::string> files =
      test::ListTableFiles(env_.get(), path_);
  ASSERT_GT(files.size(), 200u);

  // Reopened, only 5 tables are pinned; the others' facts still say their
  // filters are current, so nothing is rewritten.
  Open();
  ASSERT_TRUE(db_->CompactRange(std::nullopt, std::nullopt).ok());
  const Statistics stats = db_->GetStatistics();
  EXPECT_EQ(stats.Get(kCompactionBytesWritten), 0u);
  EXPECT_EQ(stats.Get(kCompactions), 0u);
  EXPECT_EQ(test::ListTableFiles(env_.get(), path_), files);

  // Files of a second fp chance, none of them pinned (recovery pinned the
  // first five files), show in sift.levels beside the first.
  options_.bloom_filter_fp_chance = 0.05;
  Open();
  ASSERT_NO_FATAL_FAILURE(Fill(6000, 7000));
  ASSERT_TRUE(db_->Flush().ok());
  const std::vector<std::string> on_disk = FpChancesOnDisk();
  EXPECT_EQ(FpChancesShown(), on_disk);
  EXPECT_TRUE(std::any_of(on_disk.begin(), on_disk.end(), [](const auto& s) {
    return s.find("0.05") != std::string::npos;
  }));
}

}  // namespace
}  // namespace sift
