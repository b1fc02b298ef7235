// Helpers shared by the tests.
#ifndef SIFT_TESTS_TESTUTIL_TESTUTIL_H_
#define SIFT_TESTS_TESTUTIL_TESTUTIL_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/iterator.h"

namespace sift::test {

// The seed a randomized test runs with: $SIFT_TEST_SEED if set, otherwise
// `fallback`. Tests print it so a failure replays exactly.
uint64_t TestSeed(uint64_t fallback);

// The positive integer in environment variable `name` (a test's size knob,
// e.g. SIFT_STRESS_OPS), or `fallback` when it is unset or not one.
int EnvInt(const char* name, int fallback);

// True in a build instrumented by a sanitizer (CMake's SIFT_SANITIZE sets
// SIFT_SANITIZED_TESTS), where tests run 5-10x slower. A sanitizer finds
// its errors on a code path, not by repetition: tests whose size only buys
// statistics or volume run smaller there, and statistical bounds (a false
// positive rate) are asserted by the plain build alone, which always runs
// the full size.
#ifdef SIFT_SANITIZED_TESTS
inline constexpr bool kSanitizerBuild = true;
#else
inline constexpr bool kSanitizerBuild = false;
#endif

// n in a plain build; n / divisor (at least 1) under a sanitizer.
constexpr int SanitizerScaled(int n, int divisor) {
  if (!kSanitizerBuild) return n;
  return n / divisor > 0 ? n / divisor : 1;
}

// A fresh, empty directory under $TMPDIR (or /tmp) for this test.
std::string TempDir(const std::string& name);

// Every entry an iterator over db (at snap, or the latest state) yields;
// a failed iteration fails the calling test.
std::map<std::string, std::string> DbContents(DB* db,
                                              const Snapshot* snap = nullptr);

// The keys an iterator over db (at snap, or the latest state) yields, in
// its order forward from SeekToFirst or backward from SeekToLast; a failed
// iteration fails the calling test.
std::vector<std::string> DbKeys(DB* db, bool forward = true,
                                const Snapshot* snap = nullptr);

// bytes as lower-case hex pairs separated by spaces ("00 12 5d"): the form
// the worked examples in the FORMAT.md files are written in.
std::string Hex(std::string_view bytes);

// Checks that it yields exactly model's entries (a map from key to value,
// ordered as the iterator orders keys), forwards from SeekToFirst and
// backwards from SeekToLast, with an ok status.
template <typename Map>
void ExpectIteratesAs(Iterator* it, const Map& model) {
  auto m = model.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
    ASSERT_TRUE(m != model.end()) << "extra key " << it->key();
    ASSERT_EQ(it->key(), m->first);
    ASSERT_EQ(it->value(), m->second);
  }
  EXPECT_TRUE(m == model.end()) << "missing key " << m->first;
  auto r = model.rbegin();
  for (it->SeekToLast(); it->Valid(); it->Prev(), ++r) {
    ASSERT_TRUE(r != model.rend()) << "extra key " << it->key();
    ASSERT_EQ(it->key(), r->first);
    ASSERT_EQ(it->value(), r->second);
  }
  EXPECT_TRUE(r == model.rend()) << "missing key " << r->first;
  EXPECT_TRUE(it->status().ok()) << it->status();
}

}  // namespace sift::test

#endif  // SIFT_TESTS_TESTUTIL_TESTUTIL_H_
