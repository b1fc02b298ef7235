#include "sift/write_batch.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "db/memtable.h"
#include "db/write_batch_internal.h"
#include "sift/column_family.h"
#include "table/format.h"
#include "util/coding.h"

namespace sift {

WriteBatch::WriteBatch() { Clear(); }

WriteBatch::WriteBatch(size_t reserved_bytes) {
  rep_.reserve(WriteBatchInternal::kHeaderSize + reserved_bytes);
  Clear();
}

void WriteBatch::Clear() {
  rep_.clear();
  rep_.resize(WriteBatchInternal::kHeaderSize);
  status_ = absl::OkStatus();
  names_families_ = false;
}

bool WriteBatch::Admit(std::string_view key, std::string_view value) {
  if (!status_.ok()) return false;
  status_ = CheckEntrySize("WriteBatch", key, value);
  if (status_.ok() && Count() == UINT32_MAX) {
    status_ = absl::InvalidArgumentError(
        absl::StrCat("WriteBatch: full at ", Count(), " entries"));
  }
  return status_.ok();
}

uint32_t WriteBatch::Count() const { return DecodeFixed32(rep_.data() + 8); }

namespace {

// The entry tags of db/FORMAT.md ("WAL payload"): the default family's
// entries are tagged with their ValueType; another family's with these,
// followed by the family's ID.
constexpr char kFamilyValue = 3;
constexpr char kFamilyDeletion = 4;
constexpr char kFamilyRangeDeletion = 5;

uint32_t FamilyOf(const ColumnFamilyHandle* family) {
  return family == nullptr ? 0 : family->GetID();
}

}  // namespace

void WriteBatch::AddTag(uint32_t family, char default_tag, char family_tag) {
  WriteBatchInternal::SetCount(this, Count() + 1);
  if (family == 0) {
    rep_.push_back(default_tag);
  } else {
    rep_.push_back(family_tag);
    PutVarint32(&rep_, family);
    names_families_ = true;
  }
}

void WriteBatch::Put(std::string_view key, std::string_view value) {
  Put(nullptr, key, value);
}

void WriteBatch::Delete(std::string_view key) { Delete(nullptr, key); }

void WriteBatch::DeleteRange(std::string_view begin, std::string_view end) {
  DeleteRange(nullptr, begin, end);
}

void WriteBatch::Put(ColumnFamilyHandle* family, std::string_view key,
                     std::string_view value) {
  if (!Admit(key, value)) return;
  AddTag(FamilyOf(family), kTypeValue, kFamilyValue);
  PutLengthPrefixed(&rep_, key);
  PutLengthPrefixed(&rep_, value);
}

void WriteBatch::Delete(ColumnFamilyHandle* family, std::string_view key) {
  if (!Admit(key, {})) return;
  AddTag(FamilyOf(family), kTypeDeletion, kFamilyDeletion);
  PutLengthPrefixed(&rep_, key);
}

void WriteBatch::DeleteRange(ColumnFamilyHandle* family, std::string_view begin,
                             std::string_view end) {
  if (!status_.ok()) return;
  if (CompareUserKeys(begin, end) >= 0) {
    status_ = absl::InvalidArgumentError(absl::StrCat(
        "WriteBatch::DeleteRange: begin '",
        absl::CEscape(absl::string_view(begin.data(), begin.size())),
        "' is not before end '",
        absl::CEscape(absl::string_view(end.data(), end.size())), "'"));
    return;
  }
  status_ = CheckEntrySize("WriteBatch::DeleteRange", end, {});
  if (!Admit(begin, {})) return;
  AddTag(FamilyOf(family), kTypeRangeDeletion, kFamilyRangeDeletion);
  PutLengthPrefixed(&rep_, begin);
  PutLengthPrefixed(&rep_, end);
}

absl::Status WriteBatch::Iterate(Handler* handler) const {
  std::string_view input(rep_);
  if (input.size() < WriteBatchInternal::kHeaderSize) {
    return absl::DataLossError("write batch too small");
  }
  input.remove_prefix(WriteBatchInternal::kHeaderSize);
  uint32_t found = 0;
  std::string_view key, value;
  while (!input.empty()) {
    const char tag = input.front();
    input.remove_prefix(1);
    uint32_t family = 0;
    if ((tag == kFamilyValue || tag == kFamilyDeletion ||
         tag == kFamilyRangeDeletion) &&
        (!GetVarint32(&input, &family) || family == 0)) {
      return absl::DataLossError("bad column family in write batch");
    }
    switch (tag) {
      case kTypeValue:
      case kFamilyValue:
        if (!GetLengthPrefixed(&input, &key) ||
            !GetLengthPrefixed(&input, &value)) {
          return absl::DataLossError("bad Put entry in write batch");
        }
        if (family == 0) {
          handler->Put(key, value);
        } else {
          handler->PutCF(family, key, value);
        }
        break;
      case kTypeDeletion:
      case kFamilyDeletion:
        if (!GetLengthPrefixed(&input, &key)) {
          return absl::DataLossError("bad Delete entry in write batch");
        }
        if (family == 0) {
          handler->Delete(key);
        } else {
          handler->DeleteCF(family, key);
        }
        break;
      case kTypeRangeDeletion:
      case kFamilyRangeDeletion:
        if (!GetLengthPrefixed(&input, &key) ||
            !GetLengthPrefixed(&input, &value) ||
            CompareUserKeys(key, value) >= 0) {
          return absl::DataLossError("bad DeleteRange entry in write batch");
        }
        if (family == 0) {
          handler->DeleteRange(key, value);
        } else {
          handler->DeleteRangeCF(family, key, value);
        }
        break;
      default:
        return absl::DataLossError(absl::StrCat(
            "unknown entry tag ", static_cast<int>(tag), " in write batch"));
    }
    ++found;
  }
  if (found != Count()) {
    return absl::DataLossError(absl::StrCat(
        "write batch holds ", found, " entries but its header says ", Count()));
  }
  return absl::OkStatus();
}

void WriteBatchInternal::SetCount(WriteBatch* b, uint32_t n) {
  EncodeFixed32(&b->rep_[8], n);
}

SequenceNumber WriteBatchInternal::Sequence(const WriteBatch* b) {
  return DecodeFixed64(b->rep_.data());
}

void WriteBatchInternal::SetSequence(WriteBatch* b, SequenceNumber seq) {
  EncodeFixed64(&b->rep_[0], seq);
}

absl::Status WriteBatchInternal::SetContents(WriteBatch* b,
                                             std::string_view contents) {
  if (contents.size() < kHeaderSize) {
    return absl::DataLossError(absl::StrCat("write batch of ", contents.size(),
                                            " bytes is too small"));
  }
  b->rep_.assign(contents);
  b->names_families_ = true;  // not known without decoding it
  return absl::OkStatus();
}

namespace {

// Decodes entries and keeps nothing.
class NullHandler final : public WriteBatch::Handler {
 public:
  void Put(std::string_view, std::string_view) override {}
  void Delete(std::string_view) override {}
  void DeleteRange(std::string_view, std::string_view) override {}
};

// Applies each entry to its family's memtable: mems[id], skipping a family
// without one (dropped, when a log is replayed).
class MemTableInserter final : public WriteBatch::Handler {
 public:
  MemTableInserter(SequenceNumber seq, absl::Span<MemTable* const> mems)
      : sequence_(seq), mems_(mems) {}
  void Put(std::string_view key, std::string_view value) override {
    PutCF(0, key, value);
  }
  void Delete(std::string_view key) override { DeleteCF(0, key); }
  void DeleteRange(std::string_view begin, std::string_view end) override {
    DeleteRangeCF(0, begin, end);
  }
  void PutCF(uint32_t family, std::string_view key,
             std::string_view value) override {
    if (MemTable* mem = Of(family)) mem->Add(sequence_, kTypeValue, key, value);
    ++sequence_;
  }
  void DeleteCF(uint32_t family, std::string_view key) override {
    if (MemTable* mem = Of(family)) mem->Add(sequence_, kTypeDeletion, key, "");
    ++sequence_;
  }
  void DeleteRangeCF(uint32_t family, std::string_view begin,
                     std::string_view end) override {
    if (MemTable* mem = Of(family)) {
      mem->AddRangeTombstone(sequence_, begin, end);
    }
    ++sequence_;
  }

 private:
  MemTable* Of(uint32_t family) const {
    return family < mems_.size() ? mems_[family] : nullptr;
  }

  SequenceNumber sequence_;
  const absl::Span<MemTable* const> mems_;
};

}  // namespace

absl::Status WriteBatchInternal::Families(const WriteBatch* b,
                                          std::vector<FamilyUse>* uses) {
  class Finder final : public WriteBatch::Handler {
   public:
    explicit Finder(std::vector<FamilyUse>* uses) : uses_(uses) {}
    void Put(std::string_view, std::string_view) override { Use(0); }
    void Delete(std::string_view) override { Use(0); }
    void DeleteRange(std::string_view, std::string_view) override {
      Use(0)->range_deletion = true;
    }
    void PutCF(uint32_t family, std::string_view, std::string_view) override {
      Use(family);
    }
    void DeleteCF(uint32_t family, std::string_view) override { Use(family); }
    void DeleteRangeCF(uint32_t family, std::string_view,
                       std::string_view) override {
      Use(family)->range_deletion = true;
    }

   private:
    FamilyUse* Use(uint32_t family) {
      for (FamilyUse& u : *uses_) {
        if (u.family == family) return &u;
      }
      uses_->push_back(FamilyUse{family, false});
      return &uses_->back();
    }
    std::vector<FamilyUse>* const uses_;
  };
  uses->clear();
  Finder finder(uses);
  return b->Iterate(&finder);
}

absl::Status WriteBatchInternal::Verify(const WriteBatch* b) {
  NullHandler handler;
  return b->Iterate(&handler);
}

absl::Status WriteBatchInternal::InsertInto(const WriteBatch* b,
                                            MemTable* mem) {
  MemTable* const mems[] = {mem};
  return InsertInto(b, mems);
}

absl::Status WriteBatchInternal::InsertInto(const WriteBatch* b,
                                            absl::Span<MemTable* const> mems) {
  MemTableInserter inserter(Sequence(b), mems);
  return b->Iterate(&inserter);
}

void WriteBatch::Append(const WriteBatch& source) {
  if (!status_.ok()) return;  // adds nothing once an entry was refused
  if (source.Count() > UINT32_MAX - Count()) {
    status_ = absl::InvalidArgumentError(absl::StrCat(
        "WriteBatch: full at ", Count(), " + ", source.Count(), " entries"));
    return;
  }
  WriteBatchInternal::Append(this, &source);
  status_ = source.status_;
}

void WriteBatchInternal::Append(WriteBatch* dst, const WriteBatch* src) {
  SetCount(dst, dst->Count() + src->Count());
  dst->names_families_ |= src->names_families_;
  dst->rep_.append(src->rep_.data() + kHeaderSize,
                   src->rep_.size() - kHeaderSize);
}

}  // namespace sift
