// sift::Mutex, MutexLock, ReaderMutexLock and CondVar: a reader-writer
// mutex and condition variable over the standard library (pthreads), with
// Clang's thread-safety annotations so -Wthread-safety checks the locking.
//
// Why not absl::Mutex: Debian's libabsl is built without NDEBUG, so every
// absl::Mutex acquisition runs its deadlock detector (GraphCycles) -- about 300
// instructions per Get on the read path, measured with callgrind -- and it is
// not built with ThreadSanitizer, so TSan cannot see it synchronize and reports
// false races. pthread locks have neither problem.
//
// AssertHeld tells -Wthread-safety that the caller holds the lock, and in
// the invariant-check mode (util/invariant.h) checks at run time that the
// calling thread holds it exclusively: Lock records the owning thread.
// Without that mode it compiles to nothing and Mutex keeps no owner.

#ifndef SIFT_UTIL_MUTEX_H_
#define SIFT_UTIL_MUTEX_H_

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "util/invariant.h"

namespace sift {

class CondVar;

class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() {
    mu_.lock();
    SetOwner(std::this_thread::get_id());
  }
  void Unlock() ABSL_UNLOCK_FUNCTION() {
    SetOwner(std::thread::id());
    mu_.unlock();
  }
  void ReaderLock() ABSL_SHARED_LOCK_FUNCTION() { mu_.lock_shared(); }
  void ReaderUnlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock_shared(); }
  // REQUIRES: the calling thread holds the lock exclusively (Lock).
  void AssertHeld() const ABSL_ASSERT_EXCLUSIVE_LOCK() {
#if SIFT_INVARIANTS
    SIFT_INVARIANT(
        owner_.load(std::memory_order_relaxed) == std::this_thread::get_id(),
        "Mutex::AssertHeld: the calling thread does not hold it");
#endif
  }

 private:
  friend class CondVar;

  // Relaxed is enough: a thread stores its own id only while it holds mu_
  // and clears it before releasing, and compares against its own id, which
  // no other thread stores.
  void SetOwner([[maybe_unused]] std::thread::id id) {
#if SIFT_INVARIANTS
    owner_.store(id, std::memory_order_relaxed);
#endif
  }

  std::shared_mutex mu_;
#if SIFT_INVARIANTS
  std::atomic<std::thread::id> owner_{};
#endif
};

class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->Lock();
  }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

class ABSL_SCOPED_LOCKABLE ReaderMutexLock {
 public:
  explicit ReaderMutexLock(Mutex* mu) ABSL_SHARED_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->ReaderLock();
  }
  ~ReaderMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->ReaderUnlock(); }
  ReaderMutexLock(const ReaderMutexLock&) = delete;
  ReaderMutexLock& operator=(const ReaderMutexLock&) = delete;

 private:
  Mutex* const mu_;
};

class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  // Atomically releases *mu and waits; holds *mu again on return. May wake
  // spuriously: callers loop on their condition.
  void Wait(Mutex* mu) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    mu->AssertHeld();
    mu->SetOwner(std::thread::id());
    std::unique_lock<std::shared_mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();
    mu->SetOwner(std::this_thread::get_id());
  }
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable_any cv_;
};

}  // namespace sift

#endif  // SIFT_UTIL_MUTEX_H_
