// The exact state of a directory's files, to prove a read-only operation
// wrote nothing: every name and every byte, before and after.
#ifndef SIFT_TESTS_TESTUTIL_DIR_SNAPSHOT_H_
#define SIFT_TESTS_TESTUTIL_DIR_SNAPSHOT_H_

#include <map>
#include <string>

namespace sift::test {

// File name -> contents for each regular file directly in dir (empty if
// dir does not exist). Subdirectories are listed by name with contents
// "<dir>".
using DirSnapshot = std::map<std::string, std::string>;
DirSnapshot SnapshotDir(const std::string& dir);

// Empty if the snapshots are equal; otherwise one line per file added,
// removed or changed (with both sizes), for a test failure message.
std::string DescribeDirChanges(const DirSnapshot& before,
                               const DirSnapshot& after);

}  // namespace sift::test

#endif  // SIFT_TESTS_TESTUTIL_DIR_SNAPSHOT_H_
