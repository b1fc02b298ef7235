// Column families on disk (db/FORMAT.md, "WAL payload: a WriteBatch" and
// "Column families"): the two worked examples byte for byte, their
// decoding, malformed family entries, Handlers that know nothing of
// families; the records a real MANIFEST gets (the add record, the snapshot
// of several families, the atomic group of a flush); and a database written
// by the last build before column families (tests/data/format4_db) opening,
// staying format 4 until a family is created, then taking one.

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "db/log_reader.h"
#include "db/version_edit.h"
#include "db/write_batch_internal.h"
#include "gtest/gtest.h"
#include "sift/column_family.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/iterator.h"
#include "sift/write_batch.h"
#include "tests/testutil/testutil.h"

namespace sift {
namespace {

using test::Hex;

// The worked examples of db/FORMAT.md ("Column families", "Worked
// example"). These strings MUST match the hex dumps there byte for byte:
// if a test comparing against them fails, the format changed -- fix the
// code, not the bytes.
//
// (a) A WriteBatch with sequence 7: Put("a", "1") in the default family,
// Put("k", "v") in family 2.
constexpr char kBatchExampleHex[] =
    "07 00 00 00 00 00 00 00 "  // sequence 7
    "02 00 00 00 "              // count 2
    "01 01 61 01 31 "           // kTypeValue, "a", "1"
    "03 02 01 6b 01 76";        // family Put, family 2, "k", "v"
// (b) The VersionEdit that adds family 2 named "logs", comparator
// sift.BytewiseComparator, max column family 2.
constexpr char kAddFamilyExampleHex[] =
    "01 17 73 69 66 74 2e 42 79 74 65 77 69 73 65 43 6f 6d 70 61 72 61 74 6f "
    "72 "                 // tag 1: comparator, 23 bytes
    "0a 02 "              // tag 10: column family 2
    "0b 04 6c 6f 67 73 "  // tag 11: add, "logs"
    "0d 02";              // tag 13: max column family 2
// Its length in bytes: "xx " per byte, less the last space, plus the NUL.
constexpr size_t kAddFamilyExampleBytes = sizeof(kAddFamilyExampleHex) / 3;

// A handle naming a family by ID alone: what WriteBatch encodes.
class FakeHandle final : public ColumnFamilyHandle {
 public:
  FakeHandle(std::string name, uint32_t id) : name_(std::move(name)), id_(id) {}
  const std::string& GetName() const override { return name_; }
  uint32_t GetID() const override { return id_; }

 private:
  std::string name_;
  uint32_t id_;
};

// Every entry a batch holds, as "<family>:<op>(<args>)".
class RecordingHandler final : public WriteBatch::Handler {
 public:
  void Put(std::string_view key, std::string_view value) override {
    Add(0, "Put", key, value);
  }
  void Delete(std::string_view key) override { Add(0, "Delete", key); }
  void DeleteRange(std::string_view begin, std::string_view end) override {
    Add(0, "DeleteRange", begin, end);
  }
  void PutCF(uint32_t family, std::string_view key,
             std::string_view value) override {
    Add(family, "PutCF", key, value);
  }
  void DeleteCF(uint32_t family, std::string_view key) override {
    Add(family, "DeleteCF", key);
  }
  void DeleteRangeCF(uint32_t family, std::string_view begin,
                     std::string_view end) override {
    Add(family, "DeleteRangeCF", begin, end);
  }
  std::vector<std::string> seen;

 private:
  void Add(uint32_t family, std::string_view op, std::string_view a,
           std::optional<std::string_view> b = std::nullopt) {
    std::string entry = absl::StrCat(family, ":");
    entry.append(op).append("(").append(a);
    if (b) entry.append(",").append(*b);
    seen.push_back(entry + ")");
  }
};

// A Handler written before column families: Put, Delete and DeleteRange.
class DefaultOnlyHandler final : public WriteBatch::Handler {
 public:
  void Put(std::string_view key, std::string_view value) override {
    seen.push_back("Put(" + std::string(key) + "," + std::string(value) + ")");
  }
  void Delete(std::string_view key) override {
    seen.push_back("Delete(" + std::string(key) + ")");
  }
  void DeleteRange(std::string_view begin, std::string_view end) override {
    seen.push_back("DeleteRange(" + std::string(begin) + "," +
                   std::string(end) + ")");
  }
  std::vector<std::string> seen;
};

WriteBatch ExampleBatch() {
  FakeHandle logs("logs", 2);
  WriteBatch batch;
  batch.Put("a", "1");
  batch.Put(&logs, "k", "v");
  WriteBatchInternal::SetSequence(&batch, 7);
  return batch;
}

VersionEdit ExampleAddFamily() {
  VersionEdit edit;
  edit.SetColumnFamily(2);
  edit.AddColumnFamily("logs");
  edit.SetComparatorName(BytewiseComparator()->Name());
  edit.SetMaxColumnFamily(2);
  return edit;
}

// A batch of the given raw bytes (header included).
WriteBatch BatchOf(std::string_view bytes) {
  WriteBatch batch;
  EXPECT_TRUE(WriteBatchInternal::SetContents(&batch, bytes).ok());
  return batch;
}

// ---- The worked examples ------------------------------------------------

TEST(ColumnFamilyFormatTest, WriteBatchWorkedExample) {
  const WriteBatch batch = ExampleBatch();
  ASSERT_TRUE(batch.status().ok()) << batch.status();
  EXPECT_EQ(Hex(WriteBatchInternal::Contents(&batch)), kBatchExampleHex);
  EXPECT_TRUE(WriteBatchInternal::NamesFamilies(&batch));

  // And back, through the bytes alone.
  const WriteBatch decoded = BatchOf(WriteBatchInternal::Contents(&batch));
  EXPECT_EQ(WriteBatchInternal::Sequence(&decoded), 7u);
  EXPECT_EQ(decoded.Count(), 2u);
  RecordingHandler handler;
  ASSERT_TRUE(decoded.Iterate(&handler).ok());
  EXPECT_EQ(handler.seen,
            (std::vector<std::string>{"0:Put(a,1)", "2:PutCF(k,v)"}));
}

TEST(ColumnFamilyFormatTest, AddFamilyEditWorkedExample) {
  std::string bytes;
  ExampleAddFamily().EncodeTo(&bytes);
  EXPECT_EQ(Hex(bytes), kAddFamilyExampleHex);

  VersionEdit decoded;
  ASSERT_TRUE(decoded.DecodeFrom(bytes).ok());
  EXPECT_EQ(decoded.column_family_, 2u);
  EXPECT_EQ(decoded.column_family_add_, std::optional<std::string>("logs"));
  EXPECT_EQ(decoded.comparator_,
            std::optional<std::string>("sift.BytewiseComparator"));
  EXPECT_EQ(decoded.max_column_family_, std::optional<uint32_t>(2));
  EXPECT_FALSE(decoded.column_family_drop_);
  EXPECT_FALSE(decoded.atomic_group_.has_value());
  EXPECT_FALSE(decoded.format_version_.has_value());
  EXPECT_FALSE(decoded.log_number_.has_value());
  EXPECT_FALSE(decoded.next_file_number_.has_value());
  EXPECT_FALSE(decoded.last_sequence_.has_value());
  EXPECT_TRUE(decoded.new_files_.empty());
  EXPECT_TRUE(decoded.deleted_files_.empty());
  // Decoding then encoding gives the same bytes.
  std::string again;
  decoded.EncodeTo(&again);
  EXPECT_EQ(Hex(again), kAddFamilyExampleHex);
}

// ---- The other tags -----------------------------------------------------

TEST(ColumnFamilyFormatTest, EveryFamilyTagRoundTrips) {
  FakeHandle two("two", 2);
  FakeHandle big("big", 300);  // a two-byte varint ID
  WriteBatch batch;
  batch.Put("p", "0");
  batch.Delete(&two, "d");
  batch.DeleteRange(&big, "b", "e");
  batch.Delete("q");
  batch.DeleteRange("r", "s");
  batch.Put(&big, "x", "y");
  ASSERT_TRUE(batch.status().ok()) << batch.status();
  const std::string_view rep = WriteBatchInternal::Contents(&batch);
  // The entries after the header: tags 1, 4, 5, 0, 2, 3.
  EXPECT_EQ(Hex(rep.substr(WriteBatchInternal::kHeaderSize)),
            "01 01 70 01 30 "
            "04 02 01 64 "
            "05 ac 02 01 62 01 65 "
            "00 01 71 "
            "02 01 72 01 73 "
            "03 ac 02 01 78 01 79");
  RecordingHandler handler;
  ASSERT_TRUE(BatchOf(rep).Iterate(&handler).ok());
  EXPECT_EQ(handler.seen,
            (std::vector<std::string>{"0:Put(p,0)", "2:DeleteCF(d)",
                                      "300:DeleteRangeCF(b,e)", "0:Delete(q)",
                                      "0:DeleteRange(r,s)", "300:PutCF(x,y)"}));
}

TEST(ColumnFamilyFormatTest, DefaultFamilyBatchHasTheSingleFamilyBytes) {
  // A handle on family 0 encodes like no handle: tags 0/1/2, no ID, so a
  // default-only batch is what a build before column families wrote.
  FakeHandle def(kDefaultColumnFamilyName, 0);
  WriteBatch with_handle, without;
  with_handle.Put(&def, "a", "1");
  with_handle.Delete(&def, "b");
  with_handle.DeleteRange(&def, "c", "d");
  without.Put("a", "1");
  without.Delete("b");
  without.DeleteRange("c", "d");
  EXPECT_EQ(Hex(WriteBatchInternal::Contents(&with_handle)),
            Hex(WriteBatchInternal::Contents(&without)));
  EXPECT_FALSE(WriteBatchInternal::NamesFamilies(&with_handle));
}

TEST(ColumnFamilyFormatTest, DropAndAtomicGroupTagsRoundTrip) {
  VersionEdit drop;
  drop.SetColumnFamily(2);
  drop.DropColumnFamily();
  std::string bytes;
  drop.EncodeTo(&bytes);
  EXPECT_EQ(Hex(bytes), "0a 02 0c");  // tag 10 family 2, tag 12 (no payload)
  VersionEdit decoded;
  ASSERT_TRUE(decoded.DecodeFrom(bytes).ok());
  EXPECT_EQ(decoded.column_family_, 2u);
  EXPECT_TRUE(decoded.column_family_drop_);
  EXPECT_FALSE(decoded.column_family_add_.has_value());

  for (uint32_t remaining : {0u, 1u, 5u}) {
    VersionEdit member;
    member.SetColumnFamily(1);
    member.SetAtomicGroup(remaining);
    bytes.clear();
    member.EncodeTo(&bytes);
    EXPECT_EQ(Hex(bytes), absl::StrFormat("0a 01 0e %02x", remaining));
    ASSERT_TRUE(decoded.DecodeFrom(bytes).ok());
    EXPECT_EQ(decoded.atomic_group_, std::optional<uint32_t>(remaining));
  }
}

TEST(ColumnFamilyFormatTest, MalformedFamilyRecordsAreDataLoss) {
  VersionEdit edit;
  // Tag 10 naming family 0 ("default" is never named), tag 11 with an
  // empty name, and tags cut short.
  for (const std::string_view bytes :
       {std::string_view("\x0a\x00", 2), std::string_view("\x0b\x00", 2),
        std::string_view("\x0a", 1), std::string_view("\x0b\x04lo", 4),
        std::string_view("\x0d", 1), std::string_view("\x0e\x80", 2)}) {
    const absl::Status s = edit.DecodeFrom(bytes);
    EXPECT_TRUE(absl::IsDataLoss(s)) << Hex(bytes) << ": " << s;
  }
}

// ---- Malformed batches, and Handlers of the default family only ---------

TEST(ColumnFamilyFormatTest, FamilyTagWithIdZeroOrTruncatedIdIsDataLoss) {
  const std::string header = std::string("\x07\0\0\0\0\0\0\0\x01\0\0\0", 12);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"Put, family 0", header + std::string("\x03\x00\x01k\x01v", 6)},
      {"Delete, family 0", header + std::string("\x04\x00\x01k", 4)},
      {"DeleteRange, family 0", header + std::string("\x05\x00\x01"
                                                     "a\x01"
                                                     "b",
                                                     6)},
      {"Put, no ID", header + "\x03"},
      {"Delete, no ID", header + "\x04"},
      {"DeleteRange, no ID", header + "\x05"},
      {"Put, ID cut inside its varint", header + "\x03\x80"},
      {"Delete, ID cut inside its varint", header + "\x04\xac"},
      {"DeleteRange, ID cut inside its varint", header + "\x05\xff\xff"},
      {"ID longer than a varint32",
       header + "\x03\xff\xff\xff\xff\xff\x01\x01k\x01v"},
  };
  for (const auto& [name, bytes] : cases) {
    const WriteBatch batch = BatchOf(bytes);
    RecordingHandler handler;
    const absl::Status s = batch.Iterate(&handler);
    EXPECT_TRUE(absl::IsDataLoss(s)) << name << ": " << s;
    EXPECT_TRUE(absl::IsDataLoss(WriteBatchInternal::Verify(&batch))) << name;
    EXPECT_TRUE(handler.seen.empty()) << name;
  }
  // The same entry with family 2 is fine: the cases fail for the ID alone.
  RecordingHandler handler;
  ASSERT_TRUE(BatchOf(header + std::string("\x03\x02\x01k\x01v", 6))
                  .Iterate(&handler)
                  .ok());
  EXPECT_EQ(handler.seen, std::vector<std::string>{"2:PutCF(k,v)"});
}

TEST(ColumnFamilyFormatTest, HandlerWithoutFamilyMethodsSeesDefaultOnly) {
  FakeHandle two("two", 2);
  FakeHandle three("three", 3);
  WriteBatch batch;
  batch.Put("a", "1");
  batch.Put(&two, "b", "2");
  batch.Delete(&three, "c");
  batch.Delete("d");
  batch.DeleteRange(&two, "e", "f");
  batch.DeleteRange("g", "h");
  batch.Put(&three, "i", "3");
  ASSERT_TRUE(batch.status().ok()) << batch.status();
  DefaultOnlyHandler handler;
  // Through the bytes, as a WAL reader gets them.
  ASSERT_TRUE(
      BatchOf(WriteBatchInternal::Contents(&batch)).Iterate(&handler).ok());
  EXPECT_EQ(handler.seen, (std::vector<std::string>{"Put(a,1)", "Delete(d)",
                                                    "DeleteRange(g,h)"}));
  // The worked example: only Put("a", "1").
  DefaultOnlyHandler example;
  ASSERT_TRUE(ExampleBatch().Iterate(&example).ok());
  EXPECT_EQ(example.seen, std::vector<std::string>{"Put(a,1)"});
}

// ---- Real MANIFESTs -----------------------------------------------------

// The records of the MANIFEST that CURRENT names, raw and decoded.
struct Manifest {
  std::string name;  // e.g. "MANIFEST-000009"
  std::vector<std::string> raw;
  std::vector<VersionEdit> edits;
};

Manifest ReadManifest(const std::string& dir) {
  Manifest m;
  Env* env = Env::Default();
  std::string current;
  EXPECT_TRUE(ReadFileToString(env, dir + "/CURRENT", &current).ok());
  if (!current.empty() && current.back() == '\n') current.pop_back();
  m.name = current;
  std::string contents;
  EXPECT_TRUE(ReadFileToString(env, dir + "/" + current, &contents).ok());
  log::Reader reader = log::Reader::ForManifest(contents, current);
  std::string_view record;
  std::string scratch;
  while (reader.ReadRecord(&record, &scratch)) {
    m.raw.emplace_back(record);
    VersionEdit& e = m.edits.emplace_back();
    const absl::Status s = e.DecodeFrom(record);
    EXPECT_TRUE(s.ok()) << current << ": " << s;
  }
  EXPECT_TRUE(reader.status().ok()) << reader.status();
  return m;
}

// Every entry of one family.
std::map<std::string, std::string> Contents(DB* db, ColumnFamilyHandle* cf) {
  std::map<std::string, std::string> m;
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions(), cf);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    m.emplace(std::string(it->key()), std::string(it->value()));
  }
  EXPECT_TRUE(it->status().ok()) << it->status();
  return m;
}

TEST(ColumnFamilyFormatTest, CreateWritesTheWorkedExampleRecord) {
  // Family 1 is created and dropped, so "logs" gets ID 2 (IDs are never
  // reused) and its add record is the worked example, followed by the
  // counters that every logged edit carries (tags 2, 3, 4).
  const std::string dir = test::TempDir("cf_format_create");
  Options options;
  options.create_if_missing = true;
  {
    auto db = DB::Open(options, dir);
    ASSERT_TRUE(db.ok()) << db.status();
    EXPECT_EQ(ReadManifest(dir).edits[0].format_version_,
              std::optional<uint32_t>(kDbFormatVersionOneFamily));
    auto scratch = (*db)->CreateColumnFamily(ColumnFamilyOptions(), "scratch");
    ASSERT_TRUE(scratch.ok()) << scratch.status();
    EXPECT_EQ((*scratch)->GetID(), 1u);
    ASSERT_TRUE((*db)->DropColumnFamily(scratch->get()).ok());
    auto logs = (*db)->CreateColumnFamily(ColumnFamilyOptions(), "logs");
    ASSERT_TRUE(logs.ok()) << logs.status();
    EXPECT_EQ((*logs)->GetID(), 2u);

    const Manifest m = ReadManifest(dir);
    // The first family started a new MANIFEST whose snapshot says 5.
    ASSERT_GE(m.edits.size(), 2u);
    EXPECT_EQ(m.edits[0].format_version_,
              std::optional<uint32_t>(kDbFormatVersion));
    EXPECT_EQ(m.edits[1].max_column_family_, std::optional<uint32_t>(1));
    int found = 0;
    for (size_t i = 0; i < m.raw.size(); ++i) {
      if (m.edits[i].column_family_add_ != "logs") continue;
      ++found;
      const std::string hex = Hex(m.raw[i]);
      ASSERT_EQ(hex.substr(0, sizeof(kAddFamilyExampleHex) - 1),
                kAddFamilyExampleHex);
      VersionEdit rest;
      ASSERT_TRUE(rest.DecodeFrom(std::string_view(m.raw[i]).substr(
                                      kAddFamilyExampleBytes))
                      .ok());
      EXPECT_TRUE(rest.log_number_ && rest.next_file_number_ &&
                  rest.last_sequence_);
      EXPECT_EQ(rest.column_family_, 0u);
      EXPECT_FALSE(rest.comparator_ || rest.column_family_add_ ||
                   rest.max_column_family_ || rest.atomic_group_);
    }
    EXPECT_EQ(found, 1);

    // A flush of both families is one atomic group of two records.
    ASSERT_TRUE((*db)->Put(WriteOptions(), "d", "default").ok());
    ASSERT_TRUE((*db)->Put(WriteOptions(), logs->get(), "l", "logs").ok());
    ASSERT_TRUE((*db)->Flush(logs->get()).ok());
    const Manifest after = ReadManifest(dir);
    ASSERT_GE(after.edits.size(), 2u);
    const VersionEdit& first = after.edits[after.edits.size() - 2];
    const VersionEdit& last = after.edits.back();
    EXPECT_EQ(first.atomic_group_, std::optional<uint32_t>(1));
    EXPECT_EQ(last.atomic_group_, std::optional<uint32_t>(0));
    EXPECT_EQ(first.column_family_, 0u);
    EXPECT_EQ(last.column_family_, 2u);
    EXPECT_EQ(first.new_files_.size(), 1u);
    EXPECT_EQ(last.new_files_.size(), 1u);
    logs->reset();
  }
  // Reopened: the new MANIFEST's snapshot is one record per family,
  // "default" first with format 5 and the max ID; the dropped family is
  // not in it, and its ID is not given again.
  std::vector<ColumnFamilyDescriptor> families = {
      ColumnFamilyDescriptor(),
      ColumnFamilyDescriptor("logs", ColumnFamilyOptions())};
  std::vector<std::unique_ptr<ColumnFamilyHandle>> handles;
  auto db = DB::Open(options, dir, families, &handles);
  ASSERT_TRUE(db.ok()) << db.status();
  const Manifest m = ReadManifest(dir);
  // default's record, the record of tag 13 alone, then one per family.
  ASSERT_GE(m.edits.size(), 3u);
  EXPECT_EQ(m.edits[0].column_family_, 0u);
  EXPECT_EQ(m.edits[0].format_version_,
            std::optional<uint32_t>(kDbFormatVersion));
  EXPECT_FALSE(m.edits[0].max_column_family_.has_value());
  EXPECT_EQ(m.edits[0].comparator_,
            std::optional<std::string>("sift.BytewiseComparator"));
  EXPECT_EQ(m.edits[0].new_files_.size(), 1u);
  EXPECT_EQ(m.edits[1].max_column_family_, std::optional<uint32_t>(2));
  EXPECT_EQ(m.edits[1].column_family_, 0u);
  EXPECT_TRUE(m.edits[1].new_files_.empty());
  EXPECT_EQ(m.edits[2].column_family_, 2u);
  EXPECT_EQ(m.edits[2].column_family_add_, std::optional<std::string>("logs"));
  EXPECT_EQ(m.edits[2].comparator_,
            std::optional<std::string>("sift.BytewiseComparator"));
  EXPECT_FALSE(m.edits[2].format_version_.has_value());
  EXPECT_EQ(m.edits[2].new_files_.size(), 1u);
  for (const VersionEdit& e : m.edits) {
    EXPECT_NE(e.column_family_add_, std::optional<std::string>("scratch"));
  }
  auto metrics = (*db)->CreateColumnFamily(ColumnFamilyOptions(), "metrics");
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  EXPECT_EQ((*metrics)->GetID(), 3u);
  metrics->reset();
  handles.clear();
  db->reset();
  std::filesystem::remove_all(dir);
}

// ---- Upgrade from format 4 ----------------------------------------------

// tests/data/format4_db was written by the last build before column
// families (commit 3763762, format version 4), with its ldb, as:
//
//   LDB=<build of 3763762>/bin/ldb; D=/tmp/format4_db
//   $LDB --db=$D --create_if_missing batchput $(for i in $(seq -w 0 23);
//       do echo key$i t$i; done)                # one command line
//   $LDB --db=$D deleterange key10 key13
//   $LDB --db=$D delete key03
//   for i in 11 $(seq 20 35); do echo "key$i ==> w$i"; done |
//       $LDB --db=$D load
//   cp $D/000004.sst $D/000007.sst $D/000010.sst $D/000011.log
//       $D/CURRENT $D/MANIFEST-000009 tests/data/format4_db/  # not LOCK
//
// Each ldb command opens the DB, which flushes the log the previous one
// left to a level-0 table: 000004.sst holds key00..key23 = tNN, 000007.sst
// the range tombstone [key10, key13), 000010.sst the tombstone of key03,
// and 000011.log (never flushed) 17 Puts, one record each: key11 and
// key20..key35 = wNN. MANIFEST-000009 is a format-4 snapshot and one edit.
std::map<std::string, std::string> Format4Contents() {
  std::map<std::string, std::string> m;
  for (int i = 0; i < 24; ++i) {
    if (i == 3 || i == 10 || i == 12) continue;  // deleted
    m[absl::StrFormat("key%02d", i)] = absl::StrFormat("t%02d", i);
  }
  m["key11"] = "w11";  // put back after the range deletion
  for (int i = 20; i < 36; ++i) {
    m[absl::StrFormat("key%02d", i)] = absl::StrFormat("w%02d", i);
  }
  return m;
}

// The checked-in tests/data (SIFT_TEST_DATA_DIR: tests/CMakeLists.txt).
std::string TestDataDir() { return SIFT_TEST_DATA_DIR; }

void ExpectFormat4Contents(DB* db, ColumnFamilyHandle* cf) {
  const auto want = Format4Contents();
  EXPECT_EQ(cf == nullptr ? test::DbContents(db) : Contents(db, cf), want);
  std::string v;
  for (int i = 0; i < 40; ++i) {
    const std::string key = absl::StrFormat("key%02d", i);
    const absl::Status s = cf == nullptr ? db->Get(ReadOptions(), key, &v)
                                         : db->Get(ReadOptions(), cf, key, &v);
    auto it = want.find(key);
    if (it == want.end()) {
      EXPECT_TRUE(absl::IsNotFound(s)) << key << ": " << s;
    } else {
      ASSERT_TRUE(s.ok()) << key << ": " << s;
      EXPECT_EQ(v, it->second) << key;
    }
  }
}

TEST(ColumnFamilyUpgradeTest, Format4DatabaseOpensAndTakesAFamily) {
  const std::string src = TestDataDir() + "/format4_db";
  ASSERT_TRUE(std::filesystem::exists(src + "/CURRENT")) << src;
  const std::string dir = test::TempDir("cf_upgrade_format4");
  std::filesystem::copy(src, dir, std::filesystem::copy_options::recursive);
  {
    // The fixture is what the old build wrote: format 4, no family tags.
    const Manifest m = ReadManifest(dir);
    EXPECT_EQ(m.name, "MANIFEST-000009");
    ASSERT_FALSE(m.edits.empty());
    EXPECT_EQ(m.edits[0].format_version_, std::optional<uint32_t>(4));
  }

  Options options;  // create_if_missing false: it must be found
  {
    auto db = DB::Open(options, dir);
    ASSERT_TRUE(db.ok()) << db.status();
    ExpectFormat4Contents(db->get(), nullptr);
    ASSERT_TRUE((*db)->Close().ok());
  }
  {
    // Opening rewrote the MANIFEST (the log was flushed), still as
    // format 4 without a max family ID: a build reading only format 4
    // still opens this DB.
    const Manifest m = ReadManifest(dir);
    EXPECT_NE(m.name, "MANIFEST-000009");
    ASSERT_FALSE(m.edits.empty());
    EXPECT_EQ(m.edits[0].format_version_,
              std::optional<uint32_t>(kDbFormatVersionOneFamily));
    for (const VersionEdit& e : m.edits) {
      EXPECT_EQ(e.column_family_, 0u);
      EXPECT_FALSE(e.max_column_family_.has_value());
      EXPECT_FALSE(e.column_family_add_.has_value());
      EXPECT_FALSE(e.format_version_ && *e.format_version_ != 4);
    }
  }

  auto names = DB::ListColumnFamilies(options, dir);
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_EQ(*names, std::vector<std::string>{"default"});

  // With descriptors: {default} is every family it has.
  {
    std::vector<std::unique_ptr<ColumnFamilyHandle>> handles;
    auto db = DB::Open(options, dir, {ColumnFamilyDescriptor()}, &handles);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_EQ(handles.size(), 1u);
    EXPECT_EQ(handles[0]->GetName(), "default");
    EXPECT_EQ(handles[0]->GetID(), 0u);
    ExpectFormat4Contents(db->get(), handles[0].get());

    auto logs = (*db)->CreateColumnFamily(ColumnFamilyOptions(), "logs");
    ASSERT_TRUE(logs.ok()) << logs.status();
    EXPECT_EQ((*logs)->GetID(), 1u);
    for (int i = 0; i < 20; ++i) {
      ASSERT_TRUE((*db)
                      ->Put(WriteOptions(), logs->get(),
                            absl::StrFormat("log%02d", i),
                            absl::StrFormat("entry%02d", i))
                      .ok());
    }
    // A key of the default family's name space, other value: the families
    // are apart.
    ASSERT_TRUE(
        (*db)->Put(WriteOptions(), logs->get(), "key00", "logs-key00").ok());
    ASSERT_TRUE((*db)->Delete(WriteOptions(), logs->get(), "log19").ok());
    // Readable at once, from the new family's memtable; "default" unchanged.
    std::string v;
    ASSERT_TRUE((*db)->Get(ReadOptions(), logs->get(), "log00", &v).ok());
    EXPECT_EQ(v, "entry00");
    ASSERT_TRUE((*db)->Get(ReadOptions(), logs->get(), "key00", &v).ok());
    EXPECT_EQ(v, "logs-key00");
    EXPECT_TRUE(
        absl::IsNotFound((*db)->Get(ReadOptions(), logs->get(), "log19", &v)));
    EXPECT_TRUE(
        absl::IsNotFound((*db)->Get(ReadOptions(), logs->get(), "key01", &v)));
    ExpectFormat4Contents(db->get(), handles[0].get());
    logs->reset();
    handles.clear();
    ASSERT_TRUE((*db)->Close().ok());
  }
  {
    // The first family made it a format-5 DB, in a new MANIFEST.
    const Manifest m = ReadManifest(dir);
    ASSERT_GE(m.edits.size(), 2u);
    EXPECT_EQ(m.edits[0].format_version_,
              std::optional<uint32_t>(kDbFormatVersion));
    EXPECT_EQ(m.edits[1].max_column_family_, std::optional<uint32_t>(1));
  }
  names = DB::ListColumnFamilies(options, dir);
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_EQ(*names, (std::vector<std::string>{"default", "logs"}));

  std::map<std::string, std::string> want_logs;
  for (int i = 0; i < 19; ++i) {
    want_logs[absl::StrFormat("log%02d", i)] = absl::StrFormat("entry%02d", i);
  }
  want_logs["key00"] = "logs-key00";
  {
    // Both families, the logs family's writes replayed from the WAL.
    std::vector<std::unique_ptr<ColumnFamilyHandle>> handles;
    auto db = DB::Open(options, dir,
                       {ColumnFamilyDescriptor(),
                        ColumnFamilyDescriptor("logs", ColumnFamilyOptions())},
                       &handles);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_EQ(handles.size(), 2u);
    EXPECT_EQ(handles[1]->GetName(), "logs");
    EXPECT_EQ(handles[1]->GetID(), 1u);
    ExpectFormat4Contents(db->get(), handles[0].get());
    ExpectFormat4Contents(db->get(), nullptr);
    EXPECT_EQ(Contents(db->get(), handles[1].get()), want_logs);
    std::string v;
    EXPECT_TRUE(absl::IsNotFound(
        (*db)->Get(ReadOptions(), handles[1].get(), "log19", &v)));
    handles.clear();
    ASSERT_TRUE((*db)->Close().ok());
  }
  {
    // And again, now from the tables the last open flushed.
    std::vector<std::unique_ptr<ColumnFamilyHandle>> handles;
    auto db = DB::Open(options, dir,
                       {ColumnFamilyDescriptor("logs", ColumnFamilyOptions()),
                        ColumnFamilyDescriptor()},
                       &handles);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_EQ(handles.size(), 2u);
    EXPECT_EQ(handles[0]->GetName(), "logs");
    EXPECT_EQ(Contents(db->get(), handles[0].get()), want_logs);
    ExpectFormat4Contents(db->get(), handles[1].get());
    handles.clear();
  }
  {
    // Leaving out a family the DB has is refused, naming it.
    std::vector<std::unique_ptr<ColumnFamilyHandle>> handles;
    auto db = DB::Open(options, dir, {ColumnFamilyDescriptor()}, &handles);
    ASSERT_FALSE(db.ok());
    EXPECT_TRUE(absl::IsInvalidArgument(db.status())) << db.status();
    EXPECT_NE(db.status().message().find("logs"), std::string_view::npos)
        << db.status();
    EXPECT_TRUE(handles.empty());
    // So is DB::Open(Options), which opens "default" alone.
    auto plain = DB::Open(options, dir);
    ASSERT_FALSE(plain.ok());
    EXPECT_TRUE(absl::IsInvalidArgument(plain.status())) << plain.status();
    EXPECT_NE(plain.status().message().find("logs"), std::string_view::npos)
        << plain.status();
  }
  std::filesystem::remove_all(dir);
}

// A build that reads only format 4 must refuse a format-5 DB by its version
// (Unimplemented, db/FORMAT.md "Format versions"). It decodes the first
// record whole before it looks at the version, and any tag it does not
// know (10-14) makes that decoding fail, which it reports as "not a siftdb
// database" (InvalidArgument). So the first record of a format-5 MANIFEST
// may hold only tags 1-9 (EncodeSnapshot puts tag 13 in a record after it;
// with it in the first, the build of 3763762 answered "MANIFEST-...: not a
// siftdb database: its MANIFEST is another engine's").
TEST(ColumnFamilyFormatTest, FirstRecordIsReadableByFormat4Builds) {
  const std::string dir = test::TempDir("cf_format_first_record");
  Options options;
  options.create_if_missing = true;
  {
    auto db = DB::Open(options, dir);
    ASSERT_TRUE(db.ok()) << db.status();
    auto logs = (*db)->CreateColumnFamily(ColumnFamilyOptions(), "logs");
    ASSERT_TRUE(logs.ok()) << logs.status();
    logs->reset();
  }
  const Manifest m = ReadManifest(dir);
  ASSERT_FALSE(m.edits.empty());
  const VersionEdit& first = m.edits[0];
  EXPECT_EQ(first.format_version_, std::optional<uint32_t>(kDbFormatVersion));
  EXPECT_EQ(first.column_family_, 0u);
  EXPECT_FALSE(first.column_family_add_.has_value());
  EXPECT_FALSE(first.column_family_drop_);
  EXPECT_FALSE(first.max_column_family_.has_value());
  EXPECT_FALSE(first.atomic_group_.has_value());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sift
