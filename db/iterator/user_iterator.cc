#include "db/iterator/user_iterator.h"

#include <string>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace sift {
namespace {

class UserIterator final : public Iterator {
 public:
  UserIterator(KeyComparator icmp, std::unique_ptr<Iterator> iter,
               SequenceNumber sequence,
               std::shared_ptr<const FragmentedRangeTombstones> range,
               UserKeyBounds bounds)
      : icmp_(icmp),
        iter_(std::move(iter)),
        sequence_(sequence),
        range_(std::move(range)),
        bounds_(std::move(bounds)) {
    if (range_ != nullptr && range_->empty()) range_.reset();
  }

  bool Valid() const override { return valid_; }
  // Forward: the internal iterator sits on the entry shown. Reverse: it
  // sits just before all entries of the key shown, which is saved here.
  std::string_view key() const override {
    return direction_ == kForward ? ExtractUserKey(iter_->key())
                                  : std::string_view(saved_key_);
  }
  std::string_view value() const override {
    return direction_ == kForward ? iter_->value()
                                  : std::string_view(saved_value_);
  }
  // The error that stopped the iterator, kept until the next seek (a
  // restart of the internal iterator may clear its own).
  absl::Status status() const override { return status_; }

  void SeekToFirst() override {
    if (bounds_.lower.has_value()) return Seek(*bounds_.lower);
    status_ = absl::OkStatus();
    direction_ = kForward;
    saved_value_.clear();
    iter_->SeekToFirst();
    FindNextUserEntry(false);
  }

  void SeekToLast() override {
    status_ = absl::OkStatus();
    direction_ = kReverse;
    saved_value_.clear();
    if (bounds_.upper.has_value()) {
      // Onto the last entry of a key below the bound: the one before the
      // first entry of the bound's key or above.
      saved_key_.clear();
      AppendInternalKey(&saved_key_, *bounds_.upper, kMaxSequenceNumber,
                        kValueTypeForSeek);
      iter_->Seek(saved_key_);
      saved_key_.clear();
      if (iter_->Valid()) {
        iter_->Prev();
      } else if (!StoppedByError()) {
        iter_->SeekToLast();
      } else {
        return;
      }
    } else {
      iter_->SeekToLast();
    }
    FindPrevUserEntry();
  }

  void Seek(std::string_view target) override {
    status_ = absl::OkStatus();
    direction_ = kForward;
    saved_value_.clear();
    saved_key_.clear();
    if (bounds_.lower.has_value() &&
        icmp_.CompareUser(target, *bounds_.lower) < 0) {
      target = *bounds_.lower;
    }
    AppendInternalKey(&saved_key_, target, sequence_, kValueTypeForSeek);
    iter_->Seek(saved_key_);
    FindNextUserEntry(false);
  }

  void Next() override;
  void Prev() override;

 private:
  enum Direction { kForward, kReverse };

  // Parses the internal iterator's key; on failure stops with DataLoss.
  bool Parse(ParsedInternalKey* parsed) {
    if (ParseInternalKey(iter_->key(), parsed)) return true;
    const std::string_view k = iter_->key();
    Stop(absl::DataLossError(absl::StrCat(
        "malformed internal key '",
        absl::CEscape(absl::string_view(k.data(), k.size())), "'")));
    return false;
  }

  // Makes the iterator invalid with s: no half-assembled entry survives.
  void Stop(absl::Status s) {
    status_ = std::move(s);
    valid_ = false;
    saved_key_.clear();
    saved_value_.clear();
    direction_ = kForward;
  }

  // The internal iterator is !Valid(): true (after stopping) if that is an
  // error rather than an end.
  bool StoppedByError() {
    if (iter_->status().ok()) return false;
    Stop(iter_->status());
    return true;
  }

  bool AtOrAboveUpper(std::string_view user_key) const {
    return bounds_.upper.has_value() &&
           icmp_.CompareUser(user_key, *bounds_.upper) >= 0;
  }
  bool BelowLower(std::string_view user_key) const {
    return bounds_.lower.has_value() &&
           icmp_.CompareUser(user_key, *bounds_.lower) < 0;
  }

  // A tombstone, or an entry a visible range tombstone deletes.
  bool Deleted(const ParsedInternalKey& k) const {
    return k.type == kTypeDeletion ||
           (range_ != nullptr &&
            range_->MaxCoveringSeq(k.user_key, sequence_) > k.sequence);
  }

  void FindNextUserEntry(bool skipping);
  void FindPrevUserEntry();

  const KeyComparator icmp_;
  const std::unique_ptr<Iterator> iter_;
  const SequenceNumber sequence_;
  std::shared_ptr<const FragmentedRangeTombstones> range_;  // null: none
  const UserKeyBounds bounds_;
  Direction direction_ = kForward;
  bool valid_ = false;
  std::string saved_key_;  // reverse: the key shown; forward: a key to skip
  std::string saved_value_;
  absl::Status status_;
};

// Moves forward to the first visible entry; with `skipping`, entries of user
// keys <= saved_key_ are hidden (already shown, or deleted).
void UserIterator::FindNextUserEntry(bool skipping) {
  ParsedInternalKey ikey;
  for (; iter_->Valid(); iter_->Next()) {
    if (!Parse(&ikey)) return;
    // Past the upper bound: the end, nothing beyond it is read.
    if (AtOrAboveUpper(ikey.user_key)) break;
    if (ikey.sequence > sequence_) continue;
    if (Deleted(ikey)) {
      saved_key_.assign(ikey.user_key);
      skipping = true;
    } else if (!skipping || icmp_.CompareUser(ikey.user_key, saved_key_) > 0) {
      valid_ = true;
      saved_key_.clear();
      return;
    }
  }
  if (StoppedByError()) return;
  saved_key_.clear();
  valid_ = false;
}

void UserIterator::Next() {
  if (direction_ == kReverse) {
    // The internal iterator is before the entries of saved_key_: move onto
    // them, then skip them all.
    direction_ = kForward;
    if (!iter_->Valid()) {
      // Before the first entry (an error would have stopped the iterator).
      iter_->SeekToFirst();
    } else {
      iter_->Next();
    }
    if (!iter_->Valid()) {
      if (StoppedByError()) return;
      valid_ = false;
      saved_key_.clear();
      return;
    }
  } else {
    saved_key_.assign(ExtractUserKey(iter_->key()));
    iter_->Next();
  }
  FindNextUserEntry(true);
}

void UserIterator::Prev() {
  if (direction_ == kForward) {
    // Back up to before every entry of the current key.
    saved_key_.assign(ExtractUserKey(iter_->key()));
    while (true) {
      iter_->Prev();
      if (!iter_->Valid()) {
        if (StoppedByError()) return;
        valid_ = false;
        saved_key_.clear();
        saved_value_.clear();
        return;
      }
      if (icmp_.CompareUser(ExtractUserKey(iter_->key()), saved_key_) < 0) {
        break;
      }
    }
    direction_ = kReverse;
  }
  FindPrevUserEntry();
}

// Moves backward and collects, in saved_key_/saved_value_, the newest
// visible entry of the previous user key that is not deleted.
void UserIterator::FindPrevUserEntry() {
  ValueType value_type = kTypeDeletion;
  ParsedInternalKey ikey;
  for (; iter_->Valid(); iter_->Prev()) {
    if (!Parse(&ikey)) return;
    // Below the lower bound: the key collected so far (if any) is the last
    // one shown, and nothing before the bound is read.
    if (BelowLower(ikey.user_key)) break;
    if (ikey.sequence > sequence_) continue;
    // Entries of one user key arrive oldest first when moving backward; a
    // smaller user key means the previous key's entries are complete.
    if (value_type != kTypeDeletion &&
        icmp_.CompareUser(ikey.user_key, saved_key_) < 0) {
      break;
    }
    value_type = Deleted(ikey) ? kTypeDeletion : kTypeValue;
    if (value_type == kTypeDeletion) {
      saved_key_.clear();
      saved_value_.clear();
    } else {
      saved_key_.assign(ikey.user_key);
      saved_value_.assign(iter_->value());
    }
  }
  // Stopped at an error, the entry collected so far may be an older version
  // of a key whose newer ones were not reached: it must not be shown.
  if (!iter_->Valid() && StoppedByError()) return;
  if (value_type == kTypeDeletion) {
    valid_ = false;
    saved_key_.clear();
    saved_value_.clear();
    direction_ = kForward;
  } else {
    valid_ = true;
  }
}

}  // namespace

std::unique_ptr<Iterator> NewUserIterator(
    KeyComparator icmp, std::unique_ptr<Iterator> internal,
    SequenceNumber sequence,
    std::shared_ptr<const FragmentedRangeTombstones> range_tombstones,
    UserKeyBounds bounds) {
  return std::make_unique<UserIterator>(icmp, std::move(internal), sequence,
                                        std::move(range_tombstones),
                                        std::move(bounds));
}

}  // namespace sift
