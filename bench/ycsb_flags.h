// The --ycsb_* flags db_bench and peer_bench share: YCSB's properties
// (recordcount, operationcount, fieldcount, fieldlength, maxscanlength,
// requestdistribution, writeallfields) under the names db_bench users know.

#ifndef SIFT_BENCH_YCSB_FLAGS_H_
#define SIFT_BENCH_YCSB_FLAGS_H_

#include "absl/status/status.h"
#include "bench/ycsb.h"

namespace sift::bench {

// The flags, checked: an error names the flag and its value.
absl::Status YcsbConfigFromFlags(ycsb::Config* c);

}  // namespace sift::bench

#endif  // SIFT_BENCH_YCSB_FLAGS_H_
