// sift::Mutex and sift::CondVar: absl::Mutex and absl::CondVar, except in
// ThreadSanitizer builds, where they are std::mutex and
// std::condition_variable_any.
//
// Why: Debian's libabsl is not built with ThreadSanitizer, so TSan cannot
// see absl::Mutex synchronize and reports races on correctly locked data.
// The standard library's mutex goes through pthreads, which TSan
// intercepts. Both variants carry the Clang thread-safety annotations, so
// -Wthread-safety checks the locking in every build.

#ifndef SIFT_UTIL_MUTEX_H_
#define SIFT_UTIL_MUTEX_H_

#include "absl/base/thread_annotations.h"

#if defined(__SANITIZE_THREAD__)
#define SIFT_TSAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SIFT_TSAN_BUILD 1
#endif
#endif

#ifdef SIFT_TSAN_BUILD
#include <condition_variable>
#include <mutex>
#include <shared_mutex>
#else
#include "absl/synchronization/mutex.h"
#endif

namespace sift {

class CondVar;

class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  void ReaderLock() ABSL_SHARED_LOCK_FUNCTION() { mu_.lock_shared(); }
  void ReaderUnlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock_shared(); }
  void AssertHeld() const ABSL_ASSERT_EXCLUSIVE_LOCK() {}

 private:
  friend class CondVar;
#ifdef SIFT_TSAN_BUILD
  std::shared_mutex mu_;
#else
  // absl::Mutex spelled with the std names used above.
  struct AbslMutex {
    void lock() ABSL_NO_THREAD_SAFETY_ANALYSIS { m.Lock(); }
    void unlock() ABSL_NO_THREAD_SAFETY_ANALYSIS { m.Unlock(); }
    void lock_shared() ABSL_NO_THREAD_SAFETY_ANALYSIS { m.ReaderLock(); }
    void unlock_shared() ABSL_NO_THREAD_SAFETY_ANALYSIS { m.ReaderUnlock(); }
    absl::Mutex m;
  } mu_;
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
#ifdef SIFT_TSAN_BUILD
    std::unique_lock<std::shared_mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();
#else
    cv_.Wait(&mu->mu_.m);
#endif
  }
  void Signal() {
#ifdef SIFT_TSAN_BUILD
    cv_.notify_one();
#else
    cv_.Signal();
#endif
  }
  void SignalAll() {
#ifdef SIFT_TSAN_BUILD
    cv_.notify_all();
#else
    cv_.SignalAll();
#endif
  }

 private:
#ifdef SIFT_TSAN_BUILD
  std::condition_variable_any cv_;
#else
  absl::CondVar cv_;
#endif
};

}  // namespace sift

#endif  // SIFT_UTIL_MUTEX_H_
