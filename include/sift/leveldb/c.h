/* LevelDB 1.23's C API, implemented by siftdb.

   A program written against LevelDB's <leveldb/c.h> compiles unchanged with
   -I<prefix>/include/sift and links with -lsiftdb_leveldb_c (a shared
   library holding siftdb), or in CMake with
       find_package(siftdb CONFIG REQUIRED)
       target_link_libraries(app PRIVATE siftdb::leveldb_c)
   Every name, type and signature below is LevelDB 1.23's; so are the
   conventions: opaque types; keys and values as (pointer, length); uint8_t
   booleans; a failing call frees the old *errptr (which must be NULL or an
   earlier message) and sets it to a malloc()ed message, a succeeding one
   leaves it alone; returned memory is released with leveldb_free.

   The database underneath is siftdb's, with its own file formats: this
   library opens databases siftdb created, not LevelDB's files. Where
   siftdb behaves differently, the function's comment says so. In brief:
   - Error messages are siftdb's ("INVALID_ARGUMENT: ...": the absl::Status
     code, then the detail), not LevelDB's ("Invalid argument: ...").
   - Without a filter policy, new tables get siftdb's default filter (a 1%
     false-positive chance); LevelDB would write none. Results are the
     same; misses are cheaper.
   - Option values outside LevelDB's ranges are clamped as LevelDB clamps
     them, then to siftdb's own limits (see each setter).
   - Caches, environments and loggers map onto siftdb's options or are
     ignored (see their functions).
   - leveldb_compact_range compacts [start, limit] inclusive of limit, as
     LevelDB does.
   - leveldb_filterpolicy_create_bloom builds siftdb's Bloom filter, not
     LevelDB's bytes, and a filter policy lives on while a DB uses it (see
     the functions).
   Thread safety is LevelDB's: a leveldb_t may be used by many threads at
   once; every other object by one thread at a time. */

#ifndef STORAGE_LEVELDB_INCLUDE_C_H_
#define STORAGE_LEVELDB_INCLUDE_C_H_

#ifdef __cplusplus
extern "C" {
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifndef LEVELDB_EXPORT
#define LEVELDB_EXPORT __attribute__((visibility("default")))
#endif

/* Exported types */

typedef struct leveldb_t leveldb_t;
typedef struct leveldb_cache_t leveldb_cache_t;
typedef struct leveldb_comparator_t leveldb_comparator_t;
typedef struct leveldb_env_t leveldb_env_t;
typedef struct leveldb_filelock_t leveldb_filelock_t;
typedef struct leveldb_filterpolicy_t leveldb_filterpolicy_t;
typedef struct leveldb_iterator_t leveldb_iterator_t;
typedef struct leveldb_logger_t leveldb_logger_t;
typedef struct leveldb_options_t leveldb_options_t;
typedef struct leveldb_randomfile_t leveldb_randomfile_t;
typedef struct leveldb_readoptions_t leveldb_readoptions_t;
typedef struct leveldb_seqfile_t leveldb_seqfile_t;
typedef struct leveldb_snapshot_t leveldb_snapshot_t;
typedef struct leveldb_writablefile_t leveldb_writablefile_t;
typedef struct leveldb_writebatch_t leveldb_writebatch_t;
typedef struct leveldb_writeoptions_t leveldb_writeoptions_t;

/* DB operations */

/* A database that does not exist (without create_if_missing), or exists
   with error_if_exists, fails with a FAILED_PRECONDITION message. */
LEVELDB_EXPORT leveldb_t* leveldb_open(const leveldb_options_t* options,
                                       const char* name, char** errptr);

LEVELDB_EXPORT void leveldb_close(leveldb_t* db);

LEVELDB_EXPORT void leveldb_put(leveldb_t* db,
                                const leveldb_writeoptions_t* options,
                                const char* key, size_t keylen, const char* val,
                                size_t vallen, char** errptr);

LEVELDB_EXPORT void leveldb_delete(leveldb_t* db,
                                   const leveldb_writeoptions_t* options,
                                   const char* key, size_t keylen,
                                   char** errptr);

LEVELDB_EXPORT void leveldb_write(leveldb_t* db,
                                  const leveldb_writeoptions_t* options,
                                  leveldb_writebatch_t* batch, char** errptr);

/* Returns NULL if not found.  A malloc()ed array otherwise.
   Stores the length of the array in *vallen.
   siftdb: NULL with no error means only that the key is absent. A table
   that is missing or cannot be read sets *errptr (naming the file), where
   LevelDB 1.23 reports a missing table file as not found. */
LEVELDB_EXPORT char* leveldb_get(leveldb_t* db,
                                 const leveldb_readoptions_t* options,
                                 const char* key, size_t keylen, size_t* vallen,
                                 char** errptr);

LEVELDB_EXPORT leveldb_iterator_t* leveldb_create_iterator(
    leveldb_t* db, const leveldb_readoptions_t* options);

LEVELDB_EXPORT const leveldb_snapshot_t* leveldb_create_snapshot(leveldb_t* db);

LEVELDB_EXPORT void leveldb_release_snapshot(
    leveldb_t* db, const leveldb_snapshot_t* snapshot);

/* Returns NULL if property name is unknown.
   Else returns a pointer to a malloc()-ed null-terminated value.
   LevelDB's names map to siftdb's properties: "leveldb.stats" is
   "sift.stats", "leveldb.num-files-at-level<N>" is
   "sift.num-files-at-level<N>", "leveldb.sstables" is "sift.sstables",
   and "leveldb.approximate-memory-usage" is the total bytes of
   "sift.memory" (memtables, filters, indexes and block cache) as one
   number. The texts are siftdb's, not LevelDB's tables. siftdb's own
   names ("sift.levels", ...) are served too. */
LEVELDB_EXPORT char* leveldb_property_value(leveldb_t* db,
                                            const char* propname);

/* As LevelDB: the bytes of table files in each range [start, limit), not
   counting writes still in the memtable. A range whose limit is not after
   its start is 0. LevelDB's signature has no errptr: a range whose size
   needs a table that cannot be opened is 0, the other ranges keep their
   sizes. */
LEVELDB_EXPORT void leveldb_approximate_sizes(
    leveldb_t* db, int num_ranges, const char* const* range_start_key,
    const size_t* range_start_key_len, const char* const* range_limit_key,
    const size_t* range_limit_key_len, uint64_t* sizes);

/* NULL start_key or limit_key: unbounded on that side. LevelDB's signature
   has no errptr: a failed compaction leaves the data as it was, and the
   failure, if lasting, surfaces in later writes. */
LEVELDB_EXPORT void leveldb_compact_range(leveldb_t* db, const char* start_key,
                                          size_t start_key_len,
                                          const char* limit_key,
                                          size_t limit_key_len);

/* Management operations */

/* Removes the files siftdb names as its own, then the directory if empty
   (a directory without a CURRENT file is left alone). */
LEVELDB_EXPORT void leveldb_destroy_db(const leveldb_options_t* options,
                                       const char* name, char** errptr);

/* siftdb's RepairDB: tables and logs salvaged into a new MANIFEST, the
   database then compacted; unreadable files moved to <name>/lost/. */
LEVELDB_EXPORT void leveldb_repair_db(const leveldb_options_t* options,
                                      const char* name, char** errptr);

/* Iterator */

LEVELDB_EXPORT void leveldb_iter_destroy(leveldb_iterator_t*);
LEVELDB_EXPORT uint8_t leveldb_iter_valid(const leveldb_iterator_t*);
LEVELDB_EXPORT void leveldb_iter_seek_to_first(leveldb_iterator_t*);
LEVELDB_EXPORT void leveldb_iter_seek_to_last(leveldb_iterator_t*);
LEVELDB_EXPORT void leveldb_iter_seek(leveldb_iterator_t*, const char* k,
                                      size_t klen);
LEVELDB_EXPORT void leveldb_iter_next(leveldb_iterator_t*);
LEVELDB_EXPORT void leveldb_iter_prev(leveldb_iterator_t*);
LEVELDB_EXPORT const char* leveldb_iter_key(const leveldb_iterator_t*,
                                            size_t* klen);
LEVELDB_EXPORT const char* leveldb_iter_value(const leveldb_iterator_t*,
                                              size_t* vlen);
LEVELDB_EXPORT void leveldb_iter_get_error(const leveldb_iterator_t*,
                                           char** errptr);

/* Write batch */

LEVELDB_EXPORT leveldb_writebatch_t* leveldb_writebatch_create(void);
LEVELDB_EXPORT void leveldb_writebatch_destroy(leveldb_writebatch_t*);
LEVELDB_EXPORT void leveldb_writebatch_clear(leveldb_writebatch_t*);
/* A key over 8 MiB or a value over 256 MiB (siftdb's limits) is not added,
   and leveldb_write then refuses the whole batch with INVALID_ARGUMENT. */
LEVELDB_EXPORT void leveldb_writebatch_put(leveldb_writebatch_t*,
                                           const char* key, size_t klen,
                                           const char* val, size_t vlen);
LEVELDB_EXPORT void leveldb_writebatch_delete(leveldb_writebatch_t*,
                                              const char* key, size_t klen);
LEVELDB_EXPORT void leveldb_writebatch_iterate(
    const leveldb_writebatch_t*, void* state,
    void (*put)(void*, const char* k, size_t klen, const char* v, size_t vlen),
    void (*deleted)(void*, const char* k, size_t klen));
LEVELDB_EXPORT void leveldb_writebatch_append(
    leveldb_writebatch_t* destination, const leveldb_writebatch_t* source);

/* Options */

LEVELDB_EXPORT leveldb_options_t* leveldb_options_create(void);
LEVELDB_EXPORT void leveldb_options_destroy(leveldb_options_t*);
/* As LevelDB: the comparator's name is recorded in the database, and
   opening it with a comparator of another name fails (INVALID_ARGUMENT
   naming both). The comparator must outlive every DB opened with it.
   NULL: the bytewise order. */
LEVELDB_EXPORT void leveldb_options_set_comparator(leveldb_options_t*,
                                                   leveldb_comparator_t*);
/* New tables carry a filter built by the policy, under its name; a table
   whose filter another policy (or none) built is read without a filter.
   The options share the policy (see leveldb_filterpolicy_destroy). NULL:
   siftdb's default filter. */
LEVELDB_EXPORT void leveldb_options_set_filter_policy(leveldb_options_t*,
                                                      leveldb_filterpolicy_t*);
LEVELDB_EXPORT void leveldb_options_set_create_if_missing(leveldb_options_t*,
                                                          uint8_t);
LEVELDB_EXPORT void leveldb_options_set_error_if_exists(leveldb_options_t*,
                                                        uint8_t);
/* siftdb's paranoid_checks: every table is read and checked at open. */
LEVELDB_EXPORT void leveldb_options_set_paranoid_checks(leveldb_options_t*,
                                                        uint8_t);
/* The env's file system is used (leveldb_create_default_env: POSIX). */
LEVELDB_EXPORT void leveldb_options_set_env(leveldb_options_t*, leveldb_env_t*);
/* Ignored: siftdb writes no info log (its state is in the properties). */
LEVELDB_EXPORT void leveldb_options_set_info_log(leveldb_options_t*,
                                                 leveldb_logger_t*);
/* Clamped to [64 KiB, 1 GiB], as LevelDB. */
LEVELDB_EXPORT void leveldb_options_set_write_buffer_size(leveldb_options_t*,
                                                          size_t);
/* Clamped to [74, 50000] as LevelDB. siftdb pins the filters and indexes
   of half that many tables and caches the rest. */
LEVELDB_EXPORT void leveldb_options_set_max_open_files(leveldb_options_t*, int);
/* The DB gets a block cache of the cache's capacity (see
   leveldb_cache_create_lru). NULL: siftdb's default, 8 MiB. */
LEVELDB_EXPORT void leveldb_options_set_cache(leveldb_options_t*,
                                              leveldb_cache_t*);
/* Clamped to [1 KiB, 4 MiB], as LevelDB. */
LEVELDB_EXPORT void leveldb_options_set_block_size(leveldb_options_t*, size_t);
/* Values below 1 become 1. */
LEVELDB_EXPORT void leveldb_options_set_block_restart_interval(
    leveldb_options_t*, int);
/* Clamped to [1 MiB, 1 GiB], as LevelDB. */
LEVELDB_EXPORT void leveldb_options_set_max_file_size(leveldb_options_t*,
                                                      size_t);

enum { leveldb_no_compression = 0, leveldb_snappy_compression = 1 };
/* Another value leaves the setting unchanged (Snappy by default). */
LEVELDB_EXPORT void leveldb_options_set_compression(leveldb_options_t*, int);

/* Comparator */

/* compare returns <0, 0 or >0 as a orders before, with or after b; name
   names the order (it must stay the same for the database's life). The
   callbacks may be called from any thread until leveldb_comparator_destroy,
   which calls destructor(state). As in LevelDB, keys are never shortened
   with a custom comparator. */
LEVELDB_EXPORT leveldb_comparator_t* leveldb_comparator_create(
    void* state, void (*destructor)(void*),
    int (*compare)(void*, const char* a, size_t alen, const char* b,
                   size_t blen),
    const char* (*name)(void*));
LEVELDB_EXPORT void leveldb_comparator_destroy(leveldb_comparator_t*);

/* Filter policy */

/* LevelDB's contract: create_filter gets one table's distinct keys and
   returns a malloc()ed filter of *filter_length bytes (the library frees
   it); key_may_match must return 1 for every key the filter was built
   from (0 for a key of the table hides it from leveldb_get), and may
   return 0 for others, which saves reading the table; name names the
   filter format, stored with each table. The callbacks may be called from
   any thread, at any time a DB holds the policy. */
LEVELDB_EXPORT leveldb_filterpolicy_t* leveldb_filterpolicy_create(
    void* state, void (*destructor)(void*),
    char* (*create_filter)(void*, const char* const* key_array,
                           const size_t* key_length_array, int num_keys,
                           size_t* filter_length),
    uint8_t (*key_may_match)(void*, const char* key, size_t length,
                             const char* filter, size_t filter_length),
    const char* (*name)(void*));
/* Releases the caller's handle. Unlike LevelDB, options and DBs the policy
   was set in share it: destructor(state) runs once the last of them lets
   go -- here, for a program that closed its DBs and reset its options
   first, as LevelDB requires; at the last leveldb_close otherwise. */
LEVELDB_EXPORT void leveldb_filterpolicy_destroy(leveldb_filterpolicy_t*);

/* A Bloom filter named "leveldb.BuiltinBloomFilter2", as LevelDB's: it is
   siftdb's standard Bloom filter, built for the false-positive chance of
   LevelDB's at bits_per_key (0.84% at 10; values below 1 count as 1), so
   its size per key is about bits_per_key but its bytes are siftdb's. */
LEVELDB_EXPORT leveldb_filterpolicy_t* leveldb_filterpolicy_create_bloom(
    int bits_per_key);

/* Read options */

LEVELDB_EXPORT leveldb_readoptions_t* leveldb_readoptions_create(void);
LEVELDB_EXPORT void leveldb_readoptions_destroy(leveldb_readoptions_t*);
/* Ignored: siftdb checks the checksum of every block it reads, always. */
LEVELDB_EXPORT void leveldb_readoptions_set_verify_checksums(
    leveldb_readoptions_t*, uint8_t);
LEVELDB_EXPORT void leveldb_readoptions_set_fill_cache(leveldb_readoptions_t*,
                                                       uint8_t);
LEVELDB_EXPORT void leveldb_readoptions_set_snapshot(leveldb_readoptions_t*,
                                                     const leveldb_snapshot_t*);

/* Write options */

LEVELDB_EXPORT leveldb_writeoptions_t* leveldb_writeoptions_create(void);
LEVELDB_EXPORT void leveldb_writeoptions_destroy(leveldb_writeoptions_t*);
LEVELDB_EXPORT void leveldb_writeoptions_set_sync(leveldb_writeoptions_t*,
                                                  uint8_t);

/* Cache */

/* Not a cache shared between databases, as LevelDB's is: a capacity. Each
   database whose options name it gets a block cache of its own of that
   many bytes. */
LEVELDB_EXPORT leveldb_cache_t* leveldb_cache_create_lru(size_t capacity);
LEVELDB_EXPORT void leveldb_cache_destroy(leveldb_cache_t* cache);

/* Env */

/* The POSIX file system. */
LEVELDB_EXPORT leveldb_env_t* leveldb_create_default_env(void);
LEVELDB_EXPORT void leveldb_env_destroy(leveldb_env_t*);

/* If not NULL, the returned buffer must be released using leveldb_free().
   As LevelDB: $TEST_TMPDIR if set, else /tmp/leveldbtest-<euid>; the
   directory is created if missing. */
LEVELDB_EXPORT char* leveldb_env_get_test_directory(leveldb_env_t*);

/* Utility */

/* Calls free(ptr).
   REQUIRES: ptr was malloc()-ed and returned by one of the routines
   in this file. */
LEVELDB_EXPORT void leveldb_free(void* ptr);

/* The LevelDB API version implemented: 1.23. */
LEVELDB_EXPORT int leveldb_major_version(void);
LEVELDB_EXPORT int leveldb_minor_version(void);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* STORAGE_LEVELDB_INCLUDE_C_H_ */
