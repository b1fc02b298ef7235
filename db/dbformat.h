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
// Size ratio between adjacent levels >= 1.
constexpr double kLevelSizeRatio = 10.0;
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
