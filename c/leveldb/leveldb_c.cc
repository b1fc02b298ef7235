// LevelDB 1.23's C API (include/sift/leveldb/c.h) on siftdb: the library
// siftdb::leveldb_c (comparators and filter policies are in
// leveldb_c_policies.cc). Most LevelDB handles are the sift/c.h handle of the
// same object (a struct deriving from it and adding nothing), so the sift_
// function serves them; the rest map LevelDB's options onto siftdb's as
// the header documents.

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "c/c_internal.h"
#include "c/leveldb/leveldb_c_policies.h"
#include "sift/c.h"
#include "sift/leveldb/c.h"

struct leveldb_t : sift_db_t {};
struct leveldb_env_t : sift_env_t {};
struct leveldb_iterator_t : sift_iterator_t {};
struct leveldb_options_t : sift_options_t {};
struct leveldb_readoptions_t : sift_readoptions_t {};
struct leveldb_snapshot_t : sift_snapshot_t {};
struct leveldb_writebatch_t : sift_writebatch_t {};
struct leveldb_writeoptions_t : sift_writeoptions_t {};
// A capacity, not a cache: each DB gets a block cache of its own.
struct leveldb_cache_t {
  size_t capacity;
};

namespace {

using sift::c_api::CopyOut;

// LevelDB's SanitizeOptions: out-of-range values are clamped, not refused.
template <typename T>
T Clamp(T v, T lo, T hi) {
  return std::min(std::max(v, lo), hi);
}

// LevelDB's property names and the siftdb property each maps to.
std::optional<std::string> SiftPropertyFor(std::string_view name) {
  constexpr std::string_view kLevelDB = "leveldb.";
  if (name.substr(0, kLevelDB.size()) != kLevelDB) return std::nullopt;
  const std::string_view what = name.substr(kLevelDB.size());
  constexpr std::string_view kNumFiles = "num-files-at-level";
  if (what == "stats" || what == "sstables" ||
      what.substr(0, kNumFiles.size()) == kNumFiles) {
    return "sift." + std::string(what);
  }
  return std::nullopt;
}

// "leveldb.approximate-memory-usage": the bytes of sift.memory's lines
// (memtables, filters, indexes, block cache), summed.
std::optional<std::string> MemoryUsage(sift_db_t* db) {
  char* text = sift_property_value(db, "sift.memory");
  if (text == nullptr) return std::nullopt;
  uint64_t sum = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(line, absl::MaxSplits(": ", 1));
    uint64_t bytes = 0;
    if (kv.first != "open tables" && absl::SimpleAtoi(kv.second, &bytes)) {
      sum += bytes;
    }
  }
  sift_free(text);
  return std::to_string(sum);
}

}  // namespace

extern "C" {

// ---- DB operations

leveldb_t* leveldb_open(const leveldb_options_t* options, const char* name,
                        char** errptr) {
  absl::StatusOr<std::unique_ptr<sift::DB>> db =
      sift::DB::Open(options->rep, name);
  if (!sift::c_api::SaveError(db.status(), errptr)) return nullptr;
  return new leveldb_t{{*std::move(db)}};
}

void leveldb_close(leveldb_t* db) { delete db; }

void leveldb_put(leveldb_t* db, const leveldb_writeoptions_t* options,
                 const char* key, size_t keylen, const char* val, size_t vallen,
                 char** errptr) {
  sift_put(db, options, key, keylen, val, vallen, errptr);
}

void leveldb_delete(leveldb_t* db, const leveldb_writeoptions_t* options,
                    const char* key, size_t keylen, char** errptr) {
  sift_delete(db, options, key, keylen, errptr);
}

void leveldb_write(leveldb_t* db, const leveldb_writeoptions_t* options,
                   leveldb_writebatch_t* batch, char** errptr) {
  sift_write(db, options, batch, errptr);
}

char* leveldb_get(leveldb_t* db, const leveldb_readoptions_t* options,
                  const char* key, size_t keylen, size_t* vallen,
                  char** errptr) {
  return sift_get(db, options, key, keylen, vallen, errptr);
}

leveldb_iterator_t* leveldb_create_iterator(
    leveldb_t* db, const leveldb_readoptions_t* options) {
  return new leveldb_iterator_t{{db->rep->NewIterator(options->rep)}};
}

const leveldb_snapshot_t* leveldb_create_snapshot(leveldb_t* db) {
  return new leveldb_snapshot_t{{db->rep->GetSnapshot()}};
}

void leveldb_release_snapshot(leveldb_t* db,
                              const leveldb_snapshot_t* snapshot) {
  db->rep->ReleaseSnapshot(snapshot->rep);
  delete snapshot;
}

char* leveldb_property_value(leveldb_t* db, const char* propname) {
  const std::string_view name = propname;
  if (name == "leveldb.approximate-memory-usage") {
    std::optional<std::string> v = MemoryUsage(db);
    return v.has_value() ? CopyOut(*v) : nullptr;
  }
  const std::optional<std::string> sift_name = SiftPropertyFor(name);
  return sift_property_value(
      db, sift_name.has_value() ? sift_name->c_str() : propname);
}

void leveldb_approximate_sizes(leveldb_t* db, int num_ranges,
                               const char* const* range_start_key,
                               const size_t* range_start_key_len,
                               const char* const* range_limit_key,
                               const size_t* range_limit_key_len,
                               uint64_t* sizes) {
  char* err = nullptr;
  sift_approximate_sizes(db, num_ranges, range_start_key, range_start_key_len,
                         range_limit_key, range_limit_key_len,
                         /*include_files=*/1, /*include_memtables=*/0, sizes,
                         &err);
  if (err == nullptr) return;
  // LevelDB's signature cannot report the error: each range is asked
  // alone, and one that needs a table that cannot be opened counts 0.
  sift_free(err);
  for (int i = 0; i < num_ranges; ++i) {
    err = nullptr;
    sift_approximate_sizes(db, 1, &range_start_key[i], &range_start_key_len[i],
                           &range_limit_key[i], &range_limit_key_len[i],
                           /*include_files=*/1, /*include_memtables=*/0,
                           &sizes[i], &err);
    if (err != nullptr) {
      sizes[i] = 0;
      sift_free(err);
    }
  }
}

void leveldb_compact_range(leveldb_t* db, const char* start_key,
                           size_t start_key_len, const char* limit_key,
                           size_t limit_key_len) {
  char* err = nullptr;
  sift_compact_range(db, start_key, start_key_len, limit_key, limit_key_len,
                     &err);
  sift_free(err);  // no errptr in LevelDB's signature
}

// ---- Management operations

void leveldb_destroy_db(const leveldb_options_t* options, const char* name,
                        char** errptr) {
  sift_destroy_db(options, name, errptr);
}

void leveldb_repair_db(const leveldb_options_t* options, const char* name,
                       char** errptr) {
  sift_repair_db(options, name, nullptr, errptr);
}

// ---- Iterator

void leveldb_iter_destroy(leveldb_iterator_t* iter) { delete iter; }
uint8_t leveldb_iter_valid(const leveldb_iterator_t* iter) {
  return sift_iter_valid(iter);
}
void leveldb_iter_seek_to_first(leveldb_iterator_t* iter) {
  sift_iter_seek_to_first(iter);
}
void leveldb_iter_seek_to_last(leveldb_iterator_t* iter) {
  sift_iter_seek_to_last(iter);
}
void leveldb_iter_seek(leveldb_iterator_t* iter, const char* k, size_t klen) {
  sift_iter_seek(iter, k, klen);
}
void leveldb_iter_next(leveldb_iterator_t* iter) { sift_iter_next(iter); }
void leveldb_iter_prev(leveldb_iterator_t* iter) { sift_iter_prev(iter); }
const char* leveldb_iter_key(const leveldb_iterator_t* iter, size_t* klen) {
  return sift_iter_key(iter, klen);
}
const char* leveldb_iter_value(const leveldb_iterator_t* iter, size_t* vlen) {
  return sift_iter_value(iter, vlen);
}
void leveldb_iter_get_error(const leveldb_iterator_t* iter, char** errptr) {
  sift_iter_get_error(iter, errptr);
}

// ---- Write batch

leveldb_writebatch_t* leveldb_writebatch_create(void) {
  return new leveldb_writebatch_t{};
}
void leveldb_writebatch_destroy(leveldb_writebatch_t* b) { delete b; }
void leveldb_writebatch_clear(leveldb_writebatch_t* b) {
  sift_writebatch_clear(b);
}
void leveldb_writebatch_put(leveldb_writebatch_t* b, const char* key,
                            size_t klen, const char* val, size_t vlen) {
  sift_writebatch_put(b, key, klen, val, vlen);
}
void leveldb_writebatch_delete(leveldb_writebatch_t* b, const char* key,
                               size_t klen) {
  sift_writebatch_delete(b, key, klen);
}
void leveldb_writebatch_iterate(const leveldb_writebatch_t* b, void* state,
                                void (*put)(void*, const char* k, size_t klen,
                                            const char* v, size_t vlen),
                                void (*deleted)(void*, const char* k,
                                                size_t klen)) {
  sift_writebatch_iterate(b, state, put, deleted);
}
void leveldb_writebatch_append(leveldb_writebatch_t* destination,
                               const leveldb_writebatch_t* source) {
  sift_writebatch_append(destination, source);
}

// ---- Options

leveldb_options_t* leveldb_options_create(void) {
  return new leveldb_options_t{};
}
void leveldb_options_destroy(leveldb_options_t* o) { delete o; }
void leveldb_options_set_comparator(leveldb_options_t* o,
                                    leveldb_comparator_t* cmp) {
  sift_options_set_comparator(o, cmp);
}
void leveldb_options_set_filter_policy(leveldb_options_t* o,
                                       leveldb_filterpolicy_t* policy) {
  o->rep.filter_policy = policy != nullptr ? policy->rep : nullptr;
}
void leveldb_options_set_create_if_missing(leveldb_options_t* o, uint8_t v) {
  sift_options_set_create_if_missing(o, v);
}
void leveldb_options_set_error_if_exists(leveldb_options_t* o, uint8_t v) {
  sift_options_set_error_if_exists(o, v);
}
void leveldb_options_set_paranoid_checks(leveldb_options_t* o, uint8_t v) {
  sift_options_set_paranoid_checks(o, v);
}
void leveldb_options_set_env(leveldb_options_t* o, leveldb_env_t* env) {
  sift_options_set_env(o, env);
}
void leveldb_options_set_info_log(leveldb_options_t*, leveldb_logger_t*) {}
void leveldb_options_set_write_buffer_size(leveldb_options_t* o, size_t v) {
  sift_options_set_write_buffer_size(o, Clamp<size_t>(v, 64 << 10, 1 << 30));
}
void leveldb_options_set_max_open_files(leveldb_options_t* o, int v) {
  sift_options_set_max_open_files(o, Clamp(v, 74, 50000));
}
void leveldb_options_set_cache(leveldb_options_t* o, leveldb_cache_t* c) {
  sift_options_set_block_cache_capacity(
      o, c != nullptr ? c->capacity : sift::Options().block_cache_capacity);
}
void leveldb_options_set_block_size(leveldb_options_t* o, size_t v) {
  sift_options_set_block_size(o, Clamp<size_t>(v, 1 << 10, 4 << 20));
}
void leveldb_options_set_block_restart_interval(leveldb_options_t* o, int v) {
  sift_options_set_block_restart_interval(o, std::max(v, 1));
}
void leveldb_options_set_max_file_size(leveldb_options_t* o, size_t v) {
  sift_options_set_max_file_size(o, Clamp<size_t>(v, 1 << 20, 1 << 30));
}
void leveldb_options_set_compression(leveldb_options_t* o, int v) {
  if (v == leveldb_no_compression) {
    sift_options_set_compression(o, sift_no_compression);
  } else if (v == leveldb_snappy_compression) {
    sift_options_set_compression(o, sift_snappy_compression);
  }
}

// ---- Read and write options

leveldb_readoptions_t* leveldb_readoptions_create(void) {
  return new leveldb_readoptions_t{};
}
void leveldb_readoptions_destroy(leveldb_readoptions_t* o) { delete o; }
void leveldb_readoptions_set_verify_checksums(leveldb_readoptions_t*, uint8_t) {
}
void leveldb_readoptions_set_fill_cache(leveldb_readoptions_t* o, uint8_t v) {
  sift_readoptions_set_fill_cache(o, v);
}
void leveldb_readoptions_set_snapshot(leveldb_readoptions_t* o,
                                      const leveldb_snapshot_t* snap) {
  sift_readoptions_set_snapshot(o, snap);
}

leveldb_writeoptions_t* leveldb_writeoptions_create(void) {
  return new leveldb_writeoptions_t{};
}
void leveldb_writeoptions_destroy(leveldb_writeoptions_t* o) { delete o; }
void leveldb_writeoptions_set_sync(leveldb_writeoptions_t* o, uint8_t v) {
  sift_writeoptions_set_sync(o, v);
}

// ---- Cache and Env

leveldb_cache_t* leveldb_cache_create_lru(size_t capacity) {
  return new leveldb_cache_t{capacity};
}
void leveldb_cache_destroy(leveldb_cache_t* cache) { delete cache; }

leveldb_env_t* leveldb_create_default_env(void) {
  return new leveldb_env_t{{sift::Env::Default(), nullptr}};
}
void leveldb_env_destroy(leveldb_env_t* env) { delete env; }

char* leveldb_env_get_test_directory(leveldb_env_t* env) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = tmp != nullptr && tmp[0] != '\0'
                              ? std::string(tmp)
                              : "/tmp/leveldbtest-" + std::to_string(geteuid());
  // An existing directory is fine; any other failure shows when it is used.
  env->rep->CreateDir(dir).IgnoreError();
  return CopyOut(dir);
}

// ---- Utility

void leveldb_free(void* ptr) { std::free(ptr); }
int leveldb_major_version(void) { return 1; }
int leveldb_minor_version(void) { return 23; }

}  // extern "C"
