// Iterator: an ordered cursor over key/value pairs, from a DB, a table or a
// memtable.
//
// An iterator is not thread-safe; use one per thread. key() and value()
// point into memory the iterator owns, valid until the next move or its
// destruction. The data an iterator reads stays alive until it is destroyed,
// even if the DB compacts those files away meanwhile.

#ifndef SIFT_INCLUDE_ITERATOR_H_
#define SIFT_INCLUDE_ITERATOR_H_

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace sift {

class Iterator {
 public:
  Iterator() = default;
  Iterator(const Iterator&) = delete;
  Iterator& operator=(const Iterator&) = delete;
  // Runs registered cleanups in registration order.
  virtual ~Iterator();

  // True when positioned at an entry.
  virtual bool Valid() const = 0;

  virtual void SeekToFirst() = 0;
  virtual void SeekToLast() = 0;
  // Positions at the first entry with key >= target.
  virtual void Seek(std::string_view target) = 0;
  // REQUIRES: Valid()
  virtual void Next() = 0;
  // REQUIRES: Valid()
  virtual void Prev() = 0;

  // REQUIRES: Valid()
  virtual std::string_view key() const = 0;
  // REQUIRES: Valid()
  virtual std::string_view value() const = 0;

  // OK unless an I/O error or corruption was met. An iterator that met one
  // stops being Valid() (it never shows an entry it could not check against
  // the data it failed to read), and status() keeps returning the error
  // until the next Seek, SeekToFirst or SeekToLast, which start afresh.
  virtual absl::Status status() const = 0;

  // Runs fn when this iterator is destroyed (used to unpin what it reads).
  void RegisterCleanup(std::function<void()> fn);

 private:
  std::vector<std::function<void()>> cleanups_;
};

// An iterator with no entries and the given status.
std::unique_ptr<Iterator> NewEmptyIterator(
    absl::Status status = absl::OkStatus());

}  // namespace sift

#endif  // SIFT_INCLUDE_ITERATOR_H_
