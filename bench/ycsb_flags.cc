#include "bench/ycsb_flags.h"

#include <cstdint>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"

ABSL_FLAG(int64_t, ycsb_record_count, 1000000,
          "YCSB's recordcount: records ycsbload inserts, and the records "
          "the workloads expect (the --num of the ycsb benchmarks).");
ABSL_FLAG(int64_t, ycsb_operation_count, 1000000,
          "YCSB's operationcount: operations of each ycsba .. ycsbf run, "
          "over all --threads.");
ABSL_FLAG(int32_t, ycsb_field_count, 10,
          "YCSB's fieldcount: fields per record.");
ABSL_FLAG(int32_t, ycsb_field_length, 100,
          "YCSB's fieldlength: bytes per field.");
ABSL_FLAG(int32_t, ycsb_max_scan_length, 100,
          "YCSB's maxscanlength: ycsbe scans 1 to this many records "
          "(uniform).");
ABSL_FLAG(std::string, ycsb_request_distribution, "",
          "YCSB's requestdistribution for every workload: zipfian, uniform "
          "or latest. Empty: each workload's own (latest for ycsbd, zipfian "
          "for the others).");
ABSL_FLAG(bool, ycsb_write_all_fields, false,
          "YCSB's writeallfields: an update writes a whole new record "
          "without reading it, instead of reading the record and replacing "
          "one field.");

namespace sift::bench {

absl::Status YcsbConfigFromFlags(ycsb::Config* c) {
  const int64_t records = absl::GetFlag(FLAGS_ycsb_record_count);
  const int64_t ops = absl::GetFlag(FLAGS_ycsb_operation_count);
  if (records < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ycsb_record_count=", records, ": must be at least 1"));
  }
  if (ops < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ycsb_operation_count=", ops, ": is negative"));
  }
  c->record_count = static_cast<uint64_t>(records);
  c->operation_count = static_cast<uint64_t>(ops);
  c->field_count = absl::GetFlag(FLAGS_ycsb_field_count);
  c->field_length = absl::GetFlag(FLAGS_ycsb_field_length);
  c->max_scan_length = absl::GetFlag(FLAGS_ycsb_max_scan_length);
  c->write_all_fields = absl::GetFlag(FLAGS_ycsb_write_all_fields);
  const std::string dist = absl::GetFlag(FLAGS_ycsb_request_distribution);
  if (!dist.empty()) {
    ycsb::Distribution d;
    if (!ycsb::ParseDistribution(dist, &d)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--ycsb_request_distribution=", dist,
                       ": must be zipfian, uniform or latest"));
    }
    c->distribution = d;
  }
  absl::Status s = ycsb::ValidateConfig(*c);
  if (!s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--ycsb_", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace sift::bench
