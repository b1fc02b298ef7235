#include "tests/testutil/mem_db_test.h"

#include <utility>

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

}  // namespace sift::test
