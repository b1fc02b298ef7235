// A downstream program built against the installed siftdb package, using
// only the public headers: what a user of `cmake --install` can do, checked
// end to end. Exits non-zero, naming the failed check, on any failure.
//
//   consumer <scratch dir>
//
// 1. FilterPolicy, both layouts, p = 0.01: no false negatives, and the
//    measured false-positive rate within [0.5p, 1.15p].
// 2. SstFileWriter -> SstFileReader round trip of a few thousand keys: the
//    properties (fp chance, filter keys, entries), every Get, both
//    iteration directions, absent keys, VerifyChecksum.
// 3. DB: open (create, with a rate limiter), put, delete, get, flush,
//    close, reopen, get and MultiGet again, iterate; then DestroyDB.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/filter_policy.h"
#include "sift/iterator.h"
#include "sift/options.h"
#include "sift/rate_limiter.h"
#include "sift/sst_file_reader.h"
#include "sift/sst_file_writer.h"
#include "sift/statistics.h"
#include "sift/table_properties.h"

namespace {

int failures = 0;

bool Check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "consumer: FAILED: %s\n", what.c_str());
    ++failures;
  }
  return ok;
}

bool CheckOk(const absl::Status& s, const std::string& what) {
  return Check(s.ok(), what + ": " + s.ToString());
}

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%08d", i);
  return buf;
}

std::string Value(int i) { return "value-" + std::to_string(i * 7919); }

void CheckFilterPolicy(sift::FilterLayout layout, const char* name) {
  constexpr double kP = 0.01;
  constexpr int kKeys = 100000;
  constexpr int kProbes = 200000;
  auto policy = sift::FilterPolicy::Create(kP, layout);
  if (!CheckOk(policy.status(), std::string("FilterPolicy::Create ") + name)) {
    return;
  }
  std::vector<std::string> keys;
  for (int i = 0; i < kKeys; ++i) keys.push_back(Key(2 * i));
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  std::string filter;
  (*policy)->CreateFilter(absl::MakeConstSpan(views), &filter);

  int false_negatives = 0;
  for (const std::string& k : keys) {
    if (!(*policy)->KeyMayMatch(k, filter)) ++false_negatives;
  }
  int false_positives = 0;
  for (int i = 0; i < kProbes; ++i) {
    // Odd numbers and a disjoint prefix: never added.
    const std::string absent = i % 2 == 0 ? Key(2 * i + 1) : "x" + Key(i);
    if ((*policy)->KeyMayMatch(absent, filter)) ++false_positives;
  }
  const double rate = static_cast<double>(false_positives) / kProbes;
  std::printf("consumer: %s filter, p = %g: %.2f bits/key, FP %.4f%%\n", name,
              kP, 8.0 * static_cast<double>(filter.size()) / kKeys, 100 * rate);
  Check(false_negatives == 0, std::string(name) + ": no false negatives (" +
                                  std::to_string(false_negatives) + ")");
  Check(rate >= 0.5 * kP && rate <= 1.15 * kP,
        std::string(name) + ": FP rate " + std::to_string(rate) +
            " within [0.5p, 1.15p]");
}

void CheckSstRoundTrip(const std::string& dir) {
  constexpr int kKeys = 4000;
  const std::string path = dir + "/roundtrip.sst";
  sift::Options options;  // POSIX Env, the default fp chance 0.01
  sift::SstFileWriter writer(options);
  if (!CheckOk(writer.Open(path), "SstFileWriter::Open")) return;
  for (int i = 0; i < kKeys; ++i) {
    if (!CheckOk(writer.Put(Key(2 * i), Value(i)), "Put")) return;
  }
  if (!CheckOk(writer.Finish(), "SstFileWriter::Finish")) return;

  sift::SstFileReader reader(options);
  if (!CheckOk(reader.Open(path), "SstFileReader::Open")) return;
  const sift::TableProperties& p = reader.GetProperties();
  Check(p.bloom_filter_fp_chance == options.bloom_filter_fp_chance,
        "properties: fp chance " + std::to_string(p.bloom_filter_fp_chance));
  Check(p.num_entries == kKeys && p.filter_num_keys == kKeys,
        "properties: entries and filter keys");
  Check(p.filter_size > 0 && p.filter_bits_per_key > 8,
        "properties: a filter of ~10 bits per key");
  Check(p.smallest_key == Key(0) && p.largest_key == Key(2 * (kKeys - 1)),
        "properties: key range");
  CheckOk(reader.VerifyChecksum(), "VerifyChecksum");

  std::string value;
  int wrong = 0, absent_found = 0, filter_negatives = 0;
  for (int i = 0; i < kKeys; ++i) {
    if (!reader.Get(sift::ReadOptions(), Key(2 * i), &value).ok() ||
        value != Value(i)) {
      ++wrong;
    }
    if (!reader.KeyMayMatch(Key(2 * i))) ++filter_negatives;
    if (!absl::IsNotFound(
            reader.Get(sift::ReadOptions(), Key(2 * i + 1), &value))) {
      ++absent_found;
    }
  }
  Check(wrong == 0, "Get of every written key");
  Check(filter_negatives == 0, "KeyMayMatch has no false negatives");
  Check(absent_found == 0, "Get of absent keys is NotFound");

  std::unique_ptr<sift::Iterator> it = reader.NewIterator(sift::ReadOptions());
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
    if (it->key() != Key(2 * n) || it->value() != Value(n)) break;
  }
  Check(n == kKeys && it->status().ok(), "forward iteration");
  for (it->SeekToLast(); it->Valid(); it->Prev()) {
    if (it->key() != Key(2 * --n)) break;
  }
  Check(n == 0 && it->status().ok(), "backward iteration");
  std::printf("consumer: sst round trip of %d keys, %llu bytes of filter\n",
              kKeys, static_cast<unsigned long long>(p.filter_size));
}

// Puts, deletes, a flush and a reopen: the values must survive.
void CheckDb(const std::string& dir) {
  constexpr int kKeys = 3000;
  const std::string path = dir + "/db";
  sift::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 64 << 10;  // a few flushes to level 0
  // Flushes charged to a rate limiter (fast: it caps nothing here).
  const std::shared_ptr<sift::RateLimiter> limiter =
      sift::NewGenericRateLimiter(256 << 20);
  options.rate_limiter = limiter;
  {
    auto db = sift::DB::Open(options, path);
    if (!CheckOk(db.status(), "DB::Open (create)")) return;
    for (int i = 0; i < kKeys; ++i) {
      if (!CheckOk((*db)->Put(sift::WriteOptions(), Key(i), Value(i)),
                   "DB::Put")) {
        return;
      }
    }
    for (int i = 0; i < kKeys; i += 3) {
      CheckOk((*db)->Delete(sift::WriteOptions(), Key(i)), "DB::Delete");
    }
    CheckOk((*db)->Flush(), "DB::Flush");
    Check(limiter->GetTotalBytesThrough() > 0 &&
              (*db)->GetStatistics().Get(sift::kRateLimiterBytes) ==
                  static_cast<uint64_t>(limiter->GetTotalBytesThrough()),
          "flushes charged to Options::rate_limiter");
    // The last writes stay in the WAL only: reopen must replay them.
    CheckOk((*db)->Put(sift::WriteOptions(), "last", "in the log"), "Put");
  }
  auto db = sift::DB::Open(options, path);
  if (!CheckOk(db.status(), "DB::Open (reopen)")) return;
  std::string value;
  int wrong = 0;
  for (int i = 0; i < kKeys; ++i) {
    const absl::Status s = (*db)->Get(sift::ReadOptions(), Key(i), &value);
    if (i % 3 == 0 ? !absl::IsNotFound(s) : !s.ok() || value != Value(i)) {
      ++wrong;
    }
  }
  Check(wrong == 0, "every key reads back after reopen");
  // The same keys as one MultiGet batch.
  std::vector<std::string> batch;
  for (int i = 0; i < kKeys; ++i) batch.push_back(Key(i));
  const std::vector<std::string_view> keys(batch.begin(), batch.end());
  std::vector<std::string> values;
  const std::vector<absl::Status> statuses =
      (*db)->MultiGet(sift::ReadOptions(), keys, &values);
  wrong = statuses.size() == keys.size() && values.size() == keys.size()
              ? 0
              : kKeys;
  for (size_t i = 0; wrong == 0 && i < keys.size(); ++i) {
    const bool deleted = i % 3 == 0;
    if (deleted
            ? !absl::IsNotFound(statuses[i])
            : !statuses[i].ok() || values[i] != Value(static_cast<int>(i))) {
      ++wrong;
    }
  }
  Check(wrong == 0, "MultiGet of every key after reopen");
  Check((*db)->Get(sift::ReadOptions(), "last", &value).ok() &&
            value == "in the log",
        "a write only in the WAL survives reopen");
  std::unique_ptr<sift::Iterator> it = (*db)->NewIterator(sift::ReadOptions());
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
  Check(it->status().ok() && n == kKeys - (kKeys + 2) / 3 + 1,
        "iteration sees live keys only (" + std::to_string(n) + ")");
  Check((*db)->GetProperty("sift.stats").has_value(), "sift.stats");
  it.reset();
  db->reset();
  CheckOk(sift::DestroyDB(path, options), "DestroyDB");
  std::printf("consumer: db of %d keys survives reopen\n", kKeys);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <scratch dir>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  CheckFilterPolicy(sift::FilterLayout::kStandard, "standard");
  CheckFilterPolicy(sift::FilterLayout::kBlocked, "blocked");
  CheckSstRoundTrip(dir);
  CheckDb(dir);
  if (failures > 0) {
    std::fprintf(stderr, "consumer: %d checks failed\n", failures);
    return 1;
  }
  std::printf("consumer: ok\n");
  return 0;
}
