// hello_world: the everyday calls of the siftdb API in one program: open,
// Put, Get, Delete, an atomic WriteBatch, an iterator, a snapshot and a
// property. Exits 1, naming the call, if anything does not behave as shown.
//
//   hello_world [db directory]   (default: a directory under the temp dir,
//                                 removed at the end)

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sift/db.h"
#include "sift/iterator.h"
#include "sift/options.h"
#include "sift/write_batch.h"

namespace {

// Ends the program when a call fails. A library would return the status to
// its caller instead.
void Check(const absl::Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "hello_world: %s: %s\n", what, s.ToString().c_str());
    std::exit(1);
  }
}

void Expect(bool ok, const char* what) {
  Check(ok ? absl::OkStatus() : absl::InternalError("unexpected result"), what);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path =
      argc > 1
          ? argv[1]
          : (std::filesystem::temp_directory_path() / "siftdb-hello").string();

  sift::Options options;
  options.create_if_missing = true;
  options.bloom_filter_fp_chance = 0.01;  // 1.0 = no filters
  absl::StatusOr<std::unique_ptr<sift::DB>> opened =
      sift::DB::Open(options, path);
  Check(opened.status(), "DB::Open");
  std::unique_ptr<sift::DB> db = *std::move(opened);

  Check(db->Put(sift::WriteOptions(), "apple", "red"), "Put");
  std::string value;
  Check(db->Get(sift::ReadOptions(), "apple", &value), "Get");
  Expect(value == "red", "Get returns what Put wrote");

  // An absent key is NotFound: usually decided by the filters alone.
  absl::Status missing = db->Get(sift::ReadOptions(), "durian", &value);
  Expect(absl::IsNotFound(missing), "Get of an absent key is NotFound");

  // Reads through a snapshot see the database as it is now, whatever is
  // written afterwards.
  const sift::Snapshot* snapshot = db->GetSnapshot();

  sift::WriteBatch batch;  // all or nothing, even across a crash
  batch.Put("banana", "yellow");
  batch.Put("cherry", "dark red");
  batch.Delete("apple");
  sift::WriteOptions synced;
  synced.sync = true;  // fdatasync the log before Write returns
  Check(db->Write(synced, &batch), "Write");
  Check(db->Delete(sift::WriteOptions(), "cherry"), "Delete");

  std::unique_ptr<sift::Iterator> it = db->NewIterator(sift::ReadOptions());
  int live = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::printf("%.*s = %.*s\n", static_cast<int>(it->key().size()),
                it->key().data(), static_cast<int>(it->value().size()),
                it->value().data());
    ++live;
  }
  Check(it->status(), "Iterator");
  Expect(live == 1, "only banana is left");
  it.reset();  // iterators go before the DB

  sift::ReadOptions then;
  then.snapshot = snapshot;
  Check(db->Get(then, "apple", &value), "Get at the snapshot");
  Expect(value == "red", "the snapshot still sees apple");
  db->ReleaseSnapshot(snapshot);

  // The memtable becomes an SSTable (flushed to the first level whose
  // files it does not overlap); sift.levels shows files and bytes per level.
  Check(db->Flush(), "Flush");
  std::optional<std::string> levels = db->GetProperty("sift.levels");
  Expect(levels.has_value(), "the sift.levels property");
  std::printf("%s\n", levels->c_str());

  db.reset();  // closes the database
  Check(sift::DestroyDB(path, options), "DestroyDB");
  std::printf("hello_world: ok\n");
  return 0;
}
