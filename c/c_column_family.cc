// sift/c.h, part three: column families -- opening a DB with them, listing,
// creating and dropping them, their handles, and the calls of part one and
// the batch entries of part two in one family.

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "c/c_internal.h"

namespace {

using sift::c_api::Bound;
using sift::c_api::CopyOut;
using sift::c_api::SaveError;

using OpenFn = absl::StatusOr<std::unique_ptr<sift::DB>> (*)(
    const sift::DBOptions&, const std::string&,
    const std::vector<sift::ColumnFamilyDescriptor>&,
    std::vector<std::unique_ptr<sift::ColumnFamilyHandle>>*);

// sift_open_column_families and its read-only twin: open writes the
// handles out only when the whole open succeeded.
sift_db_t* OpenWithFamilies(OpenFn open, const sift_options_t* db_options,
                            const char* name, int num_column_families,
                            const char* const* column_family_names,
                            const sift_options_t* const* column_family_options,
                            sift_column_family_handle_t** column_family_handles,
                            char** errptr) {
  std::vector<sift::ColumnFamilyDescriptor> families;
  for (int i = 0; i < num_column_families; ++i) {
    // Options is DBOptions plus ColumnFamilyOptions: the descriptor keeps
    // the family part.
    families.emplace_back(column_family_names[i],
                          column_family_options[i]->rep);
  }
  std::vector<std::unique_ptr<sift::ColumnFamilyHandle>> handles;
  absl::StatusOr<std::unique_ptr<sift::DB>> db =
      open(db_options->rep, name, families, &handles);
  if (!SaveError(db.status(), errptr)) return nullptr;
  for (size_t i = 0; i < handles.size(); ++i) {
    sift::ColumnFamilyHandle* rep = handles[i].get();
    column_family_handles[i] =
        new sift_column_family_handle_t{std::move(handles[i]), rep};
  }
  return new sift_db_t{*std::move(db)};
}

sift_column_family_handle_t* Own(
    std::unique_ptr<sift::ColumnFamilyHandle> handle) {
  sift::ColumnFamilyHandle* rep = handle.get();
  return new sift_column_family_handle_t{std::move(handle), rep};
}

}  // namespace

extern "C" {

sift_db_t* sift_open_column_families(
    const sift_options_t* db_options, const char* name, int num_column_families,
    const char* const* column_family_names,
    const sift_options_t* const* column_family_options,
    sift_column_family_handle_t** column_family_handles, char** errptr) {
  return OpenWithFamilies(&sift::DB::Open, db_options, name,
                          num_column_families, column_family_names,
                          column_family_options, column_family_handles, errptr);
}

sift_db_t* sift_open_for_read_only_column_families(
    const sift_options_t* db_options, const char* name, int num_column_families,
    const char* const* column_family_names,
    const sift_options_t* const* column_family_options,
    sift_column_family_handle_t** column_family_handles, char** errptr) {
  return OpenWithFamilies(&sift::DB::OpenForReadOnly, db_options, name,
                          num_column_families, column_family_names,
                          column_family_options, column_family_handles, errptr);
}

char** sift_list_column_families(const sift_options_t* options,
                                 const char* name, size_t* lencf,
                                 char** errptr) {
  *lencf = 0;
  absl::StatusOr<std::vector<std::string>> names =
      sift::DB::ListColumnFamilies(options->rep, name);
  if (!SaveError(names.status(), errptr)) return nullptr;
  char** list =
      static_cast<char**>(std::malloc(sizeof(char*) * (names->size() + 1)));
  for (size_t i = 0; i < names->size(); ++i) list[i] = CopyOut((*names)[i]);
  list[names->size()] = nullptr;  // also makes an empty list non-NULL
  *lencf = names->size();
  return list;
}

void sift_list_column_families_destroy(char** list, size_t len) {
  if (list == nullptr) return;
  for (size_t i = 0; i < len; ++i) std::free(list[i]);
  std::free(list);
}

sift_column_family_handle_t* sift_create_column_family(
    sift_db_t* db, const sift_options_t* column_family_options,
    const char* column_family_name, char** errptr) {
  absl::StatusOr<std::unique_ptr<sift::ColumnFamilyHandle>> handle =
      db->rep->CreateColumnFamily(column_family_options->rep,
                                  column_family_name);
  if (!SaveError(handle.status(), errptr)) return nullptr;
  return Own(*std::move(handle));
}

void sift_drop_column_family(sift_db_t* db, sift_column_family_handle_t* handle,
                             char** errptr) {
  SaveError(db->rep->DropColumnFamily(handle->rep), errptr);
}

sift_column_family_handle_t* sift_get_default_column_family_handle(
    sift_db_t* db) {
  return new sift_column_family_handle_t{nullptr,
                                         db->rep->DefaultColumnFamily()};
}

void sift_column_family_handle_destroy(sift_column_family_handle_t* handle) {
  delete handle;
}

uint32_t sift_column_family_handle_get_id(
    const sift_column_family_handle_t* handle) {
  return handle->rep->GetID();
}

char* sift_column_family_handle_get_name(
    const sift_column_family_handle_t* handle, size_t* name_len) {
  const std::string& name = handle->rep->GetName();
  *name_len = name.size();
  return CopyOut(name);
}

void sift_put_cf(sift_db_t* db, const sift_writeoptions_t* options,
                 sift_column_family_handle_t* column_family, const char* key,
                 size_t keylen, const char* val, size_t vallen, char** errptr) {
  SaveError(db->rep->Put(options->rep, column_family->rep,
                         std::string_view(key, keylen),
                         std::string_view(val, vallen)),
            errptr);
}

void sift_delete_cf(sift_db_t* db, const sift_writeoptions_t* options,
                    sift_column_family_handle_t* column_family, const char* key,
                    size_t keylen, char** errptr) {
  SaveError(db->rep->Delete(options->rep, column_family->rep,
                            std::string_view(key, keylen)),
            errptr);
}

void sift_delete_range_cf(sift_db_t* db, const sift_writeoptions_t* options,
                          sift_column_family_handle_t* column_family,
                          const char* start_key, size_t start_key_len,
                          const char* end_key, size_t end_key_len,
                          char** errptr) {
  SaveError(db->rep->DeleteRange(options->rep, column_family->rep,
                                 std::string_view(start_key, start_key_len),
                                 std::string_view(end_key, end_key_len)),
            errptr);
}

char* sift_get_cf(sift_db_t* db, const sift_readoptions_t* options,
                  sift_column_family_handle_t* column_family, const char* key,
                  size_t keylen, size_t* vallen, char** errptr) {
  *vallen = 0;
  std::string value;
  const absl::Status s = db->rep->Get(options->rep, column_family->rep,
                                      std::string_view(key, keylen), &value);
  if (absl::IsNotFound(s) || !SaveError(s, errptr)) return nullptr;
  *vallen = value.size();
  return CopyOut(value);
}

sift_iterator_t* sift_create_iterator_cf(
    sift_db_t* db, const sift_readoptions_t* options,
    sift_column_family_handle_t* column_family) {
  return new sift_iterator_t{
      db->rep->NewIterator(options->rep, column_family->rep)};
}

void sift_flush_cf(sift_db_t* db, sift_column_family_handle_t* column_family,
                   char** errptr) {
  SaveError(db->rep->Flush(column_family->rep), errptr);
}

void sift_compact_range_cf(sift_db_t* db,
                           sift_column_family_handle_t* column_family,
                           const char* start_key, size_t start_key_len,
                           const char* limit_key, size_t limit_key_len,
                           char** errptr) {
  SaveError(
      db->rep->CompactRange(column_family->rep, Bound(start_key, start_key_len),
                            Bound(limit_key, limit_key_len)),
      errptr);
}

char* sift_property_value_cf(sift_db_t* db,
                             sift_column_family_handle_t* column_family,
                             const char* propname) {
  std::optional<std::string> v =
      db->rep->GetProperty(column_family->rep, propname);
  return v.has_value() ? CopyOut(*v) : nullptr;
}

void sift_approximate_sizes_cf(
    sift_db_t* db, sift_column_family_handle_t* column_family, int num_ranges,
    const char* const* range_start_key, const size_t* range_start_key_len,
    const char* const* range_limit_key, const size_t* range_limit_key_len,
    uint8_t include_files, uint8_t include_memtables, uint64_t* sizes,
    char** errptr) {
  sift::c_api::StoreSizes(
      db->rep->GetApproximateSizes(
          sift::c_api::SizeOptions(include_files, include_memtables),
          column_family->rep,
          sift::c_api::Ranges(num_ranges, range_start_key, range_start_key_len,
                              range_limit_key, range_limit_key_len)),
      sizes, errptr);
}

void sift_writebatch_put_cf(sift_writebatch_t* batch,
                            sift_column_family_handle_t* column_family,
                            const char* key, size_t klen, const char* val,
                            size_t vlen) {
  batch->rep.Put(column_family->rep, std::string_view(key, klen),
                 std::string_view(val, vlen));
}

void sift_writebatch_delete_cf(sift_writebatch_t* batch,
                               sift_column_family_handle_t* column_family,
                               const char* key, size_t klen) {
  batch->rep.Delete(column_family->rep, std::string_view(key, klen));
}

void sift_writebatch_delete_range_cf(sift_writebatch_t* batch,
                                     sift_column_family_handle_t* column_family,
                                     const char* start_key,
                                     size_t start_key_len, const char* end_key,
                                     size_t end_key_len) {
  batch->rep.DeleteRange(column_family->rep,
                         std::string_view(start_key, start_key_len),
                         std::string_view(end_key, end_key_len));
}

}  // extern "C"
