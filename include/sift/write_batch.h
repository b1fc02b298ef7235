// WriteBatch: a group of Puts, Deletes and DeleteRanges applied atomically
// by DB::Write.
// After a crash a batch is either wholly present or wholly absent; entries
// apply in the order added (a later Put of the same key wins).
//
// A WriteBatch is not thread-safe; DB::Write may be called with batches
// from many threads at once (they are committed in groups).

#ifndef SIFT_INCLUDE_WRITE_BATCH_H_
#define SIFT_INCLUDE_WRITE_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace sift {

class WriteBatch {
 public:
  WriteBatch();
  // Reserves room for about reserved_bytes of entries up front (as in
  // RocksDB), so a batch of known size grows without reallocating.
  explicit WriteBatch(size_t reserved_bytes);
  WriteBatch(const WriteBatch&) = default;
  WriteBatch& operator=(const WriteBatch&) = default;
  ~WriteBatch() = default;

  // A key larger than kMaxKeySize or a value larger than kMaxValueSize
  // (sift/options.h) is not added: the batch keeps its entries and status()
  // turns InvalidArgument, naming the size; later calls then add nothing
  // and DB::Write refuses the batch whole, writing nothing. Clear() resets.
  void Put(std::string_view key, std::string_view value);
  void Delete(std::string_view key);
  // Removes every key in [begin, end) (half-open, as RocksDB's DeleteRange)
  // that is in the DB when the batch is written or earlier in this batch;
  // a later Put in the batch of a key in the range survives. begin >= end
  // (bytewise) is refused like an oversized entry: status() turns
  // InvalidArgument naming both keys. Both keys are limited to kMaxKeySize.
  void DeleteRange(std::string_view begin, std::string_view end);

  // Adds source's entries after this batch's, as LevelDB's Append. If
  // source refused an entry, this batch takes its status(), so DB::Write
  // refuses it too.
  void Append(const WriteBatch& source);

  // OK, or the error that stopped the batch accepting entries.
  const absl::Status& status() const { return status_; }
  // Removes every entry and clears status().
  void Clear();

  // Number of Puts, Deletes and DeleteRanges.
  uint32_t Count() const;
  // Bytes the batch takes in the write-ahead log (db/FORMAT.md).
  size_t ApproximateSize() const { return rep_.size(); }

  // Visits the entries in order. DataLoss if the batch is malformed (only
  // possible for one decoded from damaged bytes).
  class Handler {
   public:
    virtual ~Handler() = default;
    virtual void Put(std::string_view key, std::string_view value) = 0;
    virtual void Delete(std::string_view key) = 0;
    virtual void DeleteRange(std::string_view begin, std::string_view end) = 0;
  };
  absl::Status Iterate(Handler* handler) const;

 private:
  friend class WriteBatchInternal;
  // False, setting status_, if the entry must not be added.
  bool Admit(std::string_view key, std::string_view value);

  std::string rep_;  // the WAL payload format of db/FORMAT.md
  absl::Status status_;
};

}  // namespace sift

#endif  // SIFT_INCLUDE_WRITE_BATCH_H_
