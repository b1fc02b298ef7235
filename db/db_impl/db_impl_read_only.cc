// DB::OpenForReadOnly: a DB that reads the files of a database directory,
// possibly while another process writes to it, and writes nothing.
//
// Another process may change the directory while we read it: start a new
// MANIFEST and retire the one CURRENT named, or compact and delete tables
// and logs the MANIFEST we read still names. Such a race looks like damage
// (a missing file). It is told from real damage by the directory having
// changed during the attempt; then the open starts over, a few times.

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "db/db_impl/db_impl.h"
#include "db/filename.h"
#include "util/status_macros.h"

namespace sift {
namespace {

// Attempts before a changing directory's error is returned as it is. A
// busy writer (a flush every few hundred writes) can change the directory
// during several attempts in a row, more so when this process is slow (a
// sanitizer build): each retry waits a little longer, 1 ms more each time.
constexpr int kReadOnlyOpenAttempts = 20;

// What a writer changes when it switches MANIFEST, logs an edit or deletes
// files: CURRENT's contents, the names in the directory and the MANIFEST's
// size. Equal fingerprints before and after a failed attempt mean the
// failure came from the files as they are, not from a race.
std::string DirectoryFingerprint(Env* env, const std::string& dbname) {
  std::string current;
  std::string print;
  if (ReadFileToString(env, CurrentFileName(dbname), &current).ok()) {
    absl::StrAppend(&print, current, ";");
    if (!current.empty() && current.back() == '\n') current.pop_back();
    auto size = env->GetFileSize(dbname + "/" + current);
    if (size.ok()) absl::StrAppend(&print, *size, ";");
  }
  auto children = env->GetChildren(dbname);
  if (children.ok()) {
    for (const std::string& name : *children)
      absl::StrAppend(&print, name, "/");
  }
  return print;
}

}  // namespace

absl::StatusOr<std::unique_ptr<DB>> DB::OpenForReadOnly(
    const Options& options, const std::string& path) {
  RETURN_IF_ERROR(ValidateOptions(options));
  return DBImpl::OpenForReadOnlyWith(options, path, {});
}

absl::StatusOr<std::unique_ptr<DB>> DBImpl::OpenForReadOnlyWith(
    const Options& options, const std::string& path,
    std::vector<ColumnFamilyDescriptor> families) {
  if (path.empty()) {
    return absl::InvalidArgumentError(
        "DB::OpenForReadOnly: empty database path");
  }
  Env* env = options.env != nullptr ? options.env : Env::Default();
  absl::Status s;
  for (int attempt = 0; attempt < kReadOnlyOpenAttempts; ++attempt) {
    const std::string before = DirectoryFingerprint(env, path);
    auto db =
        std::make_unique<DBImpl>(options, path, /*read_only=*/true, families);
    s = db->OpenReadOnlyImpl();
    if (s.ok()) return db;
    // A table deleted between the MANIFEST's read and its open is
    // Unavailable (db/table_cache.h, OpenError).
    const bool maybe_race =
        absl::IsDataLoss(s) || absl::IsNotFound(s) || absl::IsUnavailable(s);
    if (!maybe_race || DirectoryFingerprint(env, path) == before) return s;
    env->SleepForMicroseconds((attempt + 1) * 1000);
  }
  // Not damage: the files kept changing under every attempt.
  return absl::UnavailableError(
      absl::StrCat("DB::OpenForReadOnly: ", path, " changed during each of ",
                   kReadOnlyOpenAttempts,
                   " attempts (a busy writer); last error: ", s.message()));
}

absl::Status DBImpl::OpenReadOnlyImpl() {
  MutexLock l(&mu_);
  // Recover replays the logs into the families' memtables.
  FamilyEdits edits;  // what a writable open would log; dropped here
  std::vector<PendingOutput> outputs;  // stays empty: no table is written
  RETURN_IF_ERROR(Recover(&edits, &outputs));
  for (const auto& cfd : versions_->families()) {
    if (cfd->mem == nullptr) cfd->mem = NewMemTable(*cfd);
  }
  InstallReadView();
  return absl::OkStatus();
}

absl::Status DBImpl::ReadOnlyError(std::string_view operation) const {
  return absl::FailedPreconditionError(
      absl::StrCat(std::string(operation), " on ", dbname_,
                   ": the database was opened read-only"));
}

}  // namespace sift
