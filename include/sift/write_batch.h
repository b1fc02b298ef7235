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

class ColumnFamilyHandle;

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

  // The same, in a column family (sift/column_family.h); null means the
  // default family. One DB::Write of the batch is atomic across every
  // family it names, also across a crash. The family is named by its ID:
  // a handle of another DB, or of a family dropped before the Write, makes
  // the Write InvalidArgument (nothing written).
  void Put(ColumnFamilyHandle* family, std::string_view key,
           std::string_view value);
  void Delete(ColumnFamilyHandle* family, std::string_view key);
  void DeleteRange(ColumnFamilyHandle* family, std::string_view begin,
                   std::string_view end);

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
    // Entries of a column family other than "default", by its ID (the
    // default family's go to Put, Delete and DeleteRange). The defaults
    // skip them (passing an ID of 0 on to Put, Delete and DeleteRange),
    // so a Handler that does not override these sees the default family
    // only.
    virtual void PutCF(uint32_t family, std::string_view key,
                       std::string_view value) {
      if (family == 0) Put(key, value);
    }
    virtual void DeleteCF(uint32_t family, std::string_view key) {
      if (family == 0) Delete(key);
    }
    virtual void DeleteRangeCF(uint32_t family, std::string_view begin,
                               std::string_view end) {
      if (family == 0) DeleteRange(begin, end);
    }
  };
  absl::Status Iterate(Handler* handler) const;

 private:
  friend class WriteBatchInternal;
  // False, setting status_, if the entry must not be added.
  bool Admit(std::string_view key, std::string_view value);
  // Adds the tag of an entry of `family`: the default family's entries
  // keep the single-family tags, others get the family tags with the ID.
  void AddTag(uint32_t family, char default_tag, char family_tag);

  std::string rep_;  // the WAL payload format of db/FORMAT.md
  absl::Status status_;
  // Some entry may be of a family besides "default" (so DB::Write checks
  // the families it names).
  bool names_families_ = false;
};

}  // namespace sift

#endif  // SIFT_INCLUDE_WRITE_BATCH_H_
