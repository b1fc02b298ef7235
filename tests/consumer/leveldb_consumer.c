/* A program written for LevelDB's C API (<leveldb/c.h>), built as C11
   against the installed siftdb::leveldb_c and run: every function of
   include/sift/leveldb/c.h, and the behaviour the header documents where
   siftdb differs from LevelDB. Exits non-zero naming the failed check.

     leveldb_consumer <scratch dir> */

#define _POSIX_C_SOURCE 200809L /* setenv */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "leveldb/c.h"

static int failures = 0;

#define CHECK(cond)                                                      \
  do {                                                                   \
    if (!(cond)) {                                                       \
      fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                        \
    }                                                                    \
  } while (0)

#define CHECK_NO_ERROR(err)                                             \
  do {                                                                  \
    if ((err) != NULL) {                                                \
      fprintf(stderr, "%s:%d: error: %s\n", __FILE__, __LINE__, (err)); \
      ++failures;                                                       \
      leveldb_free(err);                                                \
      (err) = NULL;                                                     \
    }                                                                   \
  } while (0)

/* Expects an error (any message), then clears it. */
#define CHECK_ERROR(err)  \
  do {                    \
    CHECK((err) != NULL); \
    leveldb_free(err);    \
    (err) = NULL;         \
  } while (0)

static leveldb_readoptions_t* ro;
static leveldb_writeoptions_t* wo;

/* The value of key, "NOT_FOUND", or the value (static buffer). */
static const char* Get(leveldb_t* db, const char* key) {
  static char buf[256];
  char* err = NULL;
  size_t len = 99;
  char* v = leveldb_get(db, ro, key, strlen(key), &len, &err);
  CHECK_NO_ERROR(err);
  if (v == NULL) return "NOT_FOUND";
  snprintf(buf, sizeof(buf), "%.*s", (int)len, v);
  leveldb_free(v);
  return buf;
}

static void Put(leveldb_t* db, const char* k, const char* v) {
  char* err = NULL;
  leveldb_put(db, wo, k, strlen(k), v, strlen(v), &err);
  CHECK_NO_ERROR(err);
}

/* A property as an integer; -1 if unknown. */
static long long NumberProperty(leveldb_t* db, const char* name) {
  char* p = leveldb_property_value(db, name);
  if (p == NULL) return -1;
  long long v = atoll(p);
  leveldb_free(p);
  return v;
}

static int TotalFiles(leveldb_t* db) {
  int n = 0;
  for (int level = 0; level < 7; ++level) {
    char name[64];
    snprintf(name, sizeof(name), "leveldb.num-files-at-level%d", level);
    long long v = NumberProperty(db, name);
    CHECK(v >= 0);
    n += (int)v;
  }
  return n;
}

struct Seen {
  char text[256];
};

static void SeenPut(void* state, const char* k, size_t klen, const char* v,
                    size_t vlen) {
  struct Seen* s = (struct Seen*)state;
  size_t n = strlen(s->text);
  snprintf(s->text + n, sizeof(s->text) - n, "put(%.*s,%.*s) ", (int)klen, k,
           (int)vlen, v);
}

static void SeenDelete(void* state, const char* k, size_t klen) {
  struct Seen* s = (struct Seen*)state;
  size_t n = strlen(s->text);
  snprintf(s->text + n, sizeof(s->text) - n, "del(%.*s) ", (int)klen, k);
}

static void TestBatchesIteratorsSnapshots(leveldb_t* db) {
  char* err = NULL;
  leveldb_writebatch_t* wb = leveldb_writebatch_create();
  leveldb_writebatch_put(wb, "gone", 4, "x", 1);
  leveldb_writebatch_clear(wb);
  leveldb_writebatch_put(wb, "b", 1, "vb", 2);
  leveldb_writebatch_put(wb, "c", 1, "vc", 2);
  leveldb_writebatch_t* more = leveldb_writebatch_create();
  leveldb_writebatch_delete(more, "c", 1);
  leveldb_writebatch_put(more, "d", 1, "vd", 2);
  leveldb_writebatch_append(wb, more);
  leveldb_writebatch_destroy(more);
  struct Seen seen = {""};
  leveldb_writebatch_iterate(wb, &seen, SeenPut, SeenDelete);
  CHECK(strcmp(seen.text, "put(b,vb) put(c,vc) del(c) put(d,vd) ") == 0);
  leveldb_write(db, wo, wb, &err);
  CHECK_NO_ERROR(err);
  leveldb_writebatch_destroy(wb);
  CHECK(strcmp(Get(db, "c"), "NOT_FOUND") == 0);

  /* a, b, d */
  const leveldb_snapshot_t* snap = leveldb_create_snapshot(db);
  leveldb_delete(db, wo, "a", 1, &err);
  CHECK_NO_ERROR(err);
  CHECK(strcmp(Get(db, "a"), "NOT_FOUND") == 0);
  leveldb_readoptions_set_snapshot(ro, snap);
  CHECK(strcmp(Get(db, "a"), "va") == 0);

  size_t len;
  leveldb_iterator_t* it = leveldb_create_iterator(db, ro);
  CHECK(!leveldb_iter_valid(it));
  leveldb_iter_seek_to_first(it);
  CHECK(leveldb_iter_valid(it));
  const char* k = leveldb_iter_key(it, &len);
  CHECK(len == 1 && k[0] == 'a');
  leveldb_iter_next(it);
  const char* v = leveldb_iter_value(it, &len);
  CHECK(len == 2 && memcmp(v, "vb", 2) == 0);
  leveldb_iter_seek_to_last(it);
  k = leveldb_iter_key(it, &len);
  CHECK(len == 1 && k[0] == 'd');
  leveldb_iter_prev(it);
  k = leveldb_iter_key(it, &len);
  CHECK(len == 1 && k[0] == 'b');
  leveldb_iter_seek(it, "c", 1);
  k = leveldb_iter_key(it, &len);
  CHECK(len == 1 && k[0] == 'd');
  leveldb_iter_get_error(it, &err);
  CHECK_NO_ERROR(err);
  leveldb_iter_destroy(it);
  leveldb_readoptions_set_snapshot(ro, NULL);
  leveldb_release_snapshot(db, snap);
  CHECK(strcmp(Get(db, "a"), "NOT_FOUND") == 0);
}

static void TestSizesAndProperties(leveldb_t* db) {
  char key[32], val[64];
  for (int i = 0; i < 5000; ++i) {
    snprintf(key, sizeof(key), "k%06d", i);
    snprintf(val, sizeof(val), "value %d of a few dozen bytes, say fifty", i);
    Put(db, key, val);
  }
  leveldb_compact_range(db, NULL, 0, NULL, 0);
  CHECK(NumberProperty(db, "leveldb.num-files-at-level0") == 0);
  CHECK(TotalFiles(db) >= 1);
  CHECK(NumberProperty(db, "leveldb.num-files-at-level7") == -1);
  leveldb_compact_range(db, "k000100", 7, "k000200", 7);

  const char* start[3] = {"k000000", "k002500", "k004000"};
  const char* limit[3] = {"k002500", "k005000", "k000000"};
  size_t slen[3] = {7, 7, 7}, llen[3] = {7, 7, 7};
  uint64_t sizes[3] = {0, 0, 99};
  leveldb_approximate_sizes(db, 3, start, slen, limit, llen, sizes);
  CHECK(sizes[0] > 10000 && sizes[1] > 10000);
  CHECK(sizes[2] == 0); /* limit before start */

  char* p = leveldb_property_value(db, "leveldb.stats");
  CHECK(p != NULL && strlen(p) > 0);
  leveldb_free(p);
  p = leveldb_property_value(db, "leveldb.sstables");
  CHECK(p != NULL && strstr(p, "--- level") != NULL);
  leveldb_free(p);
  CHECK(NumberProperty(db, "leveldb.approximate-memory-usage") > 0);
  CHECK(leveldb_property_value(db, "leveldb.nosuchprop") == NULL);
  CHECK(leveldb_property_value(db, "nosuchprop") == NULL);
  /* siftdb's own names are served too. */
  p = leveldb_property_value(db, "sift.levels");
  CHECK(p != NULL);
  leveldb_free(p);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <scratch dir>\n", argv[0]);
    return 2;
  }
  char* err = NULL;
  CHECK(leveldb_major_version() == 1 && leveldb_minor_version() == 23);

  /* The test directory: $TEST_TMPDIR, created (its parent is ours). */
  mkdir(argv[1], 0755);
  char tmp[1024];
  snprintf(tmp, sizeof(tmp), "%s/tmpdir", argv[1]);
  setenv("TEST_TMPDIR", tmp, 1);
  leveldb_env_t* env = leveldb_create_default_env();
  char* dir = leveldb_env_get_test_directory(env);
  struct stat st;
  CHECK(dir != NULL && strcmp(dir, tmp) == 0);
  CHECK(stat(tmp, &st) == 0 && S_ISDIR(st.st_mode));
  char dbname[1100];
  snprintf(dbname, sizeof(dbname), "%s/db", dir);
  leveldb_free(dir);

  leveldb_cache_t* cache = leveldb_cache_create_lru(1 << 20);
  leveldb_options_t* options = leveldb_options_create();
  leveldb_options_set_env(options, env);
  leveldb_options_set_cache(options, cache);
  leveldb_options_set_info_log(options, NULL);
  /* Out of LevelDB's ranges: clamped (to 64 KiB, 74, 1 KiB, 1, 1 MiB),
     not refused. */
  leveldb_options_set_write_buffer_size(options, 1);
  leveldb_options_set_max_open_files(options, 1);
  leveldb_options_set_block_size(options, 1);
  leveldb_options_set_block_restart_interval(options, 0);
  leveldb_options_set_max_file_size(options, 1);
  leveldb_options_set_compression(options, 99); /* ignored */
  leveldb_options_set_compression(options, leveldb_no_compression);
  leveldb_options_set_compression(options, leveldb_snappy_compression);
  leveldb_options_set_paranoid_checks(options, 1);
  ro = leveldb_readoptions_create();
  leveldb_readoptions_set_verify_checksums(ro, 1);
  leveldb_readoptions_set_fill_cache(ro, 0);
  wo = leveldb_writeoptions_create();
  leveldb_writeoptions_set_sync(wo, 0);

  leveldb_destroy_db(options, dbname, &err);
  CHECK_NO_ERROR(err);
  /* Missing, then create, then exists with error_if_exists. */
  CHECK(leveldb_open(options, dbname, &err) == NULL);
  CHECK_ERROR(err);
  leveldb_options_set_create_if_missing(options, 1);
  leveldb_t* db = leveldb_open(options, dbname, &err);
  CHECK_NO_ERROR(err);
  if (db == NULL) return 1;
  leveldb_options_set_error_if_exists(options, 1);
  CHECK(leveldb_open(options, dbname, &err) == NULL); /* and it is open */
  CHECK_ERROR(err);
  leveldb_options_set_error_if_exists(options, 0);

  Put(db, "a", "va");
  TestBatchesIteratorsSnapshots(db);
  leveldb_writeoptions_set_sync(wo, 1);
  Put(db, "synced", "yes");
  leveldb_writeoptions_set_sync(wo, 0);
  TestSizesAndProperties(db);
  leveldb_close(db);

  /* Repair a database that opens: nothing lost. */
  leveldb_repair_db(options, dbname, &err);
  CHECK_NO_ERROR(err);
  leveldb_options_set_cache(options, NULL);
  db = leveldb_open(options, dbname, &err);
  CHECK_NO_ERROR(err);
  if (db != NULL) {
    CHECK(strcmp(Get(db, "b"), "vb") == 0);
    CHECK(strcmp(Get(db, "synced"), "yes") == 0);
    CHECK(strcmp(Get(db, "k004999"),
                 "value 4999 of a few dozen bytes, say fifty") == 0);
    leveldb_close(db);
  }

  leveldb_destroy_db(options, dbname, &err);
  CHECK_NO_ERROR(err);
  /* Gone (repair's lost/ directory, not siftdb's to delete, may stay). */
  char current[1200];
  snprintf(current, sizeof(current), "%s/CURRENT", dbname);
  CHECK(stat(current, &st) != 0);
  leveldb_options_set_create_if_missing(options, 0);
  CHECK(leveldb_open(options, dbname, &err) == NULL);
  CHECK_ERROR(err);

  leveldb_options_destroy(options);
  leveldb_readoptions_destroy(ro);
  leveldb_writeoptions_destroy(wo);
  leveldb_cache_destroy(cache);
  leveldb_env_destroy(env);
  if (failures > 0) {
    fprintf(stderr, "leveldb_consumer: %d checks failed\n", failures);
    return 1;
  }
  printf("leveldb_consumer: ok\n");
  return 0;
}
