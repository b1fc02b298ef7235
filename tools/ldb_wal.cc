// ldb dump_wal: one line per WAL record (one WriteBatch), in RocksDB's
// form: "sequence,count,byte size,physical offset," then each entry as
// "PUT(0) : 0xKEY" (": 0xVALUE" with --print_value), "DELETE(0) : 0xKEY" or
// "DELETE_RANGE(0) : 0xBEGIN 0xEND".
// The (0) is RocksDB's column family id; siftdb has only the default one.
// Keys and values are always hex here, as in RocksDB.

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "db/log_reader.h"
#include "db/write_batch_internal.h"
#include "sift/env.h"
#include "tools/ldb.h"

namespace sift::ldb {
namespace {

class RowPrinter : public WriteBatch::Handler {
 public:
  RowPrinter(bool print_value, std::string* row)
      : print_value_(print_value), row_(row) {}
  void Put(std::string_view key, std::string_view value) override {
    absl::StrAppend(row_, "PUT(0) : ", ToHex(key));
    if (print_value_) absl::StrAppend(row_, " : ", ToHex(value));
    absl::StrAppend(row_, " ");
  }
  void Delete(std::string_view key) override {
    absl::StrAppend(row_, "DELETE(0) : ", ToHex(key), " ");
  }
  void DeleteRange(std::string_view begin, std::string_view end) override {
    absl::StrAppend(row_, "DELETE_RANGE(0) : ", ToHex(begin), " ", ToHex(end),
                    " ");
  }

 private:
  const bool print_value_;
  std::string* const row_;
};

}  // namespace

absl::Status DumpWalFile(const std::string& path, bool print_value,
                         bool header) {
  std::string contents;
  absl::Status s = ReadFileToString(Env::Default(), path, &contents);
  if (!s.ok()) return absl::Status(s.code(), StatusText(s));
  if (header) {
    std::printf("Sequence,Count,ByteSize,Physical Offset,Key(s)%s\n",
                print_value ? " : value " : "");
  }
  log::Reader reader(contents, path);
  std::string_view record;
  std::string scratch;
  WriteBatch batch;
  while (reader.ReadRecord(&record, &scratch)) {
    s = WriteBatchInternal::SetContents(&batch, record);
    std::string row;
    if (s.ok()) {
      row = absl::StrCat(WriteBatchInternal::Sequence(&batch), ",",
                         batch.Count(), ",", record.size(), ",",
                         reader.last_record_offset(), ",");
      RowPrinter printer(print_value, &row);
      s = batch.Iterate(&printer);
    }
    if (!s.ok()) {
      return absl::DataLossError(absl::StrCat(
          "Corruption: ", path, ": record at offset ",
          reader.last_record_offset(), " is not a write batch: ", s.message()));
    }
    Print(absl::StrCat(row, "\n"));
  }
  if (!reader.status().ok()) {
    return absl::Status(reader.status().code(), StatusText(reader.status()));
  }
  if (reader.dropped_tail()) {
    // What a crash in the middle of a write leaves; recovery drops it too.
    std::fprintf(stderr, "%s: incomplete record at offset %llu ignored\n",
                 path.c_str(),
                 static_cast<unsigned long long>(reader.dropped_tail_offset()));
  }
  return absl::OkStatus();
}

absl::Status DumpWal(const Args& a) {
  const std::optional<std::string> path = a.Option("walfile");
  if (!path.has_value() || path->empty()) {
    return absl::InvalidArgumentError(
        "--walfile=<write_ahead_log_file_path> must be specified for "
        "dump_wal");
  }
  return DumpWalFile(*path, a.Flag("print_value"), a.Flag("header"));
}

}  // namespace sift::ldb
