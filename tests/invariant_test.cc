// The invariant-check mode (util/invariant.h) catches what it promises to:
// each check below is violated on purpose and must abort the process with
// its message (death tests), and the same calls on valid state must not.
// Without SIFT_INVARIANTS the checks compile to nothing and the tests say
// they are skipped; every build with the tests has the mode on
// (CMakeLists.txt), so a check that silently stopped checking fails here.

#include "util/invariant.h"

#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "db/version_edit.h"
#include "db/version_set.h"
#include "gtest/gtest.h"
#include "sift/env.h"
#include "sift/options.h"
#include "table/internal_key.h"
#include "util/mutex.h"

namespace sift {
namespace {

#define SKIP_WITHOUT_INVARIANTS()                                          \
  do {                                                                     \
    if (!kInvariantChecks) {                                               \
      GTEST_SKIP() << "built without SIFT_INVARIANTS: checks compile out"; \
    }                                                                      \
    GTEST_FLAG_SET(death_test_style, "threadsafe");                        \
  } while (0)

std::string Ikey(std::string_view user_key, SequenceNumber seq) {
  std::string k;
  AppendInternalKey(&k, user_key, seq, kTypeValue);
  return k;
}

std::shared_ptr<FileMetaData> File(uint64_t number, std::string_view smallest,
                                   SequenceNumber smallest_seq,
                                   std::string_view largest,
                                   SequenceNumber largest_seq) {
  auto f = std::make_shared<FileMetaData>();
  f->number = number;
  f->file_size = 1000;
  f->smallest = Ikey(smallest, smallest_seq);
  f->largest = Ikey(largest, largest_seq);
  f->facts = FileFacts();
  f->facts->smallest_seq = 1;
  f->facts->largest_seq = 9;
  return f;
}

TEST(InvariantTest, FailingCheckAbortsNamingIt) {
  SKIP_WITHOUT_INVARIANTS();
  const int files = 2;
  SIFT_INVARIANT(files == 2, "holds");
  EXPECT_DEATH(SIFT_INVARIANT(files == 3, "three files"),
               "invariant violated at .*invariant_test.cc:[0-9]+: files == 3 "
               "\\(three files\\)");
}

TEST(InvariantTest, AssertHeldChecksTheCallingThreadHoldsTheMutex) {
  SKIP_WITHOUT_INVARIANTS();
  Mutex mu;
  EXPECT_DEATH(mu.AssertHeld(), "the calling thread does not hold it");
  {
    MutexLock lock(&mu);
    mu.AssertHeld();  // held: no abort
  }
  // Unlocked again.
  EXPECT_DEATH(mu.AssertHeld(), "does not hold it");
  // Held by another thread is not held by this one.
  mu.Lock();
  std::thread other(
      [&mu] { EXPECT_DEATH(mu.AssertHeld(), "does not hold it"); });
  other.join();
  mu.Unlock();
  // A shared hold is not an exclusive one.
  mu.ReaderLock();
  EXPECT_DEATH(mu.AssertHeld(), "does not hold it");
  mu.ReaderUnlock();
}

TEST(InvariantTest, CondVarWaitGivesTheMutexUpAndTakesItBack) {
  SKIP_WITHOUT_INVARIANTS();
  Mutex mu;
  CondVar cv;
  bool ready = false;
  std::thread signaller([&] {
    MutexLock lock(&mu);  // only possible while the waiter gave mu up
    mu.AssertHeld();
    ready = true;
    cv.SignalAll();
  });
  {
    MutexLock lock(&mu);
    while (!ready) cv.Wait(&mu);
    mu.AssertHeld();  // the waiter owns mu again
  }
  signaller.join();
}

// A VersionSet on an in-memory file system, its MANIFEST created.
class VersionInstallTest : public testing::Test {
 protected:
  void SetUp() override {
    env_ = NewMemEnv();
    options_.env = env_.get();
    ASSERT_TRUE(env_->CreateDir("/db").ok());
    versions_ =
        std::make_unique<VersionSet>("/db", options_, nullptr, env_.get());
    ASSERT_TRUE(versions_->CreateNew().ok());
  }

  absl::Status Apply(VersionEdit* edit) {
    MutexLock lock(&mu_);
    return versions_->LogAndApply(edit, &mu_);
  }

  // What clang's analysis refuses to compile anywhere else: the run-time
  // check must catch it instead.
  absl::Status ApplyWithoutTheMutex(VersionEdit* edit)
      ABSL_NO_THREAD_SAFETY_ANALYSIS {
    return versions_->LogAndApply(edit, &mu_);
  }

  std::unique_ptr<Env> env_;
  Options options_;
  std::unique_ptr<VersionSet> versions_;
  Mutex mu_;
};

TEST_F(VersionInstallTest, ValidVersionsInstall) {
  SKIP_WITHOUT_INVARIANTS();
  VersionEdit edit;
  edit.AddFile(0, File(4, "a", 9, "z", 1));
  edit.AddFile(0, File(7, "b", 9, "c", 1));
  edit.AddFile(1, File(5, "a", 9, "b", 1));
  edit.AddFile(1, File(6, "c", 9, "d", 1));
  ASSERT_TRUE(Apply(&edit).ok());
  EXPECT_EQ(versions_->current()->NumFiles(0), 2);
  EXPECT_EQ(versions_->current()->NumFiles(1), 2);
}

TEST_F(VersionInstallTest, FileWithoutFactsIsCaught) {
  SKIP_WITHOUT_INVARIANTS();
  VersionEdit edit;
  auto f = File(5, "a", 9, "b", 1);
  f->facts.reset();
  edit.AddFile(2, std::move(f));
  EXPECT_DEATH(Apply(&edit).IgnoreError(), "has its facts");
}

TEST_F(VersionInstallTest, InvertedKeyRangeIsCaught) {
  SKIP_WITHOUT_INVARIANTS();
  VersionEdit edit;
  edit.AddFile(0, File(5, "m", 9, "c", 1));
  EXPECT_DEATH(Apply(&edit).IgnoreError(), "smallest key is not above");
}

TEST_F(VersionInstallTest, LastSequenceMovesOnlyForward) {
  SKIP_WITHOUT_INVARIANTS();
  versions_->SetLastSequence(10);
  versions_->SetLastSequence(10);
  versions_->SetLastSequence(11);
  EXPECT_DEATH(versions_->SetLastSequence(9), "only moves forward");
  EXPECT_EQ(versions_->LastSequence(), 11u);
}

TEST_F(VersionInstallTest, LogAndApplyRequiresTheMutex) {
  SKIP_WITHOUT_INVARIANTS();
  VersionEdit edit;
  EXPECT_DEATH(ApplyWithoutTheMutex(&edit).IgnoreError(), "does not hold it");
}

}  // namespace
}  // namespace sift
