// Env: every file-system call siftdb makes goes through this interface, so
// tests can run on an in-memory file system, count I/O, inject write and sync
// failures, and simulate a machine crash that loses unsynced data.
//
// Env::Default() is the POSIX implementation. Implementations must be safe
// for concurrent use from several threads. Errors carry the path and, for OS
// failures, strerror(errno); a missing file is NotFound.

#ifndef SIFT_INCLUDE_ENV_H_
#define SIFT_INCLUDE_ENV_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace sift {

// A file read from start to end, by one thread at a time.
class SequentialFile {
 public:
  virtual ~SequentialFile() = default;

  // Reads up to n bytes. *result points at the bytes read, which may be in
  // scratch[0..n-1]; fewer than n bytes (possibly none) means end of file.
  // REQUIRES: scratch holds at least n bytes and outlives the use of *result.
  virtual absl::Status Read(size_t n, std::string_view* result,
                            char* scratch) = 0;
};

// A file read at offsets. Safe for concurrent use by several threads.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;

  // Reads up to n bytes at offset. *result points at the bytes read, which
  // may be in scratch[0..n-1]; a short result means end of file.
  // REQUIRES: scratch holds at least n bytes and outlives the use of *result.
  virtual absl::Status Read(uint64_t offset, size_t n, std::string_view* result,
                            char* scratch) const = 0;
};

// A file written sequentially by one thread at a time. Appended data may sit
// in a user-space buffer until Flush, Sync or Close.
class WritableFile {
 public:
  virtual ~WritableFile() = default;

  virtual absl::Status Append(std::string_view data) = 0;
  // Hands buffered data to the operating system (survives a process crash).
  virtual absl::Status Flush() = 0;
  // Flush, then make the file's data durable (fdatasync: survives a machine
  // crash).
  virtual absl::Status Sync() = 0;
  // Flush and close. Further calls fail.
  virtual absl::Status Close() = 0;
};

// A held lock on a file; destroying it releases the lock.
class FileLock {
 public:
  virtual ~FileLock() = default;
};

class Env {
 public:
  virtual ~Env() = default;

  // The POSIX file system. Never deleted.
  static Env* Default();

  virtual absl::StatusOr<std::unique_ptr<SequentialFile>> NewSequentialFile(
      const std::string& path) = 0;
  virtual absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) = 0;
  // Like NewRandomAccessFile, but the file may be read through a shared
  // memory map (Options::allow_mmap_reads): a read is then a pointer into
  // the map, and an I/O error on a mapped page raises SIGBUS instead of
  // returning an error. The POSIX env maps the file (up to a budget of
  // mappings); the default, which every EnvWrapper keeps, calls
  // NewRandomAccessFile, so a wrapped env never maps.
  virtual absl::StatusOr<std::unique_ptr<RandomAccessFile>>
  NewMappedRandomAccessFile(const std::string& path) {
    return NewRandomAccessFile(path);
  }
  // Creates the file, or truncates it if it exists.
  virtual absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) = 0;

  virtual bool FileExists(const std::string& path) = 0;
  // Names (not paths) of the entries of dir, without "." and "..".
  virtual absl::StatusOr<std::vector<std::string>> GetChildren(
      const std::string& dir) = 0;
  virtual absl::StatusOr<uint64_t> GetFileSize(const std::string& path) = 0;
  virtual absl::Status RemoveFile(const std::string& path) = 0;
  // Atomically replaces `to` if it exists.
  virtual absl::Status RenameFile(const std::string& from,
                                  const std::string& to) = 0;
  // Succeeds if dir already exists as a directory.
  virtual absl::Status CreateDir(const std::string& dir) = 0;
  // Creates dir, which must not exist: AlreadyExists if a directory or a
  // file has that name. The built-in Envs create it in one step (POSIX: one
  // mkdir), so of callers racing for one name exactly one succeeds. The
  // default, for Envs written before it, checks FileExists and then calls
  // CreateDir: two steps another caller can come between.
  virtual absl::Status CreateNewDir(const std::string& dir);
  virtual absl::Status RemoveDir(const std::string& dir) = 0;
  // Makes the directory's entries (creations, renames, removals) durable.
  virtual absl::Status SyncDir(const std::string& dir) = 0;
  // Makes `to` a second name (hard link) of the existing file `from`: both
  // names then share the same data. `to` must not exist (AlreadyExists).
  // The new name is durable only after SyncDir of its directory. An Env
  // that cannot link returns Unimplemented (the default), and a link across
  // file systems fails with the OS's EXDEV error: callers copy instead.
  virtual absl::Status LinkFile(const std::string& from, const std::string& to);

  // Takes an exclusive lock on path (creating the file if needed), also
  // against other processes. FailedPrecondition if someone holds it.
  virtual absl::StatusOr<std::unique_ptr<FileLock>> LockFile(
      const std::string& path) = 0;

  // Microseconds on a monotonic clock (CLOCK_MONOTONIC in the POSIX env):
  // for measuring intervals, not wall time, so never a file timestamp.
  virtual uint64_t NowMicros() = 0;
  virtual void SleepForMicroseconds(int micros) = 0;
};

// Forwards every call to another Env; derive from it to override a few.
class EnvWrapper : public Env {
 public:
  explicit EnvWrapper(Env* target) : target_(target) {}
  Env* target() const { return target_; }

  absl::StatusOr<std::unique_ptr<SequentialFile>> NewSequentialFile(
      const std::string& path) override {
    return target_->NewSequentialFile(path);
  }
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    return target_->NewRandomAccessFile(path);
  }
  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override {
    return target_->NewWritableFile(path);
  }
  bool FileExists(const std::string& path) override {
    return target_->FileExists(path);
  }
  absl::StatusOr<std::vector<std::string>> GetChildren(
      const std::string& dir) override {
    return target_->GetChildren(dir);
  }
  absl::StatusOr<uint64_t> GetFileSize(const std::string& path) override {
    return target_->GetFileSize(path);
  }
  absl::Status RemoveFile(const std::string& path) override {
    return target_->RemoveFile(path);
  }
  absl::Status RenameFile(const std::string& from,
                          const std::string& to) override {
    return target_->RenameFile(from, to);
  }
  absl::Status CreateDir(const std::string& dir) override {
    return target_->CreateDir(dir);
  }
  absl::Status CreateNewDir(const std::string& dir) override {
    return target_->CreateNewDir(dir);
  }
  absl::Status RemoveDir(const std::string& dir) override {
    return target_->RemoveDir(dir);
  }
  absl::Status SyncDir(const std::string& dir) override {
    return target_->SyncDir(dir);
  }
  absl::Status LinkFile(const std::string& from,
                        const std::string& to) override {
    return target_->LinkFile(from, to);
  }
  absl::StatusOr<std::unique_ptr<FileLock>> LockFile(
      const std::string& path) override {
    return target_->LockFile(path);
  }
  uint64_t NowMicros() override { return target_->NowMicros(); }
  void SleepForMicroseconds(int micros) override {
    target_->SleepForMicroseconds(micros);
  }

 private:
  Env* target_;
};

// An in-memory file system, for fast tests. Starts empty; deleting it frees
// every file. Paths need no existing directories except as created by
// CreateDir.
std::unique_ptr<Env> NewMemEnv();

// Reads a whole file into *data.
absl::Status ReadFileToString(Env* env, const std::string& path,
                              std::string* data);
// Writes data to path (truncating), optionally syncing before close.
absl::Status WriteStringToFile(Env* env, std::string_view data,
                               const std::string& path, bool sync);

}  // namespace sift

#endif  // SIFT_INCLUDE_ENV_H_
