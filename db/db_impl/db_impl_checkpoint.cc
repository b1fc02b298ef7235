// DB::CreateCheckpoint: a directory that opens as a database holding this
// DB's state at one moment.
//
// The moment is taken as the front writer (db_impl_write.cc), so no write is
// half done: the current Version, the last sequence, and the logs not yet
// in tables with the current log's length. The logs are copied, not
// flushed: a flush would make the checkpoint wait for a table build and add
// a level-0 file to the source DB, while the logs hold at most about a
// memtable or two. The current log is copied up to the length it had at
// the moment, which ends on a record boundary (writers append whole
// records); later records are not in the copy. Tables, and the
// replacement filters the MANIFEST names for them (db/filter_rebuild.h), are
// hard-linked (copied across file systems). The new MANIFEST records exactly
// the captured Version, log number and sequence, so Open there replays the
// copied logs on top of the tables and sees that state.

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "db/db_impl/db_impl.h"
#include "db/filename.h"
#include "db/log_writer.h"
#include "db/version_edit.h"
#include "util/file_copy.h"
#include "util/status_macros.h"

namespace sift {

struct DBImpl::CheckpointState {
  // Each family's Version (keeping its tables alive), "default" first.
  struct Family {
    uint32_t id;
    std::string name;
    std::string comparator;
    std::shared_ptr<const Version> version;
  };
  std::vector<Family> families;
  uint32_t max_column_family = 0;
  SequenceNumber sequence = 0;
  uint64_t log_number = 0;        // logs below it are wholly in tables
  uint64_t current_log = 0;       // the log being written
  uint64_t current_log_size = 0;  // its length at the moment
  uint64_t next_file = 0;         // numbers from here are unused
};

namespace {

// Writes a MANIFEST numbered manifest_number in dir holding a snapshot of
// state (one record per family, as VersionSet writes one), then points
// CURRENT at it.
absl::Status WriteCheckpointManifest(Env* env, const std::string& dir,
                                     const DBImpl::CheckpointState& state,
                                     uint64_t manifest_number) {
  const std::string name = ManifestFileName(dir, manifest_number);
  ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                   env->NewWritableFile(name));
  log::Writer writer(file.get());
  for (const DBImpl::CheckpointState::Family& family : state.families) {
    VersionEdit edit;
    edit.SetComparatorName(family.comparator);
    if (family.id == 0) {
      edit.SetFormatVersion(state.max_column_family > 0
                                ? kDbFormatVersion
                                : kDbFormatVersionOneFamily);
      edit.SetLogNumber(state.log_number);
      edit.SetNextFile(manifest_number + 1);
      edit.SetLastSequence(state.sequence);
    } else {
      edit.SetColumnFamily(family.id);
      edit.AddColumnFamily(family.name);
    }
    for (int level = 0; level < config::kNumLevels; ++level) {
      for (const auto& f : family.version->files[level]) {
        edit.AddFile(level, f);
      }
    }
    std::string record;
    edit.EncodeTo(&record);
    RETURN_IF_ERROR(writer.AddRecord(record));
    if (family.id == 0 && state.max_column_family > 0) {
      VersionEdit ids;  // as VersionSet's snapshot: after the first record
      ids.SetMaxColumnFamily(state.max_column_family);
      record.clear();
      ids.EncodeTo(&record);
      RETURN_IF_ERROR(writer.AddRecord(record));
    }
  }
  RETURN_IF_ERROR(file->Sync());
  RETURN_IF_ERROR(file->Close());
  // The tables, logs and MANIFEST must be durable before CURRENT names
  // them (SetCurrentFile syncs the directory again after its rename).
  RETURN_IF_ERROR(env->SyncDir(dir));
  return SetCurrentFile(env, dir, manifest_number);
}

// Removes dir and everything in it: a failed checkpoint's leftovers (dir
// did not exist before, so all of it is ours).
void RemoveCheckpointDir(Env* env, const std::string& dir) {
  auto children = env->GetChildren(dir);
  if (children.ok()) {
    for (const std::string& name : *children) {
      env->RemoveFile(dir + "/" + name).IgnoreError();
    }
  }
  env->RemoveDir(dir).IgnoreError();
}

}  // namespace

absl::Status DBImpl::CaptureCheckpointState(CheckpointState* state) {
  mu_.AssertHeld();
  return RunAsFrontWriter([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    RETURN_IF_ERROR(bg_error_);
    state->families.clear();
    for (const auto& cfd : versions_->families()) {
      state->families.push_back(CheckpointState::Family{
          cfd->id(), cfd->name(), cfd->options().comparator->Name(),
          cfd->current()});
    }
    state->max_column_family = versions_->max_column_family();
    state->sequence = versions_->LastSequence();
    state->log_number = versions_->log_number();
    state->current_log = logfile_number_;
    state->current_log_size = log_->size();
    state->next_file = versions_->next_file_number();
    log_pins_.insert(state->log_number);
    return absl::OkStatus();
  });
}

void DBImpl::UnpinLogs(uint64_t first) {
  MutexLock l(&mu_);
  log_pins_.erase(log_pins_.find(first));
}

absl::Status DBImpl::CreateCheckpoint(const std::string& dir,
                                      uint64_t* sequence) {
  RETURN_IF_ERROR(CheckWritable("CreateCheckpoint"));
  if (dir.empty()) {
    return absl::InvalidArgumentError(
        "CreateCheckpoint: the directory path is empty");
  }
  // One step makes the directory ours: of two checkpoints into one new
  // directory, exactly one gets it.
  absl::Status s = env_->CreateNewDir(dir);
  if (absl::IsAlreadyExists(s)) {
    return absl::InvalidArgumentError(
        absl::StrCat("CreateCheckpoint: directory '", dir, "' already exists"));
  }
  RETURN_IF_ERROR(s);
  CheckpointState state;
  {
    MutexLock l(&mu_);
    s = CaptureCheckpointState(&state);
  }
  if (!s.ok()) {
    RemoveCheckpointDir(env_, dir);
    return s;
  }
  // Every file the captured Version names: the tables and the replacement
  // filters RebuildFilters wrote for some of them.
  for (size_t i = 0; i < state.families.size() && s.ok(); ++i) {
    for (int level = 0; level < config::kNumLevels && s.ok(); ++level) {
      for (const auto& f : state.families[i].version->files[level]) {
        s = LinkOrCopyFile(env_, TableFileName(dbname_, f->number),
                           TableFileName(dir, f->number), f->file_size)
                .status();
        if (s.ok() && f->facts.has_value() && f->facts->replacement) {
          const ReplacementFilter& r = *f->facts->replacement;
          s = LinkOrCopyFile(env_, FilterFileName(dbname_, r.number),
                             FilterFileName(dir, r.number), r.size)
                  .status();
        }
        if (!s.ok()) break;
      }
    }
  }
  // The logs from log_number on: the older ones are closed (a link or a
  // whole copy), the current one is copied up to its captured length.
  if (s.ok()) {
    auto children = env_->GetChildren(dbname_);
    s = children.status();
    for (size_t i = 0; s.ok() && i < children->size(); ++i) {
      uint64_t number;
      FileType type;
      if (!ParseFileName((*children)[i], &number, &type) ||
          type != FileType::kLog || number < state.log_number ||
          number > state.current_log) {
        continue;
      }
      const std::string from = LogFileName(dbname_, number);
      const std::string to = LogFileName(dir, number);
      if (number == state.current_log) {
        s = CopyFilePrefix(env_, from, to, state.current_log_size);
      } else {
        absl::StatusOr<uint64_t> size = env_->GetFileSize(from);
        s = size.ok() ? LinkOrCopyFile(env_, from, to, *size).status()
                      : size.status();
      }
    }
  }
  UnpinLogs(state.log_number);
  if (s.ok()) {
    s = WriteCheckpointManifest(env_, dir, state, state.next_file);
  }
  if (!s.ok()) {
    RemoveCheckpointDir(env_, dir);
    return s;
  }
  if (sequence != nullptr) *sequence = state.sequence;
  return absl::OkStatus();
}

}  // namespace sift
