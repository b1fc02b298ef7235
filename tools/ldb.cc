// ldb: look inside and change a siftdb database from the command line, with
// RocksDB ldb's command names, flags and output lines, so habits and
// scripts carry over:
//
//   ldb --db=/path/to/db put k v          OK
//   ldb --db=/path/to/db get k            v
//   ldb --db=/path/to/db --hex scan       0x6B : 0x76
//   ldb dump_wal --walfile=/path/000007.log --header --print_value
//
// `ldb --help` lists every command and flag. Commands that only look
// (get, scan, dump, approxsize, get_property, manifest_dump, dump_wal,
// dump_live_files, list_live_files_metadata, checkconsistency) open the
// database with DB::OpenForReadOnly or read its files directly: they take
// no lock and never write a byte, so they work beside a running writer.
//
// Errors print one line, "Failed: <what>" (or, for a bad command line,
// what was wrong with it), on stderr, and exit 1; nothing is written.
//
// ldb opens databases with the bytewise comparator: the commands that open
// one created with a user comparator (Options::comparator), repair among
// them, refuse it with an error naming both comparators and change
// nothing. Such a database is repaired through RepairDB with its own.

#include "tools/ldb.h"

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace sift::ldb {
namespace {

struct CommandInfo {
  const char* name;
  const char* usage;  // what follows the name in the help
  bool admin;         // listed under "Admin Commands"
  bool needs_db;      // --db is required
  // Flags ("name") and options ("name=") beyond --db and the hex flags.
  std::vector<std::string> accepts;
  int min_params, max_params;  // max -1: no limit
  absl::Status (*run)(const Args&);
};

const std::vector<CommandInfo>& Commands() {
  // One command per line reads as the table it is.
  // clang-format off
  static const std::vector<CommandInfo> kCommands = {
      {"put", "<key> <value> [--create_if_missing]", false, true,
       {"create_if_missing"}, 2, 2, Put},
      {"get", "<key>", false, true, {}, 1, 1, Get},
      {"batchput", "<key> <value> [<key> <value>] [..] [--create_if_missing]",
       false, true, {"create_if_missing"}, 2, -1, BatchPut},
      {"scan", "[--from=<key>] [--to=<key>] [--max_keys=<N>] [--no_value]",
       false, true, {"from=", "to=", "max_keys=", "no_value"}, 0, 0, Scan},
      {"delete", "<key>", false, true, {}, 1, 1, Delete},
      {"deleterange", "<begin key> <end key>", false, true, {}, 2, 2,
       DeleteRange},
      {"approxsize", "[--from=<key>] [--to=<key>]", false, true,
       {"from=", "to="}, 0, 0, ApproxSize},
      {"checkconsistency", "", false, true, {}, 0, 0, CheckConsistency},
      {"dump_wal",
       "--walfile=<write_ahead_log_file_path> [--header] [--print_value]",
       true, false, {"walfile=", "header", "print_value"}, 0, 0, DumpWal},
      {"compact", "[--from=<key>] [--to=<key>]", true, true,
       {"from=", "to="}, 0, 0, Compact},
      {"repair", "", true, true, {}, 0, 0, Repair},
      {"checkpoint", "--checkpoint_dir=<dir>", true, true,
       {"checkpoint_dir="}, 0, 0, Checkpoint},
      {"ingest_extern_sst",
       "<input_sst_path> [--move_files] [--allow_blocking_flush=false] "
       "[--create_if_missing]",
       true, true,
       {"move_files", "move_files=", "allow_blocking_flush",
        "allow_blocking_flush=", "create_if_missing"}, 1, 1, IngestExternSst},
      {"rebuild_filters",
       "[--bloom_filter_fp_chance=<p>] [--filter_layout=<blocked|standard|ribbon>] "
       "[--bloom_before_level=<n>] [--filter_bits_per_key_budget=<b>]",
       true, true, {"bloom_filter_fp_chance=", "filter_layout=",
                    "bloom_before_level=", "filter_bits_per_key_budget="},
       0, 0, RebuildFilters},
      {"dump", "[--from=<key>] [--to=<key>] [--max_keys=<N>] [--count_only]",
       true, true, {"from=", "to=", "max_keys=", "count_only"}, 0, 0, Dump},
      {"load", "[--create_if_missing] [--compact]  (reads dump's lines from stdin)",
       true, true, {"create_if_missing", "compact"}, 0, 0, Load},
      {"manifest_dump", "[--verbose] [--path=<path_to_manifest_file>]", true,
       false, {"verbose", "path="}, 0, 0, ManifestDump},
      {"get_property", "<property_name>", true, true, {}, 1, 1, GetProperty},
      {"list_column_families", "", true, true, {}, 0, 0, ListColumnFamilies},
      {"create_column_family", "<new_column_family_name>", true, true, {}, 1,
       1, CreateColumnFamily},
      {"drop_column_family", "<column_family_name_to_drop>", true, true, {},
       1, 1, DropColumnFamily},
      {"dump_live_files", "", true, true, {}, 0, 0, DumpLiveFiles},
      {"list_live_files_metadata", "[--sort_by_filename]", true, true,
       {"sort_by_filename"}, 0, 0, ListLiveFilesMetadata},
  };
  // clang-format on
  return kCommands;
}

std::string Usage() {
  std::string s =
      "ldb - siftdb Tool (RocksDB ldb's commands and output forms)\n\n"
      "commands MUST specify --db=<full_path_to_db_directory> when "
      "necessary\n\n"
      "The following optional parameters control if keys/values are "
      "input/output as hex or as plain strings:\n"
      "  --key_hex : Keys are input/output as hex (0x6B6579)\n"
      "  --value_hex : Values are input/output as hex\n"
      "  --hex : Both keys and values are input/output as hex\n\n"
      "  --column_family=<string> : name of the column family to operate "
      "on. default: default column family\n\n"
      "Read-only commands (get, scan, dump, approxsize, get_property,\n"
      "manifest_dump, dump_wal, dump_live_files, list_live_files_metadata,\n"
      "checkconsistency) take no lock and never write to the database.\n";
  for (const bool admin : {false, true}) {
    absl::StrAppend(
        &s, admin ? "\nAdmin Commands:\n" : "\nData Access Commands:\n");
    for (const CommandInfo& c : Commands()) {
      if (c.admin == admin)
        absl::StrAppend(&s, "  ", c.name, " ", c.usage, "\n");
    }
  }
  return s;
}

const CommandInfo* FindCommand(const std::string& name) {
  for (const CommandInfo& c : Commands()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

// Splits argv into options, flags, the command and its parameters.
Args Parse(const std::vector<std::string>& argv) {
  Args a;
  for (const std::string& arg : argv) {
    if (arg.size() > 2 && arg.compare(0, 2, "--") == 0) {
      const size_t eq = arg.find('=');
      if (eq == std::string::npos) {
        a.flags.insert(arg.substr(2));
      } else {
        a.options[arg.substr(2, eq - 2)] = arg.substr(eq + 1);
      }
    } else if (a.command.empty()) {
      a.command = arg;
    } else {
      a.params.push_back(arg);
    }
  }
  a.db = a.Option("db").value_or("");
  a.key_hex = a.Flag("hex") || a.Flag("key_hex");
  a.value_hex = a.Flag("hex") || a.Flag("value_hex");
  return a;
}

// The command line against what the command accepts.
absl::Status Check(const Args& a, const CommandInfo& c) {
  auto accepts = [&c](const std::string& name) {
    for (const std::string& x : c.accepts) {
      if (x == name) return true;
    }
    return false;
  };
  for (const std::string& f : a.flags) {
    const bool global = f == "hex" || f == "key_hex" || f == "value_hex";
    if (global || accepts(f)) continue;
    if (f == "db" || f == "column_family" || accepts(f + "=")) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", f, " needs a value (--", f, "=...)"));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid command-line flag --", f, " for ", c.name));
  }
  for (const auto& [name, value] : a.options) {
    if (name == "db" || name == "column_family" || accepts(name + "=")) {
      continue;
    }
    if (accepts(name) || name == "hex" || name == "key_hex" ||
        name == "value_hex") {
      return absl::InvalidArgumentError(absl::StrCat(
          "--", name, " takes no value, got --", name, "=", value));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid command-line option --", name, " for ", c.name));
  }
  const int n = static_cast<int>(a.params.size());
  if (n < c.min_params || (c.max_params >= 0 && n > c.max_params)) {
    return absl::InvalidArgumentError(
        c.max_params == 0
            ? absl::StrCat(c.name, " takes no argument, got '", a.params[0],
                           "'")
            : absl::StrCat(c.name, " needs ", c.usage, ", got ", n,
                           n == 1 ? " argument" : " arguments"));
  }
  if (c.needs_db && a.db.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--db=<path> must be specified for ", c.name));
  }
  return absl::OkStatus();
}

int Run(const std::vector<std::string>& argv) {
  const Args a = Parse(argv);
  if (a.Flag("help")) {
    std::printf("%s", Usage().c_str());
    return 0;
  }
  if (a.command.empty()) {
    std::fprintf(stderr, "No command given (ldb --help lists the commands)\n");
    return 1;
  }
  const CommandInfo* c = FindCommand(a.command);
  if (c == nullptr) {
    std::fprintf(stderr,
                 "Unknown command: %s (ldb --help lists the commands)\n",
                 a.command.c_str());
    return 1;
  }
  absl::Status s = Check(a, *c);
  if (s.ok()) s = c->run(a);
  std::fflush(stdout);
  if (!s.ok()) {
    std::fprintf(stderr, "Failed: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  return 0;
}

}  // namespace

std::optional<std::string> Args::Option(const std::string& name) const {
  auto it = options.find(name);
  if (it == options.end()) return std::nullopt;
  return it->second;
}

std::string ToHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out = "0x";
  for (const char ch : bytes) {
    const unsigned char c = static_cast<unsigned char>(ch);
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 0xf]);
  }
  return out;
}

absl::StatusOr<std::string> FromHex(std::string_view text,
                                    std::string_view what) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid hex input for ", std::string(what), " '",
                     std::string(text), "': ", why));
  };
  if (text.size() < 2 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) {
    return bad("must start with 0x");
  }
  const std::string_view digits = text.substr(2);
  if (digits.size() % 2 != 0) return bad("odd number of hex digits");
  std::string out;
  for (size_t i = 0; i < digits.size(); i += 2) {
    int byte = 0;
    for (const char c : digits.substr(i, 2)) {
      if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) {
        return bad(
            absl::StrCat("'", std::string(1, c), "' is not a hex digit"));
      }
      const int d =
          absl::ascii_isdigit(static_cast<unsigned char>(c))
              ? c - '0'
              : absl::ascii_tolower(static_cast<unsigned char>(c)) - 'a' + 10;
      byte = byte * 16 + d;
    }
    out.push_back(static_cast<char>(byte));
  }
  return out;
}

absl::StatusOr<std::string> KeyArg(const Args& args, std::string_view text) {
  if (!args.key_hex) return std::string(text);
  return FromHex(text, "key");
}

absl::StatusOr<std::string> ValueArg(const Args& args, std::string_view text) {
  if (!args.value_hex) return std::string(text);
  return FromHex(text, "value");
}

std::string KeyOut(const Args& args, std::string_view key) {
  return args.key_hex ? ToHex(key) : std::string(key);
}

std::string ValueOut(const Args& args, std::string_view value) {
  return args.value_hex ? ToHex(value) : std::string(value);
}

absl::StatusOr<std::optional<std::string>> RangeArg(const Args& args,
                                                    const std::string& name) {
  const std::optional<std::string> text = args.Option(name);
  if (!text.has_value()) return std::optional<std::string>();
  if (!args.key_hex) return text;
  absl::StatusOr<std::string> key = FromHex(*text, "--" + name);
  if (!key.ok()) return key.status();
  return std::optional<std::string>(*std::move(key));
}

absl::StatusOr<int64_t> MaxKeysArg(const Args& args) {
  const std::optional<std::string> text = args.Option("max_keys");
  if (!text.has_value()) return -1;
  int64_t n = 0;
  bool ok = !text->empty() && text->size() <= 18;
  for (const char c : *text) {
    ok = ok && absl::ascii_isdigit(static_cast<unsigned char>(c));
    if (ok) n = n * 10 + (c - '0');
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max_keys=", *text, " is not a number of keys (0 or more)"));
  }
  return n;
}

std::string FamilyArg(const Args& args) {
  return args.Option("column_family").value_or(kDefaultColumnFamilyName);
}

absl::Status NoSuchFamily(const Args& args) {
  return absl::NotFoundError(
      absl::StrCat("Column family ", FamilyArg(args), " does not exist in ",
                   args.db, " (list_column_families lists them)"));
}

std::string StatusText(const absl::Status& s) {
  const absl::string_view m = s.message();
  switch (s.code()) {
    case absl::StatusCode::kNotFound:
      return absl::StrCat("NotFound: ", m);
    case absl::StatusCode::kDataLoss:
      return absl::StrCat("Corruption: ", m);
    case absl::StatusCode::kInvalidArgument:
      return absl::StrCat("Invalid argument: ", m);
    case absl::StatusCode::kUnimplemented:
      return absl::StrCat("Not implemented: ", m);
    default:
      return absl::StrCat(absl::StatusCodeToString(s.code()), ": ", m);
  }
}

void Print(std::string_view bytes) {
  std::fwrite(bytes.data(), 1, bytes.size(), stdout);
}

}  // namespace sift::ldb

int main(int argc, char** argv) {
  return sift::ldb::Run(std::vector<std::string>(argv + 1, argv + argc));
}
