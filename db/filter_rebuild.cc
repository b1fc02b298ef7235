#include "db/filter_rebuild.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "db/filename.h"
#include "table/format.h"
#include "table/internal_key.h"
#include "util/coding.h"
#include "util/filter.h"
#include "util/hash.h"
#include "util/status_macros.h"

namespace sift {
namespace {

constexpr size_t kTableNumberSize = 8;
constexpr size_t kMagicSize = 8;

}  // namespace

std::string EncodeFilterFile(uint64_t table_number, std::string_view filter) {
  std::string out;
  PutFixed64(&out, table_number);
  out.append(filter);
  AppendBlockTrailer(out, kRawBlock, &out);
  PutFixed64(&out, kFilterFileMagic);
  return out;
}

absl::StatusOr<std::string_view> DecodeFilterFile(std::string_view contents,
                                                  const std::string& name,
                                                  uint64_t table_number) {
  if (contents.size() < kTableNumberSize + kBlockTrailerSize + kMagicSize) {
    return CorruptionError(name, 0, "too short to be a filter file");
  }
  const size_t magic_at = contents.size() - kMagicSize;
  if (DecodeFixed64(contents.data() + magic_at) != kFilterFileMagic) {
    return CorruptionError(name, magic_at, "bad filter file magic");
  }
  const size_t body_size = magic_at - kBlockTrailerSize;
  const std::string_view body = contents.substr(0, body_size);
  std::string expected;
  AppendBlockTrailer(body, kRawBlock, &expected);
  if (contents.substr(body_size, kBlockTrailerSize) != expected) {
    return CorruptionError(name, body_size,
                           "filter file checksum mismatch or unknown type");
  }
  const uint64_t owner = DecodeFixed64(body.data());
  if (owner != table_number) {
    return CorruptionError(name, 0,
                           absl::StrCat("filter file belongs to table ", owner,
                                        ", not ", table_number));
  }
  return body.substr(kTableNumberSize);
}

absl::Status WriteFilterFile(const std::string& dbname, Env* env,
                             const Table& table, uint64_t table_number,
                             const FilterTarget& target, uint64_t number,
                             ReplacementFilter* out) {
  FilterBuilder builder(target.layout, target.fp_chance);
  ReadOptions options;
  options.fill_cache = false;  // one pass: keep the cache for readers
  std::unique_ptr<Iterator> it = table.NewIterator(options);
  std::string last_user_key;
  bool first = true;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ParsedInternalKey parsed;
    if (!ParseInternalKey(it->key(), &parsed)) {
      return CorruptionError(table.file_name(), 0,
                             "malformed key while rebuilding its filter");
    }
    if (first || parsed.user_key != last_user_key) {
      builder.AddHash(KeyHash(parsed.user_key));
      last_user_key.assign(parsed.user_key);
      first = false;
    }
  }
  RETURN_IF_ERROR(it->status());
  std::string filter;
  builder.Finish(&filter);
  const FilterReader reader(filter);

  const std::string path = FilterFileName(dbname, number);
  const std::string contents = EncodeFilterFile(table_number, filter);
  absl::Status s = WriteStringToFile(env, contents, path, /*sync=*/true);
  if (!s.ok()) {
    env->RemoveFile(path).IgnoreError();
    return s;
  }
  out->number = number;
  out->size = contents.size();
  out->filter.layout = target.layout;
  out->filter.fp_chance = target.fp_chance;
  out->filter.bits_per_key = reader.bits_per_key();
  out->filter.num_keys = reader.num_keys();
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFilterFile(Env* env, const std::string& dbname,
                                           uint64_t table_number,
                                           const ReplacementFilter& r) {
  const std::string path = FilterFileName(dbname, r.number);
  std::string contents;
  RETURN_IF_ERROR(ReadFileToString(env, path, &contents));
  if (contents.size() != r.size) {
    return CorruptionError(
        path, 0,
        absl::StrCat("size ", contents.size(), " differs from the ", r.size,
                     " bytes the MANIFEST records"));
  }
  ASSIGN_OR_RETURN(std::string_view filter,
                   DecodeFilterFile(contents, path, table_number));
  return std::string(filter);
}

}  // namespace sift
