// The compaction's drop rules (DropRules in db/compaction/compaction_job.h)
// called directly, table-driven in the manner of Pebble's datadriven tests.
// A case gives the live snapshots, the input in the order a compaction
// reads it, which user keys no level below the output holds ("bottom"),
// and which entries a range tombstone hides from every reader ("covered");
// it expects each entry's fate:
//
//   input    "a#5=SET a#3=SET a#1=DEL b#4=SET"
//   expected "a#5 keep, a#3 shadowed, a#1 shadowed, b#4 keep"
//
// A fate is keep, shadowed, bottom (a point tombstone every reader sees,
// dropped at the bottom) or range (range-deleted for every reader).

#include <charconv>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "db/compaction/compaction_job.h"
#include "db/dbformat.h"
#include "gtest/gtest.h"

namespace sift {
namespace {

struct Case {
  const char* name;
  std::vector<SequenceNumber> snapshots;
  const char* input;
  std::set<std::string> bottom;   // user keys with nothing below the output
  std::set<std::string> covered;  // "key#seq" hidden by a range tombstone
  const char* expected;
};

struct Entry {
  std::string user_key;
  SequenceNumber sequence;
  ValueType type;
  std::string label;  // "key#seq"
};

// Parses "key#seq=SET|DEL ..."; fails the test on a malformed entry.
std::vector<Entry> ParseInput(std::string_view input) {
  std::vector<Entry> entries;
  for (absl::string_view split :
       absl::StrSplit(absl::string_view(input.data(), input.size()), ' ',
                      absl::SkipEmpty())) {
    const std::string_view piece(split.data(), split.size());
    const size_t hash = piece.find('#');
    const size_t eq = piece.find('=');
    EXPECT_TRUE(hash != std::string_view::npos &&
                eq != std::string_view::npos && hash < eq)
        << piece;
    if (hash == std::string_view::npos || eq == std::string_view::npos) {
      return {};
    }
    Entry e;
    e.user_key.assign(piece.substr(0, hash));
    const std::string_view seq = piece.substr(hash + 1, eq - hash - 1);
    const auto [end, error] =
        std::from_chars(seq.data(), seq.data() + seq.size(), e.sequence);
    EXPECT_TRUE(error == std::errc() && end == seq.data() + seq.size())
        << piece;
    const std::string_view type = piece.substr(eq + 1);
    EXPECT_TRUE(type == "SET" || type == "DEL") << piece;
    e.type = type == "DEL" ? kTypeDeletion : kTypeValue;
    e.label.assign(piece.substr(0, eq));
    entries.push_back(std::move(e));
  }
  return entries;
}

const char* FateName(DropReason r) {
  switch (r) {
    case DropReason::kKeep:
      return "keep";
    case DropReason::kShadowed:
      return "shadowed";
    case DropReason::kTombstoneAtBottom:
      return "bottom";
    case DropReason::kRangeDeleted:
      return "range";
  }
  return "?";
}

// Runs the rules over the case's input; the fates, and how often each
// question was asked.
struct Outcome {
  std::string fates;
  int base_level_asked = 0;
  int range_asked = 0;
};

Outcome RunRules(const Case& c) {
  Outcome out;
  DropRules rules(c.snapshots);
  std::vector<std::string> fates;
  std::string previous_key;
  bool first = true;
  for (const Entry& e : ParseInput(c.input)) {
    const ParsedInternalKey parsed{e.user_key, e.sequence, e.type};
    const bool new_key = first || e.user_key != previous_key;
    first = false;
    previous_key = e.user_key;
    const DropReason r = rules.Next(
        parsed, new_key,
        [&] {
          ++out.base_level_asked;
          return c.bottom.count(e.user_key) > 0;
        },
        [&] {
          ++out.range_asked;
          return c.covered.count(e.label) > 0;
        });
    fates.push_back(absl::StrCat(e.label, " ", FateName(r)));
  }
  out.fates = absl::StrJoin(fates, ", ");
  return out;
}

const Case kCases[] = {
    {"without snapshots only the newest version stays",
     {},
     "a#5=SET a#3=SET a#1=SET",
     {},
     {},
     "a#5 keep, a#3 shadowed, a#1 shadowed"},
    {"a snapshot keeps the version it sees",
     {3},
     "a#5=SET a#3=SET a#1=SET",
     {},
     {},
     "a#5 keep, a#3 keep, a#1 shadowed"},
    {"a snapshot between versions sees the older one",
     {4},
     "a#5=SET a#3=SET a#1=SET",
     {},
     {},
     "a#5 keep, a#3 keep, a#1 shadowed"},
    {"a snapshot at the newest sequence sees only the newest",
     {5},
     "a#5=SET a#3=SET a#1=SET",
     {},
     {},
     "a#5 keep, a#3 shadowed, a#1 shadowed"},
    {"a snapshot below every version sees none",
     {0},
     "a#5=SET a#3=SET",
     {},
     {},
     "a#5 keep, a#3 shadowed"},
    {"two snapshots keep two older versions",
     {1, 3},
     "a#5=SET a#3=SET a#2=SET a#1=SET",
     {},
     {},
     "a#5 keep, a#3 keep, a#2 shadowed, a#1 keep"},
    {"a dropped version still hides the ones below it from newer "
     "snapshots",
     {2},
     "a#5=SET a#4=SET a#2=SET",
     {},
     {},
     "a#5 keep, a#4 shadowed, a#2 keep"},
    {"each key starts its own run",
     {4},
     "a#5=SET b#3=SET b#2=SET c#9=SET",
     {},
     {},
     "a#5 keep, b#3 keep, b#2 shadowed, c#9 keep"},
    {"a tombstone at the bottom goes, with what it shadows",
     {},
     "a#5=DEL a#3=SET",
     {"a"},
     {},
     "a#5 bottom, a#3 shadowed"},
    {"a tombstone above older data stays",
     {},
     "a#5=DEL a#3=SET",
     {},
     {},
     "a#5 keep, a#3 shadowed"},
    {"a tombstone a snapshot does not see stays at the bottom",
     {4},
     "a#5=DEL a#3=SET",
     {"a"},
     {},
     "a#5 keep, a#3 keep"},
    {"a tombstone every snapshot sees goes at the bottom",
     {6, 9},
     "a#5=DEL a#3=SET",
     {"a"},
     {},
     "a#5 bottom, a#3 shadowed"},
    {"a tombstone at the oldest snapshot goes at the bottom",
     {5},
     "a#5=DEL a#3=SET",
     {"a"},
     {},
     "a#5 bottom, a#3 shadowed"},
    {"a shadowed tombstone is shadowed, not at the bottom",
     {},
     "a#7=SET a#5=DEL",
     {"a"},
     {},
     "a#7 keep, a#5 shadowed"},
    {"a range tombstone drops what it hides",
     {},
     "a#5=SET b#2=SET c#1=SET",
     {},
     {"b#2"},
     "a#5 keep, b#2 range, c#1 keep"},
    {"a range tombstone drops a point tombstone above other data",
     {},
     "a#5=DEL a#3=SET",
     {},
     {"a#5"},
     "a#5 range, a#3 shadowed"},
};

class DropRulesTest : public ::testing::TestWithParam<Case> {};

TEST_P(DropRulesTest, EachEntryMeetsItsFate) {
  const Case& c = GetParam();
  EXPECT_EQ(RunRules(c).fates, c.expected) << c.name << "\n  input " << c.input;
}

INSTANTIATE_TEST_SUITE_P(Cases, DropRulesTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return absl::StrCat("case", info.index);
                         });

TEST(DropRulesQuestionsTest, AskedOnlyWhenTheAnswerMatters) {
  // The base-level question costs a search of the levels below and the
  // range question a search of the tombstones: neither is asked for an
  // entry already shadowed, and the base level only for a tombstone every
  // reader sees.
  const Case c = {
      "",         {4}, "a#5=SET a#3=SET a#1=SET b#6=DEL b#2=DEL c#3=DEL",
      {"b", "c"}, {},  ""};
  const Outcome out = RunRules(c);
  EXPECT_EQ(out.fates,
            "a#5 keep, a#3 keep, a#1 shadowed, b#6 keep, b#2 bottom, "
            "c#3 bottom");
  // b#2 and c#3, the tombstones at or below the oldest snapshot (4); not
  // b#6, which snapshot 4 does not see.
  EXPECT_EQ(out.base_level_asked, 2);
  // a#5, a#3 and b#6: the entries no other rule dropped.
  EXPECT_EQ(out.range_asked, 3);
}

}  // namespace
}  // namespace sift
