#include "tests/testutil/testutil.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace sift::test {

uint64_t TestSeed(uint64_t fallback) {
  const char* env = std::getenv("SIFT_TEST_SEED");
  uint64_t seed;
  if (env != nullptr && absl::SimpleAtoi(env, &seed)) return seed;
  return fallback;
}

int EnvInt(const char* name, int fallback) {
  const char* env = std::getenv(name);
  int n;
  if (env != nullptr && absl::SimpleAtoi(env, &n) && n > 0) return n;
  return fallback;
}

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    if (!out.empty()) out += ' ';
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TMPDIR");
  std::string dir = absl::StrCat(base != nullptr ? base : "/tmp",
                                 "/siftdb-test-", getpid(), "-", name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::map<std::string, std::string> DbContents(DB* db, const Snapshot* snap) {
  ReadOptions ro;
  ro.snapshot = snap;
  std::map<std::string, std::string> m;
  std::unique_ptr<Iterator> it = db->NewIterator(ro);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    m.emplace(std::string(it->key()), std::string(it->value()));
  }
  EXPECT_TRUE(it->status().ok()) << it->status();
  return m;
}

std::vector<std::string> DbKeys(DB* db, bool forward, const Snapshot* snap) {
  ReadOptions ro;
  ro.snapshot = snap;
  std::unique_ptr<Iterator> it = db->NewIterator(ro);
  std::vector<std::string> keys;
  if (forward) {
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      keys.emplace_back(it->key());
    }
  } else {
    for (it->SeekToLast(); it->Valid(); it->Prev()) {
      keys.emplace_back(it->key());
    }
  }
  EXPECT_TRUE(it->status().ok()) << it->status();
  return keys;
}

}  // namespace sift::test
