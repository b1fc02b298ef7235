#include "sift/sst_file_writer.h"

#include <string>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "sift/env.h"
#include "table/format.h"
#include "table/internal_key.h"
#include "table/table_builder.h"
#include "util/status_macros.h"

namespace sift {

struct SstFileWriter::Rep {
  Options options;
  std::string path;
  std::unique_ptr<WritableFile> file;
  std::unique_ptr<TableBuilder> builder;
  bool finished = false;
  std::string last_user_key;
  std::string ikey;  // scratch
  TableProperties properties;
};

SstFileWriter::SstFileWriter(const Options& options)
    : rep_(std::make_unique<Rep>()) {
  rep_->options = options;
}

SstFileWriter::~SstFileWriter() {
  if (rep_->builder != nullptr && !rep_->finished) rep_->builder->Abandon();
}

absl::Status SstFileWriter::Open(const std::string& path) {
  if (rep_->builder != nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("SstFileWriter is already open on ", rep_->path));
  }
  RETURN_IF_ERROR(ValidateTableOptions(rep_->options));
  Env* env = rep_->options.env != nullptr ? rep_->options.env : Env::Default();
  ASSIGN_OR_RETURN(rep_->file, env->NewWritableFile(path));
  rep_->path = path;
  rep_->builder =
      std::make_unique<TableBuilder>(rep_->options, rep_->file.get());
  return absl::OkStatus();
}

absl::Status SstFileWriter::Add(std::string_view key, std::string_view value,
                                bool is_put) {
  Rep* r = rep_.get();
  if (r->builder == nullptr || r->finished) {
    return absl::FailedPreconditionError(
        r->finished
            ? absl::StrCat("SstFileWriter: ", r->path, " is already finished")
            : std::string("SstFileWriter: Open was not called"));
  }
  RETURN_IF_ERROR(CheckEntrySize("SstFileWriter", key, value));
  if (r->builder->NumEntries() > 0 &&
      r->options.comparator->Compare(key, r->last_user_key) <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("SstFileWriter: keys must be strictly increasing: '",
                     absl::CEscape(absl::string_view(key.data(), key.size())),
                     "' after '", absl::CEscape(r->last_user_key), "'"));
  }
  r->ikey.clear();
  AppendInternalKey(&r->ikey, key, 0, is_put ? kTypeValue : kTypeDeletion);
  RETURN_IF_ERROR(r->builder->Add(r->ikey, is_put ? value : ""));
  r->last_user_key.assign(key);
  return absl::OkStatus();
}

absl::Status SstFileWriter::Put(std::string_view key, std::string_view value) {
  return Add(key, value, true);
}

absl::Status SstFileWriter::Delete(std::string_view key) {
  return Add(key, "", false);
}

absl::Status SstFileWriter::Finish() {
  Rep* r = rep_.get();
  if (r->builder == nullptr || r->finished) {
    return absl::FailedPreconditionError(
        r->finished ? "SstFileWriter: already finished"
                    : "SstFileWriter: Open was not called");
  }
  r->finished = true;
  RETURN_IF_ERROR(r->builder->Finish());
  r->properties = r->builder->properties();
  RETURN_IF_ERROR(r->file->Sync());
  return r->file->Close();
}

uint64_t SstFileWriter::FileSize() const {
  return rep_->builder != nullptr ? rep_->builder->FileSize() : 0;
}

const TableProperties& SstFileWriter::GetProperties() const {
  return rep_->properties;
}

}  // namespace sift
