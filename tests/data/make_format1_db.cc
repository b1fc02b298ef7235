// Writes tests/data/format1_db: a small database in DB format version 1
// (db/FORMAT.md), whose MANIFEST names files with tag 7 and no file facts.
// It was built once against the library of commit 64f0bfd, the last one
// writing format 1, and its output checked in; format1_db_test.cc opens
// it with today's code. Not part of the build: kept to show how the files
// were made. The contents it leaves are the ones Format1Value describes in
// format1_db_test.cc.
//
//   g++ -std=c++20 -I<old tree>/include -I<old tree> make_format1_db.cc \
//       <old build>/libsiftdb.a -labsl_... -lsnappy -lxxhash
//   ./a.out <empty directory>

#include <cstdio>
#include <memory>
#include <string>

#include "sift/db.h"
#include "sift/options.h"

namespace {

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "key%03d", i);
  return buf;
}

void Check(const absl::Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    std::exit(1);
  }
}

std::unique_ptr<sift::DB> Open(const std::string& dir, double fp,
                               sift::FilterLayout layout) {
  sift::Options o;
  o.create_if_missing = true;
  o.write_buffer_size = 64 << 10;
  o.max_file_size = 4 << 10;
  o.bloom_filter_fp_chance = fp;
  o.filter_layout = layout;
  auto db = sift::DB::Open(o, dir);
  Check(db.status());
  return *std::move(db);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  const sift::WriteOptions w;
  {
    // Filters at 0.01, blocked; tombstones; compacted to level 1, then a
    // level-0 file over it.
    auto db = Open(dir, 0.01, sift::FilterLayout::kBlocked);
    for (int i = 0; i < 300; ++i) Check(db->Put(w, Key(i), "a" + Key(i)));
    for (int i = 0; i < 300; i += 7) Check(db->Delete(w, Key(i)));
    Check(db->CompactRange(std::nullopt, std::nullopt));
    for (int i = 0; i < 300; i += 5) Check(db->Put(w, Key(i), "b" + Key(i)));
    Check(db->Flush());
  }
  {
    // A file with no filter.
    auto db = Open(dir, 1.0, sift::FilterLayout::kBlocked);
    for (int i = 300; i < 340; ++i) Check(db->Put(w, Key(i), "b" + Key(i)));
    Check(db->Flush());
  }
  {
    // A standard-layout filter at 0.05, and writes left in the WAL.
    auto db = Open(dir, 0.05, sift::FilterLayout::kStandard);
    for (int i = 0; i < 300; i += 11) Check(db->Put(w, Key(i), "c" + Key(i)));
    Check(db->Flush());
    for (int i = 340; i < 350; ++i) Check(db->Put(w, Key(i), "d" + Key(i)));
  }
  return 0;
}
