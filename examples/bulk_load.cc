// bulk_load: builds sorted data into standalone SSTables with SstFileWriter,
// the way a batch job prepares data away from the serving database, then
// opens each file with SstFileReader to check it and read from it. Each file
// carries its own Bloom filter, so a lookup of an absent key usually stops
// at the filter. Exits 1, naming the call, on any failure.
//
//   bulk_load [output directory]   (default: under the temp dir, removed)

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "sift/iterator.h"
#include "sift/options.h"
#include "sift/sst_file_reader.h"
#include "sift/sst_file_writer.h"
#include "sift/table_properties.h"

namespace {

void Check(const absl::Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "bulk_load: %s: %s\n", what, s.ToString().c_str());
    std::exit(1);
  }
}

void Expect(bool ok, const char* what) {
  Check(ok ? absl::OkStatus() : absl::InternalError("unexpected result"), what);
}

// Zero-padded, so bytewise order is numeric order: SstFileWriter needs
// strictly increasing keys.
std::string UserKey(int id) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "user:%09d", id);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const bool scratch = argc < 2;
  const fs::path dir =
      scratch ? fs::temp_directory_path() / "siftdb-bulk-load" : argv[1];
  fs::create_directories(dir);
  constexpr int kUsers = 100000;
  constexpr int kUsersPerFile = 25000;

  sift::Options options;
  options.bloom_filter_fp_chance = 0.001;  // a bigger filter, fewer reads
  options.compression = sift::Compression::kSnappy;

  // 1. Write: one file per range of ids, keys in increasing order.
  std::vector<std::string> files;
  for (int first = 0; first < kUsers; first += kUsersPerFile) {
    files.push_back(
        (dir / ("users-" + std::to_string(files.size()) + ".sst")).string());
    sift::SstFileWriter writer(options);
    Check(writer.Open(files.back()), "SstFileWriter::Open");
    for (int id = first; id < first + kUsersPerFile; id += 2) {  // even ids
      Check(writer.Put(UserKey(id), "profile of " + std::to_string(id)),
            "SstFileWriter::Put");
    }
    Check(writer.Finish(), "SstFileWriter::Finish");  // synced and closed
  }

  // 2. Read back: properties, point lookups, a scan.
  int absent_passed = 0;
  for (const std::string& file : files) {
    sift::SstFileReader reader(options);
    Check(reader.Open(file), "SstFileReader::Open");
    Check(reader.VerifyChecksum(), "SstFileReader::VerifyChecksum");
    const sift::TableProperties& p = reader.GetProperties();
    std::printf("%s: %llu entries, %s .. %s, filter %.1f bits/key\n",
                fs::path(file).filename().c_str(),
                static_cast<unsigned long long>(p.num_entries),
                p.smallest_key.c_str(), p.largest_key.c_str(),
                8.0 * static_cast<double>(p.filter_size) /
                    static_cast<double>(p.filter_num_keys));

    std::string value;
    Check(reader.Get(sift::ReadOptions(), p.smallest_key, &value), "Get");
    Expect(value.rfind("profile of ", 0) == 0, "Get returns the profile");
    // Odd ids were never written: the filter turns nearly all away.
    const int first = std::stoi(p.smallest_key.substr(5));
    for (int id = first + 1; id < first + kUsersPerFile; id += 2) {
      if (reader.KeyMayMatch(UserKey(id))) ++absent_passed;
    }

    std::unique_ptr<sift::Iterator> it =
        reader.NewIterator(sift::ReadOptions());
    uint64_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
    Check(it->status(), "Iterator");
    Expect(n == p.num_entries, "a scan sees every entry");
  }
  const int absent = kUsers / 2;
  std::printf("absent ids the filters let through: %d of %d (%.3f%%)\n",
              absent_passed, absent, 100.0 * absent_passed / absent);
  Expect(absent_passed < absent / 100, "the filters turn away absent keys");

  if (scratch) fs::remove_all(dir);
  std::printf("bulk_load: ok\n");
  return 0;
}
