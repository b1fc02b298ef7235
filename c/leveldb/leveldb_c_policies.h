// The handles of LevelDB's C comparators and filter policies
// (include/sift/leveldb/c.h), shared by the file creating them and the
// option setters of leveldb_c.cc.

#ifndef SIFT_C_LEVELDB_LEVELDB_C_POLICIES_H_
#define SIFT_C_LEVELDB_LEVELDB_C_POLICIES_H_

#include <memory>

#include "c/c_internal.h"
#include "sift/filter_policy.h"
#include "sift/leveldb/c.h"

// The comparator of sift/c.h's callbacks, which are LevelDB's.
struct leveldb_comparator_t : sift_comparator_t {
  using sift_comparator_t::sift_comparator_t;
};

// Shared with every Options and DB it is set in, so that destroying the
// handle while a DB still uses the policy (as LevelDB's own c_test does
// before closing its last DB) leaves the DB a live policy.
struct leveldb_filterpolicy_t {
  std::shared_ptr<const sift::FilterPolicy> rep;
};

#endif  // SIFT_C_LEVELDB_LEVELDB_C_POLICIES_H_
