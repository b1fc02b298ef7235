// Copying and hard-linking files through an Env, for checkpoints and
// ingestion, which put existing files into another directory.

#ifndef SIFT_UTIL_FILE_COPY_H_
#define SIFT_UTIL_FILE_COPY_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "sift/env.h"

namespace sift {

// Writes the first `size` bytes of `from` to a new file `to` (truncating
// it if it exists) and syncs it. Fewer bytes in `from` is DataLoss naming
// it: the caller took `size` from the file and expects it whole.
absl::Status CopyFilePrefix(Env* env, const std::string& from,
                            const std::string& to, uint64_t size);

// How LinkOrCopyFile put a file in place.
enum class PlacedBy { kLink, kCopy };

// Makes `to` hold `from`'s contents: a hard link when the Env can make one
// (same file system), else a synced copy of its `size` bytes. A link
// needs no sync of the data: it shares `from`'s, which must already be
// durable. Either way the new name is durable only after SyncDir.
absl::StatusOr<PlacedBy> LinkOrCopyFile(Env* env, const std::string& from,
                                        const std::string& to, uint64_t size);

}  // namespace sift

#endif  // SIFT_UTIL_FILE_COPY_H_
