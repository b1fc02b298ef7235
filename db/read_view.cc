#include "db/read_view.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "util/mutex.h"

namespace sift {

// A view as one thread holds it. view's count is in a control block of this
// thread's own (see Share), so copying it does not touch the shared view.
struct ReadViewCache::Held {
  uint64_t number;
  std::shared_ptr<const ReadView> view;
};

// One thread's slot in one cache. Written by its thread on every read, by
// others only under the registry's lock when they scrape it.
struct ReadViewCache::Slot {
  std::atomic<Held*> held{nullptr};
};

// Shared by the cache and the threads holding slots in it, so that a thread
// exiting and the cache being destroyed can meet under one lock whichever
// happens first.
struct ReadViewCache::Registry {
  Mutex mu;
  bool closed ABSL_GUARDED_BY(mu) = false;
  std::shared_ptr<const ReadView> current ABSL_GUARDED_BY(mu);
  std::vector<Slot*> slots ABSL_GUARDED_BY(mu);
};

namespace {

// Marks a slot whose thread is reading with the view it took out.
ReadViewCache::Held* InUse() {
  static char marker;
  return reinterpret_cast<ReadViewCache::Held*>(&marker);
}

// Empties slot; the view it held, if any, is dropped.
void Scrape(ReadViewCache::Slot* slot) {
  ReadViewCache::Held* h = slot->held.exchange(nullptr);
  if (h != nullptr && h != InUse()) delete h;
}

std::atomic<uint64_t> next_cache_id{1};

// The calling thread's slots, one per cache it has read from.
class LocalSlots {
 public:
  ~LocalSlots() {
    for (Entry& e : entries_) Leave(e);
  }

  ReadViewCache::Slot* Find(uint64_t id) {
    for (Entry& e : entries_) {
      if (e.id == id) return e.slot.get();
    }
    return nullptr;
  }

  ReadViewCache::Slot* Add(uint64_t id,
                           std::shared_ptr<ReadViewCache::Registry> registry) {
    // Forget caches destroyed since: a thread reading from many
    // short-lived DBs keeps one entry per live DB.
    auto dead = std::remove_if(entries_.begin(), entries_.end(), [](Entry& e) {
      MutexLock l(&e.registry->mu);
      return e.registry->closed;
    });
    entries_.erase(dead, entries_.end());
    Entry e{id, std::move(registry), std::make_unique<ReadViewCache::Slot>()};
    {
      MutexLock l(&e.registry->mu);
      e.registry->slots.push_back(e.slot.get());
    }
    entries_.push_back(std::move(e));
    return entries_.back().slot.get();
  }

 private:
  struct Entry {
    uint64_t id;
    std::shared_ptr<ReadViewCache::Registry> registry;
    std::unique_ptr<ReadViewCache::Slot> slot;
  };

  static void Leave(Entry& e) {
    MutexLock l(&e.registry->mu);
    auto& slots = e.registry->slots;
    slots.erase(std::remove(slots.begin(), slots.end(), e.slot.get()),
                slots.end());
    Scrape(e.slot.get());
  }

  std::vector<Entry> entries_;
};

// The last slot this thread used: a Get on the same DB as the one before
// finds its slot with two thread-local loads and no function call.
thread_local uint64_t last_id = 0;
thread_local ReadViewCache::Slot* last_slot = nullptr;

}  // namespace

ReadViewCache::ReadViewCache()
    : id_(next_cache_id.fetch_add(1, std::memory_order_relaxed)),
      registry_(std::make_shared<Registry>()) {}

ReadViewCache::~ReadViewCache() {
  MutexLock l(&registry_->mu);
  registry_->closed = true;
  registry_->current.reset();
  for (Slot* slot : registry_->slots) Scrape(slot);
  registry_->slots.clear();
}

void ReadViewCache::Install(std::shared_ptr<const ReadView> view) {
  MutexLock l(&registry_->mu);
  registry_->current = std::move(view);
  number_.fetch_add(1, std::memory_order_release);
  for (Slot* slot : registry_->slots) Scrape(slot);
}

ReadViewCache::Slot* ReadViewCache::LocalSlot() {
  if (last_id == id_) return last_slot;
  thread_local LocalSlots local;
  Slot* slot = local.Find(id_);
  if (slot == nullptr) slot = local.Add(id_, registry_);
  last_id = id_;
  last_slot = slot;
  return slot;
}

ReadViewCache::Held* ReadViewCache::Refresh() {
  // The thread's own count block: copies made by Share() count here.
  MutexLock l(&registry_->mu);
  auto owner =
      std::make_shared<std::shared_ptr<const ReadView>>(registry_->current);
  const ReadView* view = owner->get();
  return new Held{number_.load(std::memory_order_relaxed),
                  std::shared_ptr<const ReadView>(std::move(owner), view)};
}

ReadViewCache::Ref ReadViewCache::Acquire() {
  Slot* slot = LocalSlot();
  Held* held = slot->held.exchange(InUse(), std::memory_order_acquire);
  if (held == nullptr ||
      held->number != number_.load(std::memory_order_acquire)) {
    delete held;
    held = Refresh();
  }
  return Ref(slot, held);
}

ReadViewCache::Ref::~Ref() {
  Held* expected = InUse();
  if (!slot_->held.compare_exchange_strong(expected, held_,
                                           std::memory_order_release,
                                           std::memory_order_relaxed)) {
    delete held_;  // scraped while reading: the view may be stale
  }
}

const ReadView* ReadViewCache::Ref::operator->() const {
  return held_->view.get();
}

std::shared_ptr<const ReadView> ReadViewCache::Ref::Share() const {
  return held_->view;
}

}  // namespace sift
