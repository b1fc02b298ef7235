// Fuzz target: the input is a WAL payload, a WriteBatch (db/FORMAT.md, "WAL
// payload"), decoded with WriteBatchInternal::SetContents and Iterate.
//
// Checked beyond memory safety: a batch that decodes has exactly Count()
// entries; rebuilding it through the public Put/Delete gives a batch that
// decodes to the same entries, sequence and count in no more bytes; and
// applied to a MemTable, every key then reads as its last write.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "db/memtable.h"
#include "db/statistics_impl.h"
#include "db/write_batch_internal.h"
#include "sift/column_family.h"
#include "sift/write_batch.h"
#include "tests/fuzz/fuzz_common.h"
#include "util/hash.h"

namespace sift {
namespace {

struct Op {
  enum Kind { kDelete, kPut, kDeleteRange } kind;
  std::string key, value;  // a DeleteRange's begin and end
  uint32_t family = 0;     // the column family's ID (0: "default")
  bool operator==(const Op& o) const = default;
};

// Every entry, of every column family.
class Collector final : public WriteBatch::Handler {
 public:
  void Put(std::string_view key, std::string_view value) override {
    PutCF(0, key, value);
  }
  void Delete(std::string_view key) override { DeleteCF(0, key); }
  void DeleteRange(std::string_view begin, std::string_view end) override {
    DeleteRangeCF(0, begin, end);
  }
  void PutCF(uint32_t family, std::string_view key,
             std::string_view value) override {
    ops.push_back({Op::kPut, std::string(key), std::string(value), family});
  }
  void DeleteCF(uint32_t family, std::string_view key) override {
    ops.push_back({Op::kDelete, std::string(key), "", family});
  }
  void DeleteRangeCF(uint32_t family, std::string_view begin,
                     std::string_view end) override {
    ops.push_back(
        {Op::kDeleteRange, std::string(begin), std::string(end), family});
  }
  std::vector<Op> ops;
};

// A handle naming a family by ID, for rebuilding a batch.
class FamilyById final : public ColumnFamilyHandle {
 public:
  explicit FamilyById(uint32_t id) : id_(id) {}
  const std::string& GetName() const override { return name_; }
  uint32_t GetID() const override { return id_; }

 private:
  const uint32_t id_;
  const std::string name_ = "fuzz";
};

void CheckRebuild(const WriteBatch& batch, const std::vector<Op>& ops) {
  WriteBatch rebuilt;
  for (const Op& op : ops) {
    FamilyById family(op.family);
    switch (op.kind) {
      case Op::kPut:
        rebuilt.Put(&family, op.key, op.value);
        break;
      case Op::kDelete:
        rebuilt.Delete(&family, op.key);
        break;
      case Op::kDeleteRange:
        rebuilt.DeleteRange(&family, op.key, op.value);
        break;
    }
  }
  WriteBatchInternal::SetSequence(&rebuilt,
                                  WriteBatchInternal::Sequence(&batch));
  Collector again;
  FUZZ_CHECK(rebuilt.Iterate(&again).ok(), "a rebuilt batch decodes");
  FUZZ_CHECK(again.ops == ops, "rebuilt entries");
  FUZZ_CHECK(rebuilt.Count() == batch.Count(), "rebuilt count");
  FUZZ_CHECK(WriteBatchInternal::Sequence(&rebuilt) ==
                 WriteBatchInternal::Sequence(&batch),
             "rebuilt sequence");
  // Lengths are re-encoded as minimal varints: never longer than input.
  FUZZ_CHECK(rebuilt.ApproximateSize() <= batch.ApproximateSize(),
             "rebuilt size");
}

void CheckMemTable(const WriteBatch& batch, const std::vector<Op>& ops) {
  const SequenceNumber first = WriteBatchInternal::Sequence(&batch);
  // Sequences are 56 bits; a batch beyond them has no memtable meaning.
  if (first > kMaxSequenceNumber - ops.size()) return;
  MemTable mem(KeyComparator::Internal(BytewiseComparator()), 1024, 6);
  static StatisticsImpl* const stats = new StatisticsImpl;
  LocalStats local(stats);
  FUZZ_CHECK(WriteBatchInternal::InsertInto(&batch, &mem).ok(), "InsertInto");
  // InsertInto(batch, mem) applies the default family's entries only.
  std::map<std::string, std::optional<std::string>> last;
  for (const Op& op : ops) {
    if (op.family != 0) continue;
    if (op.kind == Op::kDeleteRange) {
      for (auto it = last.lower_bound(op.key);
           it != last.end() && it->first < op.value; ++it) {
        it->second = std::nullopt;
      }
      continue;
    }
    last[op.key] = op.kind == Op::kPut ? std::optional<std::string>(op.value)
                                       : std::nullopt;
  }
  for (const auto& [key, value] : last) {
    LookupKey lk(key, kMaxSequenceNumber);
    std::string got;
    SequenceNumber covering = 0;
    const MemTable::GetResult r =
        mem.Get(lk, KeyHash(key), &got, &local, &covering);
    if (value.has_value()) {
      FUZZ_CHECK(r == MemTable::GetResult::kFound && got == *value,
                 "memtable holds the last Put");
    } else {
      FUZZ_CHECK(r == MemTable::GetResult::kDeleted,
                 "memtable holds the last Delete or DeleteRange");
    }
  }
}

}  // namespace
}  // namespace sift

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sift;
  WriteBatch batch;
  if (!WriteBatchInternal::SetContents(&batch, fuzz::AsView(data, size)).ok()) {
    FUZZ_CHECK(size < WriteBatchInternal::kHeaderSize, "SetContents refused");
    return 0;
  }
  Collector collected;
  if (!batch.Iterate(&collected).ok()) return 0;
  FUZZ_CHECK(collected.ops.size() == batch.Count(), "entries == Count()");
  CheckRebuild(batch, collected.ops);
  CheckMemTable(batch, collected.ops);
  return 0;
}
