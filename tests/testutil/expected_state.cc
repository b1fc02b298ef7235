#include "tests/testutil/expected_state.h"

#include <algorithm>
#include <cassert>
#include <set>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sift::test {
namespace {

std::string Show(const std::optional<std::string>& v) {
  if (!v.has_value()) return "<absent>";
  std::string s = v->substr(0, 40);
  return absl::StrCat("'", absl::CEscape(s), v->size() > 40 ? "...'" : "'");
}

// The effect of one write on key: its last operation on it.
std::optional<std::string> EffectOn(const WriteOps& ops,
                                    const std::string& key) {
  std::optional<std::string> v;
  for (const auto& [k, value] : ops) {
    if (k == key) v = value;
  }
  return v;
}

}  // namespace

WriteBatch ToBatch(const WriteOps& ops) {
  WriteBatch batch;
  for (const auto& [key, value] : ops) {
    if (value.has_value()) {
      batch.Put(key, *value);
    } else {
      batch.Delete(key);
    }
  }
  return batch;
}

WriteOps RandomWrite(Random* rnd, uint32_t key_space, int max_batch,
                     uint64_t* last_id) {
  WriteOps ops;
  const int n = rnd->OneIn(5) ? 2 + static_cast<int>(rnd->Uniform(
                                        static_cast<uint32_t>(max_batch - 1)))
                              : 1;
  for (int i = 0; i < n; ++i) {
    std::string key = absl::StrFormat("key%06u", rnd->Uniform(key_space));
    if (rnd->OneIn(8)) {
      ops.emplace_back(std::move(key), std::nullopt);
    } else {
      std::string v = absl::StrCat("w", ++*last_id, "-");
      v.resize(v.size() + 20 + rnd->Uniform(180), 'v');
      ops.emplace_back(std::move(key), std::move(v));
    }
  }
  return ops;
}

void ExpectedState::Add(WriteOps ops, bool durable) {
  const size_t index = writes_.size();
  for (const auto& op : ops) {
    assert(op.first.compare(0, prefix_.size(), prefix_) == 0);
    std::vector<size_t>& t = touched_[op.first];
    if (t.empty() || t.back() != index) t.push_back(index);
  }
  writes_.push_back(std::move(ops));
  if (durable) must_ = writes_.size();
}

std::optional<std::string> ExpectedState::ValueAfter(const std::string& key,
                                                     size_t m) const {
  std::optional<std::string> v;
  auto b = base_.find(key);
  if (b != base_.end()) v = b->second;
  auto t = touched_.find(key);
  if (t == touched_.end()) return v;
  for (size_t i : t->second) {
    if (i >= m) break;
    v = EffectOn(writes_[i], key);
  }
  return v;
}

void ExpectedState::CountConsistentPrefixes(
    const std::string& key, const std::optional<std::string>& seen,
    std::vector<int>* diff) const {
  const size_t total = writes_.size();
  const std::vector<size_t>& idx = touched_.at(key);
  std::optional<std::string> version;
  auto b = base_.find(key);
  if (b != base_.end()) version = b->second;
  // Version j holds for prefixes m in [lo, hi]: before the first touching
  // write it is the base value; after write idx[j-1] it is that write's
  // effect, until the next touching write is included.
  size_t lo = 0;
  for (size_t j = 0; j <= idx.size(); ++j) {
    const size_t hi = j < idx.size() ? idx[j] : total;
    const size_t a = std::max(lo, must_);
    if (version == seen && a <= hi) {
      (*diff)[a] += 1;
      (*diff)[hi + 1] -= 1;
    }
    if (j < idx.size()) {
      version = EffectOn(writes_[idx[j]], key);
      lo = idx[j] + 1;
    }
  }
}

absl::Status ExpectedState::ReadKeys(DB* db, Seen* seen) const {
  std::set<std::string> keys;
  for (const auto& [k, v] : base_) keys.insert(k);
  for (const auto& [k, t] : touched_) keys.insert(k);
  size_t present = 0;
  for (const std::string& k : keys) {
    std::string value;
    absl::Status s = db->Get(ReadOptions(), k, &value);
    if (s.ok()) {
      (*seen)[k] = std::move(value);
      ++present;
    } else if (absl::IsNotFound(s)) {
      (*seen)[k] = std::nullopt;
    } else {
      return absl::Status(
          s.code(), absl::StrCat("Get(", absl::CEscape(k), "): ", s.message()));
    }
  }
  // The iterator must agree with Get and show no key nobody wrote.
  std::unique_ptr<Iterator> it = db->NewIterator(ReadOptions());
  size_t iterated = 0;
  for (it->Seek(prefix_); it->Valid(); it->Next(), ++iterated) {
    const std::string k(it->key());
    if (k.compare(0, prefix_.size(), prefix_) != 0) break;
    auto s = seen->find(k);
    if (s == seen->end() || s->second != std::string(it->value())) {
      return absl::InternalError(
          absl::StrCat("iterator shows ", absl::CEscape(k), " = ",
                       Show(std::string(it->value())), " but Get gave ",
                       s == seen->end() ? "nothing (a key never written)"
                                        : Show(s->second)));
    }
  }
  if (!it->status().ok()) return it->status();
  if (iterated != present) {
    return absl::InternalError(absl::StrCat("iterator shows ", iterated,
                                            " keys, Get finds ", present));
  }
  return absl::OkStatus();
}

absl::StatusOr<size_t> ExpectedState::LongestConsistentPrefix(
    const Seen& seen) const {
  const size_t total = writes_.size();
  std::vector<int> diff(total + 2, 0);
  for (const auto& [k, value] : seen) {
    if (touched_.count(k) > 0) {
      CountConsistentPrefixes(k, value, &diff);
    } else if (value != ValueAfter(k, 0)) {
      return absl::InternalError(absl::StrCat(
          "key ", absl::CEscape(k), " holds ", Show(value), ", expected ",
          Show(ValueAfter(k, 0)), " (no write since the last check)"));
    }
  }
  // Summing diff gives, for each m, the keys consistent with "the DB holds
  // exactly the first m writes". Take the longest prefix all agree with.
  std::optional<size_t> match;
  size_t best = must_;
  int running = 0, best_count = -1;
  for (size_t m = 0; m <= total; ++m) {
    running += diff[m];
    if (m < must_) continue;
    if (running == static_cast<int>(touched_.size())) match = m;
    if (running > best_count) {
      best_count = running;
      best = m;
    }
  }
  if (match.has_value()) return *match;
  std::string why = absl::StrCat(
      "the DB matches no prefix of the writes: ", total,
      " writes since the last check, the first ", must_,
      " durable; the closest prefix, ", best, " writes, disagrees on");
  int shown = 0;
  for (const auto& [k, value] : seen) {
    if (touched_.count(k) == 0 || value == ValueAfter(k, best)) continue;
    if (++shown > 5) break;
    absl::StrAppend(&why, " ", absl::CEscape(k), " (holds ", Show(value),
                    ", expected ", Show(ValueAfter(k, best)), ")");
  }
  return absl::InternalError(why);
}

absl::Status ExpectedState::Verify(DB* db, size_t* found) {
  Seen seen;
  absl::Status s = ReadKeys(db, &seen);
  if (!s.ok()) return s;
  absl::StatusOr<size_t> match = LongestConsistentPrefix(seen);
  if (!match.ok()) return match.status();
  for (size_t i = 0; i < *match; ++i) {
    for (const auto& [k, v] : writes_[i]) {
      if (v.has_value()) {
        base_[k] = *v;
      } else {
        base_.erase(k);
      }
    }
  }
  writes_.clear();
  touched_.clear();
  must_ = 0;
  if (found != nullptr) *found = *match;
  return absl::OkStatus();
}

}  // namespace sift::test
