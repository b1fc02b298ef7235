#include "db/compaction/compaction_job.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "db/builder.h"
#include "db/compaction/compaction_range_del.h"
#include "db/filename.h"
#include "db/iterator/level_iterator.h"
#include "db/iterator/merging_iterator.h"
#include "util/status_macros.h"

namespace sift {

namespace {

// Iterates c's inputs, but for the files in `skip` (never opened).
std::unique_ptr<Iterator> MakeInputIterator(const Compaction& c,
                                            TableCache* cache,
                                            const std::set<uint64_t>& skip) {
  ReadOptions options;
  options.fill_cache = false;  // a one-time scan: keep the working set
  std::vector<std::unique_ptr<Iterator>> iters;
  const KeyComparator& icmp = c.input_version().icmp;
  for (int which = 0; which < 2; ++which) {
    FileList files;
    for (const auto& f : c.inputs(which)) {
      if (!skip.count(f->number)) files.push_back(f);
    }
    if (files.empty()) continue;
    const int level = which == 0 ? c.level() : c.output_level();
    if (level == 0) {
      for (const auto& f : files) {
        iters.push_back(NewLevelIterator(icmp, options, cache, FileList{f}));
      }
    } else {
      iters.push_back(NewLevelIterator(icmp, options, cache, files));
    }
  }
  return NewMergingIterator(icmp, std::move(iters));
}

}  // namespace

DropRules::DropRules(const std::vector<SequenceNumber>& snapshots)
    : snapshots_(snapshots),
      oldest_snapshot_(snapshots.empty() ? kMaxSequenceNumber
                                         : snapshots.front()) {}

bool DropRules::VisibleToSomeSnapshot(SequenceNumber seq) const {
  if (newer_seq_ > kMaxSequenceNumber) return true;  // the newest: latest
  // The newer entry counts whether it was kept or dropped: either way no
  // snapshot at or above its sequence sees this one.
  auto it = std::lower_bound(snapshots_.begin(), snapshots_.end(), seq);
  return it != snapshots_.end() && *it < newer_seq_;
}

DropReason DropRules::Next(const ParsedInternalKey& entry, bool new_key,
                           absl::FunctionRef<bool()> base_level,
                           absl::FunctionRef<bool()> range_deleted) {
  if (new_key) newer_seq_ = UINT64_MAX;
  DropReason reason = DropReason::kKeep;
  if (!VisibleToSomeSnapshot(entry.sequence)) {
    reason = DropReason::kShadowed;
  } else if (entry.type == kTypeDeletion &&
             entry.sequence <= oldest_snapshot_ && base_level()) {
    // Every reader sees the tombstone and nothing older exists below: the
    // older entries here are dropped as shadowed.
    reason = DropReason::kTombstoneAtBottom;
  } else if (range_deleted()) {
    reason = DropReason::kRangeDeleted;
  }
  newer_seq_ = entry.sequence;
  return reason;
}

absl::Status RunCompaction(Compaction* c, const CompactionContext& ctx) {
  ASSIGN_OR_RETURN(
      const CompactionRangeDels range_dels,
      CompactionRangeDels::Load(*c, ctx.table_cache, ctx.snapshots));
  std::unique_ptr<Iterator> input =
      MakeInputIterator(*c, ctx.table_cache, range_dels.covered_files());
  DropRules drop_rules(ctx.snapshots);

  std::vector<std::shared_ptr<FileMetaData>> outputs;
  std::unique_ptr<OutputFile> out;
  absl::Status status;
  // Range tombstones go to the output whose span holds them: an output
  // spans from where the one before it ended (`lower`) to the first user
  // key of the next (`upper`; unbounded for the last). So an output is
  // finished only once the next one's first key is known: `cut` marks one
  // that is full and waits for it.
  std::string lower;
  bool has_lower = false, cut = false;
  auto finish_output =
      [&](std::optional<std::string_view> upper) -> absl::Status {
    for (const RangeTombstone& t : range_dels.ForOutput(
             has_lower ? std::optional<std::string_view>(lower) : std::nullopt,
             upper)) {
      out->AddRangeTombstone(t);
    }
    if (upper) {
      lower.assign(*upper);
      has_lower = true;
    }
    cut = false;
    auto meta = std::make_shared<FileMetaData>();
    absl::Status s = out->Finish(ctx.table_cache, meta.get());
    out.reset();
    if (s.ok()) outputs.push_back(std::move(meta));
    return s;
  };

  std::string current_user_key;
  bool has_current_user_key = false;
  for (input->SeekToFirst(); input->Valid() && status.ok(); input->Next()) {
    if (ctx.memtable_waiting != nullptr &&
        ctx.memtable_waiting->load(std::memory_order_acquire)) {
      status = ctx.flush_memtable();
      if (!status.ok()) break;
    }
    const std::string_view ikey = input->key();
    ParsedInternalKey parsed;
    if (!ParseInternalKey(ikey, &parsed)) {
      status = absl::DataLossError("compaction input holds a malformed key");
      break;
    }
    const bool new_key =
        !has_current_user_key ||
        !c->input_version().icmp.SameUser(parsed.user_key, current_user_key);
    if (new_key) {
      // Files end only between user keys. A file ending inside one key's
      // versions would let a later compaction move or rewrite the newer
      // half alone: a read would then find the older half first, or a
      // tombstone dropped at the bottom would resurrect it.
      if (out != nullptr && (c->ShouldStopBefore(ikey) ||
                             out->FileSize() >= c->max_output_file_size())) {
        cut = true;
      }
      current_user_key.assign(parsed.user_key);
      has_current_user_key = true;
    }
    const DropReason drop = drop_rules.Next(
        parsed, new_key, [&] { return c->IsBaseLevelForKey(parsed.user_key); },
        [&] {
          return !range_dels.empty() &&
                 range_dels.Covers(parsed.user_key, parsed.sequence);
        });
    if (drop != DropReason::kKeep) continue;
    if (cut) {
      status = finish_output(parsed.user_key);
      if (!status.ok()) break;
    }
    if (out == nullptr) {
      auto created = OutputFile::Create(ctx.dbname, ctx.env, ctx.options,
                                        ctx.new_file_number(),
                                        c->output_level(), ctx.stats);
      if (!created.ok()) {
        status = created.status();
        break;
      }
      out = *std::move(created);
    }
    status = out->Add(ikey, input->value());
  }
  if (status.ok()) status = input->status();
  if (status.ok() && out == nullptr &&
      !range_dels.ForOutput(std::nullopt, std::nullopt).empty()) {
    // Every entry was dropped, but some tombstones must stay.
    auto created =
        OutputFile::Create(ctx.dbname, ctx.env, ctx.options,
                           ctx.new_file_number(), c->output_level(), ctx.stats);
    status = created.status();
    if (created.ok()) out = *std::move(created);
  }
  if (status.ok() && out != nullptr) {
    status = finish_output(std::nullopt);
  }
  if (!status.ok()) {
    if (out != nullptr) out->Abandon();
    for (const auto& f : outputs) {
      ctx.table_cache->Evict(f->number);
      ctx.env->RemoveFile(TableFileName(ctx.dbname, f->number)).IgnoreError();
    }
    return status;
  }
  c->AddInputDeletions(c->edit());
  uint64_t bytes_written = 0;
  for (auto& f : outputs) {
    bytes_written += f->file_size;
    c->edit()->AddFile(c->output_level(), std::move(f));
  }
  if (ctx.stats != nullptr) {
    ctx.stats->Add(config::kNoLevel, kCompactions);
    ctx.stats->Add(config::kNoLevel, kCompactionBytesRead, c->InputBytes());
    ctx.stats->Add(config::kNoLevel, kCompactionBytesWritten, bytes_written);
  }
  return absl::OkStatus();
}

}  // namespace sift
