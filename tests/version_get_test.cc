// Version::Get and Version::MultiGet called directly, table-driven in the
// manner of Pebble's datadriven tests: each case lays files out level by
// level in a small text form and lists reads with the answers they owe.
//
//   "L0: b#9=b9 | L1: a#5=a5 b#3=DEL [c,e)#7 | L2: c#2=c2"
//
// A file is "L<level>:" and then entries "<key>#<seq>=<value>" (the value
// DEL: a point tombstone) and range tombstones "[<begin>,<end>)#<seq>";
// "|" separates files, and level-0 files are listed newest first. A read
// "<key>@<seq>" expects a value, "DELETED" (an entry was found, and it is
// a tombstone or covered by a range tombstone) or "NOT_FOUND" (no file
// decided). Every case runs through Get and through MultiGet, with the
// tables pinned and from the LRU, and the two calls must count the same
// filter answers.

#include <algorithm>
#include <charconv>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "db/builder.h"
#include "db/dbformat.h"
#include "db/statistics_impl.h"
#include "db/table_cache.h"
#include "db/version.h"
#include "gtest/gtest.h"
#include "sift/env.h"
#include "table/internal_key.h"
#include "util/hash.h"

namespace sift {
namespace {

// The pieces of s between separators, empty ones dropped.
std::vector<std::string_view> Split(std::string_view s, char separator) {
  std::vector<std::string_view> pieces;
  while (!s.empty()) {
    const size_t end = std::min(s.find(separator), s.size());
    if (end > 0) pieces.push_back(s.substr(0, end));
    s.remove_prefix(std::min(end + 1, s.size()));
  }
  return pieces;
}

// The number s spells in full, or nullopt.
std::optional<uint64_t> Number(std::string_view s) {
  uint64_t n = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (error != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return n;
}

struct Case {
  const char* name;
  const char* files;
  std::vector<std::pair<std::string, std::string>> reads;  // read, answer
};

class VersionGetTest : public ::testing::Test {
 protected:
  VersionGetTest()
      : env_(NewMemEnv()),
        block_cache_(1 << 20),
        cache_("/db", env_.get(), 100, &block_cache_, false,
               BytewiseComparator(), nullptr) {
    options_.env = env_.get();
    EXPECT_TRUE(env_->CreateDir("/db").ok());
  }

  // Writes the files of `layout` and returns the Version holding them.
  std::shared_ptr<Version> Build(std::string_view layout) {
    auto v = std::make_shared<Version>(
        KeyComparator::Internal(BytewiseComparator()));
    for (std::string_view spec : Split(layout, '|')) {
      const std::vector<std::string_view> tokens = Split(spec, ' ');
      EXPECT_FALSE(tokens.empty());
      const std::string_view head = tokens[0];
      const std::optional<uint64_t> parsed_level =
          head.size() > 2 && head.front() == 'L' && head.back() == ':'
              ? Number(head.substr(1, head.size() - 2))
              : std::nullopt;
      EXPECT_TRUE(parsed_level.has_value()) << spec;
      const int level = static_cast<int>(parsed_level.value_or(0));
      std::map<std::string, std::string, InternalOrder> entries;
      std::vector<RangeTombstone> tombstones;
      for (size_t i = 1; i < tokens.size(); ++i) {
        std::string_view t = tokens[i];
        const size_t hash = t.find('#');
        EXPECT_NE(hash, std::string_view::npos) << t;
        std::string_view rest = t.substr(hash + 1);
        if (t.front() == '[') {
          const size_t comma = t.find(',');
          const size_t close = t.find(")#");
          RangeTombstone r;
          r.begin = std::string(t.substr(1, comma - 1));
          r.end = std::string(t.substr(comma + 1, close - comma - 1));
          const std::optional<uint64_t> seq = Number(rest);
          EXPECT_TRUE(seq.has_value()) << tokens[i];
          r.seq = seq.value_or(0);
          tombstones.push_back(std::move(r));
          continue;
        }
        const size_t eq = rest.find('=');
        const std::optional<uint64_t> seq = Number(rest.substr(0, eq));
        EXPECT_TRUE(seq.has_value()) << t;
        const std::string_view value = rest.substr(eq + 1);
        std::string ikey;
        AppendInternalKey(&ikey, t.substr(0, hash), seq.value_or(0),
                          value == "DEL" ? kTypeDeletion : kTypeValue);
        entries[ikey] = value == "DEL" ? "" : std::string(value);
      }
      absl::StatusOr<std::unique_ptr<OutputFile>> out = OutputFile::Create(
          "/db", env_.get(), options_, TableFamily(), ++next_number_, level);
      EXPECT_TRUE(out.ok()) << out.status();
      for (const auto& [k, value] : entries) {
        EXPECT_TRUE((*out)->Add(k, value).ok());
      }
      for (const RangeTombstone& r : tombstones) (*out)->AddRangeTombstone(r);
      auto meta = std::make_shared<FileMetaData>();
      const absl::Status s = (*out)->Finish(&cache_, meta.get());
      EXPECT_TRUE(s.ok()) << s;
      v->files[level].push_back(std::move(meta));
    }
    v->BuildSearchIndex();
    return v;
  }

  // What Get answers for "<key>@<seq>".
  std::string Get(const Version& v, const std::string& read,
                  StatisticsImpl* stats) {
    const auto [user, seq] = ParseRead(read);
    const LookupKey lkey(user, seq);
    std::string value;
    absl::Status s;
    KeyLookup k;
    k.user_key = user;
    k.internal_key = lkey.internal_key();
    k.hash = KeyHash(user);
    k.value = &value;
    k.status = &s;
    LocalStats local(stats);
    const ReadContext ctx{ReadOptions(), &cache_, &local,
                          v.has_range_deletions};
    v.Get(ctx, &k);
    return Answer(k, s, value);
  }

  // What one MultiGet answers for each of `reads`, all at one sequence.
  std::vector<std::string> MultiGet(const Version& v,
                                    const std::vector<std::string>& reads,
                                    StatisticsImpl* stats) {
    const size_t n = reads.size();
    std::vector<std::unique_ptr<LookupKey>> lkeys;
    std::vector<std::string> users(n), values(n);
    std::vector<absl::Status> statuses(n);
    std::vector<KeyLookup> keys(n);
    std::vector<KeyLookup*> sorted;
    for (size_t i = 0; i < n; ++i) {
      const auto [user, seq] = ParseRead(reads[i]);
      users[i] = user;
      lkeys.push_back(std::make_unique<LookupKey>(users[i], seq));
      KeyLookup& k = keys[i];
      k.user_key = users[i];
      k.prefix = UserKeyPrefix(users[i]);
      k.internal_key = lkeys[i]->internal_key();
      k.hash = KeyHash(users[i]);
      k.value = &values[i];
      k.status = &statuses[i];
      sorted.push_back(&k);
    }
    std::sort(sorted.begin(), sorted.end(), KeyLookupLess{&v.icmp});
    LocalStats local(stats);
    const ReadContext ctx{ReadOptions(), &cache_, &local,
                          v.has_range_deletions};
    v.MultiGet(ctx, sorted);
    std::vector<std::string> answers;
    for (size_t i = 0; i < n; ++i) {
      answers.push_back(Answer(keys[i], statuses[i], values[i]));
    }
    return answers;
  }

  void Run(const Case& c) {
    SCOPED_TRACE(c.name);
    std::shared_ptr<Version> v = Build(c.files);
    for (const bool pinned : {true, false}) {
      SCOPED_TRACE(pinned ? "pinned tables" : "tables from the LRU");
      if (pinned) {
        v->pinned = cache_.Pinned(v->files);
      } else {
        v->pinned = PinnedTables();
      }
      StatisticsImpl by_get, by_multi_get;
      std::map<SequenceNumber, std::vector<size_t>> by_seq;
      for (size_t i = 0; i < c.reads.size(); ++i) {
        const auto& [read, want] = c.reads[i];
        EXPECT_EQ(Get(*v, read, &by_get), want) << "Get " << read;
        by_seq[ParseRead(read).second].push_back(i);
      }
      for (const auto& [seq, indexes] : by_seq) {
        std::vector<std::string> reads;
        for (size_t i : indexes) reads.push_back(c.reads[i].first);
        const std::vector<std::string> got = MultiGet(*v, reads, &by_multi_get);
        for (size_t j = 0; j < indexes.size(); ++j) {
          EXPECT_EQ(got[j], c.reads[indexes[j]].second)
              << "MultiGet " << reads[j];
        }
      }
      const Statistics a = by_get.Snapshot(), b = by_multi_get.Snapshot();
      for (Ticker t :
           {kBloomFilterChecked, kBloomFilterUseful, kBloomFilterFullPositive,
            kBloomFilterFullTruePositive}) {
        EXPECT_EQ(a.Get(t), b.Get(t)) << "ticker " << t;
      }
    }
  }

 private:
  struct InternalOrder {
    bool operator()(const std::string& a, const std::string& b) const {
      return KeyComparator::Internal(BytewiseComparator()).Compare(a, b) < 0;
    }
  };

  static std::pair<std::string, SequenceNumber> ParseRead(
      const std::string& read) {
    const size_t at = read.find('@');
    const std::optional<uint64_t> seq =
        Number(std::string_view(read).substr(at + 1));
    EXPECT_TRUE(seq.has_value()) << read;
    return {read.substr(0, at), seq.value_or(0)};
  }

  static std::string Answer(const KeyLookup& k, const absl::Status& s,
                            const std::string& value) {
    if (!s.ok()) return absl::StrCat("ERROR ", s.ToString());
    if (!k.done) return "NOT_FOUND";
    return k.found ? value : "DELETED";
  }

  std::unique_ptr<Env> env_;
  Options options_;
  BlockCache block_cache_;
  TableCache cache_;
  uint64_t next_number_ = 0;
};

TEST_F(VersionGetTest, Cases) {
  const Case cases[] = {
      {"newer levels shadow older ones, at each read's sequence",
       "L0: a#9=a9 | L1: a#5=a5 b#3=b3 | L2: b#1=b1 c#1=c1",
       {{"a@10", "a9"},
        {"a@9", "a9"},
        {"a@8", "a5"},
        {"a@4", "NOT_FOUND"},
        {"b@10", "b3"},
        {"b@2", "b1"},
        {"c@10", "c1"},
        {"d@10", "NOT_FOUND"},
        {"0@10", "NOT_FOUND"}}},
      {"a point tombstone decides, and hides older levels",
       "L1: a#5=DEL | L2: a#2=a2 b#2=b2",
       {{"a@10", "DELETED"}, {"a@4", "a2"}, {"b@10", "b2"}}},
      {"level-0 files overlap: newest first",
       "L0: a#8=a8 c#8=c8 | L0: a#6=a6 b#6=b6 | L1: b#2=b2 c#2=c2",
       {{"a@10", "a8"},
        {"a@7", "a6"},
        {"b@10", "b6"},
        {"b@5", "b2"},
        {"c@7", "c2"},
        {"c@1", "NOT_FOUND"}}},
      {"a newer file's range tombstone deletes what older files hold, "
       "though its filter rules the key out",
       "L1: [b,d)#7 x#7=x7 | L2: a#3=a3 b#3=b3 c#5=c5 d#3=d3",
       {{"a@10", "a3"},
        {"b@10", "DELETED"},
        {"c@10", "DELETED"},
        {"c@6", "c5"},
        {"d@10", "d3"},
        {"x@10", "x7"}}},
      {"a range tombstone and the entries it covers in one file",
       "L1: [a,c)#7 b#5=b5 b#9=b9",
       {{"b@10", "b9"},
        {"b@8", "DELETED"},
        {"b@6", "b5"},
        {"c@10", "NOT_FOUND"}}},
      {"a file of tombstones only, between newer and older entries",
       "L0: b#9=b9 | L1: [a,c)#5 | L2: b#2=b2",
       {{"b@10", "b9"}, {"b@8", "DELETED"}, {"b@4", "b2"}}},
      {"a level-0 tombstone over an older level-0 file",
       "L0: [a,z)#8 | L0: m#4=m4 | L1: n#9=n9",
       {{"m@10", "DELETED"}, {"m@7", "m4"}, {"n@10", "n9"}}},
      {"a tombstone reaches only keys in its own range",
       "L1: [a,c)#9 | L1: d#5=d5 | L2: b#1=b1 d#1=d1 e#1=e1",
       {{"b@10", "DELETED"}, {"d@10", "d5"}, {"e@10", "e1"}}},
      {"an older tombstone does not delete a newer entry below it",
       "L1: b#6=b6 | L2: [a,c)#4 b#2=b2",
       {{"b@10", "b6"}, {"b@5", "DELETED"}, {"b@3", "b2"}}},
  };
  for (const Case& c : cases) Run(c);
}

}  // namespace
}  // namespace sift
