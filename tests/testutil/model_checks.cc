#include "tests/testutil/model_checks.h"

#include "absl/strings/str_cat.h"

namespace sift::test {

absl::Status CheckScan(Iterator* it, const ModelMap& model, bool forward) {
  size_t n = 0;
  auto check = [&](auto m, auto end) -> absl::Status {
    for (; it->Valid(); forward ? it->Next() : it->Prev(), ++m, ++n) {
      if (m == end) {
        return absl::InternalError(
            absl::StrCat("extra key ", std::string(it->key())));
      }
      if (it->key() != m->first) {
        return absl::InternalError(absl::StrCat(
            "scan found ", std::string(it->key()), ", expected ", m->first));
      }
      if (it->value() != m->second) {
        return absl::InternalError(
            absl::StrCat("wrong value at key ", m->first));
      }
    }
    return absl::OkStatus();
  };
  absl::Status s;
  if (forward) {
    it->SeekToFirst();
    s = check(model.begin(), model.end());
  } else {
    it->SeekToLast();
    s = check(model.rbegin(), model.rend());
  }
  if (!s.ok()) return s;
  if (!it->status().ok()) return it->status();
  if (n != model.size()) {
    return absl::InternalError(
        absl::StrCat("scan ended early: ", n, " of ", model.size(), " keys"));
  }
  return absl::OkStatus();
}

absl::Status CheckSeekWalk(Iterator* it, const ModelMap& model,
                           const std::string& target, Random* rnd) {
  it->Seek(target);
  auto pos = model.lower_bound(target);
  const int steps = static_cast<int>(rnd->Uniform(30));
  for (int step = 0;; ++step) {
    if (pos == model.end()) {
      if (it->Valid()) {
        return absl::InternalError(absl::StrCat("step ", step, ": valid at ",
                                                std::string(it->key()),
                                                " past the end"));
      }
      break;
    }
    if (!it->Valid() || it->key() != pos->first || it->value() != pos->second) {
      return absl::InternalError(absl::StrCat(
          "step ", step, ": expected ", pos->first, ", got ",
          it->Valid() ? std::string(it->key()) : std::string("invalid"), " ",
          it->status().ToString()));
    }
    if (step == steps) break;
    if (rnd->OneIn(2)) {
      it->Next();
      ++pos;
    } else {
      it->Prev();
      if (pos == model.begin()) {
        if (it->Valid()) {
          return absl::InternalError("valid after Prev from the first key");
        }
        break;
      }
      --pos;
    }
  }
  return it->status();
}

}  // namespace sift::test
