#include "util/invariant.h"

#include <cstdio>
#include <cstdlib>

namespace sift::invariant_internal {

void Fail(const char* file, int line, const char* condition, const char* what) {
  std::fprintf(stderr, "siftdb: invariant violated at %s:%d: %s (%s)\n", file,
               line, condition, what);
  std::fflush(stderr);
  std::abort();
}

}  // namespace sift::invariant_internal
