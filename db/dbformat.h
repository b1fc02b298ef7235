// What only the DB needs on top of table/internal_key.h: tuning constants
// of the LSM shape and lookup keys.

#ifndef SIFT_DB_DBFORMAT_H_
#define SIFT_DB_DBFORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "table/internal_key.h"
#include "util/coding.h"

namespace sift {

namespace config {
constexpr int kNumLevels = 7;
// A memtable flush may place its file as deep as this level when it
// overlaps nothing, to save compactions (LevelDB's choice).
constexpr int kMaxMemCompactLevel = 2;
// "No level": a statistic that belongs to no level, or a Version with no
// compaction due.
constexpr int kNoLevel = -1;
// A compaction output file ends early once the keys it covers overlap this
// many max_file_size of the level below its output (LevelDB's
// MaxGrandParentOverlapBytes): compacting that file later then rewrites at
// most about this much of the next level. The same bound keeps a memtable
// flush from being pushed down over a level it would make costly to compact.
constexpr uint64_t kMaxGrandparentOverlapFiles = 10;
// A compaction adds more files at its start level only while all its inputs
// stay under this many max_file_size (LevelDB's
// ExpandedCompactionByteSizeLimit), and a manual compaction step takes at
// most about this much from a level >= 1: one compaction's work is bounded.
constexpr uint64_t kMaxCompactionFiles = 25;
}  // namespace config

// A key to look up in a memtable (length-prefixed internal key) and in
// tables (the internal key), built once per Get. Short keys stay inline.
class LookupKey {
 public:
  LookupKey(std::string_view user_key, SequenceNumber sequence);
  ~LookupKey();

  LookupKey(const LookupKey&) = delete;
  LookupKey& operator=(const LookupKey&) = delete;

  // varint32 length + internal key: what the memtable stores.
  std::string_view memtable_key() const {
    return std::string_view(start_, end_ - start_);
  }
  std::string_view internal_key() const {
    return std::string_view(kstart_, end_ - kstart_);
  }
  std::string_view user_key() const {
    return std::string_view(kstart_, end_ - kstart_ - kInternalKeyTrailerSize);
  }

 private:
  const char* start_;
  const char* kstart_;
  const char* end_;
  char space_[200];  // avoids allocation for short keys
};

}  // namespace sift

#endif  // SIFT_DB_DBFORMAT_H_
