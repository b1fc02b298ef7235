// Fuzz target: the input is an SSTable file (table/FORMAT.md). It is opened
// with Table::Open from an in-memory Env, iterated both ways, probed with
// Get, KeyMayMatch and Seek, verified, and opened again through the public
// SstFileReader; then the same again after FixTableChecksums, so mutations
// behind the checksums reach the block, index, filter and properties
// decoders.
//
// Owed on any input: no crash, leak or UB, and an error status rather than
// garbage where the damage is detectable. Checked beyond that, for a table
// VerifyChecksum accepts: it iterates without error both ways over the same
// strictly sorted internal keys; Table::Get finds the newest entry of each
// user key; and SstFileReader's user view (newest entry of each key,
// tombstones hidden) is exactly what those keys imply, both ways.

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sift/env.h"
#include "sift/sst_file_reader.h"
#include "table/internal_key.h"
#include "table/table.h"
#include "tests/fuzz/fuzz_common.h"
#include "util/hash.h"

namespace sift {
namespace {

constexpr char kPath[] = "/fuzz.sst";
// Enough for any input libFuzzer makes here (-max_len), so a pathological
// table cannot turn one run into a timeout.
constexpr size_t kMaxEntries = 20000;

using KVs = std::vector<std::pair<std::string, std::string>>;

KVs Scan(Iterator* it, bool forward) {
  KVs out;
  for (forward ? it->SeekToFirst() : it->SeekToLast();
       it->Valid() && out.size() < kMaxEntries;
       forward ? it->Next() : it->Prev()) {
    out.emplace_back(std::string(it->key()), std::string(it->value()));
  }
  return out;
}

// The user-key view of sorted internal entries: the newest entry of each
// user key, tombstones dropped.
KVs UserView(const KVs& internal) {
  KVs out;
  std::string_view last;
  bool have_last = false;
  for (const auto& [ikey, value] : internal) {
    ParsedInternalKey p;
    ParseInternalKey(ikey, &p);
    if (have_last && p.user_key == last) continue;
    last = p.user_key;
    have_last = true;
    if (p.type == kTypeValue) out.emplace_back(std::string(p.user_key), value);
  }
  return out;
}

bool StrictlySorted(const KVs& internal) {
  ParsedInternalKey p;
  for (size_t i = 0; i < internal.size(); ++i) {
    if (!ParseInternalKey(internal[i].first, &p)) return false;
    if (i > 0 &&
        KeyComparator::Internal(BytewiseComparator())
                .Compare(internal[i - 1].first, internal[i].first) >= 0) {
      return false;
    }
  }
  return true;
}

void Probe(const Table& t, const KVs& seen) {
  TableReadCounters counters;
  std::string value;
  const size_t step = seen.size() / 16 + 1;
  std::vector<std::string> users = {"", "zzz", std::string(20, '\xff')};
  for (size_t i = 0; i < seen.size(); i += step) {
    users.emplace_back(ExtractUserKey(seen[i].first));
  }
  std::unique_ptr<Iterator> it = t.NewIterator(ReadOptions());
  for (const std::string& user : users) {
    const uint64_t h = KeyHash(user);
    t.PrefetchFilter(h);
    (void)t.KeyMayMatch(h);
    std::string lookup;
    AppendInternalKey(&lookup, user, kMaxSequenceNumber, kValueTypeForSeek);
    Table::Lookup l;
    l.key = lookup;
    l.hash = h;
    l.value = &value;
    t.Get(ReadOptions(), &l, &counters);
    it->Seek(lookup);
    if (it->Valid()) it->Prev();
    if (it->Valid()) it->Next();
  }
}

// What a table VerifyChecksum accepts owes (FORMAT.md: sorted keys, index
// separators between blocks): iteration both ways over the same sorted,
// well-formed internal keys, and Get -- below the filter, which no check
// can vouch for -- finding the newest entry of each user key.
void CheckVerified(const Table& t, const KVs& forward, bool forward_ok,
                   KVs backward) {
  FUZZ_CHECK(forward_ok, "a verified table iterates without error");
  FUZZ_CHECK(StrictlySorted(forward), "a verified table's keys are sorted");
  std::reverse(backward.begin(), backward.end());
  FUZZ_CHECK(backward == forward, "a verified table iterates back the same");
  TableReadCounters counters;
  std::string value;
  std::string_view prev_user;
  for (size_t i = 0; i < forward.size(); ++i) {
    const std::string_view user = ExtractUserKey(forward[i].first);
    if (i > 0 && user == prev_user) continue;  // not the newest entry
    prev_user = user;
    std::string lookup;
    AppendInternalKey(&lookup, user, kMaxSequenceNumber, kValueTypeForSeek);
    Table::Lookup l;
    l.key = lookup;
    l.value = &value;
    l.use_filter = false;  // below the filter, as said above
    t.Get(ReadOptions(), &l, &counters);
    FUZZ_CHECK(l.status.ok(), "Get in a verified table");
    const Table::LookupResult result = l.result;
    ParsedInternalKey p;
    ParseInternalKey(forward[i].first, &p);
    if (p.type == kTypeValue) {
      FUZZ_CHECK(
          result == Table::LookupResult::kFound && value == forward[i].second,
          "Get finds the newest value");
    } else {
      FUZZ_CHECK(result == Table::LookupResult::kDeleted,
                 "Get finds the newest tombstone");
    }
  }
}

// Returns true if the table verified (so the user-view model applies).
bool CheckTable(const Table& t) {
  std::unique_ptr<Iterator> it = t.NewIterator(ReadOptions());
  const KVs forward = Scan(it.get(), true);
  const bool forward_ok = it->status().ok();
  const KVs backward = Scan(it.get(), false);
  Probe(t, forward);
  (void)t.properties().ToString();
  (void)t.filter().ExpectedFpRate();
  (void)t.IndexMemory();
  (void)t.Blocks();
  if (!t.VerifyChecksum().ok() || forward.size() >= kMaxEntries) return false;
  CheckVerified(t, forward, forward_ok, backward);
  return true;
}

// The public reader over the same file; returns its user view both ways.
void CheckReader(Env* env, const KVs& internal, bool model_holds) {
  Options options;
  options.env = env;
  options.block_cache_capacity = 4096;  // small: exercise eviction
  SstFileReader reader(options);
  if (!reader.Open(kPath).ok()) return;
  (void)reader.GetProperties().ToString();
  std::unique_ptr<Iterator> it = reader.NewIterator(ReadOptions());
  KVs forward = Scan(it.get(), true);
  KVs backward = Scan(it.get(), false);
  std::string value;
  for (size_t i = 0; i < forward.size() && i < 16; ++i) {
    (void)reader.KeyMayMatch(forward[i].first);
    (void)reader.Get(ReadOptions(), forward[i].first, &value);
    it->Seek(forward[i].first);
    if (it->Valid()) it->Prev();
    if (it->Valid()) it->Next();
  }
  (void)reader.VerifyChecksum();
  if (!model_holds) return;
  const KVs expected = UserView(internal);
  FUZZ_CHECK(forward == expected, "user view forward");
  std::reverse(backward.begin(), backward.end());
  FUZZ_CHECK(backward == expected, "user view backward");
}

void OpenAndRead(const std::string& bytes) {
  std::unique_ptr<Env> env = NewMemEnv();
  if (!WriteStringToFile(env.get(), bytes, kPath, false).ok()) return;
  auto file = env->NewRandomAccessFile(kPath);
  if (!file.ok()) return;
  BlockCache cache(8192);
  auto table = Table::Open(kPath, *std::move(file), bytes.size(), &cache,
                           BytewiseComparator());
  if (!table.ok()) return;
  const Table& t = **table;
  const bool verified = CheckTable(t);
  std::unique_ptr<Iterator> it = t.NewIterator(ReadOptions());
  const KVs forward = Scan(it.get(), true);
  CheckReader(env.get(), forward, verified);
}

}  // namespace
}  // namespace sift

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(sift::fuzz::AsView(data, size));
  sift::OpenAndRead(bytes);
  std::string fixed = bytes;
  sift::fuzz::FixTableChecksums(&fixed);
  if (fixed != bytes) sift::OpenAndRead(fixed);
  return 0;
}
