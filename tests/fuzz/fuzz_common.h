// Helpers shared by the libFuzzer targets in tests/fuzz (see README.md).
//
// A target must never crash, leak or hit undefined behaviour on any input,
// and must check what the decoder promises (sorted iteration, round trips):
// a broken promise aborts through FUZZ_CHECK, which libFuzzer reports as a
// crash with the offending input saved.

#ifndef SIFT_TESTS_FUZZ_FUZZ_COMMON_H_
#define SIFT_TESTS_FUZZ_FUZZ_COMMON_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#define FUZZ_CHECK(cond, what)                                             \
  do {                                                                     \
    if (!(cond)) {                                                         \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed: %s\n", __FILE__, \
                   __LINE__, #cond, std::string(what).c_str());            \
      std::abort();                                                        \
    }                                                                      \
  } while (0)

namespace sift::fuzz {

// Most mutations of a checksummed format only reach the checksum test. The
// targets therefore decode each input twice: as given, and after these
// functions rewrote every checksum they can locate, so that the mutated
// bytes behind the checksums reach the parsers too. They never grow or
// shrink the data and tolerate any garbage (they decode with bounds checks
// of their own, not with the code under test, except where noted).

// Rewrites the footer checksum and, for every block the footer, metaindex
// and index name inside the file, its trailer checksum (keeping its type
// byte). Uses table/block.h to read the metaindex and index.
void FixTableChecksums(std::string* file);

// Rewrites the checksum of every fragment header of a WAL/MANIFEST whose
// length fits its block and the file (zero-type padding is left alone).
void FixLogChecksums(std::string* log);

inline std::string_view AsView(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

}  // namespace sift::fuzz

#endif  // SIFT_TESTS_FUZZ_FUZZ_COMMON_H_
