// ldb's commands on the MANIFEST and the files it names: manifest_dump,
// list_live_files_metadata, dump_live_files and approxsize. They read the
// files directly (never through a DB), so they take no lock and write
// nothing. approxsize counts the live tables only (as RocksDB's does by
// default), not writes still in the WAL.
//
// The MANIFEST is replayed here rather than by VersionSet::Recover: a dump
// must show a MANIFEST whose tables are missing or damaged -- the case
// where one is needed most -- which Recover refuses.

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "db/dbformat.h"
#include "db/file_meta.h"
#include "db/filename.h"
#include "db/log_reader.h"
#include "db/version_edit.h"
#include "sift/env.h"
#include "table/internal_key.h"
#include "tools/ldb.h"
#include "tools/sst_dump.h"
#include "util/status_macros.h"

namespace sift::ldb {
namespace {

constexpr char kRule[] = "------------------------------\n";
constexpr char kDoubleRule[] = "==============================\n";

// One column family's state in a MANIFEST.
struct Family {
  uint32_t id = 0;
  std::string name = kDefaultColumnFamilyName;
  std::string comparator;  // empty: no record named one
  // Per level; level 0 newest first, deeper levels by smallest key.
  std::vector<std::shared_ptr<FileMetaData>> levels[config::kNumLevels];
};

// The state a MANIFEST describes, from replaying its edits in order.
struct Manifest {
  std::string path;
  std::string dir;  // where its tables and logs are
  uint64_t log_number = 0, next_file_number = 0, last_sequence = 0;
  uint32_t max_column_family = 0;
  std::vector<Family> families;    // live ones, by ID; default first
  std::vector<std::string> edits;  // each edit's DebugString, in order

  // The live family --column_family names (default when not given);
  // NotFound naming it if none.
  absl::StatusOr<const Family*> Find(const Args& a) const;
};

absl::StatusOr<const Family*> Manifest::Find(const Args& a) const {
  const std::string want = FamilyArg(a);
  for (const Family& f : families) {
    if (f.name == want) return &f;
  }
  return NoSuchFamily(a);
}

std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

absl::Status Failed(const absl::Status& s) {
  return absl::Status(s.code(), StatusText(s));
}

// The MANIFEST that db's CURRENT names.
absl::StatusOr<std::string> CurrentManifest(const std::string& db) {
  std::string current;
  absl::Status s =
      ReadFileToString(Env::Default(), CurrentFileName(db), &current);
  if (!s.ok()) return Failed(s);
  uint64_t number;
  FileType type;
  if (current.empty() || current.back() != '\n' ||
      !ParseFileName(current.substr(0, current.size() - 1), &number, &type) ||
      type != FileType::kManifest) {
    return absl::DataLossError(absl::StrCat("Corruption: ", CurrentFileName(db),
                                            ": does not name a MANIFEST"));
  }
  return ManifestFileName(db, number);
}

// The files of each family, by number, while the edits are replayed.
using FilesByNumber =
    std::array<std::map<uint64_t, std::shared_ptr<FileMetaData>>,
               config::kNumLevels>;

// Applies one edit as VersionSet's recovery does (db/FORMAT.md, "MANIFEST
// records"): to the family it names, which it may create or drop.
void Apply(const VersionEdit& edit, std::map<uint32_t, Family>* families,
           std::map<uint32_t, FilesByNumber>* files, Manifest* m) {
  if (edit.log_number_) m->log_number = *edit.log_number_;
  if (edit.next_file_number_) m->next_file_number = *edit.next_file_number_;
  if (edit.last_sequence_) m->last_sequence = *edit.last_sequence_;
  if (edit.max_column_family_) {
    m->max_column_family =
        std::max(m->max_column_family, *edit.max_column_family_);
  }
  const uint32_t id = edit.column_family_;
  m->max_column_family = std::max(m->max_column_family, id);
  if (edit.column_family_drop_) {
    families->erase(id);
    files->erase(id);
    return;
  }
  Family& family = (*families)[id];
  family.id = id;
  if (edit.column_family_add_) family.name = *edit.column_family_add_;
  if (edit.comparator_) family.comparator = *edit.comparator_;
  FilesByNumber& by_number = (*files)[id];
  for (const auto& [level, number] : edit.deleted_files_) {
    if (level >= 0 && level < config::kNumLevels)
      by_number[level].erase(number);
  }
  for (const auto& [level, f] : edit.new_files_) {
    if (level >= 0 && level < config::kNumLevels)
      by_number[level][f->number] = f;
  }
}

absl::StatusOr<Manifest> ReadManifest(const std::string& path) {
  std::string contents;
  absl::Status s = ReadFileToString(Env::Default(), path, &contents);
  if (!s.ok()) return Failed(s);
  Manifest m;
  m.path = path;
  m.dir = DirOf(path);
  std::map<uint32_t, Family> families;
  families[0] = Family();
  std::map<uint32_t, FilesByNumber> files;
  // An atomic group's edits apply together once its last one is read; an
  // unfinished group at the end is left out, as recovery leaves it.
  std::vector<VersionEdit> group;
  log::Reader reader(contents, path);
  std::string_view record;
  std::string scratch;
  while (reader.ReadRecord(&record, &scratch)) {
    VersionEdit edit;
    s = edit.DecodeFrom(record);
    if (!s.ok()) {
      return absl::DataLossError(
          absl::StrCat("Corruption: ", path, ": record at offset ",
                       reader.last_record_offset(), ": ", s.message()));
    }
    m.edits.push_back(edit.DebugString());
    const bool grouped = edit.atomic_group_.has_value();
    const bool last = !grouped || *edit.atomic_group_ == 0;
    group.push_back(std::move(edit));
    if (!last) continue;
    for (const VersionEdit& e : group) Apply(e, &families, &files, &m);
    group.clear();
  }
  if (!reader.status().ok()) return Failed(reader.status());
  const KeyComparator icmp = KeyComparator::Internal(BytewiseComparator());
  for (auto& [id, family] : families) {
    for (int level = 0; level < config::kNumLevels; ++level) {
      auto& v = family.levels[level];
      for (auto& [number, f] : files[id][level]) v.push_back(f);
      if (level == 0) {
        std::reverse(v.begin(), v.end());  // the map sorted them oldest first
      } else {
        std::sort(v.begin(), v.end(), [&icmp](const auto& a, const auto& b) {
          return icmp.Compare(a->smallest, b->smallest) < 0;
        });
      }
    }
    m.families.push_back(std::move(family));
  }
  return m;
}

absl::StatusOr<Manifest> ReadCurrentManifest(const Args& a) {
  ASSIGN_OR_RETURN(std::string path, CurrentManifest(a.db));
  return ReadManifest(path);
}

// An internal key as RocksDB's manifest_dump prints it:
// 'user key' seq:N, type:T (the user key in hex with --hex).
std::string KeyText(std::string_view ikey, bool hex) {
  ParsedInternalKey k;
  if (!ParseInternalKey(ikey, &k)) {
    return absl::StrCat("(bad internal key) '", sst_dump::Printable(ikey, hex),
                        "'");
  }
  return absl::StrCat("'", sst_dump::Printable(k.user_key, hex),
                      "' seq:", k.sequence,
                      ", type:", static_cast<int>(k.type));
}

const char* LayoutName(FilterLayout layout) {
  return layout == FilterLayout::kBlocked ? "blocked" : "standard";
}

std::string FilterFactsText(const FilterFacts& f) {
  if (f.fp_chance >= 1.0) return "none";
  return absl::StrFormat("%s, fp chance %g, %.2f bits/key, %u keys",
                         LayoutName(f.layout), f.fp_chance, f.bits_per_key,
                         f.num_keys);
}

// What the MANIFEST says about a file beyond its key range (db/FORMAT.md,
// "File facts"). A format-1 MANIFEST has no facts: then the table's own
// properties say what its filter is.
std::string FactsText(const FileMetaData& f, const std::string& dir) {
  if (f.facts.has_value()) {
    const FileFacts& x = *f.facts;
    std::string s =
        absl::StrCat("entries ", x.num_entries, ", deletions ", x.num_deletions,
                     ", filter: ", FilterFactsText(x.filter));
    if (x.replacement.has_value()) {
      absl::StrAppend(&s, ", replacement filter ", x.replacement->number, " (",
                      x.replacement->size,
                      " bytes): ", FilterFactsText(x.replacement->filter));
    }
    return s;
  }
  absl::StatusOr<sst_dump::SstFile> t =
      sst_dump::OpenSst(TableFileName(dir, f.number));
  if (!t.ok()) {
    return absl::StrCat("table unreadable: ", StatusText(t.status()));
  }
  const TableProperties& p = t->table->properties();
  std::string s = absl::StrCat("entries ", p.num_entries, ", deletions ",
                               p.num_deletions, ", filter: ");
  if (p.filter_size == 0) return s + "none";
  return s + absl::StrFormat(
                 "%s, fp chance %g, %.2f bits/key, %u probes, %u keys%s",
                 LayoutName(p.filter_layout), p.bloom_filter_fp_chance,
                 p.filter_bits_per_key, p.filter_num_probes, p.filter_num_keys,
                 t->table->has_filter() ? "" : " (damaged: unused)");
}

// RocksDB's file line: " number:size[smallest seq .. largest seq]
// [smallest key .. largest key]", then siftdb's facts.
std::string FileText(const FileMetaData& f, const std::string& dir, bool hex) {
  std::string s = absl::StrCat(" ", f.number, ":", f.file_size);
  if (f.facts.has_value()) {
    absl::StrAppend(&s, "[", f.facts->smallest_seq, " .. ",
                    f.facts->largest_seq, "]");
  }
  absl::StrAppend(&s, "[", KeyText(f.smallest, hex), " .. ",
                  KeyText(f.largest, hex), "] ", FactsText(f, dir), "\n");
  return s;
}

// RocksDB's form: one section per live family, then the DB's counters
// (max_column_family only once a family other than default was made).
std::string ManifestText(const Manifest& m, bool verbose, bool hex) {
  std::string s;
  if (verbose) {
    absl::StrAppend(&s, "Processing Manifest file ", m.path, "\n");
    for (const std::string& e : m.edits) s += e;
  }
  for (const Family& family : m.families) {
    absl::StrAppend(
        &s, "--------------- Column family \"", family.name, "\"  (ID ",
        family.id, ") --------------\nlog number: ", m.log_number,
        "\ncomparator: ",
        family.comparator.empty() ? "<NO COMPARATOR>" : family.comparator,
        "\n");
    for (int level = 0; level < config::kNumLevels; ++level) {
      absl::StrAppend(&s, "--- level ", level, " --- version# 1 ---\n");
      for (const auto& f : family.levels[level]) s += FileText(*f, m.dir, hex);
    }
  }
  absl::StrAppend(&s, "next_file_number ", m.next_file_number,
                  " last_sequence ", m.last_sequence);
  if (m.max_column_family > 0) {
    absl::StrAppend(&s, " max_column_family ", m.max_column_family);
  }
  s += "\n";
  return s;
}

// Where the data for user keys >= key starts in the table at path, as a
// byte offset (Table::ApproximateOffsetOf, which DB::GetApproximateSizes
// sums too; approxsize reads the files itself so that it needs no DB).
absl::StatusOr<uint64_t> OffsetOf(const std::string& path,
                                  std::string_view key) {
  absl::StatusOr<sst_dump::SstFile> f = sst_dump::OpenSst(path);
  if (!f.ok()) return Failed(f.status());
  std::string target;
  AppendInternalKey(&target, key, kMaxSequenceNumber, kValueTypeForSeek);
  return f->table->ApproximateOffsetOf(target);
}

// OffsetOf for a live file, without opening it when its key range alone
// answers.
absl::StatusOr<uint64_t> OffsetIn(const std::string& dir, const FileMetaData& f,
                                  std::string_view key) {
  if (key <= f.smallest_user_key()) return 0;
  if (key > f.largest_user_key()) return f.file_size;
  return OffsetOf(TableFileName(dir, f.number), key);
}

// Prints one live table as sst_dump --command=scan --show_properties.
void PrintTable(const std::string& path, bool hex) {
  std::printf("Process %s\n", path.c_str());
  absl::StatusOr<sst_dump::SstFile> f = sst_dump::OpenSst(path);
  if (!f.ok()) {
    std::printf("%s\n", StatusText(f.status()).c_str());
    return;
  }
  std::printf("Sst file format: sift table, format version %u\n",
              f->table->properties().format_version);
  std::unique_ptr<Iterator> it = f->table->NewIterator(ReadOptions());
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ParsedInternalKey k;
    if (!ParseInternalKey(it->key(), &k)) break;
    std::printf("%s\n", sst_dump::EntryText(k, it->value(), hex).c_str());
  }
  if (!it->status().ok()) {
    std::printf("%s\n", StatusText(it->status()).c_str());
  }
  std::printf("\n%s\n", sst_dump::PropertiesText(*f->table).c_str());
}

}  // namespace

absl::Status ManifestDump(const Args& a) {
  std::optional<std::string> path = a.Option("path");
  if (!path.has_value()) {
    if (a.db.empty()) {
      return absl::InvalidArgumentError(
          "Either --db or --path must be specified for manifest_dump");
    }
    ASSIGN_OR_RETURN(path, CurrentManifest(a.db));
  }
  ASSIGN_OR_RETURN(Manifest m, ReadManifest(*path));
  Print(ManifestText(m, a.Flag("verbose"), a.key_hex));
  return absl::OkStatus();
}

absl::Status ListLiveFilesMetadata(const Args& a) {
  ASSIGN_OR_RETURN(Manifest m, ReadCurrentManifest(a));
  if (a.Flag("sort_by_filename")) {
    std::map<uint64_t, std::pair<int, const std::string*>> where;
    for (const Family& family : m.families) {
      for (int level = 0; level < config::kNumLevels; ++level) {
        for (const auto& f : family.levels[level]) {
          where[f->number] = {level, &family.name};
        }
      }
    }
    std::printf("Live SST Files:\n");
    for (const auto& [number, at] : where) {
      std::printf("%s : level %d, column family '%s'\n",
                  TableFileName(a.db, number).c_str(), at.first,
                  at.second->c_str());
    }
  } else {
    for (const Family& family : m.families) {
      std::printf("===== Column Family: %s =====\nLive SST Files:\n",
                  family.name.c_str());
      for (int level = 0; level < config::kNumLevels; ++level) {
        std::printf("---------- level %d ----------\n", level);
        for (const auto& f : family.levels[level]) {
          std::printf("%s\n", TableFileName(a.db, f->number).c_str());
        }
      }
    }
  }
  std::printf("%s", kRule);
  return absl::OkStatus();
}

absl::Status DumpLiveFiles(const Args& a) {
  ASSIGN_OR_RETURN(Manifest m, ReadCurrentManifest(a));
  std::printf("Manifest File\n%s%s\n", kDoubleRule, m.path.c_str());
  Print(ManifestText(m, false, a.key_hex));
  std::printf("\nSST Files\n%s", kDoubleRule);
  for (const Family& family : m.families) {
    for (int level = 0; level < config::kNumLevels; ++level) {
      for (const auto& f : family.levels[level]) {
        const std::string path = TableFileName(a.db, f->number);
        std::printf("%s level:%d\n%s", path.c_str(), level, kRule);
        PrintTable(path, a.key_hex);
      }
    }
  }
  std::printf("Write Ahead Log Files\n%s", kDoubleRule);
  absl::StatusOr<std::vector<std::string>> children =
      Env::Default()->GetChildren(a.db);
  if (!children.ok()) return Failed(children.status());
  std::vector<uint64_t> logs;
  for (const std::string& name : *children) {
    uint64_t number;
    FileType type;
    if (ParseFileName(name, &number, &type) && type == FileType::kLog &&
        number >= m.log_number) {
      logs.push_back(number);
    }
  }
  std::sort(logs.begin(), logs.end());
  for (const uint64_t number : logs) {
    const std::string path = LogFileName(a.db, number);
    std::printf("%s\n", path.c_str());
    std::fflush(stdout);
    RETURN_IF_ERROR(DumpWalFile(path, /*print_value=*/true, /*header=*/true));
  }
  return absl::OkStatus();
}

absl::Status ApproxSize(const Args& a) {
  ASSIGN_OR_RETURN(std::optional<std::string> from, RangeArg(a, "from"));
  ASSIGN_OR_RETURN(std::optional<std::string> to, RangeArg(a, "to"));
  ASSIGN_OR_RETURN(Manifest m, ReadCurrentManifest(a));
  ASSIGN_OR_RETURN(const Family* family, m.Find(a));
  // A file's share of [from, to) is the bytes between where from's data
  // and to's data start in it (see OffsetOf).
  uint64_t bytes = 0;
  for (const auto& level : family->levels) {
    for (const auto& f : level) {
      uint64_t start = 0, end = f->file_size;
      if (from.has_value()) {
        ASSIGN_OR_RETURN(start, OffsetIn(a.db, *f, *from));
      }
      if (to.has_value()) {
        ASSIGN_OR_RETURN(end, OffsetIn(a.db, *f, *to));
      }
      if (end > start) bytes += end - start;
    }
  }
  std::printf("%llu\n", static_cast<unsigned long long>(bytes));
  return absl::OkStatus();
}

}  // namespace sift::ldb
