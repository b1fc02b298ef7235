#include "sift/write_batch.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "db/memtable.h"
#include "db/write_batch_internal.h"
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

void WriteBatch::Put(std::string_view key, std::string_view value) {
  if (!Admit(key, value)) return;
  WriteBatchInternal::SetCount(this, Count() + 1);
  rep_.push_back(static_cast<char>(kTypeValue));
  PutLengthPrefixed(&rep_, key);
  PutLengthPrefixed(&rep_, value);
}

void WriteBatch::Delete(std::string_view key) {
  if (!Admit(key, {})) return;
  WriteBatchInternal::SetCount(this, Count() + 1);
  rep_.push_back(static_cast<char>(kTypeDeletion));
  PutLengthPrefixed(&rep_, key);
}

void WriteBatch::DeleteRange(std::string_view begin, std::string_view end) {
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
  WriteBatchInternal::SetCount(this, Count() + 1);
  rep_.push_back(static_cast<char>(kTypeRangeDeletion));
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
    switch (tag) {
      case kTypeValue:
        if (!GetLengthPrefixed(&input, &key) ||
            !GetLengthPrefixed(&input, &value)) {
          return absl::DataLossError("bad Put entry in write batch");
        }
        handler->Put(key, value);
        break;
      case kTypeDeletion:
        if (!GetLengthPrefixed(&input, &key)) {
          return absl::DataLossError("bad Delete entry in write batch");
        }
        handler->Delete(key);
        break;
      case kTypeRangeDeletion:
        if (!GetLengthPrefixed(&input, &key) ||
            !GetLengthPrefixed(&input, &value) ||
            CompareUserKeys(key, value) >= 0) {
          return absl::DataLossError("bad DeleteRange entry in write batch");
        }
        handler->DeleteRange(key, value);
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

class MemTableInserter final : public WriteBatch::Handler {
 public:
  MemTableInserter(SequenceNumber seq, MemTable* mem)
      : sequence_(seq), mem_(mem) {}
  void Put(std::string_view key, std::string_view value) override {
    mem_->Add(sequence_++, kTypeValue, key, value);
  }
  void Delete(std::string_view key) override {
    mem_->Add(sequence_++, kTypeDeletion, key, "");
  }
  void DeleteRange(std::string_view begin, std::string_view end) override {
    mem_->AddRangeTombstone(sequence_++, begin, end);
  }

 private:
  SequenceNumber sequence_;
  MemTable* const mem_;
};

}  // namespace

bool WriteBatchInternal::HasRangeDeletion(const WriteBatch* b) {
  class Finder final : public WriteBatch::Handler {
   public:
    void Put(std::string_view, std::string_view) override {}
    void Delete(std::string_view) override {}
    void DeleteRange(std::string_view, std::string_view) override {
      found = true;
    }
    bool found = false;
  };
  Finder finder;
  return b->Iterate(&finder).ok() && finder.found;
}

absl::Status WriteBatchInternal::Verify(const WriteBatch* b) {
  NullHandler handler;
  return b->Iterate(&handler);
}

absl::Status WriteBatchInternal::InsertInto(const WriteBatch* b,
                                            MemTable* mem) {
  MemTableInserter inserter(Sequence(b), mem);
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
  dst->rep_.append(src->rep_.data() + kHeaderSize,
                   src->rep_.size() - kHeaderSize);
}

}  // namespace sift
