#include "db/builder.h"

#include <algorithm>
#include <utility>

#include "db/filename.h"
#include "sift/rate_limiter.h"
#include "util/status_macros.h"

namespace sift {
namespace {

// Charges every append to Options::rate_limiter before the file sees it.
class RateLimitedFile final : public WritableFile {
 public:
  RateLimitedFile(std::unique_ptr<WritableFile> file, RateLimiter* limiter,
                  IOPriority priority, Env* env, StatisticsImpl* stats)
      : file_(std::move(file)),
        limiter_(limiter),
        priority_(priority),
        env_(env),
        stats_(stats) {}

  absl::Status Append(std::string_view data) override {
    const uint64_t start = env_->NowMicros();
    limiter_->Request(static_cast<int64_t>(data.size()), priority_);
    if (stats_ != nullptr) {
      stats_->Add(config::kNoLevel, kRateLimiterBytes, data.size());
      stats_->Add(config::kNoLevel, kRateLimiterWaitMicros,
                  env_->NowMicros() - start);
    }
    return file_->Append(data);
  }
  absl::Status Flush() override { return file_->Flush(); }
  absl::Status Sync() override { return file_->Sync(); }
  absl::Status Close() override { return file_->Close(); }

 private:
  const std::unique_ptr<WritableFile> file_;
  RateLimiter* const limiter_;
  const IOPriority priority_;
  Env* const env_;
  StatisticsImpl* const stats_;
};

}  // namespace

OutputFile::OutputFile(std::string path, Env* env, uint64_t number,
                       std::unique_ptr<WritableFile> file,
                       const Options& options, const TableFamily& family,
                       int level)
    : path_(std::move(path)),
      env_(env),
      number_(number),
      file_(std::move(file)),
      builder_(std::make_unique<TableBuilder>(
          options, file_.get(), FilterLayoutForLevel(options, level))) {
  builder_->SetColumnFamily(family.id, family.name);
}

OutputFile::~OutputFile() {
  if (!done_) Abandon();
}

absl::StatusOr<std::unique_ptr<OutputFile>> OutputFile::Create(
    const std::string& dbname, Env* env, const Options& options,
    const TableFamily& family, uint64_t number, int level,
    StatisticsImpl* stats) {
  std::string path = TableFileName(dbname, number);
  ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                   env->NewWritableFile(path));
  if (options.rate_limiter != nullptr) {
    file = std::make_unique<RateLimitedFile>(
        std::move(file), options.rate_limiter.get(),
        level == 0 ? IOPriority::kHigh : IOPriority::kLow, env, stats);
  }
  return std::unique_ptr<OutputFile>(new OutputFile(
      std::move(path), env, number, std::move(file), options, family, level));
}

absl::Status OutputFile::Add(std::string_view ikey, std::string_view value) {
  RETURN_IF_ERROR(builder_->Add(ikey, value));
  // The builder checked that ikey parses.
  ParsedInternalKey parsed;
  ParseInternalKey(ikey, &parsed);
  smallest_seq_ = std::min(smallest_seq_, parsed.sequence);
  largest_seq_ = std::max(largest_seq_, parsed.sequence);
  return absl::OkStatus();
}

void OutputFile::AddRangeTombstone(const RangeTombstone& t) {
  builder_->AddRangeTombstone(t);
  smallest_seq_ = std::min(smallest_seq_, t.seq);
  largest_seq_ = std::max(largest_seq_, t.seq);
  if (!has_tombstones_ || CompareUserKeys(t.begin, tombstone_begin_) < 0) {
    tombstone_begin_ = t.begin;
  }
  if (!has_tombstones_ || CompareUserKeys(t.end, tombstone_end_) > 0) {
    tombstone_end_ = t.end;
  }
  has_tombstones_ = true;
}

// The tombstones' user keys widen the range only where they pass the point
// keys' user keys. The bounds they give sort before every real entry of
// their user key, and an end bound (type kTypeRangeDeletion, the largest
// trailer) before a begin bound of the same user key: a file whose
// tombstones were cut at key k ends before the next file, which starts at
// k, whether that one starts with an entry of k or a tombstone from k.
void OutputFile::WidenForTombstones(FileMetaData* meta) const {
  const bool points = builder_->NumEntries() > 0;
  if (!points ||
      CompareUserKeys(tombstone_begin_, meta->smallest_user_key()) < 0) {
    meta->smallest.clear();
    AppendInternalKey(&meta->smallest, tombstone_begin_, kMaxSequenceNumber,
                      kValueTypeForSeek);
  }
  if (!points ||
      CompareUserKeys(tombstone_end_, meta->largest_user_key()) > 0) {
    meta->largest.clear();
    AppendInternalKey(&meta->largest, tombstone_end_, kMaxSequenceNumber,
                      kTypeRangeDeletion);
  }
}

absl::Status OutputFile::Finish(TableCache* cache, FileMetaData* meta) {
  absl::Status s = builder_->Finish();
  if (s.ok()) s = file_->Sync();
  if (s.ok()) s = file_->Close();
  if (s.ok()) {
    meta->number = number_;
    meta->file_size = builder_->FileSize();
    meta->smallest = builder_->smallest_key();
    meta->largest = builder_->last_key();
    if (has_tombstones_) WidenForTombstones(meta);
    FileFacts facts = FactsFromProperties(builder_->properties(), 0);
    facts.smallest_seq = std::min(smallest_seq_, largest_seq_);
    facts.largest_seq = largest_seq_;
    meta->facts = facts;
    s = cache->Open(*meta).status();
  }
  if (!s.ok()) {
    Abandon();
    return s;
  }
  done_ = true;
  return s;
}

void OutputFile::Abandon() {
  done_ = true;
  builder_->Abandon();
  file_.reset();
  env_->RemoveFile(path_).IgnoreError();
}

absl::Status BuildTable(const std::string& dbname, Env* env,
                        const Options& options, const TableFamily& family,
                        TableCache* cache, Iterator* iter, uint64_t number,
                        FileMetaData* meta,
                        const std::vector<RangeTombstone>& range_tombstones,
                        StatisticsImpl* stats) {
  meta->file_size = 0;
  iter->SeekToFirst();
  if (!iter->Valid() && (!iter->status().ok() || range_tombstones.empty())) {
    return iter->status();
  }
  ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> out,
                   OutputFile::Create(dbname, env, options, family, number,
                                      /*level=*/0, stats));
  for (; iter->Valid(); iter->Next()) {
    RETURN_IF_ERROR(out->Add(iter->key(), iter->value()));
  }
  RETURN_IF_ERROR(iter->status());
  for (const RangeTombstone& t : range_tombstones) out->AddRangeTombstone(t);
  return out->Finish(cache, meta);
}

}  // namespace sift
