// CountingEnv: an Env wrapper that counts RandomAccessFile reads, in total
// and per file, so tests can assert on I/O -- e.g. that a Get for a missing
// key read no data block, or that a second lookup was served from cache:
//
//   CountingEnv env(base);
//   ... open the DB on &env, warm it up ...
//   env.Reset();
//   db->Get(options, "missing", &value);
//   EXPECT_EQ(env.ReadsOf(".sst"), 0);
//
// Only RandomAccessFile::Read is counted (that is how tables are read);
// sequential reads (WAL, MANIFEST replay) and writes are passed through.
// Thread-safe; counting costs two relaxed atomic adds per read.

#ifndef SIFT_TESTS_TESTUTIL_COUNTING_ENV_H_
#define SIFT_TESTS_TESTUTIL_COUNTING_ENV_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "sift/env.h"
#include "util/mutex.h"

namespace sift {

class CountingEnv : public EnvWrapper {
 public:
  // target must outlive this env. Files opened through this env may outlive
  // it (they share the counters).
  explicit CountingEnv(Env* target);
  ~CountingEnv() override;

  absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override;

  // RandomAccessFile::Read calls (successful or not) and bytes returned,
  // over all files.
  uint64_t reads() const;
  uint64_t bytes_read() const;

  // The same, summed over files whose path (as opened) contains
  // path_substring, e.g. ".sst" or "000012.sst".
  uint64_t ReadsOf(std::string_view path_substring) const;
  uint64_t BytesReadOf(std::string_view path_substring) const;
  // Successful NewRandomAccessFile calls (e.g. table opens).
  uint64_t OpensOf(std::string_view path_substring) const;

  // Zeroes every counter.
  void Reset();

  // Shared between the env and its open files; an implementation detail.
  struct Counters {
    std::atomic<uint64_t> reads{0};
    std::atomic<uint64_t> bytes{0};
    std::atomic<uint64_t> opens{0};
  };

 private:
  uint64_t Sum(std::string_view path_substring,
               std::atomic<uint64_t> Counters::*field) const;

  const std::shared_ptr<Counters> total_ = std::make_shared<Counters>();
  mutable Mutex mu_;
  // Entries are never removed, so open files may hold on to theirs.
  std::map<std::string, std::shared_ptr<Counters>, std::less<>> by_path_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace sift

#endif  // SIFT_TESTS_TESTUTIL_COUNTING_ENV_H_
