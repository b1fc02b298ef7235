// Fuzz target, downstream style: uses nothing but the installed public
// headers (<sift/...>), exactly as a program built against
// `cmake --install` would. The input is written to an in-memory Env and
// opened as an SSTable with SstFileReader, then iterated both ways, probed
// and verified. tests/consumer builds this same file against an installed
// package (see tests/consumer/CMakeLists.txt).
//
// Owed on any input: no crash, leak or UB. Checked beyond that: a file
// VerifyChecksum accepts iterates without error, in strictly increasing
// user-key order.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "sift/env.h"
#include "sift/iterator.h"
#include "sift/options.h"
#include "sift/sst_file_reader.h"
#include "sift/table_properties.h"

namespace {

constexpr char kPath[] = "/input.sst";
constexpr size_t kMaxKeys = 20000;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "sst_reader_fuzz: %s\n", what);
    std::abort();
  }
}

void ReadFile(sift::SstFileReader* reader) {
  (void)reader->GetProperties().ToString();
  const bool verified = reader->VerifyChecksum().ok();
  std::unique_ptr<sift::Iterator> it = reader->NewIterator(sift::ReadOptions());
  std::vector<std::string> keys;
  for (it->SeekToFirst(); it->Valid() && keys.size() < kMaxKeys; it->Next()) {
    keys.emplace_back(it->key());
    (void)it->value();
  }
  const bool forward_ok = it->status().ok();
  size_t back = 0;
  for (it->SeekToLast(); it->Valid() && back < kMaxKeys; it->Prev()) ++back;

  std::string value;
  const size_t step = keys.size() / 16 + 1;
  for (size_t i = 0; i < keys.size(); i += step) {
    (void)reader->KeyMayMatch(keys[i]);
    (void)reader->Get(sift::ReadOptions(), keys[i], &value);
    it->Seek(keys[i]);
    if (it->Valid()) it->Prev();
  }
  (void)reader->Get(sift::ReadOptions(), "", &value);
  (void)reader->Get(sift::ReadOptions(), "\xff\xff\xff\xff", &value);
  if (!verified) return;
  Check(forward_ok, "a verified file iterates without error");
  for (size_t i = 1; i < keys.size(); ++i) {
    Check(keys[i - 1] < keys[i], "a verified file's user keys increase");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::unique_ptr<sift::Env> env = sift::NewMemEnv();
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (!sift::WriteStringToFile(env.get(), bytes, kPath, false).ok()) return 0;
  sift::Options options;
  options.env = env.get();
  options.block_cache_capacity = 4096;
  sift::SstFileReader reader(options);
  if (reader.Open(kPath).ok()) ReadFile(&reader);
  return 0;
}
