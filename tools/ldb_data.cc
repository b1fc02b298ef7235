// ldb's data commands: they go through the public DB API. Commands that
// only read open the database with DB::OpenForReadOnly.

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "db/filename.h"
#include "sift/db.h"
#include "sift/env.h"
#include "tools/ldb.h"
#include "util/status_macros.h"

namespace sift::ldb {
namespace {

// The status of a failed open, its message in RocksDB's "Code: message"
// form, which ldb prints after "Failed: ".
absl::Status OpenFailed(const absl::Status& s) {
  return absl::Status(s.code(), StatusText(s));
}

absl::StatusOr<OpenDB> OpenReadOnly(const Args& a, bool paranoid = false) {
  Options options;
  options.paranoid_checks = paranoid;
  return OpenFamilies(a, options, /*read_only=*/true);
}

absl::StatusOr<OpenDB> OpenWritable(const Args& a) {
  Options options;
  options.create_if_missing = a.Flag("create_if_missing");
  // Checked here so a mistyped path is not left holding a new, empty
  // directory and LOCK file (DB::Open creates both before it looks).
  if (!options.create_if_missing &&
      !Env::Default()->FileExists(CurrentFileName(a.db))) {
    return OpenFailed(NoCurrentError(Env::Default(), a.db,
                                     "--create_if_missing creates one"));
  }
  return OpenFamilies(a, options, /*read_only=*/false);
}

absl::Status Failed(std::string_view what, const absl::Status& s) {
  return absl::Status(
      s.code(), absl::StrCat(std::string(what), " failed: ", StatusText(s)));
}

// Visits the entries in [--from, --to), at most --max_keys of them.
template <typename Visit>
absl::Status ForEachInRange(const Args& a, const OpenDB& db, Visit visit) {
  ASSIGN_OR_RETURN(std::optional<std::string> from, RangeArg(a, "from"));
  ASSIGN_OR_RETURN(std::optional<std::string> to, RangeArg(a, "to"));
  ASSIGN_OR_RETURN(int64_t max_keys, MaxKeysArg(a));
  // [from, to) as the iterator's bounds: tables outside are not opened.
  ReadOptions ro;
  ro.iterate_lower_bound = from;
  ro.iterate_upper_bound = to;
  std::unique_ptr<Iterator> it = db->NewIterator(ro, db.cf);
  it->SeekToFirst();
  for (int64_t n = 0; it->Valid() && (max_keys < 0 || n < max_keys);
       it->Next(), ++n) {
    visit(it->key(), it->value());
  }
  if (!it->status().ok()) return Failed("Iterator", it->status());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<OpenDB> OpenFamilies(const Args& a, const Options& options,
                                    bool read_only) {
  std::vector<std::string> names = {kDefaultColumnFamilyName};
  if (Env::Default()->FileExists(CurrentFileName(a.db))) {
    absl::StatusOr<std::vector<std::string>> listed =
        DB::ListColumnFamilies(options, a.db);
    if (!listed.ok()) return OpenFailed(listed.status());
    names = *std::move(listed);
  }
  const std::string want = FamilyArg(a);
  if (std::find(names.begin(), names.end(), want) == names.end()) {
    return NoSuchFamily(a);
  }
  std::vector<ColumnFamilyDescriptor> fams;
  for (const std::string& name : names) {
    fams.emplace_back(name, ColumnFamilyOptions(options));
  }
  OpenDB out;
  absl::StatusOr<std::unique_ptr<DB>> db =
      read_only ? DB::OpenForReadOnly(options, a.db, fams, &out.handles)
                : DB::Open(options, a.db, fams, &out.handles);
  if (!db.ok()) return OpenFailed(db.status());
  out.db = *std::move(db);
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == want) out.cf = out.handles[i].get();
  }
  return out;
}

absl::Status Put(const Args& a) {
  ASSIGN_OR_RETURN(std::string key, KeyArg(a, a.params[0]));
  ASSIGN_OR_RETURN(std::string value, ValueArg(a, a.params[1]));
  ASSIGN_OR_RETURN(OpenDB db, OpenWritable(a));
  absl::Status s = db->Put(WriteOptions(), db.cf, key, value);
  if (!s.ok()) return Failed("Put", s);
  std::printf("OK\n");
  return absl::OkStatus();
}

absl::Status Get(const Args& a) {
  ASSIGN_OR_RETURN(std::string key, KeyArg(a, a.params[0]));
  ASSIGN_OR_RETURN(OpenDB db, OpenReadOnly(a));
  std::string value;
  absl::Status s = db->Get(ReadOptions(), db.cf, key, &value);
  if (!s.ok()) return Failed("Get", s);
  Print(ValueOut(a, value));
  Print("\n");
  return absl::OkStatus();
}

absl::Status Delete(const Args& a) {
  ASSIGN_OR_RETURN(std::string key, KeyArg(a, a.params[0]));
  ASSIGN_OR_RETURN(OpenDB db, OpenWritable(a));
  absl::Status s = db->Delete(WriteOptions(), db.cf, key);
  if (!s.ok()) return Failed("Delete", s);
  std::printf("OK\n");
  return absl::OkStatus();
}

// RocksDB's "deleterange <begin key> <end key>": removes [begin, end).
absl::Status DeleteRange(const Args& a) {
  ASSIGN_OR_RETURN(std::string begin, KeyArg(a, a.params[0]));
  ASSIGN_OR_RETURN(std::string end, KeyArg(a, a.params[1]));
  ASSIGN_OR_RETURN(OpenDB db, OpenWritable(a));
  absl::Status s = db->DeleteRange(WriteOptions(), db.cf, begin, end);
  if (!s.ok()) return Failed("DeleteRange", s);
  std::printf("OK\n");
  return absl::OkStatus();
}

absl::Status BatchPut(const Args& a) {
  if (a.params.size() % 2 != 0) {
    return absl::InvalidArgumentError(
        "Equal number of <key>s and <value>s must be specified for batchput");
  }
  std::vector<std::pair<std::string, std::string>> entries;
  for (size_t i = 0; i < a.params.size(); i += 2) {
    ASSIGN_OR_RETURN(std::string key, KeyArg(a, a.params[i]));
    ASSIGN_OR_RETURN(std::string value, ValueArg(a, a.params[i + 1]));
    entries.emplace_back(std::move(key), std::move(value));
  }
  ASSIGN_OR_RETURN(OpenDB db, OpenWritable(a));
  WriteBatch batch;
  for (const auto& [key, value] : entries) batch.Put(db.cf, key, value);
  absl::Status s = db->Write(WriteOptions(), &batch);
  if (!s.ok()) return Failed("Write", s);
  std::printf("OK\n");
  return absl::OkStatus();
}

absl::Status Scan(const Args& a) {
  ASSIGN_OR_RETURN(OpenDB db, OpenReadOnly(a));
  const bool no_value = a.Flag("no_value");
  return ForEachInRange(a, db, [&](std::string_view k, std::string_view v) {
    Print(no_value ? absl::StrCat(KeyOut(a, k), "\n")
                   : absl::StrCat(KeyOut(a, k), " : ", ValueOut(a, v), "\n"));
  });
}

absl::Status Dump(const Args& a) {
  ASSIGN_OR_RETURN(OpenDB db, OpenReadOnly(a));
  const bool count_only = a.Flag("count_only");
  uint64_t count = 0;
  RETURN_IF_ERROR(
      ForEachInRange(a, db, [&](std::string_view k, std::string_view v) {
        ++count;
        if (!count_only) {
          Print(absl::StrCat(KeyOut(a, k), " ==> ", ValueOut(a, v), "\n"));
        }
      }));
  std::printf("Keys in range: %llu\n", static_cast<unsigned long long>(count));
  return absl::OkStatus();
}

absl::Status Load(const Args& a) {
  ASSIGN_OR_RETURN(OpenDB db, OpenWritable(a));
  // dump's lines back in: "key ==> value", hex as the flags say; its
  // closing "Keys in range:" line is skipped, other lines are counted.
  uint64_t bad_lines = 0;
  std::string line;
  while (std::getline(std::cin, line)) {
    const size_t arrow = line.find(" ==> ");
    if (arrow == std::string::npos) {
      if (line.rfind("Keys in range:", 0) != 0) ++bad_lines;
      continue;
    }
    absl::StatusOr<std::string> key = KeyArg(a, line.substr(0, arrow));
    absl::StatusOr<std::string> value = ValueArg(a, line.substr(arrow + 5));
    if (!key.ok() || !value.ok()) {
      ++bad_lines;
      continue;
    }
    absl::Status s = db->Put(WriteOptions(), db.cf, *key, *value);
    if (!s.ok()) return Failed("Load", s);
  }
  if (bad_lines > 0) {
    std::printf("Warning: %llu bad lines ignored.\n",
                static_cast<unsigned long long>(bad_lines));
  }
  if (a.Flag("compact")) {
    absl::Status s = db->CompactRange(db.cf, std::nullopt, std::nullopt);
    if (!s.ok()) return Failed("Compaction", s);
  }
  return absl::OkStatus();
}

absl::Status Compact(const Args& a) {
  ASSIGN_OR_RETURN(std::optional<std::string> from, RangeArg(a, "from"));
  ASSIGN_OR_RETURN(std::optional<std::string> to, RangeArg(a, "to"));
  ASSIGN_OR_RETURN(OpenDB db, OpenWritable(a));
  absl::Status s = db->CompactRange(db.cf, from, to);
  if (!s.ok()) return Failed("Compaction", s);
  return absl::OkStatus();
}

// As RocksDB's ldb: "OK" on stdout once the checkpoint is complete.
absl::Status Checkpoint(const Args& a) {
  const std::optional<std::string> dir = a.Option("checkpoint_dir");
  if (!dir.has_value() || dir->empty()) {
    return absl::InvalidArgumentError(
        "--checkpoint_dir=<dir> must be specified for checkpoint");
  }
  ASSIGN_OR_RETURN(OpenDB db, OpenWritable(a));
  const absl::Status s = db->CreateCheckpoint(*dir);
  if (!s.ok()) return absl::Status(s.code(), StatusText(s));
  std::printf("OK\n");
  return absl::OkStatus();
}

// RocksDB's boolean options: --name, or --name=true|false.
absl::StatusOr<bool> BoolArg(const Args& a, const std::string& name,
                             bool fallback) {
  if (a.Flag(name)) return true;
  const std::optional<std::string> v = a.Option(name);
  if (!v.has_value()) return fallback;
  if (*v == "true" || *v == "1") return true;
  if (*v == "false" || *v == "0") return false;
  return absl::InvalidArgumentError(
      absl::StrCat("--", name, " must be true or false, got '", *v, "'"));
}

// As RocksDB's ldb: "external SST files ingested" once done (on stderr,
// where RocksDB prints a command's result; stdout stays empty).
absl::Status IngestExternSst(const Args& a) {
  IngestOptions o;
  ASSIGN_OR_RETURN(o.move_files, BoolArg(a, "move_files", false));
  ASSIGN_OR_RETURN(o.allow_blocking_flush,
                   BoolArg(a, "allow_blocking_flush", true));
  ASSIGN_OR_RETURN(OpenDB db, OpenWritable(a));
  const absl::Status s = db->IngestExternalFiles({a.params[0]}, o);
  if (!s.ok()) {
    return absl::Status(
        s.code(),
        absl::StrCat("failed to ingest external SST: ", StatusText(s)));
  }
  std::fprintf(stderr, "external SST files ingested\n");
  return absl::OkStatus();
}

// RocksDB's ldb prints "OK" for a repair that succeeded; what was kept and
// set aside goes to stderr, so scripts reading stdout see RocksDB's form.
absl::Status Repair(const Args& a) {
  RepairReport report;
  const absl::Status s = RepairDB(a.db, Options(), &report);
  if (!s.ok()) return Failed("Repair", s);  // one line, as every error
  std::fputs(report.ToString().c_str(), stderr);
  std::printf("OK\n");
  return absl::OkStatus();
}

absl::Status GetProperty(const Args& a) {
  ASSIGN_OR_RETURN(OpenDB db, OpenReadOnly(a));
  const std::string& name = a.params[0];
  std::optional<std::string> value = db->GetProperty(db.cf, name);
  if (!value.has_value()) {
    return absl::NotFoundError(absl::StrCat("failed to get property: ", name));
  }
  std::printf("%s: %s\n", name.c_str(), value->c_str());
  return absl::OkStatus();
}

// RocksDB's output form: "Column families in <db>: \n{default, a, b}".
absl::Status ListColumnFamilies(const Args& a) {
  absl::StatusOr<std::vector<std::string>> names =
      DB::ListColumnFamilies(Options(), a.db);
  if (!names.ok()) return OpenFailed(names.status());
  std::printf("Column families in %s: \n{%s}\n", a.db.c_str(),
              absl::StrJoin(*names, ", ").c_str());
  return absl::OkStatus();
}

// As RocksDB's ldb: "OK" once the family is recorded.
absl::Status CreateColumnFamily(const Args& a) {
  ASSIGN_OR_RETURN(OpenDB db, OpenWritable(a));
  absl::StatusOr<std::unique_ptr<ColumnFamilyHandle>> h =
      db->CreateColumnFamily(ColumnFamilyOptions(), a.params[0]);
  if (!h.ok()) return Failed("CreateColumnFamily", h.status());
  std::printf("OK\n");
  return absl::OkStatus();
}

absl::Status DropColumnFamily(const Args& a) {
  ASSIGN_OR_RETURN(OpenDB db, OpenWritable(a));
  ColumnFamilyHandle* target = nullptr;
  for (const auto& h : db.handles) {
    if (h->GetName() == a.params[0]) target = h.get();
  }
  if (target == nullptr) {
    return absl::NotFoundError(absl::StrCat("Column family ", a.params[0],
                                            " does not exist in ", a.db));
  }
  const absl::Status s = db->DropColumnFamily(target);
  if (!s.ok()) return Failed("DropColumnFamily", s);
  std::printf("OK\n");
  return absl::OkStatus();
}

absl::Status CheckConsistency(const Args& a) {
  // A paranoid open checks that every table the MANIFEST names is there
  // with its recorded size and that every block's checksum holds.
  absl::StatusOr<OpenDB> db = OpenReadOnly(a, /*paranoid=*/true);
  if (!db.ok()) return db.status();
  std::printf("OK\n");
  return absl::OkStatus();
}

}  // namespace sift::ldb
