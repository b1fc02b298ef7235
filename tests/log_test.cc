// log::Writer and log::Reader (db/FORMAT.md, "Record format"): round trips
// of records of every awkward size, and what each kind of damage yields --
// a torn tail is dropped (OK), damage followed by valid records is DataLoss
// naming the file and the offset.

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "db/log_format.h"
#include "db/log_reader.h"
#include "db/log_writer.h"
#include "gtest/gtest.h"
#include "sift/env.h"
#include "tests/testutil/testutil.h"
#include "util/random.h"

namespace sift::log {
namespace {

// A WritableFile that appends to a string, optionally failing appends.
class StringSink final : public WritableFile {
 public:
  absl::Status Append(std::string_view data) override {
    if (fail_after_ >= 0 && appends_ >= fail_after_) {
      return absl::ResourceExhaustedError("sink full");
    }
    ++appends_;
    contents_.append(data);
    return absl::OkStatus();
  }
  absl::Status Flush() override { return absl::OkStatus(); }
  absl::Status Sync() override { return absl::OkStatus(); }
  absl::Status Close() override { return absl::OkStatus(); }

  std::string contents_;
  int fail_after_ = -1;  // appends allowed before failing; -1 = never fail
  int appends_ = 0;
};

// Reads every record of `contents`; `status` gets the reader's status.
std::vector<std::string> ReadAll(std::string_view contents,
                                 absl::Status* status = nullptr,
                                 bool* dropped = nullptr) {
  Reader reader(contents, "test.log");
  std::vector<std::string> out;
  std::string scratch;
  std::string_view record;
  while (reader.ReadRecord(&record, &scratch)) out.emplace_back(record);
  if (status != nullptr) *status = reader.status();
  if (dropped != nullptr) *dropped = reader.dropped_tail();
  return out;
}

// The seed of a randomized test, printed so a failure replays with
// SIFT_TEST_SEED.
uint64_t Seed(uint64_t fallback) {
  const uint64_t seed = test::TestSeed(fallback);
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  return seed;
}

std::string Pattern(size_t n, char seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(seed + i * 7);
  return s;
}

std::string WriteLog(const std::vector<std::string>& records,
                     std::vector<uint64_t>* ends = nullptr) {
  StringSink sink;
  Writer writer(&sink);
  for (const std::string& r : records) {
    EXPECT_TRUE(writer.AddRecord(r).ok());
    if (ends != nullptr) ends->push_back(sink.contents_.size());
  }
  EXPECT_EQ(writer.size(), sink.contents_.size());
  return sink.contents_;
}

TEST(LogTest, EmptyLogHasNoRecords) {
  absl::Status s;
  EXPECT_TRUE(ReadAll("", &s).empty());
  EXPECT_TRUE(s.ok());
}

TEST(LogTest, RoundTripsAwkwardSizes) {
  // Sizes around every boundary: empty, one byte, exactly filling a block
  // (header included), leaving fewer than 7 bytes (padding), and spanning
  // several blocks (FIRST, MIDDLE..., LAST).
  const size_t exact = kBlockSize - kHeaderSize;
  const std::vector<size_t> sizes = {
      0,         1,         100,       exact - 1, exact,
      exact + 1, exact - 6, exact - 7, exact - 8, 3 * kBlockSize + 17,
      0,         40000,     kBlockSize};
  std::vector<std::string> records;
  for (size_t i = 0; i < sizes.size(); ++i) {
    records.push_back(Pattern(sizes[i], static_cast<char>(i)));
  }
  const std::string log = WriteLog(records);
  absl::Status s;
  bool dropped = true;
  EXPECT_EQ(ReadAll(log, &s, &dropped), records);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_FALSE(dropped);
}

TEST(LogTest, FragmentLayoutMatchesTheSpec) {
  // FORMAT.md's worked example: 40000 bytes at offset 0 are a FIRST
  // fragment of 32761 bytes and a LAST fragment of 7239 bytes at 32768.
  const std::string log = WriteLog({std::string(40000, 'x')});
  ASSERT_EQ(log.size(), 40000 + 2 * kHeaderSize);
  EXPECT_EQ(static_cast<uint8_t>(log[6]), kFirstType);
  EXPECT_EQ(static_cast<uint8_t>(log[4]) | (static_cast<uint8_t>(log[5]) << 8),
            32761);
  EXPECT_EQ(static_cast<uint8_t>(log[kBlockSize + 6]), kLastType);
  EXPECT_EQ(static_cast<uint8_t>(log[kBlockSize + 4]) |
                (static_cast<uint8_t>(log[kBlockSize + 5]) << 8),
            7239);
  // A block with fewer than 7 bytes left is zero-padded.
  const std::string padded =
      WriteLog({std::string(kBlockSize - kHeaderSize - 3, 'a'), "b"});
  EXPECT_EQ(padded.substr(kBlockSize - 3, 3), std::string(3, '\0'));
  EXPECT_EQ(static_cast<uint8_t>(padded[kBlockSize + 6]), kFullType);
}

TEST(LogTest, WriterResumesAnExistingLog) {
  // A writer created with dest_length continues the block arithmetic.
  StringSink sink;
  {
    Writer w(&sink);
    ASSERT_TRUE(w.AddRecord(std::string(kBlockSize - 100, 'a')).ok());
  }
  Writer w(&sink, sink.contents_.size());
  ASSERT_TRUE(w.AddRecord(std::string(500, 'b')).ok());
  EXPECT_EQ(ReadAll(sink.contents_),
            (std::vector<std::string>{std::string(kBlockSize - 100, 'a'),
                                      std::string(500, 'b')}));
}

TEST(LogTest, EveryTruncationIsATornTail) {
  // Records spanning block boundaries, so cuts land in headers, payloads,
  // padding, and between fragments of one record.
  const std::vector<std::string> records = {
      "first", Pattern(kBlockSize - 20, 'a'),
      "x",     Pattern(2 * kBlockSize, 'b'),
      "",      "last one"};
  std::vector<uint64_t> ends;
  const std::string log = WriteLog(records, &ends);
  // Step through every byte near a record end or block boundary, and every
  // 97th byte elsewhere, to keep the test fast.
  auto interesting = [&](uint64_t cut) {
    for (uint64_t e : ends) {
      if (cut + 9 >= e && cut <= e + 9) return true;
    }
    const uint64_t in_block = cut % kBlockSize;
    return in_block < 9 || in_block > kBlockSize - 9 || cut % 97 == 0;
  };
  int checked = 0;
  for (uint64_t cut = 0; cut <= log.size(); ++cut) {
    if (!interesting(cut)) continue;
    ++checked;
    absl::Status s;
    bool dropped = false;
    const std::vector<std::string> got =
        ReadAll(std::string_view(log).substr(0, cut), &s, &dropped);
    ASSERT_TRUE(s.ok()) << "cut at " << cut << ": " << s;
    size_t complete = 0;
    while (complete < ends.size() && ends[complete] <= cut) ++complete;
    // Padding after a record's end is not needed to read the record.
    ASSERT_EQ(got.size(), complete) << "cut at " << cut;
    for (size_t i = 0; i < complete; ++i) ASSERT_EQ(got[i], records[i]);
    const bool at_boundary = complete > 0 && ends[complete - 1] == cut;
    if (cut == 0 || at_boundary) {
      EXPECT_FALSE(dropped) << cut;
    }
  }
  EXPECT_GT(checked, 500);
}

TEST(LogTest, ZeroFilledTailIsSkipped) {
  const std::vector<std::string> records = {"a", "bb", Pattern(1000, 'c')};
  std::string log = WriteLog(records);
  // A preallocating file system may leave zeros after the last write:
  // within the block, across a block, and a partial block.
  for (size_t zeros : {size_t{7}, size_t{100}, kBlockSize, kBlockSize + 3}) {
    absl::Status s;
    EXPECT_EQ(ReadAll(log + std::string(zeros, '\0'), &s), records) << zeros;
    EXPECT_TRUE(s.ok()) << zeros << ": " << s;
  }
}

TEST(LogTest, GarbageTailIsDropped) {
  const std::vector<std::string> records = {"a", "bb", "ccc"};
  const std::string log = WriteLog(records);
  Random rnd(Seed(301));
  for (int i = 0; i < 50; ++i) {
    std::string garbage;
    rnd.RandomString(1 + rnd.Uniform(200), &garbage);
    absl::Status s;
    bool dropped = false;
    EXPECT_EQ(ReadAll(log + garbage, &s, &dropped), records);
    EXPECT_TRUE(s.ok()) << s;
    EXPECT_TRUE(dropped);
  }
}

TEST(LogTest, FlipInTheMiddleIsDataLossNamingFileAndOffset) {
  std::vector<std::string> records;
  for (int i = 0; i < 200; ++i) records.push_back(Pattern(50 + i * 13, 'k'));
  std::vector<uint64_t> ends;
  const std::string log = WriteLog(records, &ends);
  Random rnd(Seed(302));
  // A flip anywhere before the last record: valid records follow.
  for (int trial = 0; trial < 300; ++trial) {
    const uint64_t pos = rnd.Uniform(static_cast<uint32_t>(ends[198]));
    // Block-end padding is never read, so a flip there changes nothing.
    if (kBlockSize - pos % kBlockSize < kHeaderSize) continue;
    std::string damaged = log;
    damaged[pos] ^= static_cast<char>(1 + rnd.Uniform(255));
    absl::Status s;
    const std::vector<std::string> got = ReadAll(damaged, &s);
    ASSERT_EQ(s.code(), absl::StatusCode::kDataLoss)
        << "flip at " << pos << ": " << s;
    // The damaged record's start, where the reader stopped.
    size_t record = 0;
    while (ends[record] <= pos) ++record;
    const uint64_t start = record == 0 ? 0 : ends[record - 1];
    EXPECT_NE(s.message().find("test.log"), absl::string_view::npos) << s;
    EXPECT_NE(s.message().find(absl::StrCat("at offset ", start, ",")),
              absl::string_view::npos)
        << "flip at " << pos << ": " << s;
    // Records before the damage come back intact; none after it.
    ASSERT_LE(got.size(), record);
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], records[i]);
  }
}

TEST(LogTest, FlipInTheLastRecordIsATornTail) {
  const std::vector<std::string> records = {"one", "two", Pattern(5000, 't')};
  std::vector<uint64_t> ends;
  const std::string log = WriteLog(records, &ends);
  for (uint64_t pos = ends[1]; pos < ends[2]; pos += 37) {
    std::string damaged = log;
    damaged[pos] ^= 0x40;
    absl::Status s;
    bool dropped = false;
    EXPECT_EQ(ReadAll(damaged, &s, &dropped),
              (std::vector<std::string>{"one", "two"}))
        << pos;
    EXPECT_TRUE(s.ok()) << s;
    EXPECT_TRUE(dropped);
  }
}

TEST(LogTest, MissingFragmentsAreDamage) {
  // A LAST fragment with no FIRST before it, followed by a valid record.
  const std::string big = Pattern(kBlockSize + 100, 'z');
  const std::string log = WriteLog({big, "after"});
  absl::Status s;
  const std::vector<std::string> got =
      ReadAll(std::string_view(log).substr(kBlockSize), &s);
  EXPECT_TRUE(got.empty());
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  // A FIRST fragment followed by a FULL one (the LAST went missing).
  std::string spliced = log.substr(0, kBlockSize) + WriteLog({"full"});
  EXPECT_TRUE(ReadAll(spliced, &s).empty());
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_NE(s.message().find("at offset 0,"), absl::string_view::npos) << s;
}

TEST(LogTest, ZeroedHeaderInTheMiddleOfABlockIsDamage) {
  // Zeros are padding only at a block's end or as a zero-filled tail. A
  // header zeroed mid-block with records after it, in the same block and
  // in later ones, is damage: skipping the rest of the block would replay
  // the later records with a hole before them. Block 0 ends with a record
  // boundary (and 3 bytes of padding), so block 1 starts with a whole
  // record, as often happens.
  std::vector<std::string> records;
  for (int i = 0; i < 20; ++i) records.push_back(Pattern(900, 'a' + i));
  records.push_back(
      Pattern(kBlockSize - 20 * (900 + kHeaderSize) - kHeaderSize - 3, 'f'));
  for (int i = 0; i < 20; ++i) records.push_back(Pattern(900, 'A' + i));
  std::vector<uint64_t> ends;
  const std::string log = WriteLog(records, &ends);
  ASSERT_EQ(ends[20], kBlockSize - 3);
  for (size_t r : {size_t{3}, size_t{15}, size_t{30}}) {
    std::string damaged = log;
    damaged.replace(ends[r - 1], kHeaderSize, kHeaderSize, '\0');
    absl::Status s;
    const std::vector<std::string> got = ReadAll(damaged, &s);
    ASSERT_EQ(s.code(), absl::StatusCode::kDataLoss) << "record " << r;
    EXPECT_NE(s.message().find(absl::StrCat("at offset ", ends[r - 1], ",")),
              absl::string_view::npos)
        << s;
    EXPECT_EQ(got,
              std::vector<std::string>(records.begin(), records.begin() + r));
  }
}

TEST(LogTest, TornTailWithLogLikePayloadIsATornTail) {
  // The last record's value is itself a log (say, a backup of one). Cut
  // anywhere inside it, the log-like bytes of its own payload must not be
  // taken for valid records after the damage.
  const std::vector<std::string> inner_records = {"x", Pattern(300, 'i'), "yy",
                                                  Pattern(5000, 'j')};
  const std::string inner = WriteLog(inner_records);
  const std::vector<std::string> records = {"one", "two", "value:" + inner};
  std::vector<uint64_t> ends;
  const std::string log = WriteLog(records, &ends);
  for (uint64_t cut = ends[1] + kHeaderSize + 10; cut < ends[2]; cut += 61) {
    absl::Status s;
    bool dropped = false;
    EXPECT_EQ(ReadAll(std::string_view(log).substr(0, cut), &s, &dropped),
              (std::vector<std::string>{"one", "two"}))
        << cut;
    ASSERT_TRUE(s.ok()) << "cut at " << cut << ": " << s;
    EXPECT_TRUE(dropped);
  }
}

TEST(LogTest, RandomRecordsRoundTrip) {
  Random rnd(Seed(303));
  std::vector<std::string> records;
  for (int i = 0; i < 500; ++i) {
    std::string r;
    rnd.RandomString(rnd.Skewed(17), &r);
    records.push_back(std::move(r));
  }
  absl::Status s;
  EXPECT_EQ(ReadAll(WriteLog(records), &s), records);
  EXPECT_TRUE(s.ok()) << s;
}

TEST(LogTest, FailedAppendLeavesATornTailAtWorst) {
  // Whatever prefix of a record's appends reached the file, the reader
  // returns the records before it and reports no DataLoss.
  const std::vector<std::string> before = {"a", Pattern(kBlockSize, 'b')};
  for (int allowed = 0; allowed < 8; ++allowed) {
    StringSink sink;
    Writer w(&sink);
    for (const std::string& r : before) ASSERT_TRUE(w.AddRecord(r).ok());
    sink.fail_after_ = sink.appends_ + allowed;
    const absl::Status add = w.AddRecord(Pattern(3 * kBlockSize, 'c'));
    EXPECT_FALSE(add.ok());
    absl::Status s;
    EXPECT_EQ(ReadAll(sink.contents_, &s), before) << allowed;
    EXPECT_TRUE(s.ok()) << s;
  }
}

}  // namespace
}  // namespace sift::log
