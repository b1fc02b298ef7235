// FaultInjectionEnv: an Env wrapper for crash and error tests. It remembers
// what has been made durable, can simulate a power loss that drops everything
// else, and fails chosen operations on demand (disk full, I/O error).
//
// Durability model (what SimulateCrash leaves behind):
//  - File data: a file written through this env keeps, after a crash, only
//    the bytes covered by its last successful WritableFile::Sync. A file
//    created here starts at 0 synced bytes; NewWritableFile of an existing
//    file truncates it, so 0 bytes are synced. Files never opened for writing
//    through this env are assumed durable as they are.
//  - Directory entries: a name created (by NewWritableFile of a missing
//    file, as the destination of a rename, or by LinkFile)
//    becomes durable only at the next successful SyncDir of its parent
//    directory. A crash before that restores the name's state at that point:
//    a new file disappears; a file replaced by a rename comes back with its
//    old durable contents (the replaced contents are kept in memory until
//    the SyncDir, so renaming over big files costs memory). The renamed
//    source name is gone at once. A link shares its source's data, and so
//    its synced length.
//  - Removals (RemoveFile, and the source name of a rename) are durable at
//    once. A real file system may bring a removed file back after a crash;
//    a DB only removes files it no longer needs, so that case is harmless
//    and not modelled. Directories (CreateDir/RemoveDir) are durable at once.
// So the model never keeps data that was not synced, and keeps all data
// whose file and directory entry were synced.
//
// Paths are compared as strings: use the same spelling for a file and for
// the directory passed to SyncDir ("db/000001.log" and SyncDir("db")).
//
// Typical crash test:
//   FaultInjectionEnv env(base);
//   ... run the DB on &env, write, sync some ...
//   env.SetFilesystemActive(false);  // power cut: nothing more reaches disk
//   db.reset();                      // the old instance stops
//   ASSERT_OK(env.SimulateCrash());  // drop what was never made durable
//   env.SetFilesystemActive(true);
//   ... reopen the DB on &env and check what survived ...
//
// Thread-safe.

#ifndef SIFT_TESTS_TESTUTIL_FAULT_ENV_H_
#define SIFT_TESTS_TESTUTIL_FAULT_ENV_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "sift/env.h"
#include "util/mutex.h"

namespace sift {

// The operations an injected error can target.
enum class FaultOp {
  kNewFile,  // NewWritableFile (nothing is created)
  kAppend,   // WritableFile::Append (nothing is written) and Flush
  kSync,     // WritableFile::Sync (nothing more becomes durable)
  kRename,   // RenameFile; the substring may match either name
  kRemove,   // RemoveFile
  kSyncDir,  // SyncDir; matched against the directory path
  kOpen,     // NewSequentialFile, NewRandomAccessFile
  kRead,     // SequentialFile::Read/Skip, RandomAccessFile::Read
  kLink,     // LinkFile; the substring may match either name
};

// The operation's name as injected errors spell it ("append", "sync", ...).
const char* FaultOpName(FaultOp op);

class FaultInjectionEnv : public EnvWrapper {
 public:
  // target must outlive this env, and this env every file opened through
  // it.
  explicit FaultInjectionEnv(Env* target);
  ~FaultInjectionEnv() override;

  // ---- Crash simulation ----

  // Makes the target look as a power loss would leave it (see the model
  // above). Every WritableFile opened before the call is closed: later
  // calls on it fail with FailedPrecondition and write nothing. Afterwards
  // everything on the target counts as durable. Do not run it concurrently
  // with new files being opened: deactivate the file system first. File
  // locks are not released (the old DB instance still holds its LOCK):
  // destroy that instance before reopening. Returns the first error met
  // while rewriting the target, after trying every file.
  absl::Status SimulateCrash();

  // While inactive, every call that would change the file system (new
  // files, Append, Flush, Sync, Close's flush, rename, remove, SyncDir,
  // directories) fails with an I/O error and changes nothing that is not
  // dropped by the next SimulateCrash. Reads keep working. Starts active.
  void SetFilesystemActive(bool active);
  bool IsFilesystemActive() const;

  // ---- Error injection ----

  // Fails calls of kind op whose path contains path_substring ("" matches
  // every path): the first `skip` matching calls succeed, then every
  // matching call fails until ClearErrors(). The returned status has
  // error's code and the message "<op> <path>: <error message> (injected)".
  // Several rules may be active; a call is checked against each in the
  // order they were added, and each rule counts down its own skip.
  void InjectError(FaultOp op, std::string path_substring, absl::Status error,
                   int skip = 0);
  void ClearErrors();
  // Calls failed by an injected error so far.
  uint64_t injected_error_count() const;

  // Errors for InjectError: disk full (ENOSPC, ResourceExhausted) and an
  // I/O error (EIO, the code absl::ErrnoToStatus gives it).
  static absl::Status NoSpaceError();
  static absl::Status IOError();

  // ---- Counters (of successful calls, since construction or Reset) ----

  uint64_t sync_count() const;      // WritableFile::Sync, all files
  uint64_t sync_dir_count() const;  // SyncDir
  // Per file, by the path the file was opened with; a query sums the files
  // whose path contains path_substring (e.g. ".log", "MANIFEST", ".sst").
  uint64_t AppendsTo(std::string_view path_substring) const;
  uint64_t BytesAppendedTo(std::string_view path_substring) const;
  uint64_t SyncsOf(std::string_view path_substring) const;
  // Successful NewWritableFile calls.
  uint64_t WritableFilesOpened(std::string_view path_substring) const;
  void ResetCounters();

  // ---- Env ----

  absl::StatusOr<std::unique_ptr<SequentialFile>> NewSequentialFile(
      const std::string& path) override;
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override;
  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override;
  absl::Status RemoveFile(const std::string& path) override;
  absl::Status RenameFile(const std::string& from,
                          const std::string& to) override;
  absl::Status CreateDir(const std::string& dir) override;
  absl::Status CreateNewDir(const std::string& dir) override;
  absl::Status RemoveDir(const std::string& dir) override;
  absl::Status SyncDir(const std::string& dir) override;
  absl::Status LinkFile(const std::string& from,
                        const std::string& to) override;

 private:
  class Writer;
  class SequentialReader;
  class RandomReader;
  struct WriterState;
  // An open-for-write file's durability record, shared by its handles.
  struct Tracked {
    uint64_t size = 0;    // bytes in the file, as far as this env knows
    uint64_t synced = 0;  // bytes covered by the last successful Sync
  };
  // A name's state as of the last SyncDir of its directory.
  struct Durable {
    bool existed = false;
    std::string contents;  // if existed
  };
  struct Rule {
    FaultOp op;
    std::string substring;
    absl::Status error;
    int skip_left;
  };
  struct Counters {
    uint64_t appends = 0;
    uint64_t bytes_appended = 0;
    uint64_t syncs = 0;
    uint64_t opened = 0;
  };

  // The injected error for this call, or OK. path2 is the rename target.
  absl::Status MaybeFail(FaultOp op, std::string_view path,
                         std::string_view path2 = {});
  absl::Status CheckActive(std::string_view op, std::string_view path) const;
  Durable DurableStateLocked(const std::string& path)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RecordAppend(const WriterState& w, size_t n);
  void RecordSync(const WriterState& w);
  uint64_t SumCounters(std::string_view path_substring,
                       uint64_t Counters::*field) const;
  uint64_t epoch() const { return epoch_.load(std::memory_order_acquire); }

  std::atomic<bool> active_{true};
  // Bumped by SimulateCrash; a writer from an older epoch is dead.
  std::atomic<uint64_t> epoch_{0};
  // Lets reads skip the mutex when nothing is injected.
  std::atomic<bool> have_rules_{false};

  mutable Mutex mu_;
  std::vector<Rule> rules_ ABSL_GUARDED_BY(mu_);
  uint64_t injected_ ABSL_GUARDED_BY(mu_) = 0;
  // By current name; the Tracked objects' fields are guarded by mu_ too.
  std::map<std::string, std::shared_ptr<Tracked>> tracked_ ABSL_GUARDED_BY(mu_);
  // Names whose directory entry changed since their directory's last SyncDir.
  std::map<std::string, Durable> pending_ ABSL_GUARDED_BY(mu_);
  std::vector<std::weak_ptr<WriterState>> writers_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Counters, std::less<>> counters_ ABSL_GUARDED_BY(mu_);
  uint64_t syncs_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t sync_dirs_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace sift

#endif  // SIFT_TESTS_TESTUTIL_FAULT_ENV_H_
