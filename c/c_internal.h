// The structs behind the opaque types of sift/c.h, shared by the files that
// implement it (c/*.cc) and by LevelDB's C API built on it (c/leveldb/):
// each holds the C++ object it stands for.

#ifndef SIFT_C_C_INTERNAL_H_
#define SIFT_C_C_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sift/c.h"
#include "sift/column_family.h"
#include "sift/comparator.h"
#include "sift/db.h"
#include "sift/env.h"
#include "sift/options.h"
#include "sift/sst_file_writer.h"
#include "sift/write_batch.h"

// A user comparator from C callbacks. Keys are never shortened: the index
// keeps whole keys (leaving them alone is always correct).
struct sift_comparator_t : sift::Comparator {
  using CompareFn = int (*)(void*, const char*, size_t, const char*, size_t);
  using NameFn = const char* (*)(void*);
  sift_comparator_t(void* state, void (*destructor)(void*), CompareFn compare,
                    NameFn name)
      : state_(state),
        destructor_(destructor),
        compare_(compare),
        name_(name) {}
  ~sift_comparator_t() override;

  int Compare(std::string_view a, std::string_view b) const override;
  const char* Name() const override;
  void FindShortestSeparator(std::string*, std::string_view) const override {}
  void FindShortSuccessor(std::string*) const override {}

 private:
  void* const state_;
  void (*const destructor_)(void*);
  const CompareFn compare_;
  const NameFn name_;
};
// One family's handle: the caller's own (from sift_open_column_families or
// sift_create_column_family), or, for sift_get_default_column_family_handle,
// the DB's own default handle, borrowed (owned is then null).
struct sift_column_family_handle_t {
  std::unique_ptr<sift::ColumnFamilyHandle> owned;
  sift::ColumnFamilyHandle* rep;  // owned.get(), or the borrowed handle
};
struct sift_db_t {
  std::unique_ptr<sift::DB> rep;
};
struct sift_env_t {
  sift::Env* rep;                    // the Env handed to Options
  std::unique_ptr<sift::Env> owned;  // set for a memory Env
};
struct sift_iterator_t {
  std::unique_ptr<sift::Iterator> rep;
};
struct sift_options_t {
  sift::Options rep;
};
struct sift_readoptions_t {
  sift::ReadOptions rep;
};
struct sift_snapshot_t {
  const sift::Snapshot* rep;
};
struct sift_statistics_t {
  sift::Statistics rep;
};
struct sift_writebatch_t {
  sift::WriteBatch rep;
};
struct sift_writeoptions_t {
  sift::WriteOptions rep;
};
struct sift_sstfilewriter_t {
  explicit sift_sstfilewriter_t(const sift::Options& o) : rep(o) {}
  sift::SstFileWriter rep;
};

namespace sift::c_api {

// The errptr convention of sift/c.h: true (leaving *errptr) when s is OK;
// otherwise frees *errptr, sets it to a malloc()ed copy of s's text and
// returns false.
bool SaveError(const absl::Status& s, char** errptr);

// A malloc()ed copy of the n bytes at data (plus a NUL, not counted).
char* CopyOut(const char* data, size_t n);
inline char* CopyOut(const std::string& s) {
  return CopyOut(s.data(), s.size());
}

// A CompactRange bound: a NULL key means unbounded on that side.
inline std::optional<std::string_view> Bound(const char* key, size_t len) {
  if (key == nullptr) return std::nullopt;
  return std::string_view(key, len);
}

// sift_approximate_sizes's arguments as GetApproximateSizes's.
std::vector<sift::Range> Ranges(int num_ranges,
                                const char* const* range_start_key,
                                const size_t* range_start_key_len,
                                const char* const* range_limit_key,
                                const size_t* range_limit_key_len);
sift::SizeApproximationOptions SizeOptions(uint8_t include_files,
                                           uint8_t include_memtables);
// Writes r's sizes to sizes, or sets *errptr.
void StoreSizes(const absl::StatusOr<std::vector<uint64_t>>& r, uint64_t* sizes,
                char** errptr);

}  // namespace sift::c_api

#endif  // SIFT_C_C_INTERNAL_H_
