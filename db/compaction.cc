#include "db/compaction.h"

#include <algorithm>

#include "db/builder.h"
#include "db/filename.h"
#include "db/level_iterator.h"
#include "table/merging_iterator.h"
#include "util/status_macros.h"

namespace sift {

Compaction::Compaction(int level, int output_level,
                       uint64_t max_output_file_size,
                       std::shared_ptr<const Version> input_version)
    : level_(level),
      output_level_(output_level),
      max_output_file_size_(max_output_file_size),
      input_version_(std::move(input_version)) {}

uint64_t Compaction::InputBytes() const {
  uint64_t sum = 0;
  for (const auto& in : inputs_) {
    for (const auto& f : in) sum += f->file_size;
  }
  return sum;
}

bool Compaction::IsTrivialMove(const Options& options) const {
  if (output_level_ == level_ || inputs_[0].size() != 1 ||
      !inputs_[1].empty()) {
    return false;
  }
  uint64_t grandparent_bytes = 0;
  for (const auto& f : grandparents_) grandparent_bytes += f->file_size;
  if (grandparent_bytes >
      config::kMaxGrandparentOverlapFiles * max_output_file_size_) {
    return false;
  }
  // A move keeps the old filter: only if it was built the way new files
  // would be.
  return FilterIsCurrent(*inputs_[0][0]->facts, options);
}

void Compaction::AddInputDeletions(VersionEdit* edit) const {
  for (const auto& f : inputs_[0]) edit->RemoveFile(level_, f->number);
  for (const auto& f : inputs_[1]) edit->RemoveFile(output_level_, f->number);
}

bool Compaction::IsBaseLevelForKey(std::string_view user_key) {
  for (int l = output_level_ + 1; l < config::kNumLevels; ++l) {
    const FileList& files = input_version_->files[l];
    while (level_ptrs_[l] < files.size()) {
      const auto& f = files[level_ptrs_[l]];
      if (user_key <= f->largest_user_key()) {
        if (user_key >= f->smallest_user_key()) return false;
        break;
      }
      ++level_ptrs_[l];
    }
  }
  return true;
}

bool Compaction::ShouldStopBefore(std::string_view ikey) {
  while (grandparent_index_ < grandparents_.size() &&
         CompareInternalKeys(ikey, grandparents_[grandparent_index_]->largest) >
             0) {
    if (seen_key_) {
      overlapped_bytes_ += grandparents_[grandparent_index_]->file_size;
    }
    ++grandparent_index_;
  }
  seen_key_ = true;
  if (overlapped_bytes_ >
      config::kMaxGrandparentOverlapFiles * max_output_file_size_) {
    overlapped_bytes_ = 0;
    return true;
  }
  return false;
}

namespace {

std::unique_ptr<Iterator> MakeInputIterator(const Compaction& c,
                                            TableCache* cache) {
  ReadOptions options;
  options.fill_cache = false;  // a one-time scan: keep the working set
  std::vector<std::unique_ptr<Iterator>> iters;
  for (int which = 0; which < 2; ++which) {
    const FileList& files = c.inputs(which);
    if (files.empty()) continue;
    const int level = which == 0 ? c.level() : c.output_level();
    if (level == 0) {
      for (const auto& f : files) {
        iters.push_back(NewLevelIterator(options, cache, FileList{f}));
      }
    } else {
      iters.push_back(NewLevelIterator(options, cache, files));
    }
  }
  return NewMergingIterator(std::move(iters));
}

// Whether an entry is still needed: some snapshot (or the latest state)
// sees it as the newest entry of its key. Snapshots sees entry `seq` iff
// seq <= S < newer_seq, where newer_seq is the sequence of the next newer
// entry of the same key (after the previous entry was kept or not).
bool VisibleToSomeSnapshot(const std::vector<SequenceNumber>& snapshots,
                           SequenceNumber seq, uint64_t newer_seq) {
  if (newer_seq > kMaxSequenceNumber)
    return true;  // the newest: latest sees it
  auto it = std::lower_bound(snapshots.begin(), snapshots.end(), seq);
  return it != snapshots.end() && *it < newer_seq;
}

}  // namespace

absl::Status RunCompaction(Compaction* c, const CompactionContext& ctx) {
  std::unique_ptr<Iterator> input = MakeInputIterator(*c, ctx.table_cache);
  // Anything at or below this sequence is seen by every reader.
  const SequenceNumber oldest_snapshot =
      ctx.snapshots.empty() ? kMaxSequenceNumber : ctx.snapshots.front();

  std::vector<std::shared_ptr<FileMetaData>> outputs;
  std::unique_ptr<OutputFile> out;
  absl::Status status;
  auto finish_output = [&]() -> absl::Status {
    auto meta = std::make_shared<FileMetaData>();
    absl::Status s = out->Finish(ctx.table_cache, meta.get());
    out.reset();
    if (s.ok()) outputs.push_back(std::move(meta));
    return s;
  };

  std::string current_user_key;
  bool has_current_user_key = false;
  uint64_t newer_seq = UINT64_MAX;  // sequence of the previous entry of the key
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
    if (!has_current_user_key || parsed.user_key != current_user_key) {
      // Files end only between user keys. A file ending inside one key's
      // versions would let a later compaction move or rewrite the newer
      // half alone: a read would then find the older half first, or a
      // tombstone dropped at the bottom would resurrect it.
      if (out != nullptr && (c->ShouldStopBefore(ikey) ||
                             out->FileSize() >= c->max_output_file_size())) {
        status = finish_output();
        if (!status.ok()) break;
      }
      current_user_key.assign(parsed.user_key);
      has_current_user_key = true;
      newer_seq = UINT64_MAX;
    }
    bool drop = false;
    if (!VisibleToSomeSnapshot(ctx.snapshots, parsed.sequence, newer_seq)) {
      drop = true;  // shadowed for every reader
    } else if (parsed.type == kTypeDeletion &&
               parsed.sequence <= oldest_snapshot &&
               c->IsBaseLevelForKey(parsed.user_key)) {
      // Every reader sees the tombstone and nothing older exists below:
      // the older entries here are dropped by the rule above.
      drop = true;
    }
    newer_seq = parsed.sequence;
    if (drop) continue;
    if (out == nullptr) {
      auto created = OutputFile::Create(ctx.dbname, ctx.env, ctx.options,
                                        ctx.new_file_number());
      if (!created.ok()) {
        status = created.status();
        break;
      }
      out = *std::move(created);
    }
    status = out->Add(ikey, input->value());
  }
  if (status.ok()) status = input->status();
  if (status.ok() && out != nullptr) {
    status = finish_output();
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
