#include "db/filename.h"

#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "util/status_macros.h"

namespace sift {
namespace {

std::string Numbered(const std::string& db, uint64_t number,
                     const char* suffix) {
  return absl::StrFormat("%s/%06u.%s", db, number, suffix);
}

bool ParseNumber(std::string_view digits, uint64_t* number) {
  if (digits.empty()) return false;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
  }
  return absl::SimpleAtoi(absl::string_view(digits.data(), digits.size()),
                          number);
}

}  // namespace

std::string LogFileName(const std::string& db, uint64_t number) {
  return Numbered(db, number, "log");
}
std::string TableFileName(const std::string& db, uint64_t number) {
  return Numbered(db, number, "sst");
}
std::string TempFileName(const std::string& db, uint64_t number) {
  return Numbered(db, number, "dbtmp");
}
std::string FilterFileName(const std::string& db, uint64_t number) {
  return Numbered(db, number, "filter");
}
std::string ManifestFileName(const std::string& db, uint64_t number) {
  return absl::StrFormat("%s/MANIFEST-%06u", db, number);
}
std::string CurrentFileName(const std::string& db) { return db + "/CURRENT"; }
std::string LockFileName(const std::string& db) { return db + "/LOCK"; }

namespace {

// Parses name loosely: any run of digits as the number.
bool ParseFileNameForm(std::string_view name, uint64_t* number,
                       FileType* type) {
  if (name == "CURRENT") {
    *number = 0;
    *type = FileType::kCurrent;
    return true;
  }
  if (name == "LOCK") {
    *number = 0;
    *type = FileType::kLock;
    return true;
  }
  constexpr std::string_view kManifest = "MANIFEST-";
  if (name.substr(0, kManifest.size()) == kManifest) {
    *type = FileType::kManifest;
    return ParseNumber(name.substr(kManifest.size()), number);
  }
  const size_t dot = name.find('.');
  if (dot == std::string_view::npos) return false;
  const std::string_view suffix = name.substr(dot + 1);
  if (suffix == "log") {
    *type = FileType::kLog;
  } else if (suffix == "sst") {
    *type = FileType::kTable;
  } else if (suffix == "dbtmp") {
    *type = FileType::kTemp;
  } else if (suffix == "filter") {
    *type = FileType::kFilter;
  } else {
    return false;
  }
  return ParseNumber(name.substr(0, dot), number);
}

}  // namespace

bool ParseFileName(std::string_view name, uint64_t* number, FileType* type) {
  if (!ParseFileNameForm(name, number, type)) return false;
  // Exactly the name the DB would give the file: "7.log", "0000007.log"
  // or "MANIFEST-3" may be someone else's, and are never read or deleted.
  std::string path;
  switch (*type) {
    case FileType::kLog:
      path = LogFileName("", *number);
      break;
    case FileType::kTable:
      path = TableFileName("", *number);
      break;
    case FileType::kManifest:
      path = ManifestFileName("", *number);
      break;
    case FileType::kTemp:
      path = TempFileName("", *number);
      break;
    case FileType::kFilter:
      path = FilterFileName("", *number);
      break;
    case FileType::kCurrent:
    case FileType::kLock:
      return true;
  }
  return std::string_view(path).substr(1) == name;
}

absl::Status NoCurrentError(Env* env, const std::string& db,
                            std::string_view why_nothing_made) {
  absl::StatusOr<std::vector<std::string>> children = env->GetChildren(db);
  for (const std::string& name :
       children.ok() ? *children : std::vector<std::string>()) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(name, &number, &type)) continue;
    bool holds_data = type == FileType::kTable;
    if (type == FileType::kLog) {
      const absl::StatusOr<uint64_t> size =
          env->GetFileSize(absl::StrCat(db, "/", name));
      if (!size.ok()) return size.status();
      holds_data = *size > 0;
    }
    if (holds_data) {
      return absl::DataLossError(absl::StrCat(db, ": has database files (",
                                              name, ") but no CURRENT file"));
    }
  }
  return absl::FailedPreconditionError(absl::StrCat(
      db, ": no database here (", std::string(why_nothing_made), ")"));
}

absl::Status SetCurrentFile(Env* env, const std::string& db,
                            uint64_t manifest_number) {
  const std::string manifest = ManifestFileName(db, manifest_number);
  const std::string contents =
      absl::StrCat(manifest.substr(db.size() + 1), "\n");
  const std::string tmp = TempFileName(db, manifest_number);
  absl::Status s = WriteStringToFile(env, contents, tmp, /*sync=*/true);
  if (s.ok()) s = env->RenameFile(tmp, CurrentFileName(db));
  if (!s.ok()) {
    env->RemoveFile(tmp).IgnoreError();
    return s;
  }
  return env->SyncDir(db);
}

}  // namespace sift
