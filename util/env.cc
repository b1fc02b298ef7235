// Env-independent helpers declared in include/sift/env.h.

#include "sift/env.h"

#include <memory>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "util/status_macros.h"

namespace sift {

absl::Status Env::LinkFile(const std::string& from, const std::string& to) {
  return absl::UnimplementedError(
      absl::StrCat("link ", from, " to ", to, ": this Env cannot link files"));
}

absl::Status Env::CreateNewDir(const std::string& dir) {
  if (FileExists(dir)) {
    return absl::AlreadyExistsError(absl::StrCat("mkdir ", dir, ": exists"));
  }
  return CreateDir(dir);
}

absl::Status ReadFileToString(Env* env, const std::string& path,
                              std::string* data) {
  data->clear();
  ASSIGN_OR_RETURN(std::unique_ptr<SequentialFile> file,
                   env->NewSequentialFile(path));
  constexpr size_t kChunk = 64 * 1024;
  auto scratch = std::make_unique_for_overwrite<char[]>(kChunk);
  while (true) {
    std::string_view fragment;
    RETURN_IF_ERROR(file->Read(kChunk, &fragment, scratch.get()));
    // Stop on an empty read rather than a short one: one extra call, and no
    // reliance on every SequentialFile filling the buffer when it can.
    if (fragment.empty()) break;
    data->append(fragment);
  }
  return absl::OkStatus();
}

namespace {

absl::Status WriteAndClose(WritableFile* file, std::string_view data,
                           bool sync) {
  RETURN_IF_ERROR(file->Append(data));
  if (sync) RETURN_IF_ERROR(file->Sync());
  return file->Close();
}

}  // namespace

absl::Status WriteStringToFile(Env* env, std::string_view data,
                               const std::string& path, bool sync) {
  ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                   env->NewWritableFile(path));
  absl::Status s = WriteAndClose(file.get(), data, sync);
  file.reset();
  if (!s.ok()) {
    // A half-written file must not be mistaken for a complete one later
    // (e.g. a CURRENT pointing at nothing); the write error is what matters.
    env->RemoveFile(path).IgnoreError();
  }
  return s;
}

}  // namespace sift
