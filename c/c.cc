// sift/c.h, part one: databases, iterators, snapshots and statistics, each
// a thin wrapper of the C++ call it names.

#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "c/c_internal.h"
#include "sift/statistics.h"

namespace sift::c_api {

bool SaveError(const absl::Status& s, char** errptr) {
  if (s.ok()) return true;
  std::free(*errptr);
  *errptr = CopyOut(s.ToString());
  return false;
}

char* CopyOut(const char* data, size_t n) {
  char* out = static_cast<char*>(std::malloc(n + 1));
  if (n > 0) std::memcpy(out, data, n);
  out[n] = '\0';
  return out;
}

std::vector<sift::Range> Ranges(int num_ranges,
                                const char* const* range_start_key,
                                const size_t* range_start_key_len,
                                const char* const* range_limit_key,
                                const size_t* range_limit_key_len) {
  std::vector<sift::Range> ranges;
  for (int i = 0; i < num_ranges; ++i) {
    ranges.push_back(
        {std::string_view(range_start_key[i], range_start_key_len[i]),
         std::string_view(range_limit_key[i], range_limit_key_len[i])});
  }
  return ranges;
}

sift::SizeApproximationOptions SizeOptions(uint8_t include_files,
                                           uint8_t include_memtables) {
  sift::SizeApproximationOptions o;
  o.include_files = include_files != 0;
  o.include_memtables = include_memtables != 0;
  return o;
}

void StoreSizes(const absl::StatusOr<std::vector<uint64_t>>& r, uint64_t* sizes,
                char** errptr) {
  if (!SaveError(r.status(), errptr)) return;
  for (size_t i = 0; i < r->size(); ++i) sizes[i] = (*r)[i];
}

}  // namespace sift::c_api

namespace {

using sift::c_api::Bound;
using sift::c_api::CopyOut;
using sift::c_api::SaveError;

sift_db_t* Wrap(absl::StatusOr<std::unique_ptr<sift::DB>> db, char** errptr) {
  if (!SaveError(db.status(), errptr)) return nullptr;
  return new sift_db_t{*std::move(db)};
}

bool IsTicker(int t) {
  return t >= 0 && t < static_cast<int>(sift::kNumTickers);
}

}  // namespace

extern "C" {

sift_db_t* sift_open(const sift_options_t* options, const char* name,
                     char** errptr) {
  return Wrap(sift::DB::Open(options->rep, name), errptr);
}

sift_db_t* sift_open_for_read_only(const sift_options_t* options,
                                   const char* name, char** errptr) {
  return Wrap(sift::DB::OpenForReadOnly(options->rep, name), errptr);
}

void sift_close(sift_db_t* db) { delete db; }

void sift_put(sift_db_t* db, const sift_writeoptions_t* options,
              const char* key, size_t keylen, const char* val, size_t vallen,
              char** errptr) {
  SaveError(db->rep->Put(options->rep, std::string_view(key, keylen),
                         std::string_view(val, vallen)),
            errptr);
}

void sift_delete(sift_db_t* db, const sift_writeoptions_t* options,
                 const char* key, size_t keylen, char** errptr) {
  SaveError(db->rep->Delete(options->rep, std::string_view(key, keylen)),
            errptr);
}

void sift_delete_range(sift_db_t* db, const sift_writeoptions_t* options,
                       const char* start_key, size_t start_key_len,
                       const char* end_key, size_t end_key_len, char** errptr) {
  SaveError(db->rep->DeleteRange(options->rep,
                                 std::string_view(start_key, start_key_len),
                                 std::string_view(end_key, end_key_len)),
            errptr);
}

void sift_write(sift_db_t* db, const sift_writeoptions_t* options,
                sift_writebatch_t* batch, char** errptr) {
  SaveError(db->rep->Write(options->rep, &batch->rep), errptr);
}

char* sift_get(sift_db_t* db, const sift_readoptions_t* options,
               const char* key, size_t keylen, size_t* vallen, char** errptr) {
  *vallen = 0;
  std::string value;
  const absl::Status s =
      db->rep->Get(options->rep, std::string_view(key, keylen), &value);
  if (absl::IsNotFound(s) || !SaveError(s, errptr)) return nullptr;
  *vallen = value.size();
  return CopyOut(value);
}

sift_iterator_t* sift_create_iterator(sift_db_t* db,
                                      const sift_readoptions_t* options) {
  return new sift_iterator_t{db->rep->NewIterator(options->rep)};
}

const sift_snapshot_t* sift_create_snapshot(sift_db_t* db) {
  return new sift_snapshot_t{db->rep->GetSnapshot()};
}

void sift_release_snapshot(sift_db_t* db, const sift_snapshot_t* snapshot) {
  db->rep->ReleaseSnapshot(snapshot->rep);
  delete snapshot;
}

void sift_flush(sift_db_t* db, char** errptr) {
  SaveError(db->rep->Flush(), errptr);
}

void sift_compact_range(sift_db_t* db, const char* start_key,
                        size_t start_key_len, const char* limit_key,
                        size_t limit_key_len, char** errptr) {
  SaveError(db->rep->CompactRange(Bound(start_key, start_key_len),
                                  Bound(limit_key, limit_key_len)),
            errptr);
}

void sift_wait_for_compaction(sift_db_t* db, char** errptr) {
  SaveError(db->rep->WaitForCompaction(), errptr);
}

void sift_resume(sift_db_t* db, char** errptr) {
  SaveError(db->rep->Resume(), errptr);
}

char* sift_property_value(sift_db_t* db, const char* propname) {
  std::optional<std::string> v = db->rep->GetProperty(propname);
  return v.has_value() ? CopyOut(*v) : nullptr;
}

void sift_approximate_sizes(sift_db_t* db, int num_ranges,
                            const char* const* range_start_key,
                            const size_t* range_start_key_len,
                            const char* const* range_limit_key,
                            const size_t* range_limit_key_len,
                            uint8_t include_files, uint8_t include_memtables,
                            uint64_t* sizes, char** errptr) {
  sift::c_api::StoreSizes(
      db->rep->GetApproximateSizes(
          sift::c_api::SizeOptions(include_files, include_memtables),
          sift::c_api::Ranges(num_ranges, range_start_key, range_start_key_len,
                              range_limit_key, range_limit_key_len)),
      sizes, errptr);
}

void sift_destroy_db(const sift_options_t* options, const char* name,
                     char** errptr) {
  SaveError(sift::DestroyDB(name, options->rep), errptr);
}

void sift_repair_db(const sift_options_t* options, const char* name,
                    char** report, char** errptr) {
  sift::RepairReport r;
  const absl::Status s = sift::RepairDB(name, options->rep, &r);
  if (report != nullptr) *report = s.ok() ? CopyOut(r.ToString()) : nullptr;
  SaveError(s, errptr);
}

int sift_statistics_num_tickers(void) {
  return static_cast<int>(sift::kNumTickers);
}

const char* sift_statistics_ticker_name(int ticker) {
  if (!IsTicker(ticker)) return nullptr;
  return sift::TickerName(static_cast<sift::Ticker>(ticker));
}

int sift_statistics_num_levels(void) { return sift::kStatisticsLevels; }

sift_statistics_t* sift_get_statistics(sift_db_t* db) {
  return new sift_statistics_t{db->rep->GetStatistics()};
}

void sift_statistics_destroy(sift_statistics_t* stats) { delete stats; }

uint64_t sift_statistics_get(const sift_statistics_t* stats, int ticker) {
  if (!IsTicker(ticker)) return 0;
  return stats->rep.Get(static_cast<sift::Ticker>(ticker));
}

uint64_t sift_statistics_get_at_level(const sift_statistics_t* stats, int level,
                                      int ticker) {
  if (!IsTicker(ticker) || level < 0 || level >= sift::kStatisticsLevels) {
    return 0;
  }
  return stats->rep.GetAtLevel(level, static_cast<sift::Ticker>(ticker));
}

double sift_statistics_observed_fp_rate(const sift_statistics_t* stats) {
  return stats->rep.ObservedFpRate();
}

char* sift_statistics_to_string(const sift_statistics_t* stats) {
  return CopyOut(stats->rep.ToString());
}

void sift_iter_destroy(sift_iterator_t* iter) { delete iter; }

uint8_t sift_iter_valid(const sift_iterator_t* iter) {
  return iter->rep->Valid() ? 1 : 0;
}

void sift_iter_seek_to_first(sift_iterator_t* iter) {
  iter->rep->SeekToFirst();
}

void sift_iter_seek_to_last(sift_iterator_t* iter) { iter->rep->SeekToLast(); }

void sift_iter_seek(sift_iterator_t* iter, const char* k, size_t klen) {
  iter->rep->Seek(std::string_view(k, klen));
}

void sift_iter_next(sift_iterator_t* iter) { iter->rep->Next(); }

void sift_iter_prev(sift_iterator_t* iter) { iter->rep->Prev(); }

const char* sift_iter_key(const sift_iterator_t* iter, size_t* klen) {
  const std::string_view k = iter->rep->key();
  *klen = k.size();
  return k.data();
}

const char* sift_iter_value(const sift_iterator_t* iter, size_t* vlen) {
  const std::string_view v = iter->rep->value();
  *vlen = v.size();
  return v.data();
}

void sift_iter_get_error(const sift_iterator_t* iter, char** errptr) {
  SaveError(iter->rep->status(), errptr);
}

void sift_free(void* ptr) { std::free(ptr); }

}  // extern "C"
