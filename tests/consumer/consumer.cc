// A downstream program built against the installed siftdb package.
#include <cstdio>

#include "sift/iterator.h"
#include "sift/options.h"

int main(int, char**) {
  sift::Options options;
  auto it = sift::NewEmptyIterator();
  it->SeekToFirst();
  if (it->Valid() || !it->status().ok()) {
    std::fprintf(stderr, "consumer: empty iterator misbehaves\n");
    return 1;
  }
  std::printf("consumer: ok (fp chance %g)\n", options.bloom_filter_fp_chance);
  return 0;
}
