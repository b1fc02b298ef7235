/* sift/c.h from C (compiled as C11): every function, on an in-memory Env,
   checked against what the C++ API promises. Exits non-zero naming the
   failed check. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sift/c.h"

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
      sift_free(err);                                                   \
      (err) = NULL;                                                     \
    }                                                                   \
  } while (0)

/* Checks that err is set and starts with prefix, then clears it. */
static void ExpectError(char** err, const char* prefix, int line) {
  if (*err == NULL || strncmp(*err, prefix, strlen(prefix)) != 0) {
    fprintf(stderr, "line %d: want error %s, got %s\n", line, prefix,
            *err == NULL ? "none" : *err);
    ++failures;
  }
  sift_free(*err);
  *err = NULL;
}
#define EXPECT_ERROR(err, prefix) ExpectError(&(err), prefix, __LINE__)

/* What sift_get or sift_get_cf returned: "NOT_FOUND", or the value
   (static buffer). Frees v; an error is a failure. */
static const char* Answer(char* v, size_t len, char* err) {
  static char buf[256];
  CHECK_NO_ERROR(err);
  if (v == NULL) {
    CHECK(len == 0);
    return "NOT_FOUND";
  }
  snprintf(buf, sizeof(buf), "%.*s", (int)len, v);
  sift_free(v);
  return buf;
}

/* The value of key: "NOT_FOUND", or the value (static buffer). */
static const char* Get(sift_db_t* db, const sift_readoptions_t* ro,
                       const char* key) {
  char* err = NULL;
  size_t len = 99;
  char* v = sift_get(db, ro, key, strlen(key), &len, &err);
  return Answer(v, len, err);
}

static void Put(sift_db_t* db, const sift_writeoptions_t* wo, const char* k,
                const char* v) {
  char* err = NULL;
  sift_put(db, wo, k, strlen(k), v, strlen(v), &err);
  CHECK_NO_ERROR(err);
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

static void TestBatches(sift_db_t* db, const sift_writeoptions_t* wo,
                        const sift_readoptions_t* ro) {
  char* err = NULL;
  sift_writebatch_t* wb = sift_writebatch_create();
  sift_writebatch_put(wb, "gone", 4, "x", 1);
  sift_writebatch_clear(wb);
  CHECK(sift_writebatch_count(wb) == 0);
  sift_writebatch_put(wb, "b1", 2, "v1", 2);
  sift_writebatch_put(wb, "b2", 2, "v2", 2);
  sift_writebatch_t* more = sift_writebatch_create();
  sift_writebatch_delete(more, "b1", 2);
  sift_writebatch_append(wb, more);
  CHECK(sift_writebatch_count(more) == 1);
  CHECK(sift_writebatch_count(wb) == 3);
  struct Seen seen = {""};
  sift_writebatch_iterate(wb, &seen, SeenPut, SeenDelete);
  CHECK(strcmp(seen.text, "put(b1,v1) put(b2,v2) del(b1) ") == 0);
  sift_writebatch_get_error(wb, &err);
  CHECK_NO_ERROR(err);
  sift_write(db, wo, wb, &err);
  CHECK_NO_ERROR(err);
  CHECK(strcmp(Get(db, ro, "b1"), "NOT_FOUND") == 0);
  CHECK(strcmp(Get(db, ro, "b2"), "v2") == 0);

  /* A key over 8 MiB is refused; appending that batch passes the refusal
     on, and the write is refused whole. */
  size_t big = ((size_t)8 << 20) + 1;
  char* huge = calloc(big, 1);
  sift_writebatch_clear(more);
  sift_writebatch_put(more, huge, big, "v", 1);
  free(huge);
  sift_writebatch_get_error(more, &err);
  EXPECT_ERROR(err, "INVALID_ARGUMENT");
  sift_writebatch_clear(wb);
  sift_writebatch_put(wb, "b3", 2, "v3", 2);
  sift_writebatch_append(wb, more);
  sift_write(db, wo, wb, &err);
  EXPECT_ERROR(err, "INVALID_ARGUMENT");
  CHECK(strcmp(Get(db, ro, "b3"), "NOT_FOUND") == 0);
  sift_writebatch_destroy(more);
  sift_writebatch_destroy(wb);
}

static void TestIterators(sift_db_t* db, const sift_readoptions_t* ro) {
  char* err = NULL;
  size_t len;
  sift_iterator_t* it = sift_create_iterator(db, ro);
  CHECK(!sift_iter_valid(it));
  int n = 0;
  for (sift_iter_seek_to_first(it); sift_iter_valid(it); sift_iter_next(it)) {
    ++n;
  }
  CHECK(n == 4); /* a, b2, c, d */
  sift_iter_seek_to_last(it);
  CHECK(sift_iter_valid(it));
  const char* k = sift_iter_key(it, &len);
  CHECK(len == 1 && memcmp(k, "d", 1) == 0);
  sift_iter_prev(it);
  const char* v = sift_iter_value(it, &len);
  CHECK(len == 2 && memcmp(v, "vc", 2) == 0);
  sift_iter_seek(it, "b", 1);
  k = sift_iter_key(it, &len);
  CHECK(len == 2 && memcmp(k, "b2", 2) == 0);
  sift_iter_seek(it, "e", 1);
  CHECK(!sift_iter_valid(it));
  sift_iter_get_error(it, &err);
  CHECK_NO_ERROR(err);
  sift_iter_destroy(it);

  /* Bounds [b, d): b2 and c, in either direction; cleared, all four. */
  sift_readoptions_t* bounded = sift_readoptions_create();
  sift_readoptions_set_iterate_lower_bound(bounded, "b", 1);
  sift_readoptions_set_iterate_upper_bound(bounded, "d", 1);
  it = sift_create_iterator(db, bounded);
  n = 0;
  for (sift_iter_seek_to_first(it); sift_iter_valid(it); sift_iter_next(it)) {
    ++n;
  }
  CHECK(n == 2);
  sift_iter_seek_to_last(it);
  k = sift_iter_key(it, &len);
  CHECK(sift_iter_valid(it) && len == 1 && memcmp(k, "c", 1) == 0);
  sift_iter_seek(it, "a", 1);
  k = sift_iter_key(it, &len);
  CHECK(sift_iter_valid(it) && len == 2 && memcmp(k, "b2", 2) == 0);
  sift_iter_destroy(it);
  sift_readoptions_set_iterate_lower_bound(bounded, NULL, 0);
  sift_readoptions_set_iterate_upper_bound(bounded, NULL, 0);
  it = sift_create_iterator(db, bounded);
  n = 0;
  for (sift_iter_seek_to_first(it); sift_iter_valid(it); sift_iter_next(it)) {
    ++n;
  }
  CHECK(n == 4);
  sift_iter_destroy(it);
  sift_readoptions_destroy(bounded);
}

/* Table files at every level, from sift.num-files-at-level<N>. */
static int NumFiles(sift_db_t* db) {
  int n = 0;
  for (int level = 0; level < 7; ++level) {
    char name[64];
    snprintf(name, sizeof(name), "sift.num-files-at-level%d", level);
    char* p = sift_property_value(db, name);
    CHECK(p != NULL);
    if (p != NULL) n += atoi(p);
    sift_free(p);
  }
  return n;
}

static void TestSizesAndProperties(sift_db_t* db,
                                   const sift_writeoptions_t* wo) {
  char* err = NULL;
  char key[32], val[128];
  for (int i = 0; i < 2000; ++i) {
    snprintf(key, sizeof(key), "k%06d", i);
    snprintf(val, sizeof(val), "%0100d", i);
    Put(db, wo, key, val);
  }
  const char* start[2] = {"k000000", "k001000"};
  const char* limit[2] = {"k001000", "k002000"};
  size_t slen[2] = {7, 7}, llen[2] = {7, 7};
  uint64_t sizes[2] = {7, 7};
  sift_approximate_sizes(db, 2, start, slen, limit, llen, 0, 1, sizes, &err);
  CHECK_NO_ERROR(err);
  CHECK(sizes[0] >= 1000 * 107 && sizes[1] >= 1000 * 107);
  sift_flush(db, &err);
  CHECK_NO_ERROR(err);
  sift_approximate_sizes(db, 2, start, slen, limit, llen, 1, 0, sizes, &err);
  CHECK_NO_ERROR(err);
  CHECK(sizes[0] > 5000 && sizes[1] > 5000); /* values compress well */
  sizes[0] = 7;
  sift_approximate_sizes(db, 1, start, slen, limit, llen, 0, 0, sizes, &err);
  EXPECT_ERROR(err, "INVALID_ARGUMENT");
  CHECK(sizes[0] == 7);

  CHECK(NumFiles(db) == 1); /* the flush wrote one table */
  CHECK(sift_property_value(db, "sift.no-such-property") == NULL);
  char* p = sift_property_value(db, "sift.levels");
  CHECK(p != NULL && strstr(p, "0.001") != NULL); /* the fp chance set */
  sift_free(p);

  sift_compact_range(db, NULL, 0, NULL, 0, &err);
  CHECK_NO_ERROR(err);
  sift_wait_for_compaction(db, &err);
  CHECK_NO_ERROR(err);
  p = sift_property_value(db, "sift.num-files-at-level0");
  CHECK(p != NULL && strcmp(p, "0") == 0);
  sift_free(p);
  CHECK(sift_property_value(db, "sift.num-files-at-level7") == NULL);
  sift_compact_range(db, "k000100", 7, "k000200", 7, &err);
  CHECK_NO_ERROR(err);
  sift_resume(db, &err); /* no background error: OK at once */
  CHECK_NO_ERROR(err);
}

static void TestStatistics(sift_db_t* db, const sift_readoptions_t* ro) {
  const int n = sift_statistics_num_tickers();
  int keys_read = -1;
  CHECK(n > 10);
  CHECK(sift_statistics_ticker_name(n) == NULL);
  CHECK(sift_statistics_ticker_name(-1) == NULL);
  for (int t = 0; t < n; ++t) {
    if (strcmp(sift_statistics_ticker_name(t), "sift.number.keys.read") == 0) {
      keys_read = t;
    }
  }
  CHECK(keys_read >= 0);
  sift_statistics_t* before = sift_get_statistics(db);
  for (int i = 0; i < 5; ++i) Get(db, ro, "absent");
  sift_statistics_t* after = sift_get_statistics(db);
  CHECK(sift_statistics_get(after, keys_read) ==
        sift_statistics_get(before, keys_read) + 5);
  CHECK(sift_statistics_get(after, n) == 0);
  CHECK(sift_statistics_num_levels() > 1);
  CHECK(sift_statistics_get_at_level(after, sift_statistics_num_levels(), 0) ==
        0);
  uint64_t at_levels = 0;
  const int checked = 0; /* sift.bloom.filter.checked */
  for (int l = 0; l < sift_statistics_num_levels(); ++l) {
    at_levels += sift_statistics_get_at_level(after, l, checked);
  }
  CHECK(at_levels == sift_statistics_get(after, checked));
  double fp = sift_statistics_observed_fp_rate(after);
  CHECK(fp >= 0.0 && fp <= 1.0);
  char* text = sift_statistics_to_string(after);
  CHECK(strstr(text, "sift.number.keys.read COUNT : ") != NULL);
  sift_free(text);
  sift_statistics_destroy(before);
  sift_statistics_destroy(after);
}

static void TestSstFileWriter(sift_options_t* options) {
  char* err = NULL;
  sift_sstfilewriter_t* w = sift_sstfilewriter_create(options);
  sift_sstfilewriter_put(w, "a", 1, "1", 1, &err);
  EXPECT_ERROR(err, "FAILED_PRECONDITION"); /* not open yet */
  sift_sstfilewriter_open(w, "/bulk.sst", &err);
  CHECK_NO_ERROR(err);
  sift_sstfilewriter_put(w, "a", 1, "1", 1, &err);
  CHECK_NO_ERROR(err);
  sift_sstfilewriter_delete(w, "b", 1, &err);
  CHECK_NO_ERROR(err);
  sift_sstfilewriter_put(w, "a", 1, "1", 1, &err); /* not increasing */
  EXPECT_ERROR(err, "INVALID_ARGUMENT");
  sift_sstfilewriter_finish(w, &err);
  CHECK_NO_ERROR(err);
  CHECK(sift_sstfilewriter_file_size(w) > 0);
  sift_sstfilewriter_destroy(w);
}

/* Keys in reverse bytewise order, named "reverse". */
static int CompareReverse(void* state, const char* a, size_t alen,
                          const char* b, size_t blen) {
  ++*(int*)state;
  size_t n = alen < blen ? alen : blen;
  int r = memcmp(a, b, n);
  if (r == 0) r = alen < blen ? -1 : (alen > blen ? 1 : 0);
  return -r;
}
static const char* NameReverse(void* state) {
  (void)state;
  return "reverse";
}
static const char* NameOther(void* state) {
  (void)state;
  return "other";
}
static void CountDestroyed(void* state) { *(int*)state = -1; }

/* A user comparator orders memtable and tables alike, survives reopen,
   and a database refuses a comparator of another name. */
static void TestComparator(sift_env_t* env, const sift_readoptions_t* ro,
                           const sift_writeoptions_t* wo) {
  char* err = NULL;
  int calls = 0;
  sift_comparator_t* cmp = sift_comparator_create(&calls, CountDestroyed,
                                                  CompareReverse, NameReverse);
  sift_options_t* options = sift_options_create();
  sift_options_set_env(options, env);
  sift_options_set_create_if_missing(options, 1);
  sift_options_set_comparator(options, cmp);
  sift_db_t* db = sift_open(options, "/reverse", &err);
  CHECK_NO_ERROR(err);
  if (db == NULL) return;
  Put(db, wo, "a", "1");
  Put(db, wo, "c", "3");
  sift_flush(db, &err);
  CHECK_NO_ERROR(err);
  Put(db, wo, "b", "2");
  sift_close(db);
  db = sift_open(options, "/reverse", &err);
  CHECK_NO_ERROR(err);
  if (db == NULL) return;
  char order[8] = "";
  sift_iterator_t* it = sift_create_iterator(db, ro);
  for (sift_iter_seek_to_first(it); sift_iter_valid(it); sift_iter_next(it)) {
    size_t len;
    const char* k = sift_iter_key(it, &len);
    strncat(order, k, len);
  }
  CHECK(strcmp(order, "cba") == 0);
  sift_iter_destroy(it);
  sift_close(db);
  CHECK(calls > 0);

  /* Another name: refused, naming both. */
  int other_calls = 0;
  sift_comparator_t* other =
      sift_comparator_create(&other_calls, NULL, CompareReverse, NameOther);
  sift_options_set_comparator(options, other);
  CHECK(sift_open(options, "/reverse", &err) == NULL);
  CHECK(err != NULL && strstr(err, "reverse") != NULL &&
        strstr(err, "other") != NULL);
  sift_free(err);
  err = NULL;
  sift_comparator_destroy(other);
  sift_options_set_comparator(options, NULL); /* bytewise: refused too */
  CHECK(sift_open(options, "/reverse", &err) == NULL);
  EXPECT_ERROR(err, "INVALID_ARGUMENT");
  sift_options_destroy(options);
  sift_comparator_destroy(cmp);
  CHECK(calls == -1); /* the destructor ran with its state */
}

/* The value of key in a family: "NOT_FOUND", or the value (static
   buffer). */
static const char* GetCf(sift_db_t* db, const sift_readoptions_t* ro,
                         sift_column_family_handle_t* cf, const char* key) {
  char* err = NULL;
  size_t len = 99;
  char* v = sift_get_cf(db, ro, cf, key, strlen(key), &len, &err);
  return Answer(v, len, err);
}

static void PutCf(sift_db_t* db, const sift_writeoptions_t* wo,
                  sift_column_family_handle_t* cf, const char* k,
                  const char* v) {
  char* err = NULL;
  sift_put_cf(db, wo, cf, k, strlen(k), v, strlen(v), &err);
  CHECK_NO_ERROR(err);
}

/* "key=value " for every entry of the family, in order. */
static void ScanCf(sift_db_t* db, const sift_readoptions_t* ro,
                   sift_column_family_handle_t* cf, char* out, size_t n) {
  char* err = NULL;
  out[0] = '\0';
  sift_iterator_t* it = sift_create_iterator_cf(db, ro, cf);
  for (sift_iter_seek_to_first(it); sift_iter_valid(it); sift_iter_next(it)) {
    size_t klen, vlen;
    const char* k = sift_iter_key(it, &klen);
    const char* v = sift_iter_value(it, &vlen);
    size_t used = strlen(out);
    snprintf(out + used, n - used, "%.*s=%.*s ", (int)klen, k, (int)vlen, v);
  }
  sift_iter_get_error(it, &err);
  CHECK_NO_ERROR(err);
  sift_iter_destroy(it);
}

/* The family's table files at level, from sift.num-files-at-level<N>; -1
   if the property is missing. */
static int FilesAt(sift_db_t* db, sift_column_family_handle_t* cf, int level) {
  char name[64];
  snprintf(name, sizeof(name), "sift.num-files-at-level%d", level);
  char* p = sift_property_value_cf(db, cf, name);
  int n = p == NULL ? -1 : atoi(p);
  sift_free(p);
  return n;
}

/* The family's table files at every level. */
static int NumFilesCf(sift_db_t* db, sift_column_family_handle_t* cf) {
  int n = 0;
  for (int level = 0; level < 7; ++level) {
    const int at = FilesAt(db, cf, level);
    CHECK(at >= 0);
    n += at;
  }
  return n;
}

/* Whether the database at name lists exactly the families want[0..n). */
static int ListsFamilies(const sift_options_t* options, const char* name,
                         const char* const* want, size_t n) {
  char* err = NULL;
  size_t len = 99;
  char** list = sift_list_column_families(options, name, &len, &err);
  CHECK_NO_ERROR(err);
  int same = list != NULL && len == n;
  for (size_t i = 0; same && i < n; ++i) same = strcmp(list[i], want[i]) == 0;
  sift_list_column_families_destroy(list, len);
  return same;
}

/* Column families: each keyspace holds its own value of a key, batches
   span them, create and drop, and reopening needs every family. */
static void TestColumnFamilies(sift_env_t* env, const sift_readoptions_t* ro,
                               const sift_writeoptions_t* wo) {
  char* err = NULL;
  sift_options_t* db_options = sift_options_create();
  sift_options_set_env(db_options, env);
  sift_options_set_create_if_missing(db_options, 1);
  sift_options_t* users_options = sift_options_create();
  sift_options_set_bloom_filter_fp_chance(users_options, 0.001);
  const char* names[2] = {"default", "users"};
  const sift_options_t* cf_options[2] = {db_options, users_options};
  sift_column_family_handle_t* cfs[2] = {NULL, NULL};

  /* A database with "default" only: "users" is missing, and
     create_missing_column_families is off. */
  sift_db_t* db = sift_open(db_options, "/cf", &err);
  CHECK_NO_ERROR(err);
  sift_close(db);
  CHECK(sift_open_column_families(db_options, "/cf", 2, names, cf_options, cfs,
                                  &err) == NULL);
  CHECK(err != NULL && strstr(err, "users") != NULL);
  EXPECT_ERROR(err, "INVALID_ARGUMENT");
  CHECK(cfs[0] == NULL && cfs[1] == NULL);

  sift_options_set_create_missing_column_families(db_options, 1);
  db = sift_open_column_families(db_options, "/cf", 2, names, cf_options, cfs,
                                 &err);
  CHECK_NO_ERROR(err);
  if (db == NULL) return;
  CHECK(cfs[0] != NULL && cfs[1] != NULL);
  CHECK(sift_column_family_handle_get_id(cfs[0]) == 0);
  CHECK(sift_column_family_handle_get_id(cfs[1]) != 0);
  size_t len = 0;
  char* name = sift_column_family_handle_get_name(cfs[1], &len);
  CHECK(len == 5 && strcmp(name, "users") == 0);
  sift_free(name);

  /* One key, a value per family; the calls without _cf mean "default". */
  PutCf(db, wo, cfs[0], "k", "in-default");
  PutCf(db, wo, cfs[1], "k", "in-users");
  CHECK(strcmp(GetCf(db, ro, cfs[0], "k"), "in-default") == 0);
  CHECK(strcmp(GetCf(db, ro, cfs[1], "k"), "in-users") == 0);
  CHECK(strcmp(Get(db, ro, "k"), "in-default") == 0);
  CHECK(strcmp(GetCf(db, ro, cfs[1], "absent"), "NOT_FOUND") == 0);
  PutCf(db, wo, cfs[0], "gone", "x");
  PutCf(db, wo, cfs[1], "gone", "x");
  sift_delete_cf(db, wo, cfs[1], "gone", 4, &err);
  CHECK_NO_ERROR(err);
  CHECK(strcmp(GetCf(db, ro, cfs[1], "gone"), "NOT_FOUND") == 0);
  CHECK(strcmp(GetCf(db, ro, cfs[0], "gone"), "x") == 0);

  /* Range deletions, in one family and in "default". */
  PutCf(db, wo, cfs[0], "r1", "1");
  PutCf(db, wo, cfs[1], "r1", "1");
  PutCf(db, wo, cfs[1], "r2", "2");
  sift_delete_range_cf(db, wo, cfs[1], "r1", 2, "r3", 2, &err);
  CHECK_NO_ERROR(err);
  CHECK(strcmp(GetCf(db, ro, cfs[1], "r1"), "NOT_FOUND") == 0);
  CHECK(strcmp(GetCf(db, ro, cfs[1], "r2"), "NOT_FOUND") == 0);
  CHECK(strcmp(GetCf(db, ro, cfs[0], "r1"), "1") == 0);
  sift_delete_range(db, wo, "r0", 2, "r9", 2, &err);
  CHECK_NO_ERROR(err);
  CHECK(strcmp(Get(db, ro, "r1"), "NOT_FOUND") == 0);
  sift_delete_range_cf(db, wo, cfs[1], "r3", 2, "r1", 2, &err);
  EXPECT_ERROR(err, "INVALID_ARGUMENT");
  sift_delete_range(db, wo, "r3", 2, "r3", 2, &err);
  EXPECT_ERROR(err, "INVALID_ARGUMENT");

  /* A batch across both families; iterate reports default's puts and
     deletes only. */
  sift_writebatch_t* wb = sift_writebatch_create();
  sift_writebatch_put_cf(wb, cfs[0], "b", 1, "bd", 2);
  sift_writebatch_put_cf(wb, cfs[1], "b", 1, "bu", 2);
  sift_writebatch_put_cf(wb, cfs[1], "u", 1, "uu", 2);
  sift_writebatch_delete_cf(wb, cfs[0], "gone", 4);
  sift_writebatch_delete_range_cf(wb, cfs[1], "k", 1, "l", 1);
  CHECK(sift_writebatch_count(wb) == 5);
  struct Seen seen = {""};
  sift_writebatch_iterate(wb, &seen, SeenPut, SeenDelete);
  CHECK(strcmp(seen.text, "put(b,bd) del(gone) ") == 0);
  sift_write(db, wo, wb, &err);
  CHECK_NO_ERROR(err);
  CHECK(strcmp(GetCf(db, ro, cfs[0], "b"), "bd") == 0);
  CHECK(strcmp(GetCf(db, ro, cfs[1], "b"), "bu") == 0);
  CHECK(strcmp(GetCf(db, ro, cfs[1], "u"), "uu") == 0);
  CHECK(strcmp(GetCf(db, ro, cfs[0], "gone"), "NOT_FOUND") == 0);
  CHECK(strcmp(GetCf(db, ro, cfs[1], "k"), "NOT_FOUND") == 0);
  CHECK(strcmp(GetCf(db, ro, cfs[0], "k"), "in-default") == 0);
  /* A range deletion in a batch without a family: "default" only. */
  sift_writebatch_clear(wb);
  sift_writebatch_delete_range(wb, "a", 1, "c", 1);
  CHECK(sift_writebatch_count(wb) == 1);
  sift_write(db, wo, wb, &err);
  CHECK_NO_ERROR(err);
  CHECK(strcmp(GetCf(db, ro, cfs[0], "b"), "NOT_FOUND") == 0);
  CHECK(strcmp(GetCf(db, ro, cfs[1], "b"), "bu") == 0);
  sift_writebatch_clear(wb);
  sift_writebatch_delete_range(wb, "c", 1, "a", 1);
  sift_writebatch_get_error(wb, &err);
  EXPECT_ERROR(err, "INVALID_ARGUMENT");

  /* An iterator sees its family's keys only. */
  char scan[256];
  ScanCf(db, ro, cfs[1], scan, sizeof(scan));
  CHECK(strcmp(scan, "b=bu u=uu ") == 0);
  ScanCf(db, ro, cfs[0], scan, sizeof(scan));
  CHECK(strcmp(scan, "k=in-default ") == 0);

  /* A flush writes a table for each family holding data (the first lands
     at level 2, overlapping nothing), each with its own fp chance. */
  CHECK(FilesAt(db, cfs[1], 2) == 0);
  sift_flush_cf(db, cfs[1], &err);
  CHECK_NO_ERROR(err);
  CHECK(NumFilesCf(db, cfs[1]) == 1 && NumFilesCf(db, cfs[0]) == 1);
  char* p = sift_property_value_cf(db, cfs[1], "sift.levels");
  CHECK(p != NULL && strstr(p, "0.001") != NULL);
  sift_free(p);
  p = sift_property_value_cf(db, cfs[0], "sift.levels");
  CHECK(p != NULL && strstr(p, "0.001") == NULL);
  sift_free(p);
  CHECK(sift_property_value_cf(db, cfs[1], "sift.no-such-property") == NULL);
  const char* start[2] = {"a", "v"};
  const char* limit[2] = {"z", "z"};
  size_t slen[2] = {1, 1}, llen[2] = {1, 1};
  uint64_t sizes[2] = {7, 7};
  sift_approximate_sizes_cf(db, cfs[1], 2, start, slen, limit, llen, 1, 0,
                            sizes, &err);
  CHECK_NO_ERROR(err);
  CHECK(sizes[0] > 0 && sizes[0] != 7 && sizes[1] == 0);
  sizes[0] = 7;
  sift_approximate_sizes_cf(db, cfs[1], 1, start, slen, limit, llen, 0, 0,
                            sizes, &err);
  EXPECT_ERROR(err, "INVALID_ARGUMENT");
  CHECK(sizes[0] == 7);
  /* Two more flushes of a "users" key inside the first table's range:
     the second lands at level 1, the third (overlapping that) at 0. */
  PutCf(db, wo, cfs[1], "c", "old");
  sift_flush_cf(db, cfs[1], &err);
  CHECK_NO_ERROR(err);
  PutCf(db, wo, cfs[1], "c", "cu");
  sift_flush_cf(db, cfs[1], &err);
  CHECK_NO_ERROR(err);
  p = sift_property_value_cf(db, cfs[1], "sift.num-files-at-level0");
  CHECK(p != NULL && strcmp(p, "1") == 0);
  sift_free(p);
  CHECK(NumFilesCf(db, cfs[1]) == 3 && NumFilesCf(db, cfs[0]) == 1);
  /* Compacting "users" merges its three tables, and leaves "default"'s. */
  sift_compact_range_cf(db, cfs[1], NULL, 0, NULL, 0, &err);
  CHECK_NO_ERROR(err);
  CHECK(FilesAt(db, cfs[1], 0) == 0 && NumFilesCf(db, cfs[1]) == 1);
  CHECK(FilesAt(db, cfs[0], 2) == 1);
  ScanCf(db, ro, cfs[1], scan, sizeof(scan));
  CHECK(strcmp(scan, "b=bu c=cu u=uu ") == 0);
  CHECK(ListsFamilies(db_options, "/cf", names, 2));

  /* The default family's handle: destroying it leaves the DB's own. */
  sift_column_family_handle_t* dflt = sift_get_default_column_family_handle(db);
  CHECK(sift_column_family_handle_get_id(dflt) == 0);
  name = sift_column_family_handle_get_name(dflt, &len);
  CHECK(len == 7 && strcmp(name, "default") == 0);
  sift_free(name);
  CHECK(strcmp(GetCf(db, ro, dflt, "k"), "in-default") == 0);
  sift_drop_column_family(db, dflt, &err);
  EXPECT_ERROR(err, "INVALID_ARGUMENT");
  sift_column_family_handle_destroy(dflt);
  PutCf(db, wo, cfs[0], "after", "1");
  CHECK(strcmp(Get(db, ro, "after"), "1") == 0);

  /* Create a third family, then drop it: its handle then refuses. */
  sift_column_family_handle_t* temp =
      sift_create_column_family(db, users_options, "temp", &err);
  CHECK_NO_ERROR(err);
  CHECK(temp != NULL);
  if (temp == NULL) return;
  CHECK(sift_column_family_handle_get_id(temp) >
        sift_column_family_handle_get_id(cfs[1]));
  CHECK(sift_create_column_family(db, users_options, "temp", &err) == NULL);
  EXPECT_ERROR(err, "INVALID_ARGUMENT");
  PutCf(db, wo, temp, "t", "v");
  CHECK(strcmp(GetCf(db, ro, temp, "t"), "v") == 0);
  const char* three[3] = {"default", "users", "temp"};
  CHECK(ListsFamilies(db_options, "/cf", three, 3));
  sift_writebatch_clear(wb);
  sift_writebatch_put_cf(wb, cfs[0], "w", 1, "1", 1);
  sift_writebatch_put_cf(wb, temp, "w", 1, "1", 1);
  sift_drop_column_family(db, temp, &err);
  CHECK_NO_ERROR(err);
  sift_put_cf(db, wo, temp, "t", 1, "v", 1, &err);
  EXPECT_ERROR(err, "INVALID_ARGUMENT");
  len = 99;
  CHECK(sift_get_cf(db, ro, temp, "t", 1, &len, &err) == NULL && len == 0);
  EXPECT_ERROR(err, "INVALID_ARGUMENT");
  sift_iterator_t* it = sift_create_iterator_cf(db, ro, temp);
  sift_iter_seek_to_first(it);
  CHECK(!sift_iter_valid(it));
  sift_iter_get_error(it, &err);
  EXPECT_ERROR(err, "INVALID_ARGUMENT");
  sift_iter_destroy(it);
  CHECK(sift_property_value_cf(db, temp, "sift.num-files-at-level0") == NULL);
  sift_flush_cf(db, temp, &err);
  EXPECT_ERROR(err, "INVALID_ARGUMENT");
  sift_write(db, wo, wb, &err); /* names the dropped family: refused whole */
  EXPECT_ERROR(err, "INVALID_ARGUMENT");
  CHECK(strcmp(Get(db, ro, "w"), "NOT_FOUND") == 0);
  name = sift_column_family_handle_get_name(temp, &len);
  CHECK(len == 4 && strcmp(name, "temp") == 0);
  sift_free(name);
  sift_column_family_handle_destroy(temp);
  sift_writebatch_destroy(wb);
  CHECK(ListsFamilies(db_options, "/cf", names, 2));
  sift_column_family_handle_destroy(cfs[0]);
  sift_column_family_handle_destroy(cfs[1]);
  sift_close(db);

  /* Reopened with every family: the data is there. */
  sift_options_set_create_missing_column_families(db_options, 0);
  cfs[0] = cfs[1] = NULL;
  db = sift_open_column_families(db_options, "/cf", 2, names, cf_options, cfs,
                                 &err);
  CHECK_NO_ERROR(err);
  if (db == NULL) return;
  CHECK(strcmp(GetCf(db, ro, cfs[0], "k"), "in-default") == 0);
  CHECK(strcmp(GetCf(db, ro, cfs[1], "u"), "uu") == 0);
  CHECK(strcmp(GetCf(db, ro, cfs[1], "k"), "NOT_FOUND") == 0);
  sift_column_family_handle_destroy(cfs[0]);
  sift_column_family_handle_destroy(cfs[1]);
  sift_close(db);

  /* Read-only: reads every listed family, writes nothing; it may leave a
     family out. */
  db = sift_open_for_read_only_column_families(db_options, "/cf", 2, names,
                                               cf_options, cfs, &err);
  CHECK_NO_ERROR(err);
  if (db != NULL) {
    CHECK(strcmp(GetCf(db, ro, cfs[1], "b"), "bu") == 0);
    CHECK(strcmp(GetCf(db, ro, cfs[0], "k"), "in-default") == 0);
    sift_put_cf(db, wo, cfs[1], "k", 1, "v", 1, &err);
    EXPECT_ERROR(err, "FAILED_PRECONDITION");
    sift_column_family_handle_destroy(cfs[0]);
    sift_column_family_handle_destroy(cfs[1]);
    sift_close(db);
  }
  cfs[0] = NULL;
  db = sift_open_for_read_only_column_families(db_options, "/cf", 1, names,
                                               cf_options, cfs, &err);
  CHECK_NO_ERROR(err);
  if (db != NULL) {
    CHECK(strcmp(GetCf(db, ro, cfs[0], "after"), "1") == 0);
    sift_column_family_handle_destroy(cfs[0]);
    sift_close(db);
  }

  /* Listing "default" only leaves "users" unopened: refused. */
  cfs[0] = NULL;
  CHECK(sift_open_column_families(db_options, "/cf", 1, names, cf_options, cfs,
                                  &err) == NULL);
  CHECK(err != NULL && strstr(err, "users") != NULL);
  EXPECT_ERROR(err, "INVALID_ARGUMENT");
  CHECK(cfs[0] == NULL);
  /* The refused open deleted nothing: "users" still reads back. */
  db = sift_open_for_read_only_column_families(db_options, "/cf", 2, names,
                                               cf_options, cfs, &err);
  CHECK_NO_ERROR(err);
  if (db != NULL) {
    CHECK(strcmp(GetCf(db, ro, cfs[1], "u"), "uu") == 0);
    sift_column_family_handle_destroy(cfs[0]);
    sift_column_family_handle_destroy(cfs[1]);
    sift_close(db);
  }

  /* No database there: an error, and no list. */
  len = 99;
  CHECK(sift_list_column_families(db_options, "/no-such-db", &len, &err) ==
        NULL);
  CHECK(err != NULL && len == 0);
  sift_free(err);
  err = NULL;
  sift_list_column_families_destroy(NULL, 0);
  sift_column_family_handle_destroy(NULL);

  sift_destroy_db(db_options, "/cf", &err);
  CHECK_NO_ERROR(err);
  sift_options_destroy(users_options);
  sift_options_destroy(db_options);
}

int main(void) {
  char* err = NULL;
  sift_env_t* env = sift_create_mem_env();
  sift_options_t* options = sift_options_create();
  sift_options_set_env(options, env);
  sift_readoptions_t* ro = sift_readoptions_create();
  sift_writeoptions_t* wo = sift_writeoptions_create();

  /* Missing database; then a second failure replaces the first message. */
  CHECK(sift_open(options, "/db", &err) == NULL);
  CHECK(err != NULL);
  CHECK(sift_open(options, "/db", &err) == NULL);
  EXPECT_ERROR(err, "FAILED_PRECONDITION");

  sift_options_set_create_if_missing(options, 1);
  sift_options_set_bloom_filter_fp_chance(options, 0.0);
  CHECK(sift_open(options, "/db", &err) == NULL);
  CHECK(err != NULL && strstr(err, "bloom_filter_fp_chance") != NULL);
  sift_free(err);
  err = NULL;

  sift_options_set_bloom_filter_fp_chance(options, 0.001);
  sift_options_set_filter_layout(options, sift_filter_layout_standard);
  sift_options_set_bloom_before_level(options, 1);
  sift_options_set_error_if_exists(options, 0);
  sift_options_set_paranoid_checks(options, 1);
  sift_options_set_wal_recovery_mode(options, sift_wal_absolute_consistency);
  sift_options_set_write_buffer_size(options, 1 << 20);
  sift_options_set_max_file_size(options, 1 << 20);
  sift_options_set_max_bytes_for_level_base(options, 10 << 20);
  sift_options_set_max_bytes_for_level_multiplier(options, 8.0);
  sift_options_set_level0_compaction_trigger(options, 4);
  sift_options_set_level0_slowdown_writes_trigger(options, 8);
  sift_options_set_level0_stop_writes_trigger(options, 12);
  sift_options_set_max_manifest_file_size(options, 1 << 20);
  sift_options_set_max_open_files(options, 100);
  sift_options_set_block_size(options, 1024);
  sift_options_set_block_restart_interval(options, 8);
  sift_options_set_compression(options, sift_snappy_compression);
  sift_options_set_allow_mmap_reads(options, 0);
  sift_options_set_block_cache_capacity(options, 1 << 20);
  sift_readoptions_set_fill_cache(ro, 1);
  sift_writeoptions_set_sync(wo, 1);

  sift_db_t* db = sift_open(options, "/db", &err);
  CHECK_NO_ERROR(err);
  if (db == NULL) return 1;
  CHECK(strcmp(Get(db, ro, "a"), "NOT_FOUND") == 0);
  Put(db, wo, "a", "va");
  Put(db, wo, "c", "vc");
  Put(db, wo, "d", "vd");
  Put(db, wo, "x", "vx");
  sift_delete(db, wo, "x", 1, &err);
  CHECK_NO_ERROR(err);
  CHECK(strcmp(Get(db, ro, "a"), "va") == 0);
  CHECK(strcmp(Get(db, ro, "x"), "NOT_FOUND") == 0);
  TestBatches(db, wo, ro);
  TestIterators(db, ro);

  /* A snapshot keeps the state it was taken in. */
  const sift_snapshot_t* snap = sift_create_snapshot(db);
  Put(db, wo, "a", "va2");
  sift_readoptions_set_snapshot(ro, snap);
  CHECK(strcmp(Get(db, ro, "a"), "va") == 0);
  sift_readoptions_set_snapshot(ro, NULL);
  CHECK(strcmp(Get(db, ro, "a"), "va2") == 0);
  sift_release_snapshot(db, snap);

  sift_writeoptions_set_sync(wo, 0);
  TestSizesAndProperties(db, wo);
  TestStatistics(db, ro);

  /* Read-only beside the writer: reads work, writes are refused. */
  sift_db_t* ro_db = sift_open_for_read_only(options, "/db", &err);
  CHECK_NO_ERROR(err);
  if (ro_db != NULL) {
    CHECK(strcmp(Get(ro_db, ro, "c"), "vc") == 0);
    sift_put(ro_db, wo, "k", 1, "v", 1, &err);
    EXPECT_ERROR(err, "FAILED_PRECONDITION");
    sift_close(ro_db);
  }
  sift_close(db);

  char* report = NULL;
  sift_repair_db(options, "/db", &report, &err);
  CHECK_NO_ERROR(err);
  CHECK(report != NULL);
  sift_free(report);
  db = sift_open(options, "/db", &err);
  CHECK_NO_ERROR(err);
  if (db != NULL) {
    CHECK(strcmp(Get(db, ro, "d"), "vd") == 0);
    sift_close(db);
  }

  sift_destroy_db(options, "/db", &err);
  CHECK_NO_ERROR(err);
  sift_options_set_create_if_missing(options, 0);
  CHECK(sift_open(options, "/db", &err) == NULL);
  EXPECT_ERROR(err, "FAILED_PRECONDITION");

  TestSstFileWriter(options);
  TestComparator(env, ro, wo);
  TestColumnFamilies(env, ro, wo);

  sift_options_destroy(options);
  sift_readoptions_destroy(ro);
  sift_writeoptions_destroy(wo);
  sift_env_destroy(env);
  sift_env_destroy(sift_create_default_env());
  sift_close(NULL);
  if (failures > 0) {
    fprintf(stderr, "c_api_test: %d checks failed\n", failures);
    return 1;
  }
  printf("c_api_test: ok\n");
  return 0;
}
