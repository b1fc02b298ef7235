#include "table/merging_iterator.h"

#include <utility>

#include "table/internal_key.h"

namespace sift {
namespace {

// A linear scan over the children picks the next key: the DB merges a
// handful of iterators (memtables, level-0 files, one per deeper level), for
// which a heap would not pay for itself.
class MergingIterator final : public Iterator {
 public:
  MergingIterator(KeyComparator icmp,
                  std::vector<std::unique_ptr<Iterator>> children)
      : icmp_(icmp), children_(std::move(children)) {}

  bool Valid() const override { return current_ != nullptr; }
  std::string_view key() const override { return current_->key(); }
  std::string_view value() const override { return current_->value(); }
  // The error that stopped the merge, kept until the next seek: moving the
  // other children (below) may re-seek the one that failed, which clears
  // its own status.
  absl::Status status() const override { return status_; }

  void SeekToFirst() override {
    status_ = absl::OkStatus();
    for (auto& c : children_) c->SeekToFirst();
    FindSmallest();
    direction_ = kForward;
  }
  void SeekToLast() override {
    status_ = absl::OkStatus();
    for (auto& c : children_) c->SeekToLast();
    FindLargest();
    direction_ = kReverse;
  }
  void Seek(std::string_view target) override {
    status_ = absl::OkStatus();
    for (auto& c : children_) c->Seek(target);
    FindSmallest();
    direction_ = kForward;
  }

  void Next() override {
    // In reverse, the other children sit before key(): move each to the
    // first entry after it so all are positioned forward.
    if (direction_ != kForward) {
      const std::string k(key());
      for (auto& c : children_) {
        if (c.get() == current_) continue;
        c->Seek(k);
        if (c->Valid() && icmp_.Compare(k, c->key()) == 0) c->Next();
      }
      direction_ = kForward;
    }
    current_->Next();
    FindSmallest();
  }

  void Prev() override {
    // In forward, the other children sit after key(): move each to the last
    // entry before it.
    if (direction_ != kReverse) {
      const std::string k(key());
      for (auto& c : children_) {
        if (c.get() == current_) continue;
        c->Seek(k);
        if (c->Valid()) {
          c->Prev();
        } else if (c->status().ok()) {
          c->SeekToLast();  // every entry of c is < k
        }                   // else FindLargest stops at c's error
      }
      direction_ = kReverse;
    }
    current_->Prev();
    FindLargest();
  }

 private:
  enum Direction { kForward, kReverse };

  void Stop(absl::Status s) {
    status_ = std::move(s);
    current_ = nullptr;
  }

  // Both stop the merge (Valid() false, status() the error) when a child
  // stopped on an error: going on without it would show older versions
  // of its keys, or keys it deleted, from the other children.
  void FindSmallest() {
    Iterator* smallest = nullptr;
    for (auto& c : children_) {
      if (!c->Valid()) {
        if (!c->status().ok()) {
          Stop(c->status());
          return;
        }
      } else if (smallest == nullptr ||
                 icmp_.Compare(c->key(), smallest->key()) < 0) {
        smallest = c.get();
      }
    }
    current_ = smallest;
  }

  void FindLargest() {
    Iterator* largest = nullptr;
    for (auto it = children_.rbegin(); it != children_.rend(); ++it) {
      Iterator* c = it->get();
      if (!c->Valid()) {
        if (!c->status().ok()) {
          Stop(c->status());
          return;
        }
      } else if (largest == nullptr ||
                 icmp_.Compare(c->key(), largest->key()) > 0) {
        largest = c;
      }
    }
    current_ = largest;
  }

  const KeyComparator icmp_;
  std::vector<std::unique_ptr<Iterator>> children_;
  Iterator* current_ = nullptr;
  Direction direction_ = kForward;
  absl::Status status_;
};

}  // namespace

std::unique_ptr<Iterator> NewMergingIterator(
    KeyComparator icmp, std::vector<std::unique_ptr<Iterator>> children) {
  if (children.empty()) return NewEmptyIterator();
  if (children.size() == 1) return std::move(children[0]);
  return std::make_unique<MergingIterator>(icmp, std::move(children));
}

}  // namespace sift
