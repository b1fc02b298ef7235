#include "tests/testutil/fault_env.h"

#include <cerrno>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "util/status_macros.h"

namespace sift {
namespace {

absl::string_view AbslView(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

std::string StripTrailingSlashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// The directory whose SyncDir makes path's entry durable.
std::string ParentDir(const std::string& path) {
  std::string p = StripTrailingSlashes(path);
  size_t slash = p.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return StripTrailingSlashes(p.substr(0, slash));
}

absl::Status CrashedError(std::string_view op, std::string_view path) {
  return absl::FailedPreconditionError(
      absl::StrCat(AbslView(op), " ", AbslView(path),
                   ": file was open across a simulated crash"));
}

// Writes contents as the whole of path on the target, durably.
absl::Status Rewrite(Env* target, const std::string& path,
                     const std::string& contents) {
  return WriteStringToFile(target, contents, path, /*sync=*/true);
}

}  // namespace

const char* FaultOpName(FaultOp op) {
  switch (op) {
    case FaultOp::kNewFile:
      return "create";
    case FaultOp::kAppend:
      return "append";
    case FaultOp::kSync:
      return "sync";
    case FaultOp::kRename:
      return "rename";
    case FaultOp::kRemove:
      return "remove";
    case FaultOp::kSyncDir:
      return "sync directory";
    case FaultOp::kOpen:
      return "open";
    case FaultOp::kRead:
      return "read";
    case FaultOp::kLink:
      return "link";
  }
  return "?";
}

// What a Writer shares with the env, so SimulateCrash can close the target
// file of a handle it does not own.
struct FaultInjectionEnv::WriterState {
  WriterState(std::string p, uint64_t e, std::shared_ptr<Tracked> t,
              std::unique_ptr<WritableFile> f)
      : path(std::move(p)),
        epoch(e),
        tracked(std::move(t)),
        file(std::move(f)) {}

  const std::string path;  // as opened; counters are kept under this name
  const uint64_t epoch;
  const std::shared_ptr<Tracked> tracked;
  Mutex mu;
  // Null once closed or killed by SimulateCrash.
  std::unique_ptr<WritableFile> file ABSL_GUARDED_BY(mu);
  bool crashed ABSL_GUARDED_BY(mu) = false;
};

class FaultInjectionEnv::Writer final : public WritableFile {
 public:
  Writer(FaultInjectionEnv* env, std::shared_ptr<WriterState> w)
      : env_(env), w_(std::move(w)) {}
  ~Writer() override {
    MutexLock l(&w_->mu);
    if (w_->file != nullptr) w_->file->Close().IgnoreError();
    w_->file.reset();
  }

  absl::Status Append(std::string_view data) override {
    MutexLock l(&w_->mu);
    RETURN_IF_ERROR(CheckLocked("append"));
    RETURN_IF_ERROR(env_->MaybeFail(FaultOp::kAppend, w_->path));
    RETURN_IF_ERROR(w_->file->Append(data));
    env_->RecordAppend(*w_, data.size());
    return absl::OkStatus();
  }

  absl::Status Flush() override {
    MutexLock l(&w_->mu);
    RETURN_IF_ERROR(CheckLocked("flush"));
    RETURN_IF_ERROR(env_->MaybeFail(FaultOp::kAppend, w_->path));
    return w_->file->Flush();
  }

  absl::Status Sync() override {
    MutexLock l(&w_->mu);
    RETURN_IF_ERROR(CheckLocked("sync"));
    RETURN_IF_ERROR(env_->MaybeFail(FaultOp::kSync, w_->path));
    RETURN_IF_ERROR(w_->file->Sync());
    env_->RecordSync(*w_);
    return absl::OkStatus();
  }

  absl::Status Close() override {
    MutexLock l(&w_->mu);
    if (w_->file == nullptr) return DeadErrorLocked("close");
    // The target is closed even when the close must report failure, so the
    // descriptor is released; what its flush writes was never synced.
    absl::Status s = w_->file->Close();
    w_->file.reset();
    if (w_->epoch != env_->epoch()) return CrashedError("close", w_->path);
    RETURN_IF_ERROR(env_->CheckActive("close", w_->path));
    return s;
  }

 private:
  absl::Status CheckLocked(std::string_view op)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(w_->mu) {
    if (w_->file == nullptr) return DeadErrorLocked(op);
    // The epoch check covers the window between SimulateCrash starting and
    // it reaching this file.
    if (w_->epoch != env_->epoch()) return CrashedError(op, w_->path);
    return env_->CheckActive(op, w_->path);
  }

  absl::Status DeadErrorLocked(std::string_view op)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(w_->mu) {
    if (w_->crashed) return CrashedError(op, w_->path);
    return absl::FailedPreconditionError(
        absl::StrCat(AbslView(op), " ", w_->path, ": file is closed"));
  }

  FaultInjectionEnv* const env_;
  const std::shared_ptr<WriterState> w_;
};

class FaultInjectionEnv::SequentialReader final : public SequentialFile {
 public:
  SequentialReader(FaultInjectionEnv* env, std::string path,
                   std::unique_ptr<SequentialFile> file)
      : env_(env), path_(std::move(path)), file_(std::move(file)) {}

  absl::Status Read(size_t n, std::string_view* result,
                    char* scratch) override {
    absl::Status s = env_->MaybeFail(FaultOp::kRead, path_);
    if (!s.ok()) {
      *result = {};
      return s;
    }
    return file_->Read(n, result, scratch);
  }

 private:
  FaultInjectionEnv* const env_;
  const std::string path_;
  const std::unique_ptr<SequentialFile> file_;
};

class FaultInjectionEnv::RandomReader final : public RandomAccessFile {
 public:
  RandomReader(FaultInjectionEnv* env, std::string path,
               std::unique_ptr<RandomAccessFile> file)
      : env_(env), path_(std::move(path)), file_(std::move(file)) {}

  absl::Status Read(uint64_t offset, size_t n, std::string_view* result,
                    char* scratch) const override {
    absl::Status s = env_->MaybeFail(FaultOp::kRead, path_);
    if (!s.ok()) {
      *result = {};
      return s;
    }
    return file_->Read(offset, n, result, scratch);
  }

 private:
  FaultInjectionEnv* const env_;
  const std::string path_;
  const std::unique_ptr<RandomAccessFile> file_;
};

FaultInjectionEnv::FaultInjectionEnv(Env* target) : EnvWrapper(target) {}
FaultInjectionEnv::~FaultInjectionEnv() = default;

// ---- error injection ----

void FaultInjectionEnv::InjectError(FaultOp op, std::string path_substring,
                                    absl::Status error, int skip) {
  MutexLock l(&mu_);
  rules_.push_back(Rule{op, std::move(path_substring), std::move(error),
                        skip < 0 ? 0 : skip});
  have_rules_.store(true, std::memory_order_release);
}

void FaultInjectionEnv::ClearErrors() {
  MutexLock l(&mu_);
  rules_.clear();
  have_rules_.store(false, std::memory_order_release);
}

uint64_t FaultInjectionEnv::injected_error_count() const {
  MutexLock l(&mu_);
  return injected_;
}

absl::Status FaultInjectionEnv::NoSpaceError() {
  return absl::ResourceExhaustedError("No space left on device");
}

absl::Status FaultInjectionEnv::IOError() {
  return absl::Status(absl::ErrnoToStatusCode(EIO), "Input/output error");
}

absl::Status FaultInjectionEnv::MaybeFail(FaultOp op, std::string_view path,
                                          std::string_view path2) {
  if (!have_rules_.load(std::memory_order_acquire)) return absl::OkStatus();
  MutexLock l(&mu_);
  for (Rule& r : rules_) {
    if (r.op != op) continue;
    if (path.find(r.substring) == std::string_view::npos &&
        (path2.empty() || path2.find(r.substring) == std::string_view::npos)) {
      continue;
    }
    if (r.skip_left > 0) {
      --r.skip_left;
      continue;
    }
    ++injected_;
    std::string where(path);
    if (!path2.empty()) absl::StrAppend(&where, " to ", AbslView(path2));
    return absl::Status(r.error.code(),
                        absl::StrCat(FaultOpName(op), " ", where, ": ",
                                     r.error.message(), " (injected)"));
  }
  return absl::OkStatus();
}

// ---- crash simulation ----

void FaultInjectionEnv::SetFilesystemActive(bool active) {
  active_.store(active, std::memory_order_release);
}

bool FaultInjectionEnv::IsFilesystemActive() const {
  return active_.load(std::memory_order_acquire);
}

absl::Status FaultInjectionEnv::CheckActive(std::string_view op,
                                            std::string_view path) const {
  if (IsFilesystemActive()) return absl::OkStatus();
  return absl::Status(
      absl::ErrnoToStatusCode(EIO),
      absl::StrCat(AbslView(op), " ", AbslView(path),
                   ": file system inactive (simulated power loss)"));
}

FaultInjectionEnv::Durable FaultInjectionEnv::DurableStateLocked(
    const std::string& path) {
  Durable d;
  if (!target()->FileExists(path)) return d;
  d.existed = true;
  if (!ReadFileToString(target(), path, &d.contents).ok()) {
    // Unreadable: keep nothing rather than something never durable.
    d.contents.clear();
  }
  auto it = tracked_.find(path);
  if (it != tracked_.end() && d.contents.size() > it->second->synced) {
    d.contents.resize(it->second->synced);
  }
  return d;
}

absl::Status FaultInjectionEnv::SimulateCrash() {
  // 1. Kill the writers first, closing their target files now: a target
  // buffer flushed later would put data back after the truncation below.
  std::vector<std::shared_ptr<WriterState>> live;
  {
    MutexLock l(&mu_);
    epoch_.fetch_add(1, std::memory_order_acq_rel);
    for (const std::weak_ptr<WriterState>& weak : writers_) {
      if (std::shared_ptr<WriterState> w = weak.lock()) live.push_back(w);
    }
    writers_.clear();
  }
  for (const std::shared_ptr<WriterState>& w : live) {
    MutexLock l(&w->mu);
    if (w->file != nullptr) w->file->Close().IgnoreError();
    w->file.reset();
    w->crashed = true;
  }

  // 2. Undo directory entries that were never synced, then drop unsynced
  // data from the files that remain.
  MutexLock l(&mu_);
  absl::Status result;
  auto note = [&result](absl::Status s) {
    if (!s.ok() && !absl::IsNotFound(s) && result.ok()) result = s;
  };
  for (const auto& [name, durable] : pending_) {
    tracked_.erase(name);
    note(durable.existed ? Rewrite(target(), name, durable.contents)
                         : target()->RemoveFile(name));
  }
  for (const auto& [name, t] : tracked_) {
    absl::StatusOr<uint64_t> size = target()->GetFileSize(name);
    if (!size.ok()) {
      note(size.status());
      continue;
    }
    if (*size <= t->synced) continue;
    std::string contents;
    absl::Status s = ReadFileToString(target(), name, &contents);
    if (s.ok()) {
      contents.resize(std::min<uint64_t>(contents.size(), t->synced));
      s = Rewrite(target(), name, contents);
    }
    note(s);
  }
  pending_.clear();
  tracked_.clear();
  return result;
}

// ---- Env ----

absl::StatusOr<std::unique_ptr<SequentialFile>>
FaultInjectionEnv::NewSequentialFile(const std::string& path) {
  RETURN_IF_ERROR(MaybeFail(FaultOp::kOpen, path));
  ASSIGN_OR_RETURN(std::unique_ptr<SequentialFile> file,
                   target()->NewSequentialFile(path));
  return std::make_unique<SequentialReader>(this, path, std::move(file));
}

absl::StatusOr<std::unique_ptr<RandomAccessFile>>
FaultInjectionEnv::NewRandomAccessFile(const std::string& path) {
  RETURN_IF_ERROR(MaybeFail(FaultOp::kOpen, path));
  ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                   target()->NewRandomAccessFile(path));
  return std::make_unique<RandomReader>(this, path, std::move(file));
}

absl::StatusOr<std::unique_ptr<WritableFile>>
FaultInjectionEnv::NewWritableFile(const std::string& path) {
  RETURN_IF_ERROR(CheckActive("create", path));
  RETURN_IF_ERROR(MaybeFail(FaultOp::kNewFile, path));
  const bool existed = target()->FileExists(path);
  ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                   target()->NewWritableFile(path));

  MutexLock l(&mu_);
  if (!existed) pending_.try_emplace(path);  // durable state: absent
  std::shared_ptr<Tracked>& t = tracked_[path];
  if (t == nullptr) t = std::make_shared<Tracked>();
  t->size = t->synced = 0;  // truncated: nothing of it is durable yet
  counters_[path].opened++;
  auto w = std::make_shared<WriterState>(path, epoch(), t, std::move(file));
  std::erase_if(writers_, [](const std::weak_ptr<WriterState>& weak) {
    return weak.expired();
  });
  writers_.push_back(w);
  return std::make_unique<Writer>(this, std::move(w));
}

void FaultInjectionEnv::RecordAppend(const WriterState& w, size_t n) {
  MutexLock l(&mu_);
  w.tracked->size += n;
  Counters& c = counters_[w.path];
  c.appends++;
  c.bytes_appended += n;
}

void FaultInjectionEnv::RecordSync(const WriterState& w) {
  MutexLock l(&mu_);
  w.tracked->synced = w.tracked->size;
  counters_[w.path].syncs++;
  syncs_++;
}

absl::Status FaultInjectionEnv::RemoveFile(const std::string& path) {
  RETURN_IF_ERROR(CheckActive("remove", path));
  RETURN_IF_ERROR(MaybeFail(FaultOp::kRemove, path));
  RETURN_IF_ERROR(target()->RemoveFile(path));
  MutexLock l(&mu_);
  tracked_.erase(path);
  pending_.erase(path);  // removals are durable at once
  return absl::OkStatus();
}

absl::Status FaultInjectionEnv::RenameFile(const std::string& from,
                                           const std::string& to) {
  RETURN_IF_ERROR(CheckActive("rename", from));
  RETURN_IF_ERROR(MaybeFail(FaultOp::kRename, from, to));
  if (from == to) return target()->RenameFile(from, to);
  // Under the lock throughout, so the remembered state of `to` and the
  // rename cannot be separated by another thread's write.
  MutexLock l(&mu_);
  std::optional<Durable> old_to;
  if (pending_.count(to) == 0) old_to = DurableStateLocked(to);
  RETURN_IF_ERROR(target()->RenameFile(from, to));
  if (old_to.has_value()) pending_.emplace(to, *std::move(old_to));
  pending_.erase(from);
  auto it = tracked_.find(from);
  if (it != tracked_.end()) {
    tracked_[to] = std::move(it->second);
    tracked_.erase(it);
  } else {
    tracked_.erase(to);
  }
  return absl::OkStatus();
}

absl::Status FaultInjectionEnv::CreateDir(const std::string& dir) {
  RETURN_IF_ERROR(CheckActive("mkdir", dir));
  return target()->CreateDir(dir);
}

absl::Status FaultInjectionEnv::CreateNewDir(const std::string& dir) {
  RETURN_IF_ERROR(CheckActive("mkdir", dir));
  return target()->CreateNewDir(dir);
}

absl::Status FaultInjectionEnv::RemoveDir(const std::string& dir) {
  RETURN_IF_ERROR(CheckActive("rmdir", dir));
  return target()->RemoveDir(dir);
}

absl::Status FaultInjectionEnv::LinkFile(const std::string& from,
                                         const std::string& to) {
  RETURN_IF_ERROR(CheckActive("link", from));
  RETURN_IF_ERROR(MaybeFail(FaultOp::kLink, from, to));
  MutexLock l(&mu_);
  std::optional<Durable> old_to;
  if (pending_.count(to) == 0) old_to = DurableStateLocked(to);
  RETURN_IF_ERROR(target()->LinkFile(from, to));
  if (old_to.has_value()) pending_.emplace(to, *std::move(old_to));
  // One inode, two names: what a Sync through either makes durable.
  auto it = tracked_.find(from);
  if (it != tracked_.end()) tracked_[to] = it->second;
  return absl::OkStatus();
}

absl::Status FaultInjectionEnv::SyncDir(const std::string& dir) {
  RETURN_IF_ERROR(CheckActive("sync directory", dir));
  RETURN_IF_ERROR(MaybeFail(FaultOp::kSyncDir, dir));
  RETURN_IF_ERROR(target()->SyncDir(dir));
  const std::string d = StripTrailingSlashes(dir);
  MutexLock l(&mu_);
  std::erase_if(pending_, [&d](const auto& entry) {
    return ParentDir(entry.first) == d;
  });
  sync_dirs_++;
  return absl::OkStatus();
}

// ---- counters ----

uint64_t FaultInjectionEnv::sync_count() const {
  MutexLock l(&mu_);
  return syncs_;
}

uint64_t FaultInjectionEnv::sync_dir_count() const {
  MutexLock l(&mu_);
  return sync_dirs_;
}

uint64_t FaultInjectionEnv::SumCounters(std::string_view path_substring,
                                        uint64_t Counters::*field) const {
  MutexLock l(&mu_);
  uint64_t sum = 0;
  for (const auto& [path, c] : counters_) {
    if (path.find(path_substring) != std::string::npos) sum += c.*field;
  }
  return sum;
}

uint64_t FaultInjectionEnv::AppendsTo(std::string_view path_substring) const {
  return SumCounters(path_substring, &Counters::appends);
}

uint64_t FaultInjectionEnv::BytesAppendedTo(
    std::string_view path_substring) const {
  return SumCounters(path_substring, &Counters::bytes_appended);
}

uint64_t FaultInjectionEnv::SyncsOf(std::string_view path_substring) const {
  return SumCounters(path_substring, &Counters::syncs);
}

uint64_t FaultInjectionEnv::WritableFilesOpened(
    std::string_view path_substring) const {
  return SumCounters(path_substring, &Counters::opened);
}

void FaultInjectionEnv::ResetCounters() {
  MutexLock l(&mu_);
  counters_.clear();
  syncs_ = 0;
  sync_dirs_ = 0;
}

}  // namespace sift
