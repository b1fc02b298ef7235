// Helpers shared by the tests.
#ifndef SIFT_TESTS_TESTUTIL_TESTUTIL_H_
#define SIFT_TESTS_TESTUTIL_TESTUTIL_H_

#include <cstdint>
#include <string>

namespace sift::test {

// The seed a randomized test runs with: $SIFT_TEST_SEED if set, otherwise
// `fallback`. Tests print it so a failure replays exactly.
uint64_t TestSeed(uint64_t fallback);

// A fresh, empty directory under $TMPDIR (or /tmp) for this test.
std::string TempDir(const std::string& name);

}  // namespace sift::test

#endif  // SIFT_TESTS_TESTUTIL_TESTUTIL_H_
