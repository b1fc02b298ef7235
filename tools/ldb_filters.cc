// ldb rebuild_filters: DB::RebuildFilters with the filter options given on
// the command line (siftdb keeps no options file, so the options a rebuild
// aims at are named here; the rest are the defaults, as for every ldb
// command).

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "db/filename.h"
#include "sift/db.h"
#include "sift/env.h"
#include "tools/ldb.h"
#include "util/filter.h"

namespace sift::ldb {
namespace {

absl::Status BadOption(const std::string& name, const std::string& value,
                       std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("--", name, "=", value, ": ", std::string(why)));
}

absl::Status NumberOption(const Args& a, const std::string& name, double* out) {
  const std::optional<std::string> text = a.Option(name);
  if (!text.has_value()) return absl::OkStatus();
  if (!absl::SimpleAtod(*text, out)) {
    return BadOption(name, *text, "not a number");
  }
  return absl::OkStatus();
}

// An int option; a number that is not a whole int (too large for one
// included) is refused by name.
absl::Status IntOption(const Args& a, const std::string& name, int* out) {
  const std::optional<std::string> text = a.Option(name);
  if (!text.has_value()) return absl::OkStatus();
  if (!absl::SimpleAtoi(*text, out)) {
    return BadOption(name, *text, "not a whole number in the range of an int");
  }
  return absl::OkStatus();
}

absl::StatusOr<Options> FilterOptions(const Args& a) {
  Options options;
  absl::Status s = NumberOption(a, "bloom_filter_fp_chance",
                                &options.bloom_filter_fp_chance);
  if (s.ok()) {
    s = NumberOption(a, "filter_bits_per_key_budget",
                     &options.filter_bits_per_key_budget);
  }
  if (s.ok())
    s = IntOption(a, "bloom_before_level", &options.bloom_before_level);
  if (!s.ok()) return s;
  if (const auto layout = a.Option("filter_layout"); layout.has_value()) {
    if (!ParseFilterLayout(*layout, &options.filter_layout)) {
      return BadOption("filter_layout", *layout,
                       "must be blocked, standard or ribbon");
    }
  }
  return options;
}

}  // namespace

absl::Status RebuildFilters(const Args& a) {
  absl::StatusOr<Options> options = FilterOptions(a);
  if (!options.ok()) return options.status();
  // Checked first, so a mistyped path is not left holding a new directory.
  if (!Env::Default()->FileExists(CurrentFileName(a.db))) {
    return NoCurrentError(Env::Default(), a.db, "nothing created");
  }
  absl::StatusOr<OpenDB> db = OpenFamilies(a, *options, /*read_only=*/false);
  if (!db.ok()) return db.status();
  const absl::Status s = (*db)->RebuildFilters(db->cf);
  if (!s.ok()) {
    return absl::Status(
        s.code(), absl::StrCat("Rebuilding filters failed: ", StatusText(s)));
  }
  const Statistics stats = (*db)->GetStatistics();
  std::printf(
      "OK: %llu filters rebuilt, %llu bytes written\n",
      static_cast<unsigned long long>(stats.Get(kFilterRebuilds)),
      static_cast<unsigned long long>(stats.Get(kFilterRebuildBytesWritten)));
  return absl::OkStatus();
}

}  // namespace sift::ldb
