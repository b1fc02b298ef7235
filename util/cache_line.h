// The size of a CPU cache line, for laying out memory that probes or threads
// touch: data aligned to a line and no larger than one costs a single cache
// miss to read, and per-thread data padded to a line never shares it with
// another thread's (no false sharing).
//
// 64 bytes on x86-64 and on most ARMv8 cores (Apple's M-series use 128: there
// this value only makes padding less effective, never wrong). Not
// std::hardware_destructive_interference_size: GCC warns that its value may
// differ between compiler versions and -mtune flags, which makes it a hazard
// in a layout shared across translation units.
//
// Nothing on disk depends on this value. The blocked Bloom filter's 64-byte
// block (kBloomBlockBytes, util/bloom.h) is a format constant chosen to fit
// one line and stays 64 whatever this says.

#ifndef SIFT_UTIL_CACHE_LINE_H_
#define SIFT_UTIL_CACHE_LINE_H_

#include <cstddef>

namespace sift {

inline constexpr size_t kCacheLineSize = 64;

}  // namespace sift

#endif  // SIFT_UTIL_CACHE_LINE_H_
