#include "table/global_sequence_iterator.h"

#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"

namespace sift {
namespace {

class GlobalSequenceIterator final : public Iterator {
 public:
  GlobalSequenceIterator(std::unique_ptr<Iterator> base,
                         const KeyComparator& icmp, SequenceNumber seq)
      : base_(std::move(base)), icmp_(icmp), seq_(seq) {}

  bool Valid() const override { return base_->Valid(); }
  void SeekToFirst() override {
    base_->SeekToFirst();
    Update();
  }
  void SeekToLast() override {
    base_->SeekToLast();
    Update();
  }
  void Seek(std::string_view target) override {
    // The stored (k, 0) sorts after every (k, s); shown as (k, seq_) it
    // sorts before the target (k, s) when seq_ > s, so it is skipped.
    base_->Seek(target);
    Update();
    if (Valid() &&
        icmp_.SameUser(ExtractUserKey(key_), ExtractUserKey(target)) &&
        seq_ > (ExtractTrailer(target) >> kValueTypeBits)) {
      Next();
    }
  }
  void Next() override {
    base_->Next();
    Update();
  }
  void Prev() override {
    base_->Prev();
    Update();
  }
  std::string_view key() const override { return key_; }
  std::string_view value() const override { return base_->value(); }
  absl::Status status() const override { return base_->status(); }

 private:
  // Rewrites the current key's trailer: the global sequence, its own type.
  void Update() {
    if (!base_->Valid()) return;
    const std::string_view k = base_->key();
    if (k.size() < kInternalKeyTrailerSize) {
      key_.assign(k);  // malformed: left for the reader to report
      return;
    }
    const auto type =
        static_cast<ValueType>(ExtractTrailer(k) & kValueTypeMask);
    key_.clear();
    AppendInternalKey(&key_, ExtractUserKey(k), seq_, type);
  }

  const std::unique_ptr<Iterator> base_;
  const KeyComparator icmp_;
  const SequenceNumber seq_;
  std::string key_;
};

}  // namespace

std::unique_ptr<Iterator> NewGlobalSequenceIterator(
    std::unique_ptr<Iterator> base, const KeyComparator& icmp,
    SequenceNumber global_sequence) {
  return std::make_unique<GlobalSequenceIterator>(std::move(base), icmp,
                                                  global_sequence);
}

}  // namespace sift
