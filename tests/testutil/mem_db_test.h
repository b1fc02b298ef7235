// A test fixture for DB tests: a database at /db on an in-memory Env, and
// the reads most tests check it with.
#ifndef SIFT_TESTS_TESTUTIL_MEM_DB_TEST_H_
#define SIFT_TESTS_TESTUTIL_MEM_DB_TEST_H_

#include <memory>
#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/iterator.h"
#include "sift/options.h"

namespace sift::test {

// Numbered entries: "key%06d" and a value of about 110 bytes naming i.
std::string NumberedKey(int i);
std::string NumberedValue(int i);

class MemDBTest : public ::testing::Test {
 protected:
  // options_ starts with create_if_missing and env_ set; fixtures adjust
  // it before calling Open.
  MemDBTest();

  // Closes the DB (if open) and opens it with options_; a failure fails
  // the test.
  void Open();

  // The value of key, "NOT_FOUND", or "ERROR: <status>".
  std::string Get(std::string_view key, const Snapshot* snap = nullptr);

  // Puts the numbered entries [from, to) in a scattered order (a step
  // coprime to most ranges), so flushes write overlapping files. A failed
  // Put fails the test.
  void PutScattered(int from, int to);

  std::unique_ptr<Env> env_;
  Options options_;
  std::string path_ = "/db";
  std::unique_ptr<DB> db_;
};

}  // namespace sift::test

#endif  // SIFT_TESTS_TESTUTIL_MEM_DB_TEST_H_
