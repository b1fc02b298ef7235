#include "db/builder.h"

#include <algorithm>
#include <utility>

#include "db/filename.h"
#include "util/status_macros.h"

namespace sift {

OutputFile::OutputFile(std::string path, Env* env, uint64_t number,
                       std::unique_ptr<WritableFile> file,
                       const Options& options, int level)
    : path_(std::move(path)),
      env_(env),
      number_(number),
      file_(std::move(file)),
      builder_(std::make_unique<TableBuilder>(
          options, file_.get(), FilterLayoutForLevel(options, level))) {}

OutputFile::~OutputFile() {
  if (!done_) Abandon();
}

absl::StatusOr<std::unique_ptr<OutputFile>> OutputFile::Create(
    const std::string& dbname, Env* env, const Options& options,
    uint64_t number, int level) {
  std::string path = TableFileName(dbname, number);
  ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                   env->NewWritableFile(path));
  return std::unique_ptr<OutputFile>(new OutputFile(
      std::move(path), env, number, std::move(file), options, level));
}

absl::Status OutputFile::Add(std::string_view ikey, std::string_view value) {
  RETURN_IF_ERROR(builder_->Add(ikey, value));
  // The builder checked that ikey parses.
  ParsedInternalKey parsed;
  ParseInternalKey(ikey, &parsed);
  smallest_seq_ = std::min(smallest_seq_, parsed.sequence);
  largest_seq_ = std::max(largest_seq_, parsed.sequence);
  return absl::OkStatus();
}

absl::Status OutputFile::Finish(TableCache* cache, FileMetaData* meta) {
  absl::Status s = builder_->Finish();
  if (s.ok()) s = file_->Sync();
  if (s.ok()) s = file_->Close();
  if (s.ok()) {
    meta->number = number_;
    meta->file_size = builder_->FileSize();
    meta->smallest = builder_->smallest_key();
    meta->largest = builder_->last_key();
    FileFacts facts = FactsFromProperties(builder_->properties(), 0);
    facts.smallest_seq = std::min(smallest_seq_, largest_seq_);
    facts.largest_seq = largest_seq_;
    meta->facts = facts;
    s = cache->Open(*meta).status();
  }
  if (!s.ok()) {
    Abandon();
    return s;
  }
  done_ = true;
  return s;
}

void OutputFile::Abandon() {
  done_ = true;
  builder_->Abandon();
  file_.reset();
  env_->RemoveFile(path_).IgnoreError();
}

absl::Status BuildTable(const std::string& dbname, Env* env,
                        const Options& options, TableCache* cache,
                        Iterator* iter, uint64_t number, FileMetaData* meta) {
  meta->file_size = 0;
  iter->SeekToFirst();
  if (!iter->Valid()) return iter->status();
  ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> out,
                   OutputFile::Create(dbname, env, options, number,
                                      /*level=*/0));
  for (; iter->Valid(); iter->Next()) {
    RETURN_IF_ERROR(out->Add(iter->key(), iter->value()));
  }
  RETURN_IF_ERROR(iter->status());
  return out->Finish(cache, meta);
}

}  // namespace sift
