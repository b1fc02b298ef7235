// A skip list (Pugh, "Skip Lists: A Probabilistic Alternative to Balanced
// Trees", CACM 1990) over arena memory, for the memtable.
//
// Thread safety: one writer at a time (the DB's write path serializes
// inserts); any number of readers concurrently with it and without locks.
// Nodes are never removed until the whole list is destroyed, and a node is
// published with release stores after it is fully initialized, so a reader
// that loads a pointer with acquire sees a complete node.
//
// Invariant: the list is sorted by Comparator and holds no duplicates.

#ifndef SIFT_DB_SKIPLIST_H_
#define SIFT_DB_SKIPLIST_H_

#include <atomic>
#include <cassert>
#include <cstdint>
#include <new>

#include "util/arena.h"

namespace sift {

// Comparator: int operator()(const Key&, const Key&) const.
template <typename Key, class Comparator>
class SkipList {
 private:
  struct Node;

 public:
  static constexpr int kMaxHeight = 12;

  SkipList(Comparator cmp, Arena* arena)
      : compare_(cmp), arena_(arena), head_(NewNode(Key(), kMaxHeight)) {
    for (int i = 0; i < kMaxHeight; ++i) head_->SetNext(i, nullptr);
  }

  SkipList(const SkipList&) = delete;
  SkipList& operator=(const SkipList&) = delete;

  // REQUIRES: nothing equal to key is in the list; external serialization
  // of writers.
  void Insert(const Key& key) {
    Node* prev[kMaxHeight];
    Node* x = FindGreaterOrEqual(key, prev);
    assert(x == nullptr || compare_(key, x->key) != 0);
    (void)x;
    const int height = RandomHeight();
    const int max_height = max_height_.load(std::memory_order_relaxed);
    if (height > max_height) {
      for (int i = max_height; i < height; ++i) prev[i] = head_;
      // Readers that see the new height before the new node see nullptr
      // links from head_ at those levels, which is harmless.
      max_height_.store(height, std::memory_order_relaxed);
    }
    Node* n = NewNode(key, height);
    for (int i = 0; i < height; ++i) {
      n->NoBarrierSetNext(i, prev[i]->NoBarrierNext(i));
      prev[i]->SetNext(i, n);
    }
  }

  class Iterator {
   public:
    explicit Iterator(const SkipList* list) : list_(list), node_(nullptr) {}
    bool Valid() const { return node_ != nullptr; }
    // REQUIRES: Valid()
    const Key& key() const { return node_->key; }
    void Next() { node_ = node_->Next(0); }
    void Prev() {
      node_ = list_->FindLessThan(node_->key);
      if (node_ == list_->head_) node_ = nullptr;
    }
    void Seek(const Key& target) {
      node_ = list_->FindGreaterOrEqual(target, nullptr);
    }
    void SeekToFirst() { node_ = list_->head_->Next(0); }
    void SeekToLast() {
      node_ = list_->FindLast();
      if (node_ == list_->head_) node_ = nullptr;
    }

   private:
    const SkipList* list_;
    Node* node_;
  };

 private:
  struct Node {
    explicit Node(const Key& k) : key(k) {}
    Key const key;

    Node* Next(int n) { return next_[n].load(std::memory_order_acquire); }
    void SetNext(int n, Node* x) {
      next_[n].store(x, std::memory_order_release);
    }
    Node* NoBarrierNext(int n) {
      return next_[n].load(std::memory_order_relaxed);
    }
    void NoBarrierSetNext(int n, Node* x) {
      next_[n].store(x, std::memory_order_relaxed);
    }

    // Sized at allocation: next_[0 .. height-1].
    std::atomic<Node*> next_[1];
  };

  Node* NewNode(const Key& key, int height) {
    char* mem = arena_->AllocateAligned(
        sizeof(Node) + sizeof(std::atomic<Node*>) * (height - 1));
    return new (mem) Node(key);
  }

  int RandomHeight() {
    // Height h with probability (1/4)^(h-1): a branching factor of 4.
    int height = 1;
    while (height < kMaxHeight && (NextRandom() & 3) == 0) ++height;
    return height;
  }

  // xorshift64 (Marsaglia 2003): only the writer calls it.
  uint64_t NextRandom() {
    rnd_ ^= rnd_ << 13;
    rnd_ ^= rnd_ >> 7;
    rnd_ ^= rnd_ << 17;
    return rnd_;
  }

  bool KeyIsAfterNode(const Key& key, Node* n) const {
    return n != nullptr && compare_(n->key, key) < 0;
  }

  // The first node >= key; fills prev[level] with the last node < key at
  // each level when prev is non-null.
  Node* FindGreaterOrEqual(const Key& key, Node** prev) const {
    Node* x = head_;
    int level = max_height_.load(std::memory_order_relaxed) - 1;
    while (true) {
      Node* next = x->Next(level);
      if (KeyIsAfterNode(key, next)) {
        x = next;
      } else {
        if (prev != nullptr) prev[level] = x;
        if (level == 0) return next;
        --level;
      }
    }
  }

  // The last node < key, or head_.
  Node* FindLessThan(const Key& key) const {
    Node* x = head_;
    int level = max_height_.load(std::memory_order_relaxed) - 1;
    while (true) {
      Node* next = x->Next(level);
      if (next == nullptr || compare_(next->key, key) >= 0) {
        if (level == 0) return x;
        --level;
      } else {
        x = next;
      }
    }
  }

  // The last node, or head_ if empty.
  Node* FindLast() const {
    Node* x = head_;
    int level = max_height_.load(std::memory_order_relaxed) - 1;
    while (true) {
      Node* next = x->Next(level);
      if (next == nullptr) {
        if (level == 0) return x;
        --level;
      } else {
        x = next;
      }
    }
  }

  Comparator const compare_;
  Arena* const arena_;
  Node* const head_;
  std::atomic<int> max_height_{1};
  uint64_t rnd_ = 0x9e3779b97f4a7c15ull;
};

}  // namespace sift

#endif  // SIFT_DB_SKIPLIST_H_
