// What the DB needs of a WriteBatch beyond the public API: its sequence
// number, its raw bytes (the WAL payload of db/FORMAT.md) and applying it to
// a memtable.

#ifndef SIFT_DB_WRITE_BATCH_INTERNAL_H_
#define SIFT_DB_WRITE_BATCH_INTERNAL_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "sift/write_batch.h"
#include "table/internal_key.h"

namespace sift {

class MemTable;

class WriteBatchInternal {
 public:
  // fixed64 sequence + fixed32 count.
  static constexpr size_t kHeaderSize = 12;

  static void SetCount(WriteBatch* b, uint32_t n);
  static SequenceNumber Sequence(const WriteBatch* b);
  static void SetSequence(WriteBatch* b, SequenceNumber seq);

  static std::string_view Contents(const WriteBatch* b) { return b->rep_; }
  // False only if every entry is of the default family.
  static bool NamesFamilies(const WriteBatch* b) { return b->names_families_; }
  static size_t ByteSize(const WriteBatch* b) { return b->rep_.size(); }
  // Replaces b's contents with bytes read from a WAL. DataLoss if they are
  // too short for the header; the entries are checked by Iterate.
  static absl::Status SetContents(WriteBatch* b, std::string_view contents);

  // OK if every entry decodes and their number matches the header; the
  // DataLoss of Iterate otherwise. Applies nothing.
  static absl::Status Verify(const WriteBatch* b);

  // Applies the batch to mem with sequences Sequence(b), +1, ...; only
  // the default family's entries (the others take their sequences).
  static absl::Status InsertInto(const WriteBatch* b, MemTable* mem);
  // The same for every family: an entry of family id goes to mems[id],
  // and is skipped (taking its sequence) when there is no such memtable.
  static absl::Status InsertInto(const WriteBatch* b,
                                 absl::Span<MemTable* const> mems);

  // The families b writes, each once, in order of first use, and whether
  // it holds a DeleteRange in each; the DataLoss of Iterate if malformed.
  struct FamilyUse {
    uint32_t family;
    bool range_deletion;
  };
  static absl::Status Families(const WriteBatch* b,
                               std::vector<FamilyUse>* uses);

  // Appends src's entries to dst.
  static void Append(WriteBatch* dst, const WriteBatch* src);
};

}  // namespace sift

#endif  // SIFT_DB_WRITE_BATCH_INTERNAL_H_
