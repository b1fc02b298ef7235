// GetProperty: the DB's state as text.

#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "db/db_impl/db_impl.h"

namespace sift {
namespace {

constexpr std::string_view kPrefix = "sift.";

// The fp chances of the filters files at a level are read with (from the
// files' facts), e.g. "0.01" or "0.01,1"; "-" for an empty level.
std::string FpChances(const FileList& files) {
  std::map<double, int> seen;
  for (const auto& f : files) ++seen[f->facts->read_filter().fp_chance];
  if (seen.empty()) return "-";
  std::string s;
  for (const auto& [p, n] : seen) {
    absl::StrAppendFormat(&s, "%s%g", s.empty() ? "" : ",", p);
  }
  return s;
}

// The filters readers use for a set of files (replacements in place of
// what they replace), from the files' facts.
struct FilterTotals {
  uint64_t bytes = 0, keys = 0;
  double bits = 0;  // filter bodies' bits

  void Add(const FilterTotals& o) {
    bytes += o.bytes;
    keys += o.keys;
    bits += o.bits;
  }
  double BitsPerKey() const {
    return keys == 0 ? 0 : bits / static_cast<double>(keys);
  }
};

FilterTotals FilterTotalsOf(const FileList& files) {
  FilterTotals t;
  for (const auto& f : files) {
    const FilterFacts& filter = f->facts->read_filter();
    if (!(filter.fp_chance < 1.0)) continue;
    t.bytes += FilterBytes(filter);
    t.keys += filter.num_keys;
    t.bits += filter.bits_per_key * static_cast<double>(filter.num_keys);
  }
  return t;
}

const char* ModeName(WALRecoveryMode mode) {
  switch (mode) {
    case WALRecoveryMode::kTolerateCorruptedTailRecords:
      return "kTolerateCorruptedTailRecords";
    case WALRecoveryMode::kAbsoluteConsistency:
      return "kAbsoluteConsistency";
    case WALRecoveryMode::kPointInTimeRecovery:
      return "kPointInTimeRecovery";
    case WALRecoveryMode::kSkipAnyCorruptedRecords:
      return "kSkipAnyCorruptedRecords";
  }
  return "?";
}

}  // namespace

Statistics DBImpl::GetStatistics() {
  Statistics all = stats_.Snapshot();
  MutexLock l(&mu_);
  AddStatistics(dropped_read_stats_, &all);
  for (const auto& cfd : versions_->families()) {
    AddStatistics(cfd->read_stats()->Snapshot(), &all);
  }
  return all;
}

std::optional<std::string> DBImpl::GetProperty(std::string_view name) {
  return GetPropertyImpl(default_cf_, name);
}

std::optional<std::string> DBImpl::GetPropertyImpl(ColumnFamilyData* cfd,
                                                   std::string_view name) {
  const Options& options = cfd->options();
  TableCache* const table_cache = cfd->table_cache();
  if (name.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const std::string_view what = name.substr(kPrefix.size());
  std::shared_ptr<const Version> v;
  size_t mem_bytes = 0;
  {
    MutexLock l(&mu_);
    // Manual steps count as compactions too: every one registered.
    if (what == "num-running-compactions") {
      return absl::StrCat(cfd->NumRunning());
    }
    if (what == "num-running-flushes") return flush_running_ ? "1" : "0";
    v = cfd->current();
    mem_bytes = (cfd->mem != nullptr ? cfd->mem->ApproximateMemoryUsage() : 0) +
                (cfd->imm != nullptr ? cfd->imm->ApproximateMemoryUsage() : 0);
  }
  constexpr std::string_view kNumFiles = "num-files-at-level";
  if (what.substr(0, kNumFiles.size()) == kNumFiles) {
    int level;
    const std::string_view arg = what.substr(kNumFiles.size());
    if (!absl::SimpleAtoi(absl::string_view(arg.data(), arg.size()), &level) ||
        level < 0 || level >= config::kNumLevels) {
      return std::nullopt;
    }
    return absl::StrCat(v->NumFiles(level));
  }
  if (what == "levels") {
    std::string s =
        "Level Files Size(MB)  Target(MB)  FpChance\n"
        "------------------------------------------\n";
    for (int level = 0; level < config::kNumLevels; ++level) {
      const double target =
          level == 0
              ? 0
              : static_cast<double>(cfd->MaxBytesForLevel(level)) / 1048576.0;
      absl::StrAppendFormat(
          &s, "%5d %5d %9.2f %11.1f  %s\n", level, v->NumFiles(level),
          static_cast<double>(v->LevelBytes(level)) / 1048576.0, target,
          FpChances(v->files[level]));
    }
    return s;
  }
  if (what == "filter-stats") {
    // This family's reads; a DB with other families adds a row of all.
    const Statistics stats = cfd->read_stats()->Snapshot();
    std::string s =
        absl::StrFormat("%-5s %12s %12s %12s %12s %10s  %s  %s %s\n", "Level",
                        "checked", "useful", "positive", "true_pos", "observed",
                        "fp_chance", "bits_per_key", "filter_bytes");
    FilterTotals all;
    for (int level = 0; level < config::kNumLevels; ++level) {
      const auto& c = stats.level[level];
      const FilterTotals t = FilterTotalsOf(v->files[level]);
      all.Add(t);
      absl::StrAppendFormat(
          &s, "%-5d %12u %12u %12u %12u %10.6f  %s  %.3f %u\n", level,
          c[kBloomFilterChecked], c[kBloomFilterUseful],
          c[kBloomFilterFullPositive], c[kBloomFilterFullTruePositive],
          stats.ObservedFpRateAtLevel(level), FpChances(v->files[level]),
          t.BitsPerKey(), t.bytes);
    }
    // The memtables' filters: checked is useful + positive.
    const uint64_t mem_useful = stats.Get(kMemtableFilterUseful);
    const uint64_t mem_positive = stats.Get(kMemtableFilterPositive);
    const uint64_t mem_tp = stats.Get(kMemtableFilterTruePositive);
    const double mem_negatives =
        static_cast<double>(mem_useful + mem_positive - mem_tp);
    absl::StrAppendFormat(
        &s, "%-5s %12u %12u %12u %12u %10.6f  %s\n", "mem",
        mem_useful + mem_positive, mem_useful, mem_positive, mem_tp,
        mem_negatives > 0
            ? static_cast<double>(mem_positive - mem_tp) / mem_negatives
            : 0.0,
        "-");
    // The total row's fp chance column: the options' (or the budget's).
    const std::string target =
        options.filter_bits_per_key_budget > 0
            ? absl::StrFormat("budget:%g", options.filter_bits_per_key_budget)
            : absl::StrFormat("%g", options.bloom_filter_fp_chance);
    absl::StrAppendFormat(
        &s, "%-5s %12u %12u %12u %12u %10.6f  %s  %.3f %u\n", "total",
        stats.Get(kBloomFilterChecked), stats.Get(kBloomFilterUseful),
        stats.Get(kBloomFilterFullPositive),
        stats.Get(kBloomFilterFullTruePositive), stats.ObservedFpRate(), target,
        all.BitsPerKey(), all.bytes);
    bool several = false;
    {
      MutexLock l(&mu_);
      several = versions_->families().size() > 1;
    }
    if (several) {
      const Statistics db = GetStatistics();
      absl::StrAppendFormat(
          &s, "%-5s %12u %12u %12u %12u %10.6f\n", "db",
          db.Get(kBloomFilterChecked), db.Get(kBloomFilterUseful),
          db.Get(kBloomFilterFullPositive),
          db.Get(kBloomFilterFullTruePositive), db.ObservedFpRate());
    }
    return s;
  }
  if (what == "filter-bytes" || what == "filter-keys") {
    FilterTotals all;
    for (const auto& level : v->files) all.Add(FilterTotalsOf(level));
    return absl::StrCat(what == "filter-bytes" ? all.bytes : all.keys);
  }
  if (what == "memory") {
    return absl::StrFormat(
        "memtables: %u\nfilters: %u\nindexes: %u\nblock cache: %u\n"
        "open tables: %d\n",
        mem_bytes, table_cache->FilterMemory(), table_cache->IndexMemory(),
        block_cache_->TotalCharge(), table_cache->NumOpenTables());
  }
  if (what == "sstables") {
    std::string s;
    for (int level = 0; level < config::kNumLevels; ++level) {
      absl::StrAppendFormat(&s, "--- level %d ---\n", level);
      for (const auto& f : v->files[level]) {
        absl::StrAppendFormat(&s, " %u:%u[%s .. %s]\n", f->number, f->file_size,
                              InternalKeyDebugString(f->smallest),
                              InternalKeyDebugString(f->largest));
      }
    }
    return s;
  }
  if (what == "wal-recovery") {
    MutexLock l(&mu_);
    const WalRecoveryStats& r = wal_recovery_;
    return absl::StrCat(
        "mode: ", ModeName(options_.wal_recovery_mode),
        "\nlogs replayed: ", r.logs, "\nrecords replayed: ", r.records,
        "\ndamaged records dropped or skipped: ", r.damaged_regions,
        "\nbytes dropped: ", r.dropped_bytes,
        "\nlogs dropped: ", r.logs_dropped,
        "\nfirst damage: ", r.first_damage.empty() ? "none" : r.first_damage,
        "\n");
  }
  if (what == "stats") {
    const Statistics stats = GetStatistics();  // the whole DB's
    std::string s = stats.ToString();
    absl::StrAppendFormat(&s, "observed filter fp rate: %.6f (fp chance %g)\n",
                          stats.ObservedFpRate(),
                          options.bloom_filter_fp_chance);
    {
      MutexLock l(&mu_);
      absl::StrAppend(&s, cfd->LevelSummary(), "\n");
    }
    return s;
  }
  return std::nullopt;
}

}  // namespace sift
