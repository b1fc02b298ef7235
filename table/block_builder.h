// Builds one block in the prefix-compressed format of table/FORMAT.md
// ("Data, index, metaindex and properties blocks").

#ifndef SIFT_TABLE_BLOCK_BUILDER_H_
#define SIFT_TABLE_BLOCK_BUILDER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sift {

class BlockBuilder {
 public:
  // REQUIRES: restart_interval >= 1
  explicit BlockBuilder(int restart_interval);

  BlockBuilder(const BlockBuilder&) = delete;
  BlockBuilder& operator=(const BlockBuilder&) = delete;

  // REQUIRES: Finish() not called since the last Reset(); keys added in the
  // order the block's reader will search them (the caller checks order).
  void Add(std::string_view key, std::string_view value);

  // Appends the restart array; the result stays valid until Reset().
  std::string_view Finish();

  void Reset();

  // Size of the block Finish() would produce now.
  size_t CurrentSizeEstimate() const;
  bool empty() const { return buffer_.empty(); }
  std::string_view last_key() const { return last_key_; }

 private:
  const int restart_interval_;
  std::string buffer_;
  std::vector<uint32_t> restarts_;
  int counter_ = 0;  // entries since the last restart
  bool finished_ = false;
  std::string last_key_;
};

}  // namespace sift

#endif  // SIFT_TABLE_BLOCK_BUILDER_H_
