// Fuzz target: DB::Open recovery (db/db_impl/db_impl_recovery.cc,
// VersionSet::Recover) from a fuzzed MANIFEST and WAL in an in-memory Env.
//
// Input: fixed16 n | n bytes of MANIFEST-000001 | the rest, 000002.log.
// Both go through FixLogChecksums first (log_reader_fuzz covers the raw
// bytes), so the edits and batches inside reach VersionSet and the
// memtable. CURRENT names the MANIFEST when n > 0.
//
// Checked beyond memory safety: Open fails only with DataLoss,
// Unimplemented or FailedPrecondition; a DB that opens holds exactly what
// replaying the WAL implies (for every key, its entry with the highest
// sequence, tombstones hidden) when the MANIFEST's log number lets the WAL
// replay and the batches' sequences are unambiguous; and a write made after
// Open survives a flush, a full compaction and a reopen.

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "db/log_reader.h"
#include "db/version_edit.h"
#include "db/write_batch_internal.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/write_batch.h"
#include "tests/fuzz/fuzz_common.h"

namespace sift {
namespace {

constexpr char kDb[] = "/db";
constexpr uint64_t kWalNumber = 2;

// The user view the WAL implies; nullopt when recovery may legitimately
// differ (ambiguous or out-of-range sequences, or a record recovery would
// refuse, or a log number that skips the WAL).
using Model = std::map<std::string, std::optional<std::string>>;

class ModelBuilder final : public WriteBatch::Handler {
 public:
  void Put(std::string_view key, std::string_view value) override {
    Add(key, std::string(value));
  }
  void Delete(std::string_view key) override { Add(key, std::nullopt); }
  // The model follows point writes only: a log with a range deletion is
  // left to the range-deletion tests (range_delete_test.cc).
  void DeleteRange(std::string_view, std::string_view) override {
    ambiguous = true;
    ++seq;
  }

  SequenceNumber seq = 0;
  bool ambiguous = false;
  std::map<std::string, std::pair<SequenceNumber, std::optional<std::string>>>
      newest;

 private:
  void Add(std::string_view key, std::optional<std::string> value) {
    auto [it, fresh] = newest.try_emplace(std::string(key), seq, value);
    if (!fresh) {
      if (it->second.first == seq) ambiguous = true;
      if (seq > it->second.first) it->second = {seq, std::move(value)};
    }
    ++seq;
  }
};

// The log number the MANIFEST ends with (0 if it cannot be read).
uint64_t ManifestLogNumber(const std::string& manifest) {
  log::Reader reader(manifest, "MANIFEST");
  std::string scratch;
  std::string_view record;
  uint64_t log_number = 0;
  while (reader.ReadRecord(&record, &scratch)) {
    VersionEdit edit;
    if (!edit.DecodeFrom(record).ok()) return 0;
    if (edit.log_number_) log_number = *edit.log_number_;
  }
  return log_number;
}

std::optional<Model> ExpectedContents(const std::string& manifest,
                                      const std::string& wal) {
  if (ManifestLogNumber(manifest) > kWalNumber) return Model();
  ModelBuilder b;
  log::Reader reader(wal, "WAL");
  std::string scratch;
  std::string_view record;
  while (reader.ReadRecord(&record, &scratch)) {
    WriteBatch batch;
    if (!WriteBatchInternal::SetContents(&batch, record).ok()) {
      return std::nullopt;
    }
    b.seq = WriteBatchInternal::Sequence(&batch);
    if (b.seq > kMaxSequenceNumber - batch.Count()) return std::nullopt;
    if (!batch.Iterate(&b).ok()) return std::nullopt;
  }
  if (!reader.status().ok() || b.ambiguous) return std::nullopt;
  Model m;
  for (auto& [key, entry] : b.newest) m[key] = std::move(entry.second);
  return m;
}

Options FuzzOptions(Env* env) {
  Options o;
  o.env = env;
  o.create_if_missing = true;
  o.write_buffer_size = 16 << 10;  // recovery may flush mid-log
  o.block_size = 256;
  return o;
}

void CheckContents(DB* db, const Model& model) {
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
  auto m = model.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
    while (m != model.end() && !m->second.has_value()) ++m;
    FUZZ_CHECK(
        m != model.end() && it->key() == m->first && it->value() == *m->second,
        "the DB holds what the WAL implies");
  }
  FUZZ_CHECK(it->status().ok(), it->status().ToString());
  while (m != model.end() && !m->second.has_value()) ++m;
  FUZZ_CHECK(m == model.end(), "the DB misses keys the WAL holds");
  std::string value;
  for (const auto& [key, expected] : model) {
    const absl::Status s = db->Get(ReadOptions(), key, &value);
    FUZZ_CHECK(expected.has_value() ? s.ok() && value == *expected
                                    : absl::IsNotFound(s),
               "Get agrees with the WAL");
  }
}

void Run(std::string_view input) {
  if (input.size() < 2) return;
  const size_t n = std::min<size_t>(
      static_cast<uint8_t>(input[0]) | static_cast<uint8_t>(input[1]) << 8,
      input.size() - 2);
  std::string manifest(input.substr(2, n));
  std::string wal(input.substr(2 + n));
  fuzz::FixLogChecksums(&manifest);
  fuzz::FixLogChecksums(&wal);

  std::unique_ptr<Env> env = NewMemEnv();
  FUZZ_CHECK(env->CreateDir(kDb).ok(), "CreateDir");
  if (!manifest.empty()) {
    FUZZ_CHECK(
        WriteStringToFile(env.get(), "MANIFEST-000001\n", "/db/CURRENT", false)
            .ok(),
        "write CURRENT");
    FUZZ_CHECK(
        WriteStringToFile(env.get(), manifest, "/db/MANIFEST-000001", false)
            .ok(),
        "write MANIFEST");
  }
  FUZZ_CHECK(WriteStringToFile(env.get(), wal, "/db/000002.log", false).ok(),
             "write WAL");

  const Options options = FuzzOptions(env.get());
  {
    auto db = DB::Open(options, kDb);
    if (!db.ok()) {
      const absl::StatusCode c = db.status().code();
      // A MANIFEST whose comparator name was changed names another
      // comparator: InvalidArgument naming both, as for a real one.
      const bool comparator_mismatch =
          c == absl::StatusCode::kInvalidArgument &&
          absl::StrContains(db.status().message(), "with comparator");
      // A first record without siftdb's format version (tag 8) is not one
      // siftdb wrote: InvalidArgument saying it is another engine's.
      const bool foreign =
          c == absl::StatusCode::kInvalidArgument &&
          absl::StrContains(db.status().message(), "not a siftdb database");
      FUZZ_CHECK(c == absl::StatusCode::kDataLoss ||
                     c == absl::StatusCode::kUnimplemented ||
                     c == absl::StatusCode::kFailedPrecondition ||
                     comparator_mismatch || foreign,
                 db.status().ToString());
      return;
    }
    const std::optional<Model> model = ExpectedContents(manifest, wal);
    if (model.has_value()) CheckContents(db->get(), *model);
    FUZZ_CHECK((*db)->Put(WriteOptions(), "\xff-fuzz", "after open").ok(),
               "Put after Open");
    FUZZ_CHECK((*db)->Flush().ok(), "Flush");
    FUZZ_CHECK((*db)->CompactRange(std::nullopt, std::nullopt).ok(),
               "CompactRange");
  }
  auto db = DB::Open(options, kDb);
  FUZZ_CHECK(db.ok(), "reopen: " + db.status().ToString());
  std::string value;
  FUZZ_CHECK((*db)->Get(ReadOptions(), "\xff-fuzz", &value).ok() &&
                 value == "after open",
             "a write after Open survives reopen");
}

}  // namespace
}  // namespace sift

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sift::Run(sift::fuzz::AsView(data, size));
  return 0;
}
