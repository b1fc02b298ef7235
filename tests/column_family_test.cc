// Column families through the public API (sift/column_family.h): separate
// keyspaces with their own comparators and filter settings, one WAL,
// batches atomic across them, create/drop/list/reopen, and the bad input
// each call refuses.

#include "sift/column_family.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/sst_file_writer.h"
#include "sift/statistics.h"
#include "tests/testutil/mem_db_test.h"
#include "tests/testutil/test_comparators.h"

namespace sift {
namespace {

using Handles = std::vector<std::unique_ptr<ColumnFamilyHandle>>;

class ColumnFamilyTest : public test::MemDBTest {
 protected:
  ColumnFamilyTest() {
    reverse_.comparator = test::ReverseBytewiseComparator();
    reverse_.bloom_filter_fp_chance = 0.1;
    tight_.bloom_filter_fp_chance = 0.0001;
  }

  // Opens path_ with "default" and the named families (their options from
  // options_for_), replacing db_ and handles_.
  absl::Status OpenFamilies(const std::vector<std::string>& names) {
    handles_.clear();
    db_.reset();
    std::vector<ColumnFamilyDescriptor> fams;
    for (const std::string& name : names) {
      fams.emplace_back(name, OptionsFor(name));
    }
    auto db = DB::Open(options_, path_, fams, &handles_);
    if (!db.ok()) return db.status();
    db_ = *std::move(db);
    return absl::OkStatus();
  }

  ColumnFamilyOptions OptionsFor(const std::string& name) const {
    if (name == "reverse") return reverse_;
    if (name == "tight") return tight_;
    return options_;
  }

  // Creates "reverse" and "tight" in a new DB: handles_[0] and [1].
  void CreateTwo() {
    Open();
    auto r = db_->CreateColumnFamily(reverse_, "reverse");
    ASSERT_TRUE(r.ok()) << r.status();
    auto t = db_->CreateColumnFamily(tight_, "tight");
    ASSERT_TRUE(t.ok()) << t.status();
    handles_.clear();
    handles_.push_back(*std::move(r));
    handles_.push_back(*std::move(t));
  }

  std::string GetIn(ColumnFamilyHandle* h, std::string_view key,
                    const Snapshot* snap = nullptr) {
    ReadOptions ro;
    ro.snapshot = snap;
    std::string v;
    const absl::Status s = db_->Get(ro, h, key, &v);
    if (absl::IsNotFound(s)) return "NOT_FOUND";
    if (!s.ok()) return "ERROR: " + s.ToString();
    return v;
  }

  std::string Scan(ColumnFamilyHandle* h) {
    std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions(), h);
    std::string out;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      out.append(it->key()).append("=").append(it->value()).append(" ");
    }
    EXPECT_TRUE(it->status().ok()) << it->status();
    return out;
  }

  ColumnFamilyOptions reverse_, tight_;
  Handles handles_;
};

TEST_F(ColumnFamilyTest, FamiliesAreSeparateKeyspacesWithTheirOwnOrder) {
  CreateTwo();
  ColumnFamilyHandle* rev = handles_[0].get();
  ColumnFamilyHandle* tight = handles_[1].get();
  EXPECT_EQ(rev->GetName(), "reverse");
  EXPECT_EQ(tight->GetName(), "tight");
  EXPECT_NE(rev->GetID(), tight->GetID());
  EXPECT_EQ(db_->DefaultColumnFamily()->GetName(), kDefaultColumnFamilyName);
  EXPECT_EQ(db_->DefaultColumnFamily()->GetID(), 0u);
  for (const char* k : {"a", "b", "c"}) {
    ASSERT_TRUE(db_->Put(WriteOptions(), rev, k, absl::StrCat("r", k)).ok());
  }
  ASSERT_TRUE(db_->Put(WriteOptions(), tight, "a", "t").ok());
  ASSERT_TRUE(db_->Put(WriteOptions(), "a", "d").ok());
  EXPECT_EQ(Get("a"), "d");
  EXPECT_EQ(Get("b"), "NOT_FOUND");
  EXPECT_EQ(GetIn(rev, "a"), "ra");
  EXPECT_EQ(GetIn(tight, "a"), "t");
  EXPECT_EQ(GetIn(tight, "b"), "NOT_FOUND");
  EXPECT_EQ(Scan(rev), "c=rc b=rb a=ra ");  // the family's comparator
  EXPECT_EQ(Scan(db_->DefaultColumnFamily()), "a=d ");
  ASSERT_TRUE(db_->Delete(WriteOptions(), rev, "b").ok());
  EXPECT_EQ(GetIn(rev, "b"), "NOT_FOUND");
  EXPECT_EQ(Scan(rev), "c=rc a=ra ");
}

TEST_F(ColumnFamilyTest, DataSurvivesFlushAndReopenInEachFamily) {
  CreateTwo();
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(db_->Put(WriteOptions(), handles_[0].get(),
                         test::NumberedKey(i), absl::StrCat("rev", i))
                    .ok());
    ASSERT_TRUE(db_->Put(WriteOptions(), handles_[1].get(),
                         test::NumberedKey(i), absl::StrCat("tight", i))
                    .ok());
    if (i == 150) {
      ASSERT_TRUE(db_->Flush().ok());
    }
  }
  // Half flushed, half only in the WAL: both come back, each to its family.
  ASSERT_TRUE(OpenFamilies({"default", "reverse", "tight"}).ok());
  for (int i = 0; i < 300; i += 7) {
    EXPECT_EQ(GetIn(handles_[1].get(), test::NumberedKey(i)),
              absl::StrCat("rev", i));
    EXPECT_EQ(GetIn(handles_[2].get(), test::NumberedKey(i)),
              absl::StrCat("tight", i));
    EXPECT_EQ(Get(test::NumberedKey(i)), "NOT_FOUND");
  }
  // And once more, after a flush at Open.
  ASSERT_TRUE(OpenFamilies({"tight", "default", "reverse"}).ok());
  EXPECT_EQ(handles_[0]->GetName(), "tight");  // in the descriptors' order
  EXPECT_EQ(GetIn(handles_[0].get(), test::NumberedKey(299)), "tight299");
  EXPECT_EQ(GetIn(handles_[2].get(), test::NumberedKey(0)), "rev0");
}

TEST_F(ColumnFamilyTest, EachFamilyBuildsFiltersForItsOwnFpChance) {
  options_.write_buffer_size = 64 << 10;
  ColumnFamilyOptions none;
  none.bloom_filter_fp_chance = 1.0;  // no filter (Cassandra's 1.0)
  Open();
  auto h = db_->CreateColumnFamily(none, "nofilter");
  ASSERT_TRUE(h.ok()) << h.status();
  auto t = db_->CreateColumnFamily(tight_, "tight");
  ASSERT_TRUE(t.ok()) << t.status();
  for (int i = 0; i < 2000; ++i) {
    ASSERT_TRUE(
        db_->Put(WriteOptions(), h->get(), test::NumberedKey(i), "v").ok());
    ASSERT_TRUE(
        db_->Put(WriteOptions(), t->get(), test::NumberedKey(i), "v").ok());
  }
  ASSERT_TRUE(db_->Flush(h->get()).ok());
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  const std::optional<std::string> nofilter =
      db_->GetProperty(h->get(), "sift.levels");
  const std::optional<std::string> tight =
      db_->GetProperty(t->get(), "sift.levels");
  ASSERT_TRUE(nofilter && tight);
  EXPECT_NE(nofilter->find(" 1"), std::string::npos) << *nofilter;
  EXPECT_EQ(nofilter->find("0.0001"), std::string::npos) << *nofilter;
  EXPECT_NE(tight->find("0.0001"), std::string::npos) << *tight;
  // Misses in the filtered family are answered by its filters.
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(GetIn(t->get(), absl::StrCat("absent", i)), "NOT_FOUND");
  }
  const std::optional<std::string> stats =
      db_->GetProperty(t->get(), "sift.filter-stats");
  ASSERT_TRUE(stats.has_value());
  EXPECT_NE(stats->find("total"), std::string::npos);
}

// The "checked" column of a sift.filter-stats row ("total", "db").
uint64_t CheckedIn(const std::string& filter_stats, const std::string& row) {
  const std::vector<std::string> lines = absl::StrSplit(filter_stats, '\n');
  for (const std::string& line : lines) {
    const std::vector<std::string> cols =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    uint64_t n = 0;
    if (cols.size() >= 2 && cols[0] == row && absl::SimpleAtoi(cols[1], &n)) {
      return n;
    }
  }
  ADD_FAILURE() << "no row " << row << " in\n" << filter_stats;
  return 0;
}

// Each family counts its own filter probes (GetProperty(handle,
// "sift.filter-stats")); a "db" row and GetStatistics sum every family,
// dropped ones included.
TEST_F(ColumnFamilyTest, FilterStatsArePerFamilyWithTheDbTotal) {
  CreateTwo();
  ColumnFamilyHandle* tight = handles_[1].get();
  for (int i = 0; i < 500; ++i) {
    ASSERT_TRUE(
        db_->Put(WriteOptions(), tight, test::NumberedKey(i), "v").ok());
    ASSERT_TRUE(db_->Put(WriteOptions(), test::NumberedKey(i), "v").ok());
  }
  ASSERT_TRUE(db_->Flush(tight).ok());
  // Misses inside the tables' key ranges, so the filter answers them.
  for (int i = 0; i < 300; ++i) {
    EXPECT_EQ(GetIn(tight, test::NumberedKey(i) + "-absent"), "NOT_FOUND");
  }
  const std::string in_tight = *db_->GetProperty(tight, "sift.filter-stats");
  const std::string in_default = *db_->GetProperty("sift.filter-stats");
  EXPECT_EQ(CheckedIn(in_tight, "total"), 300u) << in_tight;
  EXPECT_EQ(CheckedIn(in_default, "total"), 0u) << in_default;
  EXPECT_EQ(CheckedIn(in_default, "db"), 300u) << in_default;
  EXPECT_EQ(db_->GetStatistics().Get(kBloomFilterChecked), 300u);

  for (int i = 0; i < 200; ++i) {
    EXPECT_EQ(
        GetIn(db_->DefaultColumnFamily(), test::NumberedKey(i) + "-absent"),
        "NOT_FOUND");
  }
  EXPECT_EQ(CheckedIn(*db_->GetProperty("sift.filter-stats"), "total"), 200u);
  ASSERT_TRUE(db_->DropColumnFamily(tight).ok());
  EXPECT_EQ(db_->GetStatistics().Get(kBloomFilterChecked), 500u);
}

TEST_F(ColumnFamilyTest, BatchWritesEveryFamilyAtOneSequence) {
  CreateTwo();
  const Snapshot* before = db_->GetSnapshot();
  WriteBatch batch;
  batch.Put("k", "default");
  batch.Put(handles_[0].get(), "k", "reverse");
  batch.Put(handles_[1].get(), "k", "tight");
  batch.Delete(handles_[1].get(), "gone");
  ASSERT_TRUE(db_->Write(WriteOptions(), &batch).ok());
  EXPECT_EQ(Get("k"), "default");
  EXPECT_EQ(GetIn(handles_[0].get(), "k"), "reverse");
  EXPECT_EQ(GetIn(handles_[1].get(), "k"), "tight");
  // Snapshots are DB-wide: the one before the batch sees none of it.
  EXPECT_EQ(Get("k", before), "NOT_FOUND");
  EXPECT_EQ(GetIn(handles_[0].get(), "k", before), "NOT_FOUND");
  EXPECT_EQ(GetIn(handles_[1].get(), "k", before), "NOT_FOUND");
  db_->ReleaseSnapshot(before);
  // Cross-family MultiGet: one key per family, in order.
  std::vector<ColumnFamilyHandle*> fams = {
      handles_[1].get(), db_->DefaultColumnFamily(), handles_[0].get(),
      handles_[0].get()};
  std::vector<std::string_view> keys = {"k", "k", "k", "nope"};
  std::vector<std::string> values;
  std::vector<absl::Status> st =
      db_->MultiGet(ReadOptions(), fams, keys, &values);
  ASSERT_EQ(st.size(), 4u);
  EXPECT_TRUE(st[0].ok());
  EXPECT_EQ(values[0], "tight");
  EXPECT_EQ(values[1], "default");
  EXPECT_EQ(values[2], "reverse");
  EXPECT_TRUE(absl::IsNotFound(st[3]));
  // NewIterators: one state for all.
  auto its =
      db_->NewIterators(ReadOptions(), {handles_[0].get(), handles_[1].get()});
  ASSERT_TRUE(its.ok()) << its.status();
  ASSERT_TRUE(db_->Put(WriteOptions(), handles_[1].get(), "later", "x").ok());
  std::string seen;
  for (auto& it : *its) {
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      seen.append(it->key()).append(" ");
    }
  }
  EXPECT_EQ(seen, "k k ");
}

TEST_F(ColumnFamilyTest, ListAndReopenWithMissingOrExtraFamilies) {
  CreateTwo();
  handles_.clear();
  db_.reset();
  auto names = DB::ListColumnFamilies(options_, path_);
  ASSERT_TRUE(names.ok()) << names.status();
  const std::vector<std::string> all = {"default", "reverse", "tight"};
  EXPECT_EQ(*names, all);
  // Every family must be listed.
  absl::Status s = OpenFamilies({"default", "reverse"});
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("tight"), std::string::npos) << s;
  // The single-family Open is refused too: it would leave them out.
  EXPECT_TRUE(absl::IsInvalidArgument(DB::Open(options_, path_).status()));
  // A family the DB lacks: refused without create_missing_column_families.
  s = OpenFamilies({"default", "reverse", "tight", "extra"});
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("extra"), std::string::npos) << s;
  names = DB::ListColumnFamilies(options_, path_);
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(names->size(), 3u);  // nothing was created
  options_.create_missing_column_families = true;
  ASSERT_TRUE(OpenFamilies({"default", "reverse", "tight", "extra"}).ok());
  ASSERT_TRUE(db_->Put(WriteOptions(), handles_[3].get(), "e", "1").ok());
  ASSERT_TRUE(OpenFamilies({"default", "reverse", "tight", "extra"}).ok());
  EXPECT_EQ(GetIn(handles_[3].get(), "e"), "1");
  // Read-only: families may be left out.
  handles_.clear();
  db_.reset();
  Handles ro_handles;
  std::vector<ColumnFamilyDescriptor> fams = {
      {kDefaultColumnFamilyName, options_}, {"extra", options_}};
  auto ro = DB::OpenForReadOnly(options_, path_, fams, &ro_handles);
  ASSERT_TRUE(ro.ok()) << ro.status();
  std::string v;
  ASSERT_TRUE((*ro)->Get(ReadOptions(), ro_handles[1].get(), "e", &v).ok());
  EXPECT_EQ(v, "1");
}

// A refused open writes nothing and deletes nothing: the tables and log
// of a family it left out are all still there at the next open.
TEST_F(ColumnFamilyTest, RefusedOpenKeepsEveryFamilysData) {
  CreateTwo();
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(db_->Put(WriteOptions(), handles_[1].get(),
                         test::NumberedKey(i), "flushed")
                    .ok());
  }
  ASSERT_TRUE(db_->Flush(handles_[1].get()).ok());
  ASSERT_TRUE(
      db_->Put(WriteOptions(), handles_[1].get(), "in-log", "logged").ok());
  ASSERT_TRUE(db_->Put(WriteOptions(), "d", "default").ok());
  handles_.clear();
  db_.reset();
  EXPECT_TRUE(absl::IsInvalidArgument(OpenFamilies({"default", "reverse"})));
  EXPECT_TRUE(absl::IsInvalidArgument(DB::Open(options_, path_).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(
      OpenFamilies({"default", "reverse", "tight", "extra"})));
  ASSERT_TRUE(OpenFamilies({"default", "reverse", "tight"}).ok());
  ColumnFamilyHandle* const tight = handles_[2].get();
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(GetIn(tight, test::NumberedKey(i)), "flushed") << i;
  }
  EXPECT_EQ(GetIn(tight, "in-log"), "logged");
  EXPECT_EQ(GetIn(db_->DefaultColumnFamily(), "d"), "default");
}

// A new database is created with the families listed only when
// create_missing_column_families is set; otherwise nothing is created.
TEST_F(ColumnFamilyTest, NewDatabaseCreatesListedFamiliesOnlyWhenAsked) {
  options_.create_if_missing = true;
  absl::Status s = OpenFamilies({"default", "reverse"});
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("reverse"), std::string::npos) << s;
  EXPECT_FALSE(DB::ListColumnFamilies(options_, path_).ok());
  options_.create_missing_column_families = true;
  ASSERT_TRUE(OpenFamilies({"default", "reverse"}).ok());
  auto names = DB::ListColumnFamilies(options_, path_);
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_EQ(*names, (std::vector<std::string>{"default", "reverse"}));
}

// IngestExternalFiles(handle): a file written in a family's order joins
// that family alone; one in another order is refused; a dropped family's
// handle is refused.
TEST_F(ColumnFamilyTest, IngestAddsFilesToOneFamily) {
  CreateTwo();
  auto write = [&](const std::string& path, const Comparator* order,
                   const std::vector<std::string>& keys) {
    Options o = options_;
    o.comparator = order;
    SstFileWriter w(o);
    ASSERT_TRUE(w.Open(path).ok());
    for (const std::string& k : keys) ASSERT_TRUE(w.Put(k, "in-" + k).ok());
    ASSERT_TRUE(w.Finish().ok());
  };
  // handles_[0] is "reverse": its keys descend.
  ASSERT_NO_FATAL_FAILURE(
      write("/reverse.sst", reverse_.comparator, {"c", "b", "a"}));
  ASSERT_TRUE(db_->IngestExternalFiles(handles_[0].get(), {"/reverse.sst"},
                                       IngestOptions())
                  .ok());
  EXPECT_EQ(GetIn(handles_[0].get(), "b"), "in-b");
  EXPECT_EQ(Scan(handles_[0].get()), "c=in-c b=in-b a=in-a ");
  EXPECT_EQ(GetIn(db_->DefaultColumnFamily(), "b"), "NOT_FOUND");
  EXPECT_EQ(GetIn(handles_[1].get(), "b"), "NOT_FOUND");
  // A bytewise file into the reverse family: refused, nothing added.
  ASSERT_NO_FATAL_FAILURE(
      write("/bytewise.sst", BytewiseComparator(), {"x", "y"}));
  const absl::Status s = db_->IngestExternalFiles(
      handles_[0].get(), {"/bytewise.sst"}, IngestOptions());
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(GetIn(handles_[0].get(), "x"), "NOT_FOUND");
  // The same file into the default family: fine.
  ASSERT_TRUE(
      db_->IngestExternalFiles({"/bytewise.sst"}, IngestOptions()).ok());
  EXPECT_EQ(GetIn(db_->DefaultColumnFamily(), "x"), "in-x");
  // Survives a reopen in its family.
  ASSERT_TRUE(OpenFamilies({"default", "reverse", "tight"}).ok());
  EXPECT_EQ(GetIn(handles_[1].get(), "a"), "in-a");
  ASSERT_TRUE(db_->DropColumnFamily(handles_[2].get()).ok());
  ASSERT_NO_FATAL_FAILURE(write("/t.sst", BytewiseComparator(), {"q"}));
  EXPECT_TRUE(absl::IsInvalidArgument(db_->IngestExternalFiles(
      handles_[2].get(), {"/t.sst"}, IngestOptions())));
}

TEST_F(ColumnFamilyTest, BadInputIsRefusedByName) {
  CreateTwo();
  // An existing name, an empty name, dropping "default".
  auto dup = db_->CreateColumnFamily(tight_, "tight");
  EXPECT_TRUE(absl::IsInvalidArgument(dup.status())) << dup.status();
  EXPECT_NE(dup.status().message().find("tight"), std::string::npos);
  EXPECT_TRUE(
      absl::IsInvalidArgument(db_->CreateColumnFamily(tight_, "").status()));
  absl::Status s = db_->DropColumnFamily(db_->DefaultColumnFamily());
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  // A null handle, and one of another DB.
  std::string v;
  EXPECT_TRUE(
      absl::IsInvalidArgument(db_->Get(ReadOptions(), nullptr, "k", &v)));
  auto other_env = NewMemEnv();
  Options other = options_;
  other.env = other_env.get();
  auto other_db = DB::Open(other, "/other");
  ASSERT_TRUE(other_db.ok());
  auto foreign = (*other_db)->CreateColumnFamily(tight_, "tight");
  ASSERT_TRUE(foreign.ok());
  s = db_->Put(WriteOptions(), foreign->get(), "k", "v");
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("another DB"), std::string::npos) << s;
  EXPECT_EQ(GetIn(handles_[1].get(), "k"), "NOT_FOUND");  // nothing written
  foreign->reset();
  other_db->reset();
  // Duplicate names, no "default", an empty name in the descriptors.
  handles_.clear();
  db_.reset();
  EXPECT_TRUE(absl::IsInvalidArgument(
      OpenFamilies({"default", "tight", "tight", "reverse"})));
  EXPECT_TRUE(absl::IsInvalidArgument(OpenFamilies({"tight", "reverse"})));
  EXPECT_TRUE(
      absl::IsInvalidArgument(OpenFamilies({"default", "", "reverse"})));
  // DeleteRange in a family without the bytewise comparator: refused whole.
  ASSERT_TRUE(OpenFamilies({"default", "reverse", "tight"}).ok());
  WriteBatch batch;
  batch.Put(handles_[2].get(), "x", "1");
  batch.DeleteRange(handles_[1].get(), "a", "b");
  s = db_->Write(WriteOptions(), &batch);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("reverse"), std::string::npos) << s;
  EXPECT_EQ(GetIn(handles_[2].get(), "x"), "NOT_FOUND");
}

TEST_F(ColumnFamilyTest, DropRemovesTheFamilyOnceNothingReadsIt) {
  CreateTwo();
  ColumnFamilyHandle* tight = handles_[1].get();
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(
        db_->Put(WriteOptions(), tight, test::NumberedKey(i), "v").ok());
  }
  ASSERT_TRUE(db_->Flush().ok());
  ASSERT_TRUE(db_->Put(WriteOptions(), tight, "wal-only", "w").ok());
  ASSERT_TRUE(db_->Put(WriteOptions(), "keep", "k").ok());
  auto tables = [&] {
    std::set<std::string> names;
    const auto children = env_->GetChildren(path_);
    for (const std::string& c : *children) {
      if (c.ends_with(".sst")) names.insert(c);
    }
    return names;
  };
  const std::set<std::string> before = tables();  // the family's only
  ASSERT_FALSE(before.empty());
  std::unique_ptr<Iterator> it = db_->NewIterator(ReadOptions(), tight);
  ASSERT_TRUE(db_->DropColumnFamily(tight).ok());
  EXPECT_EQ(tight->GetName(), "tight");  // the handle stays valid for this
  std::string v;
  absl::Status s = db_->Get(ReadOptions(), tight, "wal-only", &v);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("dropped"), std::string::npos) << s;
  EXPECT_TRUE(
      absl::IsInvalidArgument(db_->Put(WriteOptions(), tight, "k", "v")));
  EXPECT_TRUE(absl::IsInvalidArgument(db_->DropColumnFamily(tight)));
  // The iterator made before the drop still reads the family's data.
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
  EXPECT_EQ(n, 101);
  EXPECT_EQ(tables(), before);
  it.reset();
  // A later cleanup deletes the family's tables.
  ASSERT_TRUE(db_->Flush().ok());
  for (const std::string& name : tables()) {
    EXPECT_EQ(before.count(name), 0u) << name;
  }
  // A name may be used again: a new, empty family.
  auto again = db_->CreateColumnFamily(tight_, "tight");
  ASSERT_TRUE(again.ok());
  EXPECT_NE((*again)->GetID(), tight->GetID());
  EXPECT_EQ(GetIn(again->get(), test::NumberedKey(1)), "NOT_FOUND");
  again->reset();
  // Reopen: the dropped family's WAL records are not replayed anywhere.
  ASSERT_TRUE(OpenFamilies({"default", "reverse", "tight"}).ok());
  EXPECT_EQ(GetIn(handles_[2].get(), "wal-only"), "NOT_FOUND");
  EXPECT_EQ(Get("keep"), "k");
  auto names = DB::ListColumnFamilies(options_, path_);
  ASSERT_TRUE(names.ok());
  const std::vector<std::string> left = {"default", "reverse", "tight"};
  EXPECT_EQ(*names, left);
}

TEST_F(ColumnFamilyTest, CompactionsRunPerFamily) {
  options_.write_buffer_size = 32 << 10;
  options_.max_file_size = 32 << 10;
  CreateTwo();
  for (int i = 0; i < 3000; ++i) {
    WriteBatch b;
    b.Put(handles_[0].get(), test::NumberedKey(i), test::NumberedValue(i));
    if (i % 3 == 0) {
      b.Put(handles_[1].get(), test::NumberedKey(i), test::NumberedValue(i));
    }
    ASSERT_TRUE(db_->Write(WriteOptions(), &b).ok());
  }
  ASSERT_TRUE(db_->WaitForCompaction().ok());
  ASSERT_TRUE(
      db_->CompactRange(handles_[1].get(), std::nullopt, std::nullopt).ok());
  auto l0 = db_->GetProperty(handles_[1].get(), "sift.num-files-at-level0");
  ASSERT_TRUE(l0.has_value());
  EXPECT_EQ(*l0, "0");
  for (int i = 0; i < 3000; i += 37) {
    EXPECT_EQ(GetIn(handles_[0].get(), test::NumberedKey(i)),
              test::NumberedValue(i));
    EXPECT_EQ(GetIn(handles_[1].get(), test::NumberedKey(i)),
              i % 3 == 0 ? test::NumberedValue(i) : "NOT_FOUND");
  }
  EXPECT_EQ(Get(test::NumberedKey(3)), "NOT_FOUND");
}

TEST_F(ColumnFamilyTest, CheckpointKeepsEveryFamily) {
  CreateTwo();
  ASSERT_TRUE(db_->Put(WriteOptions(), handles_[0].get(), "r", "1").ok());
  ASSERT_TRUE(db_->Flush().ok());
  ASSERT_TRUE(db_->Put(WriteOptions(), handles_[1].get(), "t", "2").ok());
  ASSERT_TRUE(db_->CreateCheckpoint("/ckpt").ok());
  handles_.clear();
  db_.reset();
  path_ = "/ckpt";
  ASSERT_TRUE(OpenFamilies({"default", "reverse", "tight"}).ok());
  EXPECT_EQ(GetIn(handles_[1].get(), "r"), "1");
  EXPECT_EQ(GetIn(handles_[2].get(), "t"), "2");
}

TEST_F(ColumnFamilyTest, RepairRefusesADatabaseWithFamilies) {
  CreateTwo();
  ASSERT_TRUE(db_->Put(WriteOptions(), handles_[1].get(), "t", "1").ok());
  ASSERT_TRUE(db_->Flush().ok());
  handles_.clear();
  db_.reset();
  // Its tables do not say which family they hold: rebuilt into "default",
  // the keyspaces would mix.
  const absl::Status s = RepairDB(path_, options_);
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_NE(s.message().find("tight"), std::string::npos) << s;
  ASSERT_TRUE(OpenFamilies({"default", "reverse", "tight"}).ok());
  EXPECT_EQ(GetIn(handles_[2].get(), "t"), "1");  // nothing was changed
}

}  // namespace
}  // namespace sift
