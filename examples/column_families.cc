// column_families: one database, several keyspaces with their own filter
// settings (as Cassandra sets bloom_filter_fp_chance per table), written
// together through one WAL: a WriteBatch across families is atomic, also
// across a crash. Creates two families, writes a batch across them, reopens
// with every family listed, and drops one. Exits 1, naming the call, if
// anything does not behave as shown.
//
//   column_families [db directory]   (default: a directory under the temp
//                                     dir, removed at the end)

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sift/column_family.h"
#include "sift/db.h"
#include "sift/options.h"
#include "sift/write_batch.h"

namespace {

void Check(const absl::Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "column_families: %s: %s\n", what,
                 s.ToString().c_str());
    std::exit(1);
  }
}

void Expect(bool ok, const char* what) {
  Check(ok ? absl::OkStatus() : absl::InternalError("unexpected result"), what);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path =
      argc > 1 ? argv[1]
               : (std::filesystem::temp_directory_path() / "siftdb-families")
                     .string();
  sift::Options options;
  options.create_if_missing = true;
  absl::StatusOr<std::unique_ptr<sift::DB>> opened =
      sift::DB::Open(options, path);
  Check(opened.status(), "DB::Open");
  std::unique_ptr<sift::DB> db = *std::move(opened);

  // Looked up often, mostly for users that do not exist: tight filters.
  sift::ColumnFamilyOptions users;
  users.bloom_filter_fp_chance = 0.0001;
  // Scanned, rarely probed: no filters at all.
  sift::ColumnFamilyOptions events;
  events.bloom_filter_fp_chance = 1.0;
  auto users_cf = db->CreateColumnFamily(users, "users");
  Check(users_cf.status(), "CreateColumnFamily users");
  auto events_cf = db->CreateColumnFamily(events, "events");
  Check(events_cf.status(), "CreateColumnFamily events");

  sift::WriteBatch batch;  // one WAL record: all of it or none of it
  batch.Put(users_cf->get(), "alice", "{\"plan\":\"pro\"}");
  batch.Put(events_cf->get(), "0001-alice", "signed up");
  batch.Put("schema-version", "3");  // the default family
  Check(db->Write(sift::WriteOptions(), &batch), "Write");

  std::string value;
  Check(db->Get(sift::ReadOptions(), users_cf->get(), "alice", &value),
        "Get users/alice");
  Expect(absl::IsNotFound(db->Get(sift::ReadOptions(), "alice", &value)),
         "alice is only in users");

  // Reopen: every family the database has is listed.
  users_cf->reset();
  events_cf->reset();
  db.reset();
  absl::StatusOr<std::vector<std::string>> names =
      sift::DB::ListColumnFamilies(options, path);
  Check(names.status(), "ListColumnFamilies");
  std::vector<sift::ColumnFamilyDescriptor> families = {
      {sift::kDefaultColumnFamilyName, options},
      {"users", users},
      {"events", events}};
  std::vector<std::unique_ptr<sift::ColumnFamilyHandle>> handles;
  opened = sift::DB::Open(options, path, families, &handles);
  Check(opened.status(), "DB::Open with families");
  db = *std::move(opened);
  Check(db->Get(sift::ReadOptions(), handles[2].get(), "0001-alice", &value),
        "Get events/0001-alice");
  Expect(value == "signed up", "the event survived the reopen");

  Check(db->DropColumnFamily(handles[2].get()), "DropColumnFamily");
  handles.clear();  // handles go before the DB
  db.reset();
  names = sift::DB::ListColumnFamilies(options, path);
  Check(names.status(), "ListColumnFamilies");
  Expect(names->size() == 2, "default and users are left");

  Check(sift::DestroyDB(path, options), "DestroyDB");
  std::printf("column_families: ok\n");
  return 0;
}
