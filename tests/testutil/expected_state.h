// ExpectedState: what a DB must hold after a failure, for crash and fault
// tests.
//
// The model is a base state (verified to be in the DB) followed by the
// writes made since, in order. Each write is one WriteBatch (a single Put
// is a batch of one). After a crash or an injected error the DB must hold
// exactly the state after some prefix of those writes:
//   - the prefix covers every write marked durable (acknowledged, for a
//     process crash; synced, for a machine crash, which makes every write
//     before it durable too);
//   - a write is all or nothing (a batch is never torn);
//   - nothing is reordered and there are no holes: if a write survived,
//     every earlier one did.
// Verify reads every key the model knows, and iterates the whole DB to catch
// keys nobody wrote, then finds the prefixes consistent with what it saw.

#ifndef SIFT_TESTS_TESTUTIL_EXPECTED_STATE_H_
#define SIFT_TESTS_TESTUTIL_EXPECTED_STATE_H_

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sift/db.h"
#include "sift/write_batch.h"
#include "util/random.h"

namespace sift::test {

// One write: its operations in order; a nullopt value is a Delete.
using WriteOps =
    std::vector<std::pair<std::string, std::optional<std::string>>>;

WriteBatch ToBatch(const WriteOps& ops);

// A random write on keys "key%06u" below key_space: one operation, or (one
// write in five) a batch of 2 to max_batch. One operation in eight is a
// Delete; each value starts "w<n>-" with n = ++*last_id, so it is unique,
// then 20 to 199 bytes of padding.
WriteOps RandomWrite(Random* rnd, uint32_t key_space, int max_batch,
                     uint64_t* last_id);

class ExpectedState {
 public:
  // The model owns the keys starting with key_prefix (all keys by
  // default); several models with disjoint prefixes can share one DB, one
  // per writer thread.
  explicit ExpectedState(std::string key_prefix = "")
      : prefix_(std::move(key_prefix)) {}

  // Appends a write. Every key must start with the model's prefix. durable: it
  // (and so every write before it) must be found after the crash.
  void Add(WriteOps ops, bool durable);
  // Marks every write added so far as durable.
  void MarkAllDurable() { must_ = writes_.size(); }

  // Checks db against the model (see above). On success folds the prefix
  // that was found into the base, so later writes extend from there, and
  // sets *found (if given) to the number of writes since the last Verify
  // that the DB holds. On failure the message names a key and what was
  // expected.
  absl::Status Verify(DB* db, size_t* found = nullptr);

  size_t pending_writes() const { return writes_.size(); }
  size_t durable_writes() const { return must_; }
  const std::map<std::string, std::string>& base() const { return base_; }

 private:
  using Seen = std::map<std::string, std::optional<std::string>>;

  // Reads every key the model knows (Get) and the model's key range
  // (iterator); they must agree.
  absl::Status ReadKeys(DB* db, Seen* seen) const;
  // The longest m >= must_ such that the DB holds exactly the first m
  // writes, or an error naming keys that disagree.
  absl::StatusOr<size_t> LongestConsistentPrefix(const Seen& seen) const;
  // The value of key after the first m writes.
  std::optional<std::string> ValueAfter(const std::string& key, size_t m) const;
  // Adds to count[m] for every m in [must_, writes_.size()] at which key
  // would hold `seen`.
  void CountConsistentPrefixes(const std::string& key,
                               const std::optional<std::string>& seen,
                               std::vector<int>* count) const;

  std::string prefix_;
  std::map<std::string, std::string> base_;
  std::vector<WriteOps> writes_;
  size_t must_ = 0;  // writes_[0, must_) must be present
  // Per key: indices into writes_ of the writes that touch it.
  std::map<std::string, std::vector<size_t>> touched_;
};

}  // namespace sift::test

#endif  // SIFT_TESTS_TESTUTIL_EXPECTED_STATE_H_
