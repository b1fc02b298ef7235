// Fuzz target: the input is a WAL or MANIFEST (db/FORMAT.md, "Record
// format") read with log::Reader; every record is then decoded as a
// WriteBatch (WriteBatchInternal::SetContents + Iterate) and as a
// VersionEdit, as recovery does. Each input is read as given and again
// after FixLogChecksums, so mutated lengths, types and payloads get past
// the fragment checksums.
//
// Checked beyond memory safety: the reader ends with OK or DataLoss and
// stays ended; offsets it reports lie inside the log; and the records of a
// log read without damage, written again with log::Writer, read back the
// same (the writer and reader agree on the format).

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "db/log_reader.h"
#include "db/log_writer.h"
#include "db/version_edit.h"
#include "db/write_batch_internal.h"
#include "sift/env.h"
#include "sift/write_batch.h"
#include "tests/fuzz/fuzz_common.h"

namespace sift {
namespace {

void DecodePayload(std::string_view record) {
  WriteBatch batch;
  if (WriteBatchInternal::SetContents(&batch, record).ok()) {
    (void)WriteBatchInternal::Verify(&batch);
  }
  VersionEdit edit;
  (void)edit.DecodeFrom(record);
}

// Reads every record of `log`; *clean says the log ended without damage.
std::vector<std::string> ReadAll(const std::string& log, bool* clean) {
  log::Reader reader(log, "fuzz.log");
  std::vector<std::string> records;
  std::string scratch;
  std::string_view record;
  while (reader.ReadRecord(&record, &scratch)) {
    FUZZ_CHECK(reader.last_record_offset() < log.size() || log.empty(),
               "record offset inside the log");
    // A record holds at least its 7-byte header per fragment.
    FUZZ_CHECK(records.size() <= log.size() / 7, "record count bound");
    records.emplace_back(record);
  }
  const absl::Status& s = reader.status();
  FUZZ_CHECK(s.ok() || absl::IsDataLoss(s), s.ToString());
  FUZZ_CHECK(!reader.ReadRecord(&record, &scratch), "an ended reader stays");
  if (reader.dropped_tail()) {
    FUZZ_CHECK(reader.dropped_tail_offset() < log.size(),
               "dropped tail offset inside the log");
  }
  *clean = s.ok() && !reader.dropped_tail();
  return records;
}

void CheckRewrite(const std::vector<std::string>& records) {
  std::unique_ptr<Env> env = NewMemEnv();
  auto file = env->NewWritableFile("/rewritten.log");
  FUZZ_CHECK(file.ok(), file.status().ToString());
  {
    log::Writer writer(file->get());
    for (const std::string& r : records) {
      FUZZ_CHECK(writer.AddRecord(r).ok(), "AddRecord");
    }
  }
  FUZZ_CHECK((*file)->Close().ok(), "Close");
  std::string rewritten;
  FUZZ_CHECK(ReadFileToString(env.get(), "/rewritten.log", &rewritten).ok(),
             "read back");
  bool clean = false;
  FUZZ_CHECK(ReadAll(rewritten, &clean) == records && clean,
             "records survive a rewrite");
}

void ReadLog(const std::string& log) {
  bool clean = false;
  const std::vector<std::string> records = ReadAll(log, &clean);
  for (const std::string& r : records) DecodePayload(r);
  if (clean) CheckRewrite(records);
}

}  // namespace
}  // namespace sift

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string log(sift::fuzz::AsView(data, size));
  sift::ReadLog(log);
  std::string fixed = log;
  sift::fuzz::FixLogChecksums(&fixed);
  if (fixed != log) sift::ReadLog(fixed);
  return 0;
}
