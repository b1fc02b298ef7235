/* The C API of siftdb: the whole public C++ API (sift/db.h and the headers
   it names) for C programs and for bindings from other languages (cgo, Rust
   FFI, Python ctypes/cffi). Link with siftdb::siftdb (CMake) or libsiftdb.

   Conventions (those of LevelDB's C API, so its users feel at home):
   - Every type is opaque: created by a sift_*_create function (or returned
     by sift_open, sift_create_iterator, ...) and released by the matching
     destroy, close or release function. Destroying NULL is a no-op.
   - Keys and values are (pointer, length) pairs: any bytes, NUL included.
   - Booleans are uint8_t: 0 is false, anything else true.
   - A function that can fail takes `char** errptr` last. On entry *errptr
     must be NULL or a message an earlier call returned. On success it is
     left unchanged; on failure the old message is freed and *errptr set to
     a new malloc()ed message ("INVALID_ARGUMENT: ...", the absl::Status
     text: its code, then what was wrong, naming the value or the file).
   - Memory this API returns (values, property text, messages) is
     malloc()ed: release it with sift_free (or free()).
   - Every pointer argument must be non-NULL unless it says otherwise.
   - Thread safety is the C++ API's: a sift_db_t may be used by many
     threads at once; iterators, write batches and options objects by one
     thread at a time.

   Options objects are copied when used (sift_open copies the options), so
   they may be changed or destroyed afterwards; a comparator set in them
   must outlive every DB opened with it. */

#ifndef SIFT_INCLUDE_C_H_
#define SIFT_INCLUDE_C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sift_column_family_handle_t sift_column_family_handle_t;
typedef struct sift_comparator_t sift_comparator_t;
typedef struct sift_db_t sift_db_t;
typedef struct sift_env_t sift_env_t;
typedef struct sift_iterator_t sift_iterator_t;
typedef struct sift_options_t sift_options_t;
typedef struct sift_readoptions_t sift_readoptions_t;
typedef struct sift_snapshot_t sift_snapshot_t;
typedef struct sift_statistics_t sift_statistics_t;
typedef struct sift_writebatch_t sift_writebatch_t;
typedef struct sift_writeoptions_t sift_writeoptions_t;
typedef struct sift_sstfilewriter_t sift_sstfilewriter_t;

/* ---- Databases (sift/db.h) --------------------------------------------- */

/* Opens (or, with create_if_missing, creates) the database at name. NULL on
   failure, with *errptr set. */
sift_db_t* sift_open(const sift_options_t* options, const char* name,
                     char** errptr);
/* Opens for reading only: no lock taken, nothing written (DB::
   OpenForReadOnly). Writes then fail with FAILED_PRECONDITION. */
sift_db_t* sift_open_for_read_only(const sift_options_t* options,
                                   const char* name, char** errptr);
/* Waits for background work and closes the database. REQUIRES: every
   iterator and snapshot of db released first. */
void sift_close(sift_db_t* db);

void sift_put(sift_db_t* db, const sift_writeoptions_t* options,
              const char* key, size_t keylen, const char* val, size_t vallen,
              char** errptr);
/* Deleting a missing key is not an error. */
void sift_delete(sift_db_t* db, const sift_writeoptions_t* options,
                 const char* key, size_t keylen, char** errptr);
/* Removes every key in [start_key, end_key) (DB::DeleteRange), as one
   write. start_key >= end_key is INVALID_ARGUMENT, and nothing is written;
   so is any comparator but the bytewise one. */
void sift_delete_range(sift_db_t* db, const sift_writeoptions_t* options,
                       const char* start_key, size_t start_key_len,
                       const char* end_key, size_t end_key_len, char** errptr);
/* Applies the batch atomically (see DB::Write). */
void sift_write(sift_db_t* db, const sift_writeoptions_t* options,
                sift_writebatch_t* batch, char** errptr);
/* The value of key, malloc()ed, its length in *vallen; NULL (and *vallen
   0) if the key is absent, which is not an error. Any other failure (a
   damaged or missing table, an I/O error) returns NULL with *errptr set:
   NULL with no error always means absent. */
char* sift_get(sift_db_t* db, const sift_readoptions_t* options,
               const char* key, size_t keylen, size_t* vallen, char** errptr);

/* An unpositioned iterator over the DB (see sift/iterator.h). */
sift_iterator_t* sift_create_iterator(sift_db_t* db,
                                      const sift_readoptions_t* options);

const sift_snapshot_t* sift_create_snapshot(sift_db_t* db);
void sift_release_snapshot(sift_db_t* db, const sift_snapshot_t* snapshot);

/* Writes the memtable to a table file and waits until it is durable. */
void sift_flush(sift_db_t* db, char** errptr);
/* Compacts the keys [start, limit] to the bottom level; a NULL start or
   limit means unbounded on that side. Waits until done. */
void sift_compact_range(sift_db_t* db, const char* start_key,
                        size_t start_key_len, const char* limit_key,
                        size_t limit_key_len, char** errptr);
/* Waits until no flush or compaction is pending. */
void sift_wait_for_compaction(sift_db_t* db, char** errptr);
/* Resumes writes after a background error (DB::Resume). */
void sift_resume(sift_db_t* db, char** errptr);

/* The text of a property (DB::GetProperty lists the names: "sift.stats",
   "sift.levels", "sift.num-files-at-level<N>", ...), malloc()ed; NULL for
   an unknown name. */
char* sift_property_value(sift_db_t* db, const char* propname);

/* For each range i, [start[i], limit[i]), the approximate bytes its keys
   take (DB::GetApproximateSizes), into sizes[i]. include_files and
   include_memtables are SizeApproximationOptions'; at least one must be
   set. On failure sizes is left unchanged. */
void sift_approximate_sizes(sift_db_t* db, int num_ranges,
                            const char* const* range_start_key,
                            const size_t* range_start_key_len,
                            const char* const* range_limit_key,
                            const size_t* range_limit_key_len,
                            uint8_t include_files, uint8_t include_memtables,
                            uint64_t* sizes, char** errptr);

/* Removes the database at name (DestroyDB). */
void sift_destroy_db(const sift_options_t* options, const char* name,
                     char** errptr);
/* Rebuilds a database whose MANIFEST is lost or damaged (RepairDB); what
   it kept and set aside is returned malloc()ed in *report (if report is
   not NULL; NULL on failure). */
void sift_repair_db(const sift_options_t* options, const char* name,
                    char** report, char** errptr);

/* ---- Column families (sift/column_family.h) ---------------------------- */

/* Column families are separate keyspaces of one database, each with its
   own options (comparator, write buffer, filters, level sizes), written
   together through one log: one sift_write is atomic across the families
   its batch names. Every database has the family "default", which the
   functions without _cf mean. A handle names one family of one open DB.
   REQUIRES: every handle destroyed before sift_close of its DB. After
   sift_drop_column_family, reads and writes through its handle fail with
   INVALID_ARGUMENT, as do those through another DB's handle. */

/* Opens the database at name with its families: column_family_names[i]
   opened with the family options of column_family_options[i] (the
   comparator, write buffer, filter and level fields); the database-wide
   fields (env, create_if_missing, create_missing_column_families, the
   block cache, ...) come from db_options. Every family the database has
   must be listed, "default" included, else INVALID_ARGUMENT naming those
   missing; a listed family the database lacks is created with
   create_missing_column_families, else INVALID_ARGUMENT. On success
   column_family_handles[i] gets family i's handle, each to be destroyed
   by the caller. On failure: NULL, *errptr set, column_family_handles
   unchanged. */
sift_db_t* sift_open_column_families(
    const sift_options_t* db_options, const char* name, int num_column_families,
    const char* const* column_family_names,
    const sift_options_t* const* column_family_options,
    sift_column_family_handle_t** column_family_handles, char** errptr);
/* The same, for reading only (see sift_open_for_read_only): families the
   database has may be left out; one it lacks is INVALID_ARGUMENT (none is
   created). */
sift_db_t* sift_open_for_read_only_column_families(
    const sift_options_t* db_options, const char* name, int num_column_families,
    const char* const* column_family_names,
    const sift_options_t* const* column_family_options,
    sift_column_family_handle_t** column_family_handles, char** errptr);
/* The names of the families of the database at name, "default" first: an
   array of *lencf malloc()ed strings, released with
   sift_list_column_families_destroy. NULL (and *lencf 0) on failure. */
char** sift_list_column_families(const sift_options_t* options,
                                 const char* name, size_t* lencf,
                                 char** errptr);
/* Frees the len names of list and list itself. */
void sift_list_column_families_destroy(char** list, size_t len);

/* Adds a family opened with column_family_options' family fields; NULL on
   failure (INVALID_ARGUMENT for an empty name or one in use). */
sift_column_family_handle_t* sift_create_column_family(
    sift_db_t* db, const sift_options_t* column_family_options,
    const char* column_family_name, char** errptr);
/* Removes the family and its data (INVALID_ARGUMENT for "default"). The
   handle must still be destroyed. */
void sift_drop_column_family(sift_db_t* db, sift_column_family_handle_t* handle,
                             char** errptr);
/* A handle on the default family. Destroying it leaves the DB as it was. */
sift_column_family_handle_t* sift_get_default_column_family_handle(
    sift_db_t* db);
void sift_column_family_handle_destroy(sift_column_family_handle_t* handle);
/* The family's ID, unique within its DB and never reused ("default" is
   0). Valid after a drop too. */
uint32_t sift_column_family_handle_get_id(
    const sift_column_family_handle_t* handle);
/* The family's name, malloc()ed, its length in *name_len. Valid after a
   drop too. */
char* sift_column_family_handle_get_name(
    const sift_column_family_handle_t* handle, size_t* name_len);

/* The functions above, in one family. */
void sift_put_cf(sift_db_t* db, const sift_writeoptions_t* options,
                 sift_column_family_handle_t* column_family, const char* key,
                 size_t keylen, const char* val, size_t vallen, char** errptr);
void sift_delete_cf(sift_db_t* db, const sift_writeoptions_t* options,
                    sift_column_family_handle_t* column_family, const char* key,
                    size_t keylen, char** errptr);
void sift_delete_range_cf(sift_db_t* db, const sift_writeoptions_t* options,
                          sift_column_family_handle_t* column_family,
                          const char* start_key, size_t start_key_len,
                          const char* end_key, size_t end_key_len,
                          char** errptr);
/* NULL with no error means absent, as sift_get. */
char* sift_get_cf(sift_db_t* db, const sift_readoptions_t* options,
                  sift_column_family_handle_t* column_family, const char* key,
                  size_t keylen, size_t* vallen, char** errptr);
/* An unpositioned iterator over the family's keys only. For a dropped
   family's handle it is never valid and sift_iter_get_error reports
   INVALID_ARGUMENT. */
sift_iterator_t* sift_create_iterator_cf(
    sift_db_t* db, const sift_readoptions_t* options,
    sift_column_family_handle_t* column_family);
/* Families flush together: this writes every family's memtable (one log
   serves them all), and fails for a dropped family's handle. */
void sift_flush_cf(sift_db_t* db, sift_column_family_handle_t* column_family,
                   char** errptr);
void sift_compact_range_cf(sift_db_t* db,
                           sift_column_family_handle_t* column_family,
                           const char* start_key, size_t start_key_len,
                           const char* limit_key, size_t limit_key_len,
                           char** errptr);
/* The family's own files and levels; "sift.stats" and "sift.filter-stats"
   count reads of every family. NULL for an unknown name or a dropped
   family. */
char* sift_property_value_cf(sift_db_t* db,
                             sift_column_family_handle_t* column_family,
                             const char* propname);
void sift_approximate_sizes_cf(
    sift_db_t* db, sift_column_family_handle_t* column_family, int num_ranges,
    const char* const* range_start_key, const size_t* range_start_key_len,
    const char* const* range_limit_key, const size_t* range_limit_key_len,
    uint8_t include_files, uint8_t include_memtables, uint64_t* sizes,
    char** errptr);

/* Batch entries of one family. The handle's family is recorded by ID:
   writing the batch after the family is dropped is INVALID_ARGUMENT, and
   nothing is written. */
void sift_writebatch_put_cf(sift_writebatch_t* batch,
                            sift_column_family_handle_t* column_family,
                            const char* key, size_t klen, const char* val,
                            size_t vlen);
void sift_writebatch_delete_cf(sift_writebatch_t* batch,
                               sift_column_family_handle_t* column_family,
                               const char* key, size_t klen);
void sift_writebatch_delete_range_cf(sift_writebatch_t* batch,
                                     sift_column_family_handle_t* column_family,
                                     const char* start_key,
                                     size_t start_key_len, const char* end_key,
                                     size_t end_key_len);

/* ---- Statistics (sift/statistics.h) ------------------------------------ */

/* The tickers, numbered as sift::Ticker (sift.bloom.filter.useful, ...):
   0 .. sift_statistics_num_tickers() - 1. */
int sift_statistics_num_tickers(void);
/* The ticker's name, e.g. "sift.bloom.filter.useful"; NULL if out of
   range. Static storage: do not free. */
const char* sift_statistics_ticker_name(int ticker);
/* The number of levels counted per level. */
int sift_statistics_num_levels(void);

/* A snapshot of db's counters now. */
sift_statistics_t* sift_get_statistics(sift_db_t* db);
void sift_statistics_destroy(sift_statistics_t* stats);
/* A ticker's total; 0 for a ticker out of range. */
uint64_t sift_statistics_get(const sift_statistics_t* stats, int ticker);
/* The part counted at level (0 .. num_levels - 1); 0 if out of range. */
uint64_t sift_statistics_get_at_level(const sift_statistics_t* stats, int level,
                                      int ticker);
/* The observed filter false-positive rate, in total. */
double sift_statistics_observed_fp_rate(const sift_statistics_t* stats);
/* "name COUNT : N" lines, malloc()ed. */
char* sift_statistics_to_string(const sift_statistics_t* stats);

/* ---- Iterators (sift/iterator.h) --------------------------------------- */

/* REQUIRES: destroyed before its DB is closed. */
void sift_iter_destroy(sift_iterator_t* iter);
uint8_t sift_iter_valid(const sift_iterator_t* iter);
void sift_iter_seek_to_first(sift_iterator_t* iter);
void sift_iter_seek_to_last(sift_iterator_t* iter);
/* Positions at the first key >= k. */
void sift_iter_seek(sift_iterator_t* iter, const char* k, size_t klen);
/* REQUIRES (next, prev, key, value): sift_iter_valid(iter). */
void sift_iter_next(sift_iterator_t* iter);
void sift_iter_prev(sift_iterator_t* iter);
/* Point into the iterator's memory, valid until it moves or is
   destroyed. */
const char* sift_iter_key(const sift_iterator_t* iter, size_t* klen);
const char* sift_iter_value(const sift_iterator_t* iter, size_t* vlen);
/* Sets *errptr if the iterator met an I/O error or corruption. */
void sift_iter_get_error(const sift_iterator_t* iter, char** errptr);

/* ---- Write batches (sift/write_batch.h) -------------------------------- */

sift_writebatch_t* sift_writebatch_create(void);
void sift_writebatch_destroy(sift_writebatch_t* batch);
/* Removes every entry and clears the batch's error. */
void sift_writebatch_clear(sift_writebatch_t* batch);
/* A key or value over the size limits (sift/options.h: 8 MiB, 256 MiB) is
   not added and makes sift_write refuse the batch whole; see
   sift_writebatch_get_error. */
void sift_writebatch_put(sift_writebatch_t* batch, const char* key, size_t klen,
                         const char* val, size_t vlen);
void sift_writebatch_delete(sift_writebatch_t* batch, const char* key,
                            size_t klen);
/* Removes every key in [start_key, end_key) when the batch is written (a
   later put in the batch of a key in the range survives). start_key >=
   end_key is refused like an oversized key. */
void sift_writebatch_delete_range(sift_writebatch_t* batch,
                                  const char* start_key, size_t start_key_len,
                                  const char* end_key, size_t end_key_len);
/* The number of puts, deletes and range deletions, of every column
   family. */
int sift_writebatch_count(const sift_writebatch_t* batch);
/* Sets *errptr if the batch refused an entry (WriteBatch::status). */
void sift_writebatch_get_error(const sift_writebatch_t* batch, char** errptr);
/* Calls put or deleted for each put and delete of the default column
   family, in order, with state; range deletions and other families'
   entries are skipped. */
void sift_writebatch_iterate(const sift_writebatch_t* batch, void* state,
                             void (*put)(void* state, const char* k,
                                         size_t klen, const char* v,
                                         size_t vlen),
                             void (*deleted)(void* state, const char* k,
                                             size_t klen));
/* Appends source's entries to destination (source is unchanged). */
void sift_writebatch_append(sift_writebatch_t* destination,
                            const sift_writebatch_t* source);

/* ---- Environments (sift/env.h) ----------------------------------------- */

/* The POSIX file system (Env::Default). Destroying it is a no-op for the
   file system, which outlives every handle. */
sift_env_t* sift_create_default_env(void);
/* A new, empty in-memory file system (NewMemEnv): for tests. Its files
   vanish when it is destroyed. REQUIRES: outlives every DB using it. */
sift_env_t* sift_create_mem_env(void);
void sift_env_destroy(sift_env_t* env);

/* ---- Comparators (sift/comparator.h) ----------------------------------- */

/* A user order of keys: compare(state, a, alen, b, blen) returns < 0, 0 or
   > 0 as memcmp does; name(state) names the order, which the database
   records (opening it under another name fails with INVALID_ARGUMENT).
   Both are called from many threads at once. Index keys are not shortened
   (sift/comparator.h's hooks are left out: always correct, a larger
   index). destructor(state), if destructor is not NULL, runs at
   sift_comparator_destroy. REQUIRES: outlives every DB opened with it. */
sift_comparator_t* sift_comparator_create(
    void* state, void (*destructor)(void* state),
    int (*compare)(void* state, const char* a, size_t alen, const char* b,
                   size_t blen),
    const char* (*name)(void* state));
void sift_comparator_destroy(sift_comparator_t* cmp);

/* ---- Options (sift/options.h) ------------------------------------------ */

/* Every field starts at the C++ default, documented in sift/options.h
   with its trade-off. Values are checked by sift_open, which fails with
   INVALID_ARGUMENT naming a bad one. */
sift_options_t* sift_options_create(void);
void sift_options_destroy(sift_options_t* options);
void sift_options_set_create_if_missing(sift_options_t* options, uint8_t v);
void sift_options_set_error_if_exists(sift_options_t* options, uint8_t v);
/* Lets sift_open_column_families create the listed families the database
   lacks (else they are INVALID_ARGUMENT). */
void sift_options_set_create_missing_column_families(sift_options_t* options,
                                                     uint8_t v);
void sift_options_set_paranoid_checks(sift_options_t* options, uint8_t v);
/* NULL: the POSIX file system. Not owned. */
void sift_options_set_env(sift_options_t* options, sift_env_t* env);
/* NULL: bytewise order (the default). Not owned. */
void sift_options_set_comparator(sift_options_t* options,
                                 sift_comparator_t* cmp);
enum {
  sift_wal_tolerate_corrupted_tail_records = 0,
  sift_wal_absolute_consistency = 1,
  sift_wal_point_in_time_recovery = 2,
  sift_wal_skip_any_corrupted_records = 3
};
void sift_options_set_wal_recovery_mode(sift_options_t* options, int mode);
void sift_options_set_write_buffer_size(sift_options_t* options, size_t v);
void sift_options_set_max_file_size(sift_options_t* options, size_t v);
void sift_options_set_max_bytes_for_level_base(sift_options_t* options,
                                               uint64_t v);
void sift_options_set_max_bytes_for_level_multiplier(sift_options_t* options,
                                                     double v);
void sift_options_set_level0_compaction_trigger(sift_options_t* options, int v);
void sift_options_set_level0_slowdown_writes_trigger(sift_options_t* options,
                                                     int v);
void sift_options_set_level0_stop_writes_trigger(sift_options_t* options,
                                                 int v);
void sift_options_set_max_manifest_file_size(sift_options_t* options,
                                             uint64_t v);
void sift_options_set_max_open_files(sift_options_t* options, int v);
void sift_options_set_max_background_jobs(sift_options_t* options, int v);
void sift_options_set_max_subcompactions(sift_options_t* options, int v);
void sift_options_set_block_size(sift_options_t* options, size_t v);
void sift_options_set_block_restart_interval(sift_options_t* options, int v);
enum { sift_no_compression = 0, sift_snappy_compression = 1 };
void sift_options_set_compression(sift_options_t* options, int v);
/* The false-positive chance new tables' filters are built for, in (0, 1];
   1.0 writes no filter. */
void sift_options_set_bloom_filter_fp_chance(sift_options_t* options, double p);
enum {
  sift_filter_layout_standard = 0,
  sift_filter_layout_blocked = 1,
  sift_filter_layout_ribbon = 2
};
void sift_options_set_filter_layout(sift_options_t* options, int layout);
void sift_options_set_bloom_before_level(sift_options_t* options, int v);
void sift_options_set_allow_mmap_reads(sift_options_t* options, uint8_t v);
/* Bytes of the DB's block cache; 0 disables it. */
void sift_options_set_block_cache_capacity(sift_options_t* options, size_t v);

sift_readoptions_t* sift_readoptions_create(void);
void sift_readoptions_destroy(sift_readoptions_t* options);
void sift_readoptions_set_fill_cache(sift_readoptions_t* options, uint8_t v);
/* NULL: read the latest state. */
void sift_readoptions_set_snapshot(sift_readoptions_t* options,
                                   const sift_snapshot_t* snapshot);
/* An iterator's bounds (ReadOptions::iterate_lower_bound, inclusive, and
   iterate_upper_bound, exclusive): it shows no key outside them and opens
   no table wholly outside them. The key is copied; NULL removes the
   bound. */
void sift_readoptions_set_iterate_lower_bound(sift_readoptions_t* options,
                                              const char* key, size_t keylen);
void sift_readoptions_set_iterate_upper_bound(sift_readoptions_t* options,
                                              const char* key, size_t keylen);

sift_writeoptions_t* sift_writeoptions_create(void);
void sift_writeoptions_destroy(sift_writeoptions_t* options);
void sift_writeoptions_set_sync(sift_writeoptions_t* options, uint8_t v);

/* ---- SSTable writer (sift/sst_file_writer.h) --------------------------- */

/* Writes a standalone table with options' table settings. */
sift_sstfilewriter_t* sift_sstfilewriter_create(const sift_options_t* options);
void sift_sstfilewriter_destroy(sift_sstfilewriter_t* writer);
void sift_sstfilewriter_open(sift_sstfilewriter_t* writer, const char* path,
                             char** errptr);
/* Keys strictly increasing. */
void sift_sstfilewriter_put(sift_sstfilewriter_t* writer, const char* key,
                            size_t klen, const char* val, size_t vlen,
                            char** errptr);
void sift_sstfilewriter_delete(sift_sstfilewriter_t* writer, const char* key,
                               size_t klen, char** errptr);
void sift_sstfilewriter_finish(sift_sstfilewriter_t* writer, char** errptr);
uint64_t sift_sstfilewriter_file_size(const sift_sstfilewriter_t* writer);

/* ---- Utility ----------------------------------------------------------- */

/* free(ptr): for memory this API returned. */
void sift_free(void* ptr);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SIFT_INCLUDE_C_H_ */
