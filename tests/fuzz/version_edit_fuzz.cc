// Fuzz target: the input is a MANIFEST payload, a VersionEdit (db/FORMAT.md,
// "MANIFEST payload"), decoded with VersionEdit::DecodeFrom.
//
// Checked beyond memory safety: a failed decode is DataLoss; an edit that
// decodes re-encodes to bytes that decode to the same edit, and that
// encoding is a fixed point (decode + encode gives it back unchanged).

#include <string>

#include "absl/status/status.h"
#include "db/version_edit.h"
#include "tests/fuzz/fuzz_common.h"

namespace sift {
namespace {

bool SameFiles(const VersionEdit& a, const VersionEdit& b) {
  if (a.new_files_.size() != b.new_files_.size()) return false;
  for (size_t i = 0; i < a.new_files_.size(); ++i) {
    const auto& [la, fa] = a.new_files_[i];
    const auto& [lb, fb] = b.new_files_[i];
    if (la != lb || fa->number != fb->number ||
        fa->file_size != fb->file_size || fa->smallest != fb->smallest ||
        fa->largest != fb->largest || fa->facts != fb->facts) {
      return false;
    }
  }
  return true;
}

bool SameEdit(const VersionEdit& a, const VersionEdit& b) {
  return a.log_number_ == b.log_number_ &&
         a.next_file_number_ == b.next_file_number_ &&
         a.last_sequence_ == b.last_sequence_ &&
         a.format_version_ == b.format_version_ &&
         a.comparator_ == b.comparator_ &&
         a.compact_pointers_ == b.compact_pointers_ &&
         a.deleted_files_ == b.deleted_files_ && SameFiles(a, b);
}

}  // namespace
}  // namespace sift

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sift;
  VersionEdit edit;
  const absl::Status s = edit.DecodeFrom(fuzz::AsView(data, size));
  if (!s.ok()) {
    FUZZ_CHECK(absl::IsDataLoss(s), s.ToString());
    return 0;
  }
  (void)edit.DebugString();
  std::string encoded;
  edit.EncodeTo(&encoded);
  VersionEdit again;
  const absl::Status s2 = again.DecodeFrom(encoded);
  FUZZ_CHECK(s2.ok(), s2.ToString());
  FUZZ_CHECK(SameEdit(edit, again), "decode(encode(edit)) == edit");
  std::string encoded2;
  again.EncodeTo(&encoded2);
  FUZZ_CHECK(encoded == encoded2, "encode(decode(encode(edit))) is stable");
  return 0;
}
