// sift/c.h, part two: the objects a C program builds before it calls the
// database -- options, write batches, environments -- and the SSTable
// writer.

#include <optional>
#include <string>
#include <string_view>

#include "c/c_internal.h"

namespace {

using sift::c_api::SaveError;

// Forwards a batch's entries to the C callbacks of
// sift_writebatch_iterate.
class CallbackHandler final : public sift::WriteBatch::Handler {
 public:
  using PutFn = void (*)(void*, const char*, size_t, const char*, size_t);
  using DeleteFn = void (*)(void*, const char*, size_t);
  CallbackHandler(void* state, PutFn put, DeleteFn deleted)
      : state_(state), put_(put), deleted_(deleted) {}

  void Put(std::string_view key, std::string_view value) override {
    put_(state_, key.data(), key.size(), value.data(), value.size());
  }
  void Delete(std::string_view key) override {
    deleted_(state_, key.data(), key.size());
  }
  // Range deletions are not reported (sift/c.h), nor are other families'
  // entries (Handler's PutCF and DeleteCF pass on family 0's only).
  void DeleteRange(std::string_view, std::string_view) override {}

 private:
  void* const state_;
  const PutFn put_;
  const DeleteFn deleted_;
};

// A ReadOptions bound from (key, keylen); NULL removes it.
void SetBound(std::optional<std::string>* bound, const char* key,
              size_t keylen) {
  if (key == nullptr) {
    bound->reset();
  } else {
    bound->emplace(key, keylen);
  }
}

}  // namespace

extern "C" {

// ---- Write batches

sift_writebatch_t* sift_writebatch_create(void) {
  return new sift_writebatch_t{};
}

void sift_writebatch_destroy(sift_writebatch_t* batch) { delete batch; }

void sift_writebatch_clear(sift_writebatch_t* batch) { batch->rep.Clear(); }

void sift_writebatch_put(sift_writebatch_t* batch, const char* key, size_t klen,
                         const char* val, size_t vlen) {
  batch->rep.Put(std::string_view(key, klen), std::string_view(val, vlen));
}

void sift_writebatch_delete(sift_writebatch_t* batch, const char* key,
                            size_t klen) {
  batch->rep.Delete(std::string_view(key, klen));
}

void sift_writebatch_delete_range(sift_writebatch_t* batch,
                                  const char* start_key, size_t start_key_len,
                                  const char* end_key, size_t end_key_len) {
  batch->rep.DeleteRange(std::string_view(start_key, start_key_len),
                         std::string_view(end_key, end_key_len));
}

int sift_writebatch_count(const sift_writebatch_t* batch) {
  return static_cast<int>(batch->rep.Count());
}

void sift_writebatch_get_error(const sift_writebatch_t* batch, char** errptr) {
  SaveError(batch->rep.status(), errptr);
}

void sift_writebatch_iterate(const sift_writebatch_t* batch, void* state,
                             void (*put)(void* state, const char* k,
                                         size_t klen, const char* v,
                                         size_t vlen),
                             void (*deleted)(void* state, const char* k,
                                             size_t klen)) {
  CallbackHandler handler(state, put, deleted);
  // A batch built through this API is always well formed.
  batch->rep.Iterate(&handler).IgnoreError();
}

void sift_writebatch_append(sift_writebatch_t* destination,
                            const sift_writebatch_t* source) {
  destination->rep.Append(source->rep);
}

// ---- Environments

sift_env_t* sift_create_default_env(void) {
  return new sift_env_t{sift::Env::Default(), nullptr};
}

sift_env_t* sift_create_mem_env(void) {
  std::unique_ptr<sift::Env> env = sift::NewMemEnv();
  sift::Env* rep = env.get();
  return new sift_env_t{rep, std::move(env)};
}

void sift_env_destroy(sift_env_t* env) { delete env; }

// ---- Options

sift_options_t* sift_options_create(void) { return new sift_options_t{}; }

void sift_options_destroy(sift_options_t* options) { delete options; }

void sift_options_set_create_if_missing(sift_options_t* options, uint8_t v) {
  options->rep.create_if_missing = v != 0;
}

void sift_options_set_error_if_exists(sift_options_t* options, uint8_t v) {
  options->rep.error_if_exists = v != 0;
}

void sift_options_set_create_missing_column_families(sift_options_t* options,
                                                     uint8_t v) {
  options->rep.create_missing_column_families = v != 0;
}

void sift_options_set_paranoid_checks(sift_options_t* options, uint8_t v) {
  options->rep.paranoid_checks = v != 0;
}

void sift_options_set_env(sift_options_t* options, sift_env_t* env) {
  options->rep.env = env == nullptr ? nullptr : env->rep;
}

void sift_options_set_wal_recovery_mode(sift_options_t* options, int mode) {
  // Out-of-range values pass through for DB::Open to refuse by name.
  options->rep.wal_recovery_mode = static_cast<sift::WALRecoveryMode>(mode);
}

void sift_options_set_write_buffer_size(sift_options_t* options, size_t v) {
  options->rep.write_buffer_size = v;
}

void sift_options_set_max_file_size(sift_options_t* options, size_t v) {
  options->rep.max_file_size = v;
}

void sift_options_set_max_bytes_for_level_base(sift_options_t* options,
                                               uint64_t v) {
  options->rep.max_bytes_for_level_base = v;
}

void sift_options_set_max_bytes_for_level_multiplier(sift_options_t* options,
                                                     double v) {
  options->rep.max_bytes_for_level_multiplier = v;
}

void sift_options_set_level0_compaction_trigger(sift_options_t* options,
                                                int v) {
  options->rep.level0_compaction_trigger = v;
}

void sift_options_set_level0_slowdown_writes_trigger(sift_options_t* options,
                                                     int v) {
  options->rep.level0_slowdown_writes_trigger = v;
}

void sift_options_set_level0_stop_writes_trigger(sift_options_t* options,
                                                 int v) {
  options->rep.level0_stop_writes_trigger = v;
}

void sift_options_set_max_manifest_file_size(sift_options_t* options,
                                             uint64_t v) {
  options->rep.max_manifest_file_size = v;
}

void sift_options_set_max_open_files(sift_options_t* options, int v) {
  options->rep.max_open_files = v;
}

void sift_options_set_max_background_jobs(sift_options_t* options, int v) {
  options->rep.max_background_jobs = v;
}

void sift_options_set_max_subcompactions(sift_options_t* options, int v) {
  options->rep.max_subcompactions = v;
}

void sift_options_set_block_size(sift_options_t* options, size_t v) {
  options->rep.block_size = v;
}

void sift_options_set_block_restart_interval(sift_options_t* options, int v) {
  options->rep.block_restart_interval = v;
}

void sift_options_set_compression(sift_options_t* options, int v) {
  options->rep.compression = static_cast<sift::Compression>(v);
}

void sift_options_set_bloom_filter_fp_chance(sift_options_t* options,
                                             double p) {
  options->rep.bloom_filter_fp_chance = p;
}

void sift_options_set_filter_layout(sift_options_t* options, int layout) {
  options->rep.filter_layout = static_cast<sift::FilterLayout>(layout);
}

void sift_options_set_bloom_before_level(sift_options_t* options, int v) {
  options->rep.bloom_before_level = v;
}

void sift_options_set_allow_mmap_reads(sift_options_t* options, uint8_t v) {
  options->rep.allow_mmap_reads = v != 0;
}

void sift_options_set_block_cache_capacity(sift_options_t* options, size_t v) {
  options->rep.block_cache_capacity = v;
}

sift_readoptions_t* sift_readoptions_create(void) {
  return new sift_readoptions_t{};
}

void sift_readoptions_destroy(sift_readoptions_t* options) { delete options; }

void sift_readoptions_set_fill_cache(sift_readoptions_t* options, uint8_t v) {
  options->rep.fill_cache = v != 0;
}

void sift_readoptions_set_snapshot(sift_readoptions_t* options,
                                   const sift_snapshot_t* snapshot) {
  options->rep.snapshot = snapshot == nullptr ? nullptr : snapshot->rep;
}

void sift_readoptions_set_iterate_lower_bound(sift_readoptions_t* options,
                                              const char* key, size_t keylen) {
  SetBound(&options->rep.iterate_lower_bound, key, keylen);
}

void sift_readoptions_set_iterate_upper_bound(sift_readoptions_t* options,
                                              const char* key, size_t keylen) {
  SetBound(&options->rep.iterate_upper_bound, key, keylen);
}

sift_writeoptions_t* sift_writeoptions_create(void) {
  return new sift_writeoptions_t{};
}

void sift_writeoptions_destroy(sift_writeoptions_t* options) { delete options; }

void sift_writeoptions_set_sync(sift_writeoptions_t* options, uint8_t v) {
  options->rep.sync = v != 0;
}

// ---- SSTable writer

sift_sstfilewriter_t* sift_sstfilewriter_create(const sift_options_t* options) {
  return new sift_sstfilewriter_t(options->rep);
}

void sift_sstfilewriter_destroy(sift_sstfilewriter_t* writer) { delete writer; }

void sift_sstfilewriter_open(sift_sstfilewriter_t* writer, const char* path,
                             char** errptr) {
  SaveError(writer->rep.Open(path), errptr);
}

void sift_sstfilewriter_put(sift_sstfilewriter_t* writer, const char* key,
                            size_t klen, const char* val, size_t vlen,
                            char** errptr) {
  SaveError(
      writer->rep.Put(std::string_view(key, klen), std::string_view(val, vlen)),
      errptr);
}

void sift_sstfilewriter_delete(sift_sstfilewriter_t* writer, const char* key,
                               size_t klen, char** errptr) {
  SaveError(writer->rep.Delete(std::string_view(key, klen)), errptr);
}

void sift_sstfilewriter_finish(sift_sstfilewriter_t* writer, char** errptr) {
  SaveError(writer->rep.Finish(), errptr);
}

uint64_t sift_sstfilewriter_file_size(const sift_sstfilewriter_t* writer) {
  return writer->rep.FileSize();
}

}  // extern "C"
