#include "db/file_meta.h"

#include <bit>
#include <cmath>

#include "util/bloom.h"
#include "util/coding.h"
#include "util/ribbon.h"

namespace sift {
namespace {

void PutDouble(std::string* dst, double v) {
  PutFixed64(dst, std::bit_cast<uint64_t>(v));
}

bool GetDouble(std::string_view* input, double* v) {
  uint64_t bits;
  if (!GetFixed64(input, &bits)) return false;
  *v = std::bit_cast<double>(bits);
  return true;
}

void EncodeFilterFacts(const FilterFacts& f, std::string* dst) {
  dst->push_back(static_cast<char>(f.layout));
  PutDouble(dst, f.fp_chance);
  PutDouble(dst, f.bits_per_key);
  PutVarint64(dst, f.num_keys);
}

bool DecodeFilterFacts(std::string_view* input, FilterFacts* f) {
  if (input->empty()) return false;
  // Any layout byte is kept: one this build does not know is simply never
  // "current" (FilterIsCurrent).
  f->layout = static_cast<FilterLayout>(static_cast<uint8_t>((*input)[0]));
  input->remove_prefix(1);
  return GetDouble(input, &f->fp_chance) &&
         GetDouble(input, &f->bits_per_key) &&
         GetVarint64(input, &f->num_keys) && f->fp_chance > 0 &&
         f->fp_chance <= 1.0 && std::isfinite(f->bits_per_key) &&
         f->bits_per_key >= 0;
}

}  // namespace

uint64_t FilterBytes(const FilterFacts& f) {
  if (!(f.fp_chance < 1.0)) return 0;
  const double body_bits = f.bits_per_key * static_cast<double>(f.num_keys);
  const size_t trailer = f.layout == FilterLayout::kRibbon ? kRibbonTrailerSize
                                                           : kBloomTrailerSize;
  return static_cast<uint64_t>(std::llround(body_bits / 8)) + trailer;
}

FileFacts FactsFromProperties(const TableProperties& props,
                              SequenceNumber last_sequence) {
  FileFacts f;
  f.num_entries = props.num_entries;
  f.num_deletions = props.num_deletions;
  f.num_range_deletions = props.num_range_deletions;
  f.smallest_seq = 0;
  f.largest_seq = last_sequence;
  f.filter.layout = props.filter_layout;
  f.filter.fp_chance = props.bloom_filter_fp_chance;
  f.filter.bits_per_key = props.filter_bits_per_key;
  f.filter.num_keys = props.filter_num_keys;
  return f;
}

bool FilterIsCurrent(const FileFacts& facts, const FilterTarget& target) {
  const FilterFacts& f = facts.read_filter();
  const bool has_filter = f.fp_chance < 1.0;
  if (target.fp_chance >= 1.0) return !has_filter;
  return has_filter && f.layout == target.layout &&
         f.fp_chance <= target.fp_chance * target.tolerance &&
         f.fp_chance * target.tolerance >= target.fp_chance;
}

void EncodeFileFacts(const FileFacts& facts, std::string* dst) {
  PutVarint64(dst, facts.num_entries);
  PutVarint64(dst, facts.num_deletions);
  PutVarint64(dst, facts.smallest_seq);
  PutVarint64(dst, facts.largest_seq);
  EncodeFilterFacts(facts.filter, dst);
  dst->push_back(facts.replacement ? 1 : 0);
  if (facts.replacement) {
    PutVarint64(dst, facts.replacement->number);
    PutVarint64(dst, facts.replacement->size);
    EncodeFilterFacts(facts.replacement->filter, dst);
  }
  // Format 3: the global sequence, absent (or, from format 4, 0) for a
  // file that was not ingested. Format 4: the range tombstone count, absent
  // when 0; present, it needs the global sequence before it. So files that
  // are neither ingested nor hold range tombstones encode as in format 2.
  if (facts.global_sequence != 0 || facts.num_range_deletions != 0) {
    PutVarint64(dst, facts.global_sequence);
  }
  if (facts.num_range_deletions != 0) {
    PutVarint64(dst, facts.num_range_deletions);
  }
}

bool DecodeFileFacts(std::string_view src, FileFacts* facts) {
  *facts = FileFacts();
  std::string_view in = src;
  if (!GetVarint64(&in, &facts->num_entries) ||
      !GetVarint64(&in, &facts->num_deletions) ||
      !GetVarint64(&in, &facts->smallest_seq) ||
      !GetVarint64(&in, &facts->largest_seq) ||
      !DecodeFilterFacts(&in, &facts->filter) || in.empty()) {
    return false;
  }
  if (facts->num_deletions > facts->num_entries ||
      facts->smallest_seq > facts->largest_seq ||
      facts->largest_seq > kMaxSequenceNumber) {
    return false;
  }
  const uint8_t replacements = static_cast<uint8_t>(in[0]);
  in.remove_prefix(1);
  if (replacements > 1) return false;
  if (replacements == 1) {
    ReplacementFilter r;
    if (!GetVarint64(&in, &r.number) || !GetVarint64(&in, &r.size) ||
        !DecodeFilterFacts(&in, &r.filter)) {
      return false;
    }
    facts->replacement = r;
  }
  if (in.empty()) return true;
  if (!GetVarint64(&in, &facts->global_sequence)) return false;
  if (facts->global_sequence == 0) {
    // Written only to make room for the range tombstone count.
    return GetVarint64(&in, &facts->num_range_deletions) &&
           facts->num_range_deletions != 0;
  }
  if (facts->global_sequence != facts->smallest_seq ||
      facts->global_sequence != facts->largest_seq) {
    return false;
  }
  if (!in.empty() && !GetVarint64(&in, &facts->num_range_deletions)) {
    return false;
  }
  return true;  // anything left is a field of a later format
}

}  // namespace sift
