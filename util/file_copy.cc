#include "util/file_copy.h"

#include <algorithm>
#include <memory>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "util/status_macros.h"

namespace sift {
namespace {

constexpr size_t kCopyChunk = 256 * 1024;

// True if a link failed in a way a copy can get around: the Env cannot
// link (Unimplemented), the names are on different file systems (EXDEV,
// which absl::ErrnoToStatus maps to Unimplemented, as ENOTSUP), or the
// file system refuses hard links (EPERM: PermissionDenied). Any other
// failure (a missing file, a full disk) a copy would meet too.
bool CopyWouldHelp(const absl::Status& s) {
  return absl::IsUnimplemented(s) || absl::IsPermissionDenied(s);
}

}  // namespace

absl::Status CopyFilePrefix(Env* env, const std::string& from,
                            const std::string& to, uint64_t size) {
  ASSIGN_OR_RETURN(std::unique_ptr<SequentialFile> in,
                   env->NewSequentialFile(from));
  ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> out, env->NewWritableFile(to));
  auto scratch = std::make_unique_for_overwrite<char[]>(kCopyChunk);
  uint64_t left = size;
  while (left > 0) {
    std::string_view chunk;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(left, kCopyChunk));
    RETURN_IF_ERROR(in->Read(n, &chunk, scratch.get()));
    if (chunk.empty()) {
      return absl::DataLossError(absl::StrCat(from, ": ends at offset ",
                                              size - left, ", expected ", size,
                                              " bytes"));
    }
    RETURN_IF_ERROR(out->Append(chunk));
    left -= chunk.size();
  }
  RETURN_IF_ERROR(out->Sync());
  return out->Close();
}

absl::StatusOr<PlacedBy> LinkOrCopyFile(Env* env, const std::string& from,
                                        const std::string& to, uint64_t size) {
  const absl::Status linked = env->LinkFile(from, to);
  if (linked.ok()) return PlacedBy::kLink;
  if (!CopyWouldHelp(linked)) return linked;
  RETURN_IF_ERROR(CopyFilePrefix(env, from, to, size));
  return PlacedBy::kCopy;
}

}  // namespace sift
