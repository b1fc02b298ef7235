#include "tests/testutil/mem_db_test.h"

#include <cstdint>
#include <utility>

#include "absl/strings/str_format.h"

namespace sift::test {

MemDBTest::MemDBTest() : env_(NewMemEnv()) {
  options_.env = env_.get();
  options_.create_if_missing = true;
}

void MemDBTest::Open() {
  db_.reset();
  auto db = DB::Open(options_, path_);
  ASSERT_TRUE(db.ok()) << db.status();
  db_ = *std::move(db);
}

std::string MemDBTest::Get(std::string_view key, const Snapshot* snap) {
  ReadOptions ro;
  ro.snapshot = snap;
  std::string v;
  const absl::Status s = db_->Get(ro, key, &v);
  if (absl::IsNotFound(s)) return "NOT_FOUND";
  if (!s.ok()) return "ERROR: " + s.ToString();
  return v;
}

std::string NumberedKey(int i) { return absl::StrFormat("key%06d", i); }

std::string NumberedValue(int i) {
  return absl::StrFormat("value-%d-%0100d", i, i);
}

void MemDBTest::PutScattered(int from, int to) {
  const int n = to - from;
  for (int i = 0; i < n; ++i) {
    const int k = from + static_cast<int>((int64_t{i} * 7919) % n);
    ASSERT_TRUE(
        db_->Put(WriteOptions(), NumberedKey(k), NumberedValue(k)).ok());
  }
}

}  // namespace sift::test
