#include "tests/testutil/db_files.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "sift/sst_file_reader.h"

namespace sift::test {

std::vector<std::string> ListTableFiles(Env* env, const std::string& dir) {
  std::vector<std::string> out;
  auto children = env->GetChildren(dir);
  if (!children.ok()) return out;
  for (const std::string& name : *children) {
    if (absl::EndsWith(name, ".sst")) out.push_back(dir + "/" + name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

absl::StatusOr<TableProperties> ReadTableProperties(Env* env,
                                                    const std::string& path) {
  Options options;
  options.env = env;
  SstFileReader reader(options);
  absl::Status s = reader.Open(path);
  if (!s.ok()) return s;
  return reader.GetProperties();
}

absl::StatusOr<size_t> CountTableKeys(Env* env, const std::string& path) {
  Options options;
  options.env = env;
  SstFileReader reader(options);
  absl::Status s = reader.Open(path);
  if (!s.ok()) return s;
  std::unique_ptr<Iterator> it = reader.NewIterator(ReadOptions());
  size_t n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
  if (!it->status().ok()) return it->status();
  return n;
}

int FilesAtLevel(DB* db, int level) {
  std::optional<std::string> p =
      db->GetProperty(absl::StrCat("sift.num-files-at-level", level));
  return p.has_value() ? std::stoi(*p) : -1;
}

int TotalFilesInLevels(DB* db) {
  int n = 0;
  for (int level = 0; level < kStatisticsLevels; ++level) {
    n += FilesAtLevel(db, level);
  }
  return n;
}

}  // namespace sift::test
