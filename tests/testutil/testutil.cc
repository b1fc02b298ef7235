#include "tests/testutil/testutil.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
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

std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TMPDIR");
  std::string dir = absl::StrCat(base != nullptr ? base : "/tmp",
                                 "/siftdb-test-", getpid(), "-", name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace sift::test
