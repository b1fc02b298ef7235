// NewMemEnv(): an in-memory file system for fast tests.
//
// Paths are plain strings: "a//b/" and "a/b" name the same file (repeated
// and trailing slashes are dropped), and a directory is a path recorded by
// CreateDir or the parent of some file. Files need no existing directory.
// Open handles share the file's contents (a shared_ptr), so, as with POSIX
// inodes, a reader keeps working after the file is removed or renamed, and a
// truncating NewWritableFile is seen by every handle. Appends are visible to
// readers at once: Flush and Sync have nothing to do. Errors use the errno
// codes POSIX would give (via absl::ErrnoToStatus), so tests behave the same
// on either Env.

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
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

namespace sift {
namespace {

absl::Status MemError(absl::string_view op, const std::string& path, int err) {
  return absl::ErrnoToStatus(err, absl::StrCat(op, " ", path));
}

std::string Normalize(const std::string& path) {
  std::string out;
  out.reserve(path.size());
  for (char c : path) {
    if (c == '/' && !out.empty() && out.back() == '/') continue;
    out.push_back(c);
  }
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

// The prefix every entry inside dir starts with.
std::string ChildPrefix(const std::string& dir) {
  return dir == "/" ? dir : dir + "/";
}

// One file's bytes, shared by its name and every open handle (an "inode").
class FileData {
 public:
  // Copies up to n bytes at offset into scratch; returns how many. Like
  // pread(), reading at or past the end gives 0, not an error.
  size_t ReadAt(uint64_t offset, size_t n, char* scratch) const {
    MutexLock l(&mu_);
    if (offset >= contents_.size()) return 0;
    size_t avail = std::min<uint64_t>(n, contents_.size() - offset);
    std::memcpy(scratch, contents_.data() + offset, avail);
    return avail;
  }
  uint64_t Size() const {
    MutexLock l(&mu_);
    return contents_.size();
  }
  void Append(std::string_view data) {
    MutexLock l(&mu_);
    contents_.append(data);
  }
  void Clear() {
    MutexLock l(&mu_);
    contents_.clear();
  }

 private:
  mutable Mutex mu_;
  std::string contents_ ABSL_GUARDED_BY(mu_);
};

class MemSequentialFile final : public SequentialFile {
 public:
  explicit MemSequentialFile(std::shared_ptr<FileData> file)
      : file_(std::move(file)) {}

  absl::Status Read(size_t n, std::string_view* result,
                    char* scratch) override {
    size_t got = file_->ReadAt(pos_, n, scratch);
    pos_ += got;
    *result = std::string_view(scratch, got);
    return absl::OkStatus();
  }

 private:
  const std::shared_ptr<FileData> file_;
  uint64_t pos_ = 0;
};

class MemRandomAccessFile final : public RandomAccessFile {
 public:
  explicit MemRandomAccessFile(std::shared_ptr<FileData> file)
      : file_(std::move(file)) {}

  absl::Status Read(uint64_t offset, size_t n, std::string_view* result,
                    char* scratch) const override {
    *result = std::string_view(scratch, file_->ReadAt(offset, n, scratch));
    return absl::OkStatus();
  }

 private:
  const std::shared_ptr<FileData> file_;
};

class MemWritableFile final : public WritableFile {
 public:
  MemWritableFile(std::string path, std::shared_ptr<FileData> file)
      : path_(std::move(path)), file_(std::move(file)) {}

  absl::Status Append(std::string_view data) override {
    if (closed_) return ClosedError("append");
    file_->Append(data);
    return absl::OkStatus();
  }
  absl::Status Flush() override {
    return closed_ ? ClosedError("flush") : absl::OkStatus();
  }
  absl::Status Sync() override {
    return closed_ ? ClosedError("sync") : absl::OkStatus();
  }
  absl::Status Close() override {
    if (closed_) return ClosedError("close");
    closed_ = true;
    return absl::OkStatus();
  }

 private:
  absl::Status ClosedError(absl::string_view op) const {
    return absl::FailedPreconditionError(
        absl::StrCat(op, " ", path_, ": file is closed"));
  }

  const std::string path_;
  const std::shared_ptr<FileData> file_;
  bool closed_ = false;
};

// Held by the env and by every lock, so a lock may outlive the env.
struct LockTable {
  Mutex mu;
  std::set<std::string> held ABSL_GUARDED_BY(mu);
};

class MemFileLock final : public FileLock {
 public:
  MemFileLock(std::shared_ptr<LockTable> table, std::string path)
      : table_(std::move(table)), path_(std::move(path)) {}
  ~MemFileLock() override {
    MutexLock l(&table_->mu);
    table_->held.erase(path_);
  }

 private:
  const std::shared_ptr<LockTable> table_;
  const std::string path_;
};

class MemEnv final : public Env {
 public:
  absl::StatusOr<std::unique_ptr<SequentialFile>> NewSequentialFile(
      const std::string& path) override {
    MutexLock l(&mu_);
    absl::StatusOr<std::shared_ptr<FileData>> f = FindLocked(path);
    if (!f.ok()) return f.status();
    return std::make_unique<MemSequentialFile>(*std::move(f));
  }

  absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    MutexLock l(&mu_);
    absl::StatusOr<std::shared_ptr<FileData>> f = FindLocked(path);
    if (!f.ok()) return f.status();
    return std::make_unique<MemRandomAccessFile>(*std::move(f));
  }

  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override {
    MutexLock l(&mu_);
    std::string p = Normalize(path);
    if (IsDirLocked(p)) return MemError("open", path, EISDIR);
    std::shared_ptr<FileData>& file = files_[p];
    if (file == nullptr) {
      file = std::make_shared<FileData>();
    } else {
      // Same "inode", like O_TRUNC: existing readers see the truncation.
      file->Clear();
    }
    return std::make_unique<MemWritableFile>(path, file);
  }

  bool FileExists(const std::string& path) override {
    MutexLock l(&mu_);
    std::string p = Normalize(path);
    return files_.count(p) > 0 || IsDirLocked(p);
  }

  absl::StatusOr<std::vector<std::string>> GetChildren(
      const std::string& dir) override;

  absl::StatusOr<uint64_t> GetFileSize(const std::string& path) override {
    MutexLock l(&mu_);
    absl::StatusOr<std::shared_ptr<FileData>> f = FindLocked(path, "stat");
    if (!f.ok()) return f.status();
    return (*f)->Size();
  }

  absl::Status RemoveFile(const std::string& path) override {
    MutexLock l(&mu_);
    std::string p = Normalize(path);
    if (files_.erase(p) == 0) {
      return MemError("unlink", path, IsDirLocked(p) ? EISDIR : ENOENT);
    }
    return absl::OkStatus();
  }

  absl::Status RenameFile(const std::string& from,
                          const std::string& to) override;

  absl::Status LinkFile(const std::string& from,
                        const std::string& to) override {
    MutexLock l(&mu_);
    const std::string what = absl::StrCat(from, " to ", to);
    auto it = files_.find(Normalize(from));
    if (it == files_.end()) return MemError("link", what, ENOENT);
    const std::string dst = Normalize(to);
    if (files_.count(dst) > 0 || IsDirLocked(dst)) {
      return MemError("link", what, EEXIST);
    }
    files_[dst] = it->second;  // one FileData, two names: a hard link
    return absl::OkStatus();
  }

  absl::Status CreateDir(const std::string& dir) override {
    MutexLock l(&mu_);
    std::string p = Normalize(dir);
    if (files_.count(p) > 0) {
      return MemError("mkdir (exists, not a directory)", dir, EEXIST);
    }
    dirs_.insert(p);
    return absl::OkStatus();
  }

  absl::Status CreateNewDir(const std::string& dir) override {
    MutexLock l(&mu_);
    std::string p = Normalize(dir);
    if (files_.count(p) > 0 || IsDirLocked(p)) {
      return MemError("mkdir", dir, EEXIST);
    }
    dirs_.insert(p);
    return absl::OkStatus();
  }

  absl::Status RemoveDir(const std::string& dir) override {
    MutexLock l(&mu_);
    std::string p = Normalize(dir);
    if (files_.count(p) > 0) return MemError("rmdir", dir, ENOTDIR);
    if (HasEntriesUnderLocked(p)) return MemError("rmdir", dir, ENOTEMPTY);
    if (dirs_.erase(p) == 0) return MemError("rmdir", dir, ENOENT);
    return absl::OkStatus();
  }

  absl::Status SyncDir(const std::string& dir) override {
    MutexLock l(&mu_);
    if (!IsDirLocked(Normalize(dir))) {
      return MemError("open", dir,
                      files_.count(Normalize(dir)) ? ENOTDIR : ENOENT);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<FileLock>> LockFile(
      const std::string& path) override;

  uint64_t NowMicros() override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  void SleepForMicroseconds(int micros) override {
    std::this_thread::sleep_for(std::chrono::microseconds(micros));
  }

 private:
  absl::StatusOr<std::shared_ptr<FileData>> FindLocked(
      const std::string& path, absl::string_view op = "open")
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::string p = Normalize(path);
    auto it = files_.find(p);
    if (it == files_.end()) {
      return MemError(op, path, IsDirLocked(p) ? EISDIR : ENOENT);
    }
    return it->second;
  }

  bool HasEntriesUnderLocked(const std::string& dir) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const std::string prefix = ChildPrefix(dir);
    auto f = files_.lower_bound(prefix);
    if (f != files_.end() && f->first.starts_with(prefix)) return true;
    auto d = dirs_.lower_bound(prefix);
    return d != dirs_.end() && d->starts_with(prefix);
  }

  bool IsDirLocked(const std::string& p) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return dirs_.count(p) > 0 || HasEntriesUnderLocked(p);
  }

  Mutex mu_;
  // Ordered, so a directory's entries are one contiguous range.
  std::map<std::string, std::shared_ptr<FileData>> files_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> dirs_ ABSL_GUARDED_BY(mu_);
  const std::shared_ptr<LockTable> locks_ = std::make_shared<LockTable>();
};

absl::StatusOr<std::vector<std::string>> MemEnv::GetChildren(
    const std::string& dir) {
  MutexLock l(&mu_);
  std::string p = Normalize(dir);
  if (files_.count(p) > 0) return MemError("opendir", dir, ENOTDIR);
  if (!IsDirLocked(p)) return MemError("opendir", dir, ENOENT);
  const std::string prefix = ChildPrefix(p);
  std::set<std::string> names;  // "a/b/c" and "a/b/d" both give "b"
  auto add = [&](const std::string& entry) {
    std::string_view rest = std::string_view(entry).substr(prefix.size());
    names.emplace(rest.substr(0, rest.find('/')));
  };
  for (auto it = files_.lower_bound(prefix);
       it != files_.end() && it->first.starts_with(prefix); ++it) {
    add(it->first);
  }
  for (auto it = dirs_.lower_bound(prefix);
       it != dirs_.end() && it->starts_with(prefix); ++it) {
    add(*it);
  }
  return std::vector<std::string>(names.begin(), names.end());
}

absl::Status MemEnv::RenameFile(const std::string& from,
                                const std::string& to) {
  MutexLock l(&mu_);
  std::string src = Normalize(from);
  std::string dst = Normalize(to);
  const std::string what = absl::StrCat(from, " to ", to);
  auto it = files_.find(src);
  if (it == files_.end()) {
    // Renaming directories is not needed by the DB, so not modelled.
    if (IsDirLocked(src)) {
      return absl::UnimplementedError(
          absl::StrCat("rename ", what, ": directories cannot be renamed"));
    }
    return MemError("rename", what, ENOENT);
  }
  if (IsDirLocked(dst)) return MemError("rename", what, EISDIR);
  if (src == dst) return absl::OkStatus();
  std::shared_ptr<FileData> file = std::move(it->second);
  files_.erase(it);
  files_[dst] = std::move(file);  // replaces dst atomically
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<FileLock>> MemEnv::LockFile(
    const std::string& path) {
  std::string p = Normalize(path);
  {
    MutexLock l(&locks_->mu);
    if (!locks_->held.insert(p).second) {
      return absl::FailedPreconditionError(absl::StrCat(
          "lock ", path, " is held by another process or DB instance"));
    }
  }
  {
    // Like POSIX, locking creates the file, so it shows up in GetChildren.
    MutexLock l(&mu_);
    if (IsDirLocked(p)) {
      MutexLock ll(&locks_->mu);
      locks_->held.erase(p);
      return MemError("open", path, EISDIR);
    }
    std::shared_ptr<FileData>& file = files_[p];
    if (file == nullptr) file = std::make_shared<FileData>();
  }
  return std::make_unique<MemFileLock>(locks_, p);
}

}  // namespace

std::unique_ptr<Env> NewMemEnv() { return std::make_unique<MemEnv>(); }

}  // namespace sift
