#include "tests/testutil/db_bench_output.h"

#include <cstdlib>
#include <regex>
#include <sstream>

namespace sift::test {

// Every line that looks like a report ("name   : ...") must parse fully.
std::vector<ReportLine> ParseReport(const std::string& out) {
  static const std::regex kLine(
      R"(^([a-zA-Z0-9]+) +: +([0-9]+\.[0-9]{3}) micros/op ([0-9]+) ops/sec )"
      R"(([0-9]+\.[0-9]{3}) seconds ([0-9]+) operations;)"
      R"(( +[0-9]+\.[0-9] MB/s)?( \(([0-9]+) of ([0-9]+) found\)|)"
      R"( \( reads:([0-9]+) writes:([0-9]+) total:([0-9]+) found:([0-9]+)\)|)"
      R"( \( updates:([0-9]+) found:([0-9]+)\))?$)");
  static const std::regex kLooksLikeReport(R"(^[a-zA-Z0-9]+ +: )");
  std::vector<ReportLine> lines;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (!std::regex_search(line, kLooksLikeReport)) continue;
    if (line.find(" : skipped (") != std::string::npos) continue;
    std::smatch m;
    EXPECT_TRUE(std::regex_match(line, m, kLine)) << "unparsable: " << line;
    if (m.empty()) continue;
    ReportLine r;
    r.name = m[1];
    r.micros_per_op = std::stod(m[2]);
    r.ops_per_sec = std::stoll(m[3]);
    r.seconds = std::stod(m[4]);
    r.operations = std::stoll(m[5]);
    r.has_found = m[8].matched;
    if (r.has_found) {
      r.found = std::stoll(m[8]);
      r.of = std::stoll(m[9]);
    }
    if (m[10].matched) {
      r.reads = std::stoll(m[10]);
      r.writes = std::stoll(m[11]);
      r.total = std::stoll(m[12]);
      r.found = std::stoll(m[13]);
    }
    if (m[14].matched) {
      r.updates = std::stoll(m[14]);
      r.found = std::stoll(m[15]);
    }
    lines.push_back(r);
  }
  return lines;
}

// "name COUNT : N" lines after "STATISTICS:".
std::map<std::string, uint64_t> ParseStatistics(const std::string& out) {
  static const std::regex kCount(R"(^([a-z0-9.]+) COUNT : ([0-9]+)$)");
  std::map<std::string, uint64_t> counts;
  const size_t at = out.find("STATISTICS:\n");
  if (at == std::string::npos) return counts;
  std::istringstream in(out.substr(at));
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, kCount)) counts[m[1]] = std::stoull(m[2]);
  }
  return counts;
}

std::map<std::string, YcsbLines> ParseYcsb(const std::string& out) {
  static const std::regex kLine(R"(^\[([A-Z-]+)\], ([^,]+), (.*)$)");
  std::map<std::string, YcsbLines> blocks;
  std::string workload;
  std::istringstream in(out);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, kLine)) {
      const std::string value = m[3];
      char* end = nullptr;
      const double v = std::strtod(value.c_str(), &end);
      EXPECT_TRUE(!value.empty() && *end == '\0') << "not a number: " << line;
      blocks[workload][m[1]][m[2]] = v;
      continue;
    }
    const size_t colon = line.find(" : ");
    if (colon == std::string::npos) continue;
    const std::string head = line.substr(0, colon);
    const size_t last = head.find_last_not_of(' ');
    const size_t first = head.find_last_of(' ', last);
    workload =
        head.substr(first == std::string::npos ? 0 : first + 1,
                    last - (first == std::string::npos ? 0 : first + 1) + 1);
  }
  return blocks;
}

}  // namespace sift::test
