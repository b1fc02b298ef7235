// Env::Default(): the POSIX file system.
//
// Every file is opened O_CLOEXEC so a fork+exec elsewhere in the process
// does not leak descriptors (or a held LOCK) into the child program. Errors
// are absl::ErrnoToStatus codes (ENOENT -> NotFound, ENOSPC ->
// ResourceExhausted, ...) with "<operation> <path>: <strerror>" messages.

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "sift/env.h"
#include "util/mutex.h"
#include "util/status_macros.h"

namespace sift {
namespace {

constexpr size_t kWritableBufferSize = 64 * 1024;

absl::Status PosixError(absl::string_view op, const std::string& path,
                        int err) {
  return absl::ErrnoToStatus(err, absl::StrCat(op, " ", path));
}

absl::Status ClosedError(absl::string_view op, const std::string& path) {
  return absl::FailedPreconditionError(
      absl::StrCat(op, " ", path, ": file is closed"));
}

absl::StatusOr<int> OpenFd(const std::string& path, int flags) {
  while (true) {
    int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
    if (fd >= 0) return fd;
    if (errno != EINTR) return PosixError("open", path, errno);
  }
}

class PosixSequentialFile final : public SequentialFile {
 public:
  PosixSequentialFile(std::string path, int fd)
      : path_(std::move(path)), fd_(fd) {}
  ~PosixSequentialFile() override { ::close(fd_); }

  absl::Status Read(size_t n, std::string_view* result,
                    char* scratch) override {
    // Loops so that a short result really means end of file, as the
    // interface promises, even if a signal interrupts a partial read.
    size_t done = 0;
    while (done < n) {
      ssize_t r = ::read(fd_, scratch + done, n - done);
      if (r < 0) {
        if (errno == EINTR) continue;
        *result = {};
        return PosixError("read", path_, errno);
      }
      if (r == 0) break;
      done += static_cast<size_t>(r);
    }
    *result = std::string_view(scratch, done);
    return absl::OkStatus();
  }

 private:
  const std::string path_;
  const int fd_;
};

// pread() keeps no file position, so one descriptor serves every thread.
class PosixRandomAccessFile final : public RandomAccessFile {
 public:
  PosixRandomAccessFile(std::string path, int fd)
      : path_(std::move(path)), fd_(fd) {}
  ~PosixRandomAccessFile() override { ::close(fd_); }

  absl::Status Read(uint64_t offset, size_t n, std::string_view* result,
                    char* scratch) const override {
    size_t done = 0;
    while (done < n) {
      ssize_t r = ::pread(fd_, scratch + done, n - done,
                          static_cast<off_t>(offset + done));
      if (r < 0) {
        const int err = errno;  // before StrCat, which may allocate
        if (err == EINTR) continue;
        *result = {};
        return PosixError(absl::StrCat("pread at offset ", offset + done),
                          path_, err);
      }
      if (r == 0) break;
      done += static_cast<size_t>(r);
    }
    *result = std::string_view(scratch, done);
    return absl::OkStatus();
  }

 private:
  const std::string path_;
  const int fd_;
};

// Reads straight out of a read-only mapping: no system call and no copy
// per read, which is what a block-cache miss costs most of otherwise.
// Tables are immutable once written, so the mapping stays valid (a file
// truncated under a live mapping would fault, which siftdb never does).
class PosixMmapRandomAccessFile final : public RandomAccessFile {
 public:
  PosixMmapRandomAccessFile(std::string path, const char* base, size_t length,
                            std::atomic<int>* mmap_budget)
      : path_(std::move(path)),
        base_(base),
        length_(length),
        mmap_budget_(mmap_budget) {}
  ~PosixMmapRandomAccessFile() override {
    ::munmap(const_cast<char*>(base_), length_);
    mmap_budget_->fetch_add(1, std::memory_order_relaxed);
  }

  absl::Status Read(uint64_t offset, size_t n, std::string_view* result,
                    char* /*scratch*/) const override {
    if (offset >= length_) {
      *result = {};
    } else {
      *result = std::string_view(base_ + offset,
                                 std::min<uint64_t>(n, length_ - offset));
    }
    return absl::OkStatus();
  }

 private:
  const std::string path_;
  const char* const base_;
  const size_t length_;
  std::atomic<int>* const mmap_budget_;
};

// Buffers small appends so a WAL of many small records costs few syscalls.
class PosixWritableFile final : public WritableFile {
 public:
  PosixWritableFile(std::string path, int fd)
      : path_(std::move(path)),
        fd_(fd),
        buf_(std::make_unique_for_overwrite<char[]>(kWritableBufferSize)) {}
  ~PosixWritableFile() override {
    if (fd_ >= 0) Close().IgnoreError();
  }

  absl::Status Append(std::string_view data) override {
    if (fd_ < 0) return ClosedError("append", path_);
    size_t copy = std::min(data.size(), kWritableBufferSize - pos_);
    std::memcpy(buf_.get() + pos_, data.data(), copy);
    pos_ += copy;
    data.remove_prefix(copy);
    if (data.empty()) return absl::OkStatus();

    RETURN_IF_ERROR(FlushBuffer());
    if (data.size() < kWritableBufferSize) {
      std::memcpy(buf_.get(), data.data(), data.size());
      pos_ = data.size();
      return absl::OkStatus();
    }
    // Large appends skip the copy. A failure part-way leaves a prefix of
    // data in the file; callers treat any failed Append as fatal for the
    // file (the DB stops writing), so there is no retry to get wrong.
    size_t written = 0;
    return WriteAll(data.data(), data.size(), &written);
  }

  absl::Status Flush() override {
    if (fd_ < 0) return ClosedError("flush", path_);
    return FlushBuffer();
  }

  absl::Status Sync() override {
    if (fd_ < 0) return ClosedError("sync", path_);
    RETURN_IF_ERROR(FlushBuffer());
    // fdatasync skips metadata such as mtime that recovery does not need;
    // the file size, which it does need, is still synced.
#if defined(__linux__)
    int r = ::fdatasync(fd_);
#else
    int r = ::fsync(fd_);
#endif
    if (r != 0) return PosixError("fdatasync", path_, errno);
    return absl::OkStatus();
  }

  absl::Status Close() override {
    if (fd_ < 0) return ClosedError("close", path_);
    absl::Status s = FlushBuffer();
    if (::close(fd_) != 0 && s.ok()) s = PosixError("close", path_, errno);
    fd_ = -1;
    return s;
  }

 private:
  // Writes buf_[0, pos_). On failure keeps the unwritten tail at the front
  // of the buffer, so a retried Flush neither loses nor duplicates bytes.
  absl::Status FlushBuffer() {
    size_t written = 0;
    absl::Status s = WriteAll(buf_.get(), pos_, &written);
    if (written > 0 && written < pos_) {
      std::memmove(buf_.get(), buf_.get() + written, pos_ - written);
    }
    pos_ -= written;
    return s;
  }

  absl::Status WriteAll(const char* data, size_t n, size_t* written) {
    *written = 0;
    while (*written < n) {
      ssize_t r = ::write(fd_, data + *written, n - *written);
      if (r < 0) {
        if (errno == EINTR) continue;
        return PosixError("write", path_, errno);
      }
      *written += static_cast<size_t>(r);
    }
    return absl::OkStatus();
  }

  const std::string path_;
  int fd_;  // -1 once closed
  std::unique_ptr<char[]> buf_;
  size_t pos_ = 0;  // bytes buffered in buf_
};

class PosixEnv;

class PosixFileLock final : public FileLock {
 public:
  PosixFileLock(PosixEnv* env, std::string path, int fd)
      : env_(env), path_(std::move(path)), fd_(fd) {}
  ~PosixFileLock() override;

 private:
  PosixEnv* const env_;
  const std::string path_;
  const int fd_;
};

absl::Status LockHeldError(const std::string& path) {
  return absl::FailedPreconditionError(absl::StrCat(
      "lock ", path, " is held by another process or DB instance"));
}

class PosixEnv final : public Env {
 public:
  absl::StatusOr<std::unique_ptr<SequentialFile>> NewSequentialFile(
      const std::string& path) override {
    ASSIGN_OR_RETURN(int fd, OpenFd(path, O_RDONLY));
    return std::make_unique<PosixSequentialFile>(path, fd);
  }

  absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    ASSIGN_OR_RETURN(int fd, OpenFd(path, O_RDONLY));
    return std::make_unique<PosixRandomAccessFile>(path, fd);
  }

  absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewMappedRandomAccessFile(
      const std::string& path) override {
    ASSIGN_OR_RETURN(int fd, OpenFd(path, O_RDONLY));
    // Map the file while the budget of mappings lasts (it bounds address
    // space and map count); otherwise fall back to pread.
    if (mmap_budget_.fetch_sub(1, std::memory_order_relaxed) > 0) {
      struct stat st;
      if (::fstat(fd, &st) == 0 && st.st_size > 0) {
        void* base = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ,
                            MAP_SHARED, fd, 0);
        if (base != MAP_FAILED) {
          ::close(fd);  // the mapping keeps the file's pages reachable
          return std::make_unique<PosixMmapRandomAccessFile>(
              path, static_cast<const char*>(base),
              static_cast<size_t>(st.st_size), &mmap_budget_);
        }
      }
    }
    mmap_budget_.fetch_add(1, std::memory_order_relaxed);
    return std::make_unique<PosixRandomAccessFile>(path, fd);
  }

  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override {
    ASSIGN_OR_RETURN(int fd, OpenFd(path, O_WRONLY | O_CREAT | O_TRUNC));
    return std::make_unique<PosixWritableFile>(path, fd);
  }

  bool FileExists(const std::string& path) override {
    return ::access(path.c_str(), F_OK) == 0;
  }

  absl::StatusOr<std::vector<std::string>> GetChildren(
      const std::string& dir) override {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return PosixError("opendir", dir, errno);
    std::vector<std::string> names;
    while (true) {
      errno = 0;
      struct dirent* entry = ::readdir(d);
      if (entry == nullptr) break;
      std::string_view name = entry->d_name;
      if (name != "." && name != "..") names.emplace_back(name);
    }
    int err = errno;  // readdir returns nullptr at the end and on error
    ::closedir(d);
    if (err != 0) return PosixError("readdir", dir, err);
    return names;
  }

  absl::StatusOr<uint64_t> GetFileSize(const std::string& path) override {
    struct ::stat st;
    if (::stat(path.c_str(), &st) != 0) return PosixError("stat", path, errno);
    return static_cast<uint64_t>(st.st_size);
  }

  absl::Status RemoveFile(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return PosixError("unlink", path, errno);
    return absl::OkStatus();
  }

  absl::Status RenameFile(const std::string& from,
                          const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) {
      const int err = errno;  // before StrCat, which may allocate
      return PosixError("rename", absl::StrCat(from, " to ", to), err);
    }
    return absl::OkStatus();
  }

  absl::Status LinkFile(const std::string& from,
                        const std::string& to) override {
    if (::link(from.c_str(), to.c_str()) != 0) {
      const int err = errno;  // before StrCat, which may allocate
      return PosixError("link", absl::StrCat(from, " to ", to), err);
    }
    return absl::OkStatus();
  }

  absl::Status CreateDir(const std::string& dir) override {
    if (::mkdir(dir.c_str(), 0755) == 0) return absl::OkStatus();
    int err = errno;
    struct ::stat st;
    if (err == EEXIST && ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      return absl::OkStatus();
    }
    if (err == EEXIST) {
      return PosixError("mkdir (exists, not a directory)", dir, err);
    }
    return PosixError("mkdir", dir, err);
  }

  absl::Status CreateNewDir(const std::string& dir) override {
    if (::mkdir(dir.c_str(), 0755) == 0) return absl::OkStatus();
    return PosixError("mkdir", dir, errno);
  }

  absl::Status RemoveDir(const std::string& dir) override {
    if (::rmdir(dir.c_str()) != 0) return PosixError("rmdir", dir, errno);
    return absl::OkStatus();
  }

  absl::Status SyncDir(const std::string& dir) override {
    ASSIGN_OR_RETURN(int fd, OpenFd(dir, O_RDONLY | O_DIRECTORY));
    absl::Status s;
    if (::fsync(fd) != 0) s = PosixError("fsync directory", dir, errno);
    ::close(fd);
    return s;
  }

  absl::StatusOr<std::unique_ptr<FileLock>> LockFile(
      const std::string& path) override;

  void Unlock(const std::string& path) {
    MutexLock l(&locks_mu_);
    locked_.erase(path);
  }

  // CLOCK_MONOTONIC: for measuring intervals (stall timers, benchmarks); it
  // is not wall time and must not be written into files as a timestamp.
  uint64_t NowMicros() override {
    struct timespec ts;
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000 +
           static_cast<uint64_t>(ts.tv_nsec) / 1000;
  }

  void SleepForMicroseconds(int micros) override {
    std::this_thread::sleep_for(std::chrono::microseconds(micros));
  }

 private:
  // flock() locks belong to an open file description, so a second open()
  // and flock() of the same file in this process already fails; the set
  // makes the in-process case independent of that (e.g. on file systems
  // that emulate flock with fcntl locks, which are per process) and gives
  // the same error without touching the file.
  Mutex locks_mu_;
  std::set<std::string> locked_ ABSL_GUARDED_BY(locks_mu_);
  // Read-only mappings still allowed: a 64-bit address space has room for
  // many, but the kernel's map count (vm.max_map_count, 65530) does not, and
  // the process may need mappings of its own: take a small share of it.
  static constexpr int kMaxMappedFiles = 4096;
  std::atomic<int> mmap_budget_{kMaxMappedFiles};
};

absl::StatusOr<std::unique_ptr<FileLock>> PosixEnv::LockFile(
    const std::string& path) {
  {
    MutexLock l(&locks_mu_);
    if (!locked_.insert(path).second) return LockHeldError(path);
  }
  absl::StatusOr<int> fd = OpenFd(path, O_RDWR | O_CREAT);
  if (!fd.ok()) {
    Unlock(path);
    return fd.status();
  }
  if (::flock(*fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    ::close(*fd);
    Unlock(path);
    if (err == EWOULDBLOCK) return LockHeldError(path);
    return PosixError("flock", path, err);
  }
  return std::make_unique<PosixFileLock>(this, path, *fd);
}

PosixFileLock::~PosixFileLock() {
  ::flock(fd_, LOCK_UN);
  ::close(fd_);
  env_->Unlock(path_);
}

}  // namespace

Env* Env::Default() {
  // Leaked on purpose: it must stay usable during static destruction.
  static Env* const env = new PosixEnv;
  return env;
}

}  // namespace sift
