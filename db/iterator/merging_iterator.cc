#include "db/iterator/merging_iterator.h"

#include <utility>

#include "table/internal_key.h"

namespace sift {
namespace {

// The children wait in a binary heap ordered by their current key, so each
// step costs O(log n) compares: a compaction of twenty overlapping level-0
// files merges twenty-odd children, where a linear scan per key cost about
// a tenth of a fill's cycles. Forward the heap is a min-heap, in reverse a
// max-heap; a change of direction rebuilds it. Equal keys (never written
// by the DB: every entry has its own sequence number) come out in child
// order.
class MergingIterator final : public Iterator {
 public:
  MergingIterator(KeyComparator icmp,
                  std::vector<std::unique_ptr<Iterator>> children)
      : icmp_(icmp), children_(std::move(children)) {
    heap_.reserve(children_.size());
  }

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
    Rebuild(kForward);
  }
  void SeekToLast() override {
    status_ = absl::OkStatus();
    for (auto& c : children_) c->SeekToLast();
    Rebuild(kReverse);
  }
  void Seek(std::string_view target) override {
    status_ = absl::OkStatus();
    for (auto& c : children_) c->Seek(target);
    Rebuild(kForward);
  }

  void Next() override {
    if (direction_ != kForward) {
      // In reverse, the other children sit before key(): move each to the
      // first entry after it so all are positioned forward.
      const std::string k(key());
      Iterator* const cur = current_;
      for (auto& c : children_) {
        if (c.get() == cur) continue;
        c->Seek(k);
        if (c->Valid() && icmp_.Compare(k, c->key()) == 0) c->Next();
      }
      cur->Next();
      Rebuild(kForward);
      return;
    }
    current_->Next();
    Advanced();
  }

  void Prev() override {
    if (direction_ != kReverse) {
      // In forward, the other children sit after key(): move each to the
      // last entry before it.
      const std::string k(key());
      Iterator* const cur = current_;
      for (auto& c : children_) {
        if (c.get() == cur) continue;
        c->Seek(k);
        if (c->Valid()) {
          c->Prev();
        } else if (c->status().ok()) {
          c->SeekToLast();  // every entry of c is < k
        }                   // else Rebuild stops at c's error
      }
      cur->Prev();
      Rebuild(kReverse);
      return;
    }
    current_->Prev();
    Advanced();
  }

 private:
  enum Direction { kForward, kReverse };
  struct Entry {
    Iterator* it;
    size_t index;  // position in children_: the tie-break
  };

  void Stop(absl::Status s) {
    status_ = std::move(s);
    current_ = nullptr;
    heap_.clear();
  }

  // True when a belongs nearer the top of the heap than b.
  bool Before(const Entry& a, const Entry& b) const {
    const int r = icmp_.Compare(a.it->key(), b.it->key());
    if (r != 0) return direction_ == kForward ? r < 0 : r > 0;
    return direction_ == kForward ? a.index < b.index : a.index > b.index;
  }

  // Both stop the merge (Valid() false, status() the error) when a child
  // stopped on an error: going on without it would show older versions
  // of its keys, or keys it deleted, from the other children.
  void Rebuild(Direction d) {
    direction_ = d;
    heap_.clear();
    for (size_t i = 0; i < children_.size(); ++i) {
      Iterator* c = children_[i].get();
      if (c->Valid()) {
        heap_.push_back({c, i});
      } else if (!c->status().ok()) {
        Stop(c->status());
        return;
      }
    }
    for (size_t i = heap_.size() / 2; i-- > 0;) SiftDown(i);
    current_ = heap_.empty() ? nullptr : heap_[0].it;
  }

  // The top child (current_) moved one step in the heap's direction.
  void Advanced() {
    if (!current_->Valid()) {
      if (!current_->status().ok()) {
        Stop(current_->status());
        return;
      }
      heap_[0] = heap_.back();
      heap_.pop_back();
    }
    if (!heap_.empty()) SiftDown(0);
    current_ = heap_.empty() ? nullptr : heap_[0].it;
  }

  void SiftDown(size_t i) {
    const size_t n = heap_.size();
    const Entry e = heap_[i];
    while (true) {
      size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && Before(heap_[child + 1], heap_[child])) ++child;
      if (!Before(heap_[child], e)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = e;
  }

  const KeyComparator icmp_;
  std::vector<std::unique_ptr<Iterator>> children_;
  std::vector<Entry> heap_;  // the valid children, top = current_
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
