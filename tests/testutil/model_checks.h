// Checks of a DB's iterators against a model (a std::map from key to
// value), shared by the model and stress tests. Each returns OK or an
// error naming the position and what differed, so callers can either
// assert or, as the stress test's minimizer does, rerun quietly.

#ifndef SIFT_TESTS_TESTUTIL_MODEL_CHECKS_H_
#define SIFT_TESTS_TESTUTIL_MODEL_CHECKS_H_

#include <map>
#include <string>

#include "absl/status/status.h"
#include "sift/iterator.h"
#include "tests/testutil/test_comparators.h"
#include "util/random.h"

namespace sift::test {

// Ordered as the DB under test orders keys (bytewise by default).
using ModelMap = std::map<std::string, std::string, ComparatorLess>;

// The whole of it, from SeekToFirst forward or SeekToLast backward, yields
// exactly model's entries, and its status is OK.
absl::Status CheckScan(Iterator* it, const ModelMap& model, bool forward);

// Seek(target), then a random walk of up to 29 Next and Prev steps drawn
// from rnd, each position compared with the model's.
absl::Status CheckSeekWalk(Iterator* it, const ModelMap& model,
                           const std::string& target, Random* rnd);

}  // namespace sift::test

#endif  // SIFT_TESTS_TESTUTIL_MODEL_CHECKS_H_
