// sst_dump: inspect and check SSTables, with RocksDB's sst_dump's options.
//
//   build/bin/sst_dump --file=<file.sst|directory> [--command=check]
//       check     read every entry back (in order, findable by a point
//                 lookup, passing its filter) and count them (the default)
//       scan      print entries: 'key' seq:N, type:T => value
//       raw       write a readable dump of every block to <file>_dump.txt
//       verify    check every checksum and that the blocks tile the file
//       identify  say whether each file is an SSTable
//       recompress  report the file's size under each compression
//   --output_hex --from=<key> --to=<key> --input_key_hex --read_num=<n>
//   --verify_checksum --show_properties --show_summary --set_block_size=<n>
//   build/bin/sst_dump --parse_internal_key=0x<hex internal key>
//
// A directory means every *.sst file in it. Unlike RocksDB 7.8's sst_dump,
// damage is never "ok": any error prints "<file>: <error>" on stderr and the
// exit status is 1. Exit 0 means every file passed.

#include "tools/sst_dump.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "sift/env.h"
#include "sift/sst_file_reader.h"
#include "table/internal_key.h"
#include "util/hash.h"

ABSL_FLAG(std::string, file, "",
          "Path to an SSTable, or a directory whose *.sst files to process.");
ABSL_FLAG(std::string, command, "check",
          "check|scan|raw|verify|identify|recompress");
ABSL_FLAG(bool, output_hex, false, "scan: print keys and values in hex.");
ABSL_FLAG(std::string, from, "",
          "check|scan: the user key to start at (inclusive).");
ABSL_FLAG(std::string, to, "",
          "check|scan: the user key to stop at (exclusive).");
ABSL_FLAG(bool, input_key_hex, false,
          "--from and --to are given in hex (0x6B6579 or 6B6579).");
ABSL_FLAG(int64_t, read_num, -1,
          "check|scan: the most entries to read; negative: all.");
ABSL_FLAG(bool, show_properties, false,
          "Print the table properties, filter parameters and the filter's "
          "expected false-positive rate.");
ABSL_FLAG(bool, show_summary, false, "Print totals over all files.");
ABSL_FLAG(bool, verify_checksum, false,
          "check|scan: first verify every block's checksum and that the "
          "blocks tile the file, as verify does, even where --from, --to or "
          "--read_num leave blocks unread. (Blocks that are read are always "
          "checksummed.)");
ABSL_FLAG(int64_t, set_block_size, 4096,
          "recompress: the data block size of the rebuilt tables.");
ABSL_FLAG(std::string, parse_internal_key, "",
          "Print the internal key given in hex (0x...) as "
          "key='USER KEY HEX' seq:N, type:T, and exit.");

// The help text: RocksDB's sst_dump prints its own and exits 0.
constexpr char kUsage[] =
    R"(sst_dump --file=<data_dir_OR_sst_file> [--command=check|scan|raw|verify|identify|recompress]
    --file=<data_dir_OR_sst_file>
      Path to SST file or directory containing SST files
    --command=check|scan|raw|verify|identify|recompress
        check: Iterate over entries in files, checking each reads back (default)
        scan: Iterate over entries in files and print them to screen
        raw: Dump all the table contents to <file_name>_dump.txt
        verify: Verify every block's checksum and that the blocks tile the file
        identify: Report whether a file is a valid SST file, or list them in a directory
        recompress: Report the SST file size if recompressed with each
                    compression type (kNoCompression, kSnappyCompression)
    --output_hex
      Can be combined with scan command to print the keys and values in Hex
    --from=<user_key>
      Key to start reading from when executing check|scan
    --to=<user_key>
      Key to stop reading at when executing check|scan
    --read_num=<num>
      Maximum number of entries to read when executing check|scan
    --verify_checksum
      Verify every block's checksum when executing check|scan
    --input_key_hex
      Can be combined with --from and --to to indicate that these values are encoded in Hex
    --show_properties
      Print table properties after iterating over the file
    --show_summary
      Print totals over all files
    --set_block_size=<block_size>
      Can be combined with --command=recompress to set the block size
    --parse_internal_key=<0xKEY>
      Convenience option to parse an internal key on the command line. Dumps the
      internal key in hex format {'key' @ SN: type}
)";

namespace sift::sst_dump {
namespace {

struct Args {
  std::string command;
  bool output_hex = false;
  std::optional<std::string> from, to;
  int64_t read_num = -1;
  bool show_properties = false;
  bool verify_checksum = false;
  size_t block_size = 4096;
};

struct Summary {
  int files = 0;
  uint64_t entries = 0, data_blocks = 0, data_size = 0, index_size = 0,
           filter_size = 0;
};

// Reports a failure for one file as "<file>: <error>", without repeating
// the file name when the error already starts with it.
void ReportError(const std::string& path, const absl::Status& s) {
  const std::string text(s.message());
  const std::string code = absl::StatusCodeToString(s.code());
  if (absl::StartsWith(text, path)) {
    std::fprintf(stderr, "%s (%s)\n", text.c_str(), code.c_str());
  } else {
    std::fprintf(stderr, "%s: %s: %s\n", path.c_str(), code.c_str(),
                 text.c_str());
  }
}

absl::Status Corrupt(const std::string& path, const std::string& what) {
  return absl::DataLossError(absl::StrCat(path, ": ", what));
}

// Checks one entry of a check pass: it parses, follows the previous one,
// and -- if it is its user key's newest -- a point lookup finds it and the
// filter does not rule it out.
absl::Status CheckEntry(const Table& t, std::string_view ikey,
                        const ParsedInternalKey& pk, std::string_view value,
                        std::string* prev) {
  if (!prev->empty() &&
      KeyComparator::Internal(BytewiseComparator()).Compare(*prev, ikey) >= 0) {
    return Corrupt(t.file_name(),
                   absl::StrCat("keys out of order: ", InternalKeyText(*prev),
                                " then ", InternalKeyText(ikey)));
  }
  const bool newest = prev->empty() || ExtractUserKey(*prev) != pk.user_key;
  prev->assign(ikey.data(), ikey.size());
  if (!newest) return absl::OkStatus();
  if (!t.KeyMayMatch(KeyHash(pk.user_key))) {
    return Corrupt(t.file_name(), absl::StrCat("the filter rules out key ",
                                               InternalKeyText(ikey),
                                               " which the file holds"));
  }
  std::string newest_key, found;
  AppendInternalKey(&newest_key, pk.user_key, kMaxSequenceNumber,
                    kValueTypeForSeek);
  Table::Lookup lookup;
  lookup.key = newest_key;
  lookup.value = &found;
  lookup.use_filter = false;  // checked above, apart from the data
  TableReadCounters counters;
  t.Get(ReadOptions(), &lookup, &counters);
  if (!lookup.status.ok()) return lookup.status;
  const Table::LookupResult r = lookup.result;
  const bool ok = pk.type == kTypeDeletion
                      ? r == Table::LookupResult::kDeleted
                      : r == Table::LookupResult::kFound && found == value;
  if (!ok) {
    return Corrupt(t.file_name(),
                   absl::StrCat("a lookup of ", InternalKeyText(ikey),
                                " does not read it back"));
  }
  return absl::OkStatus();
}

// check and scan: entries in [from, to), at most read_num of them.
absl::Status Iterate(const Table& t, const Args& a, bool print,
                     uint64_t* count) {
  std::printf("from [%s] to [%s]\n",
              a.from ? Printable(*a.from, a.output_hex).c_str() : "",
              a.to ? Printable(*a.to, a.output_hex).c_str() : "");
  std::unique_ptr<Iterator> it = t.NewIterator(ReadOptions());
  if (a.from) {
    std::string start;
    AppendInternalKey(&start, *a.from, kMaxSequenceNumber, kValueTypeForSeek);
    it->Seek(start);
  } else {
    it->SeekToFirst();
  }
  std::string prev;
  uint64_t n = 0;
  for (; it->Valid(); it->Next()) {
    if (a.read_num >= 0 && n >= static_cast<uint64_t>(a.read_num)) break;
    ParsedInternalKey pk;
    if (!ParseInternalKey(it->key(), &pk)) {
      return Corrupt(t.file_name(), absl::StrCat("bad internal key ",
                                                 InternalKeyText(it->key())));
    }
    if (a.to && pk.user_key >= *a.to) break;
    if (print) {
      std::printf("%s\n", EntryText(pk, it->value(), a.output_hex).c_str());
    }
    absl::Status s = CheckEntry(t, it->key(), pk, it->value(), &prev);
    if (!s.ok()) return s;
    ++n;
  }
  if (!it->status().ok()) return it->status();
  *count = n;
  // A whole-file pass must meet every entry the properties announce.
  const bool whole = !a.from && !a.to && a.read_num < 0;
  if (whole && n != t.properties().num_entries) {
    return Corrupt(t.file_name(),
                   absl::StrCat("read ", n, " entries, the properties say ",
                                t.properties().num_entries));
  }
  return absl::OkStatus();
}

absl::Status Verify(const std::string& path) {
  SstFileReader reader{Options()};
  absl::Status s = reader.Open(path);
  if (s.ok()) s = reader.VerifyChecksum();
  return s;
}

// Runs the command on one file; false if it failed (already reported).
bool ProcessFile(const std::string& path, const Args& a, Summary* sum) {
  std::printf("Process %s\n", path.c_str());
  absl::StatusOr<SstFile> f = OpenSst(path);
  if (!f.ok()) {
    if (a.command == "identify") {
      std::printf("%s is not a valid SST file\n", path.c_str());
    }
    ReportError(path, f.status());
    return false;
  }
  const Table& t = *f->table;
  std::printf("Sst file format: sift table, format version %u\n",
              t.properties().format_version);
  absl::Status s;
  uint64_t count = 0;
  if (a.command == "check" || a.command == "scan") {
    if (a.verify_checksum) s = t.VerifyChecksum();
    if (s.ok()) s = Iterate(t, a, a.command == "scan", &count);
    if (s.ok() && !t.filter_status().ok()) {
      // The data reads back, but lookups go without the filter: damage.
      const std::string why(t.filter_status().message());
      s = Corrupt(path, "the filter block is damaged (reads skip it): " + why);
    }
    if (s.ok() && a.command == "check") {
      std::printf("%s: %llu entries read back ok\n", path.c_str(),
                  static_cast<unsigned long long>(count));
    }
  } else if (a.command == "verify") {
    s = Verify(path);
    if (s.ok()) std::printf("The file is ok\n");
  } else if (a.command == "identify") {
    std::printf("%s is a valid SST file\n", path.c_str());
  } else if (a.command == "recompress") {
    s = Recompress(t, a.block_size);
  } else if (a.command == "raw") {
    const std::string out =
        (absl::EndsWith(path, ".sst") ? path.substr(0, path.size() - 4)
                                      : path) +
        "_dump.txt";
    s = WriteRawDump(*f, out);
    if (s.ok()) std::printf("raw dump written to file %s\n", out.c_str());
  }
  if (a.show_properties) std::printf("%s", PropertiesText(t).c_str());
  const TableProperties& p = t.properties();
  ++sum->files;
  sum->entries += p.num_entries;
  sum->data_blocks += p.num_data_blocks;
  sum->data_size += p.data_size;
  sum->index_size += p.index_size;
  sum->filter_size += p.filter_size;
  if (!s.ok()) ReportError(path, s);
  return s.ok();
}

// The files --file names: itself, or the *.sst files of a directory.
std::vector<std::string> FilesOf(const std::string& path) {
  absl::StatusOr<std::vector<std::string>> children =
      Env::Default()->GetChildren(path);
  // Not a directory (or missing): the file itself, whose open will say why.
  if (!children.ok()) return {path};
  std::vector<std::string> files;
  for (const std::string& name : *children) {
    if (absl::EndsWith(name, ".sst")) files.push_back(path + "/" + name);
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Hex digits, with or without RocksDB's 0x prefix.
std::optional<std::string> FromHex(std::string hex) {
  if (absl::StartsWith(hex, "0x") || absl::StartsWith(hex, "0X")) {
    hex.erase(0, 2);
  }
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int byte = 0;
    for (size_t j = i; j < i + 2; ++j) {
      const char c = hex[j];
      const int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
      if (d < 0) return std::nullopt;
      byte = byte * 16 + d;
    }
    out.push_back(static_cast<char>(byte));
  }
  return out;
}

// --parse_internal_key: RocksDB's form, key='USER KEY HEX' seq:N, type:T.
// The key must be 0x-prefixed hex, as in RocksDB. Exit 1 when it is not an
// internal key siftdb writes.
int ParseInternalKeyArg(const std::string& text) {
  std::optional<std::string> key;
  if (absl::StartsWith(text, "0x") || absl::StartsWith(text, "0X")) {
    key = FromHex(text);
  }
  if (!key.has_value()) {
    std::fprintf(stderr,
                 "ERROR: Invalid key input '%s' Use 0x{hex representation of "
                 "internal key}\n",
                 text.c_str());
    return 1;
  }
  if (key->size() < kInternalKeyTrailerSize) {
    std::fprintf(stderr, "Corrupted Key: Internal Key too small. Size=%zu.\n",
                 key->size());
    return 1;
  }
  const uint64_t trailer = ExtractTrailer(*key);
  const int type = static_cast<int>(trailer & 0xff);
  std::printf("key='%s' seq:%llu, type:%d\n",
              Printable(ExtractUserKey(*key), true).c_str(),
              static_cast<unsigned long long>(trailer >> 8), type);
  ParsedInternalKey parsed;
  if (!ParseInternalKey(*key, &parsed)) {
    std::fprintf(stderr, "Corrupted Key: unknown type %d\n", type);
    return 1;
  }
  return 0;
}

absl::StatusOr<Args> ArgsFromFlags() {
  Args a;
  a.command = absl::GetFlag(FLAGS_command);
  const char* kCommands[] = {"check",  "scan",     "raw",
                             "verify", "identify", "recompress"};
  if (std::find(std::begin(kCommands), std::end(kCommands), a.command) ==
      std::end(kCommands)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown --command=", a.command,
                     " (want check, scan, raw, verify, identify or "
                     "recompress)"));
  }
  a.output_hex = absl::GetFlag(FLAGS_output_hex);
  a.read_num = absl::GetFlag(FLAGS_read_num);
  a.show_properties = absl::GetFlag(FLAGS_show_properties);
  a.verify_checksum = absl::GetFlag(FLAGS_verify_checksum);
  const int64_t block_size = absl::GetFlag(FLAGS_set_block_size);
  if (block_size < 1 || block_size > (int64_t{1} << 30)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--set_block_size=", block_size, " is not in [1, 1 GiB]"));
  }
  a.block_size = static_cast<size_t>(block_size);
  const bool hex = absl::GetFlag(FLAGS_input_key_hex);
  for (auto [flag, name, dst] : {std::tuple{&FLAGS_from, "from", &a.from},
                                 std::tuple{&FLAGS_to, "to", &a.to}}) {
    const std::string v = absl::GetFlag(*flag);
    if (v.empty()) continue;
    *dst = hex ? FromHex(v) : v;
    if (!dst->has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", name, "=", v, " is not hex"));
    }
  }
  return a;
}

int Main(const std::string& path) {
  absl::StatusOr<Args> args = ArgsFromFlags();
  if (!args.ok()) {
    std::fprintf(stderr, "sst_dump: %s\n",
                 std::string(args.status().message()).c_str());
    return 1;
  }
  const std::vector<std::string> files = FilesOf(path);
  if (files.empty()) {
    // As RocksDB's sst_dump: nothing to check is not success.
    std::fprintf(stderr, "No valid SST files found in %s\n", path.c_str());
    return 1;
  }
  Summary sum;
  int failed = 0;
  std::vector<std::string> valid;
  for (const std::string& f : files) {
    if (ProcessFile(f, *args, &sum)) {
      valid.push_back(f);
    } else {
      ++failed;
    }
  }
  if (args->command == "identify" && files.size() > 1) {
    std::printf(
        "------------------------------\n"
        "List of valid SST files found in %s:\n",
        path.c_str());
    for (const std::string& f : valid) std::printf("%s\n", f.c_str());
    std::printf("Number of valid SST files: %zu\n", valid.size());
  }
  if (absl::GetFlag(FLAGS_show_summary)) {
    std::printf(
        "total number of files: %d\ntotal number of entries: %llu\n"
        "total number of data blocks: %llu\ntotal data block size: %llu\n"
        "total index block size: %llu\ntotal filter block size: %llu\n",
        sum.files, static_cast<unsigned long long>(sum.entries),
        static_cast<unsigned long long>(sum.data_blocks),
        static_cast<unsigned long long>(sum.data_size),
        static_cast<unsigned long long>(sum.index_size),
        static_cast<unsigned long long>(sum.filter_size));
  }
  if (failed > 0 && files.size() > 1) {
    std::fprintf(stderr, "sst_dump: %d of %zu files failed\n", failed,
                 files.size());
  }
  return failed > 0 ? 1 : 0;
}

}  // namespace
}  // namespace sift::sst_dump

int main(int argc, char** argv) {
  // Abseil's --help exits 1; sst_dump's help is an answer, not an error.
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-help" || arg == "--helpfull") {
      std::printf("%s", kUsage);
      return 0;
    }
  }
  absl::SetProgramUsageMessage(
      "sst_dump --file=<data_dir_OR_sst_file> "
      "[--command=check|scan|raw|verify|identify|recompress]");
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    std::fprintf(stderr, "sst_dump: unexpected argument '%s'\n", rest[1]);
    return 1;
  }
  const std::string internal_key = absl::GetFlag(FLAGS_parse_internal_key);
  if (!internal_key.empty()) {
    return sift::sst_dump::ParseInternalKeyArg(internal_key);
  }
  const std::string path = absl::GetFlag(FLAGS_file);
  if (path.empty()) {
    std::fprintf(stderr, "sst_dump: --file=<file.sst|directory> is required\n");
    return 1;
  }
  const int rc = sift::sst_dump::Main(path);
  std::fflush(stdout);
  return rc;
}
