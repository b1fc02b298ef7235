// Writes the seed corpora of the fuzz targets: real blocks, tables, logs,
// edits and batches made by the engine's own writers, so that fuzzing
// starts from well-formed inputs and mutates inward.
//
//   make_corpus <dir>     # writes <dir>/{block,table,log_reader,...}/...
//
// tests/fuzz/corpus holds its committed output. Rerunning it changes the
// table seeds' creation-time property, and nothing else.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "db/log_writer.h"
#include "db/version_edit.h"
#include "db/write_batch_internal.h"
#include "sift/env.h"
#include "sift/options.h"
#include "sift/write_batch.h"
#include "table/block_builder.h"
#include "table/internal_key.h"
#include "table/table_builder.h"

namespace sift {
namespace {

namespace fs = std::filesystem;

void Save(const fs::path& dir, const std::string& name,
          const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "make_corpus: cannot write %s\n",
                 (dir / name).c_str());
    std::exit(1);
  }
}

std::string IKey(std::string_view user, SequenceNumber seq, ValueType t) {
  std::string k;
  AppendInternalKey(&k, user, seq, t);
  return k;
}

void Blocks(const fs::path& dir) {
  Save(dir, "empty", std::string(BlockBuilder(16).Finish()));
  // Bytewise keys with shared prefixes, restart intervals 1, 3 and 16.
  for (int interval : {1, 3, 16}) {
    BlockBuilder b(interval);
    for (int i = 0; i < 40; ++i) {
      b.Add(absl::StrFormat("key%04d", i * 7), absl::StrFormat("v%d", i));
    }
    Save(dir, absl::StrFormat("bytewise_r%d", interval),
         std::string(b.Finish()));
  }
  // Internal keys: several versions of a key, tombstones, an empty value.
  BlockBuilder b(4);
  for (int i = 0; i < 12; ++i) {
    const std::string user = absl::StrFormat("user%02d", i / 3);
    const SequenceNumber seq = 100 - i;
    const ValueType t = i % 5 == 4 ? kTypeDeletion : kTypeValue;
    b.Add(IKey(user, seq, t), t == kTypeValue ? "value" : "");
  }
  Save(dir, "internal_r4", std::string(b.Finish()));
}

// One table from `entries` (sorted internal keys) with `options`.
std::string Table(const Options& options,
                  const std::vector<std::pair<std::string, std::string>>& kv) {
  std::unique_ptr<Env> env = NewMemEnv();
  auto file = env->NewWritableFile("/t.sst");
  if (!file.ok()) std::exit(1);
  TableBuilder builder(options, file->get());
  for (const auto& [k, v] : kv) {
    if (!builder.Add(k, v).ok()) std::exit(1);
  }
  if (!builder.Finish().ok() || !(*file)->Close().ok()) std::exit(1);
  std::string bytes;
  if (!ReadFileToString(env.get(), "/t.sst", &bytes).ok()) std::exit(1);
  return bytes;
}

void Tables(const fs::path& dir) {
  std::vector<std::pair<std::string, std::string>> kv;
  for (int i = 0; i < 60; ++i) {
    const std::string user = absl::StrFormat("k%03d", i / 2);
    const ValueType t = i % 7 == 3 ? kTypeDeletion : kTypeValue;
    kv.emplace_back(IKey(user, 1000 - i, t),
                    t == kTypeValue ? std::string(i % 13, 'a' + i % 26) : "");
  }
  Options o;
  o.block_size = 256;  // several data blocks
  o.compression = Compression::kNone;
  o.filter_layout = FilterLayout::kBlocked;
  Save(dir, "blocked_raw", Table(o, kv));
  o.filter_layout = FilterLayout::kStandard;
  o.block_restart_interval = 3;
  Save(dir, "standard_r3", Table(o, kv));
  o.bloom_filter_fp_chance = 1.0;  // no filter block
  Save(dir, "no_filter", Table(o, kv));
  o.bloom_filter_fp_chance = 0.01;
  o.compression = Compression::kSnappy;
  o.block_size = 1024;
  Save(dir, "snappy", Table(o, kv));
  Save(dir, "one_entry",
       Table(Options(), {{IKey("only", 1, kTypeValue), "x"}}));
  Save(dir, "empty", Table(Options(), {}));
}

std::string Batch(SequenceNumber seq, int puts, int deletes) {
  WriteBatch b;
  for (int i = 0; i < puts; ++i) {
    b.Put(absl::StrFormat("key%d", i), std::string(i % 9, 'v'));
  }
  for (int i = 0; i < deletes; ++i) b.Delete(absl::StrFormat("key%d", 2 * i));
  b.Put("", "empty key");
  WriteBatchInternal::SetSequence(&b, seq);
  return std::string(WriteBatchInternal::Contents(&b));
}

std::string Edit(bool snapshot) {
  VersionEdit e;
  if (snapshot) {
    e.SetComparatorName(BytewiseComparator()->Name());
    e.SetFormatVersion(kDbFormatVersion);
  }
  e.SetLogNumber(7);
  e.SetNextFile(12);
  e.SetLastSequence(345);
  e.SetCompactPointer(1, IKey("m", 9, kTypeValue));
  e.RemoveFile(0, 4);
  e.RemoveFile(2, 5);
  for (int i = 0; i < 2; ++i) {
    auto f = std::make_shared<FileMetaData>();
    f->number = 10 + i;
    f->file_size = 4096 * (i + 1);
    f->smallest = IKey(absl::StrFormat("a%d", i), 20, kTypeValue);
    f->largest = IKey(absl::StrFormat("b%d", i), 3, kTypeDeletion);
    if (i == 1) {  // one file of format 1 (tag 7), one with facts (tag 9)
      f->facts.emplace();
      f->facts->num_entries = 2;
      f->facts->num_deletions = 1;
      f->facts->smallest_seq = 3;
      f->facts->largest_seq = 20;
      f->facts->filter.fp_chance = 0.01;
      f->facts->filter.bits_per_key = 10;
      f->facts->filter.num_keys = 2;
    }
    e.AddFile(i, f);
  }
  std::string s;
  e.EncodeTo(&s);
  return s;
}

std::string Log(const std::vector<std::string>& records) {
  std::unique_ptr<Env> env = NewMemEnv();
  auto file = env->NewWritableFile("/x.log");
  if (!file.ok()) std::exit(1);
  log::Writer w(file->get());
  for (const std::string& r : records) {
    if (!w.AddRecord(r).ok()) std::exit(1);
  }
  if (!(*file)->Close().ok()) std::exit(1);
  std::string bytes;
  if (!ReadFileToString(env.get(), "/x.log", &bytes).ok()) std::exit(1);
  return bytes;
}

void Logs(const fs::path& dir) {
  Save(dir, "wal", Log({Batch(1, 3, 1), Batch(5, 0, 2), Batch(8, 10, 0)}));
  Save(dir, "manifest", Log({Edit(true), Edit(false)}));
  Save(dir, "empty_record", Log({""}));
  // A batch whose FIRST fragment ends block 0 and LAST starts block 1
  // (30 bytes are left after the first record, the batch needs 46).
  Save(dir, "split_record",
       Log({std::string(32768 - 7 - 30, 'p'), Batch(2, 2, 0)}));
  // 3 bytes left in block 0: too few for a header, so zero padding.
  Save(dir, "block_padding",
       Log({std::string(32768 - 7 - 3, 'p'), Batch(3, 1, 1)}));
}

// recovery_fuzz inputs: fixed16 n | MANIFEST (n bytes) | WAL.
std::string Recovery(const std::string& manifest, const std::string& wal) {
  std::string s;
  s.push_back(static_cast<char>(manifest.size() & 0xff));
  s.push_back(static_cast<char>(manifest.size() >> 8));
  return s + manifest + wal;
}

// A MANIFEST that opens on an empty Env: a snapshot naming no tables.
std::string EmptyManifest(uint64_t log_number) {
  VersionEdit e;
  e.SetComparatorName(BytewiseComparator()->Name());
  e.SetFormatVersion(kDbFormatVersion);
  e.SetLogNumber(log_number);
  e.SetNextFile(3);
  e.SetLastSequence(0);
  std::string s;
  e.EncodeTo(&s);
  return Log({s});
}

void Recoveries(const fs::path& dir) {
  const std::string wal =
      Log({Batch(1, 3, 1), Batch(5, 0, 2), Batch(8, 10, 3)});
  Save(dir, "replay", Recovery(EmptyManifest(2), wal));
  Save(dir, "log_skipped", Recovery(EmptyManifest(5), wal));
  Save(dir, "no_current", Recovery("", wal));
  Save(dir, "missing_tables", Recovery(Log({Edit(true)}), wal));
}

}  // namespace
}  // namespace sift

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
    return 2;
  }
  const std::filesystem::path root(argv[1]);
  sift::Blocks(root / "block");
  sift::Tables(root / "table");
  sift::Logs(root / "log_reader");
  sift::Recoveries(root / "recovery");
  sift::Save(root / "write_batch", "puts_and_deletes", sift::Batch(1, 5, 2));
  sift::Save(root / "write_batch", "empty", sift::Batch(9, 0, 0));
  sift::Save(root / "version_edit", "snapshot", sift::Edit(true));
  sift::Save(root / "version_edit", "delta", sift::Edit(false));
  std::printf("make_corpus: wrote %s\n", root.c_str());
  return 0;
}
