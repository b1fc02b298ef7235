// ReadView and ReadViewCache: how a Get finds the memtables and Version to
// read without a lock and without writing a cache line another thread uses.
//
// The DB installs an immutable ReadView whenever the memtable, immutable
// memtable or Version changes. Each thread keeps, per ReadViewCache, a slot
// holding the view it last used. A read swaps its slot to "in use", checks
// the view's number against the published one, reads, and puts the view
// back. Both atomic steps touch only the thread's own slot, which other
// threads write only when a view is installed or the cache is destroyed:
// then every slot is emptied (scraped), so an idle thread never pins an old
// Version's files or a flushed memtable. A read in flight during a scrape
// finds its slot emptied when it ends and drops its view itself.
//
// Lifetimes: a thread's slots are freed at thread exit; the cache's
// destructor empties every slot and forgets them, so no thread-local state
// keeps a destroyed DB's views alive. Caches get process-unique ids, never
// reused, so a new DB at a dead one's address never sees its views.
// docs/DESIGN.md ("Read path at many cores") has the costs at scale.

#ifndef SIFT_DB_READ_VIEW_H_
#define SIFT_DB_READ_VIEW_H_

#include <atomic>
#include <cstdint>
#include <memory>

#include "db/memtable.h"
#include "db/version.h"

namespace sift {

// What a reader needs, taken together so one install publishes all three.
struct ReadView {
  std::shared_ptr<MemTable> mem;
  std::shared_ptr<MemTable> imm;  // null when no flush is pending
  std::shared_ptr<const Version> version;
};

class ReadViewCache {
 public:
  struct Registry;
  struct Slot;
  struct Held;

  ReadViewCache();
  ~ReadViewCache();
  ReadViewCache(const ReadViewCache&) = delete;
  ReadViewCache& operator=(const ReadViewCache&) = delete;

  // Publishes view to every later read and drops the views threads cached.
  void Install(std::shared_ptr<const ReadView> view);

  // The calling thread's use of the current view, for the span of one read
  // on this thread. Not copyable; must not outlive the cache.
  class Ref {
   public:
    ~Ref();
    Ref(const Ref&) = delete;
    Ref& operator=(const Ref&) = delete;

    const ReadView* operator->() const;
    const ReadView& operator*() const { return *operator->(); }
    // An owning reference for objects that outlive the read or move to
    // other threads (iterators). Its count lives in a block only this
    // thread's slot shares, not in the view every thread shares.
    std::shared_ptr<const ReadView> Share() const;

   private:
    friend class ReadViewCache;
    Ref(Slot* slot, Held* held) : slot_(slot), held_(held) {}
    Slot* const slot_;
    Held* const held_;
  };
  Ref Acquire();

 private:
  Slot* LocalSlot();
  Held* Refresh();  // the current view under the registry's lock

  const uint64_t id_;
  // Bumped by Install; a slot's view with another number is stale.
  std::atomic<uint64_t> number_{0};
  const std::shared_ptr<Registry> registry_;
};

}  // namespace sift

#endif  // SIFT_DB_READ_VIEW_H_
