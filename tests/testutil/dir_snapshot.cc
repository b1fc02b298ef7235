#include "tests/testutil/dir_snapshot.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace sift::test {

DirSnapshot SnapshotDir(const std::string& dir) {
  DirSnapshot snap;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory()) {
      snap[name] = "<dir>";
      continue;
    }
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    snap[name] = bytes.str();
  }
  return snap;
}

std::string DescribeDirChanges(const DirSnapshot& before,
                               const DirSnapshot& after) {
  std::string out;
  for (const auto& [name, bytes] : before) {
    auto it = after.find(name);
    if (it == after.end()) {
      absl::StrAppend(&out, "removed ", name, "\n");
    } else if (it->second != bytes) {
      absl::StrAppend(&out, "changed ", name, " (", bytes.size(), " -> ",
                      it->second.size(), " bytes)\n");
    }
  }
  for (const auto& [name, bytes] : after) {
    if (before.count(name) == 0) {
      absl::StrAppend(&out, "added ", name, " (", bytes.size(), " bytes)\n");
    }
  }
  return out;
}

}  // namespace sift::test
