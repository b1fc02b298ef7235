#include "db/compaction/compaction_job.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

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

// One subcompaction's user keys: [begin, end), unbounded where unset.
struct KeyRange {
  std::optional<std::string> begin, end;
};

// The key ranges c is merged in: one (everything) unless c is a level-0
// -> level-1 compaction with several level-1 inputs and max > 1; then up
// to max ranges, cut at level-1 inputs' first keys so that each holds
// about the same level-1 bytes (the level-0 inputs span the whole range
// and spread over the cuts alike).
std::vector<KeyRange> SubcompactionRanges(const Compaction& c, int max) {
  const FileList& lower = c.inputs(1);
  if (max <= 1 || c.level() != 0 || c.output_level() != 1 || lower.size() < 2) {
    return {KeyRange{}};
  }
  const size_t n = std::min(static_cast<size_t>(max), lower.size());
  uint64_t total = 0;
  for (const auto& f : lower) total += f->file_size;
  std::vector<KeyRange> ranges(1);
  uint64_t sum = 0;
  for (size_t i = 0; i + 1 < lower.size() && ranges.size() < n; ++i) {
    sum += lower[i]->file_size;
    // Cut once this range has its share (total * ranges / n so far).
    if (sum * n >= total * ranges.size()) {
      std::string cut(lower[i + 1]->smallest_user_key());
      ranges.back().end = cut;
      ranges.push_back(KeyRange{std::move(cut), std::nullopt});
    }
  }
  return ranges;
}

// Evicts and deletes files a failed compaction wrote.
void DeleteOutputs(const CompactionContext& ctx,
                   const std::vector<std::shared_ptr<FileMetaData>>& files) {
  for (const auto& f : files) {
    ctx.table_cache->Evict(f->number);
    ctx.env->RemoveFile(TableFileName(ctx.dbname, f->number)).IgnoreError();
  }
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

namespace {

// Merges the inputs of c whose user keys fall in range into new files,
// appended to *outputs (on error, deleted again). poll_memtable: this
// range's thread is the one that stops to flush a full memtable.
absl::Status RunRange(Compaction* c, const CompactionContext& ctx,
                      const CompactionRangeDels& range_dels,
                      const KeyRange& range, bool poll_memtable,
                      std::vector<std::shared_ptr<FileMetaData>>* outputs) {
  std::unique_ptr<Iterator> input =
      MakeInputIterator(*c, ctx.table_cache, range_dels.covered_files());
  DropRules drop_rules(ctx.snapshots);
  const KeyComparator& icmp = c->input_version().icmp;
  const std::optional<std::string_view> range_begin =
      range.begin ? std::optional<std::string_view>(*range.begin)
                  : std::nullopt;
  const std::optional<std::string_view> range_end =
      range.end ? std::optional<std::string_view>(*range.end) : std::nullopt;

  std::unique_ptr<OutputFile> out;
  absl::Status status;
  // Range tombstones go to the output whose span holds them: an output
  // spans from where the one before it ended (`lower`) to the first user
  // key of the next (`upper`; unbounded for the last). So an output is
  // finished only once the next one's first key is known: `cut` marks one
  // that is full and waits for it.
  std::string lower(range_begin.value_or(""));
  bool has_lower = range_begin.has_value(), cut = false;
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
    if (s.ok()) outputs->push_back(std::move(meta));
    return s;
  };

  std::string current_user_key;
  bool has_current_user_key = false;
  if (range_begin) {
    input->Seek(LookupKey(*range_begin, kMaxSequenceNumber).internal_key());
  } else {
    input->SeekToFirst();
  }
  for (; input->Valid() && status.ok(); input->Next()) {
    if (poll_memtable && ctx.memtable_waiting != nullptr &&
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
    if (range_end && icmp.CompareUser(parsed.user_key, *range_end) >= 0) {
      break;  // the next range's
    }
    const bool new_key = !has_current_user_key ||
                         !icmp.SameUser(parsed.user_key, current_user_key);
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
                                        ctx.family, ctx.new_file_number(),
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
      !range_dels.ForOutput(range_begin, range_end).empty()) {
    // Every entry was dropped, but some tombstones must stay.
    auto created =
        OutputFile::Create(ctx.dbname, ctx.env, ctx.options, ctx.family,
                           ctx.new_file_number(), c->output_level(), ctx.stats);
    status = created.status();
    if (created.ok()) out = *std::move(created);
  }
  if (status.ok() && out != nullptr) {
    status = finish_output(range_end);
  }
  if (!status.ok()) {
    if (out != nullptr) out->Abandon();
    DeleteOutputs(ctx, *outputs);
    outputs->clear();
  }
  return status;
}

}  // namespace

absl::Status RunCompaction(Compaction* c, const CompactionContext& ctx) {
  ASSIGN_OR_RETURN(
      const CompactionRangeDels range_dels,
      CompactionRangeDels::Load(*c, ctx.table_cache, ctx.snapshots));
  const std::vector<KeyRange> ranges =
      SubcompactionRanges(*c, ctx.options.max_subcompactions);
  // The first range runs on this thread with c (and polls the memtable);
  // each other one on a thread of its own with a copy of c, whose cursors
  // walk only its range. Each writes its own files, disjoint from the
  // others' since the ranges are.
  std::vector<std::unique_ptr<Compaction>> subs;
  std::vector<std::vector<std::shared_ptr<FileMetaData>>> sub_outputs(
      ranges.size());
  std::vector<absl::Status> sub_status(ranges.size());
  std::vector<std::thread> threads;
  for (size_t i = 1; i < ranges.size(); ++i) {
    subs.push_back(c->ForSubcompaction());
    threads.emplace_back([&, i, sub = subs.back().get()] {
      sub_status[i] =
          RunRange(sub, ctx, range_dels, ranges[i], false, &sub_outputs[i]);
    });
  }
  sub_status[0] =
      RunRange(c, ctx, range_dels, ranges[0], true, &sub_outputs[0]);
  for (std::thread& t : threads) t.join();
  std::vector<std::shared_ptr<FileMetaData>> outputs;
  absl::Status status;
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (status.ok()) status = sub_status[i];
    outputs.insert(outputs.end(), sub_outputs[i].begin(), sub_outputs[i].end());
  }
  if (!status.ok()) {
    // A failed range deleted its own outputs; the others' go too.
    DeleteOutputs(ctx, outputs);
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
    if (ranges.size() > 1) {
      ctx.stats->Add(config::kNoLevel, kSubcompactions, ranges.size());
    }
  }
  return absl::OkStatus();
}

}  // namespace sift
