// Fuzz target: bytes a client sends to sift-server, through its RESP parser
// (server/resp_parser.h), with a small proto-max-bulk-len so the limits are
// reached.
//
// Checked beyond memory safety: the parser, fed the stream whole and fed it
// in pieces (split where the first input byte says), yields the same
// commands and stops at the same protocol error (it is resumable); every
// consumed count stays within the bytes given; and each command a multibulk
// gave, written back as RESP, parses to the same arguments.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/resp_parser.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

using sift::server::RespParser;

constexpr uint64_t kMaxBulk = 4096;

struct Outcome {
  std::vector<std::vector<std::string>> commands;
  std::string error;
};

// Parses `stream`, offering the parser at most `step` new bytes at a time
// (0: everything at once), as a connection would as its reads arrive.
Outcome ParseAll(std::string_view stream, size_t step) {
  Outcome out;
  RespParser parser(kMaxBulk);
  std::string buf;
  size_t fed = 0;
  std::vector<std::string_view> args;
  while (true) {
    size_t consumed = 0;
    std::string error;
    const RespParser::Result r = parser.Parse(buf, &consumed, &args, &error);
    FUZZ_CHECK(consumed <= buf.size(), "consumed more than was given");
    if (r == RespParser::Result::kError) {
      FUZZ_CHECK(!error.empty(), "an error without a message");
      out.error = error;
      return out;
    }
    if (r == RespParser::Result::kCommand) {
      FUZZ_CHECK(!args.empty(), "a command without arguments");
      std::vector<std::string> cmd;
      for (std::string_view a : args) {
        FUZZ_CHECK(a.size() <= kMaxBulk || buf[0] != '*',
                   "a bulk over the limit was accepted");
        cmd.emplace_back(a);
      }
      out.commands.push_back(std::move(cmd));
    }
    buf.erase(0, consumed);
    if (r == RespParser::Result::kNeedMore && consumed == 0) {
      if (fed == stream.size()) return out;  // the rest is incomplete
      const size_t n =
          step == 0 ? stream.size() - fed : std::min(step, stream.size() - fed);
      buf.append(stream.substr(fed, n));
      fed += n;
    }
  }
}

std::string ToResp(const std::vector<std::string>& cmd) {
  std::string s = "*" + std::to_string(cmd.size()) + "\r\n";
  for (const std::string& a : cmd) {
    s += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  }
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t step = 1 + data[0] % 17;
  const std::string_view stream(reinterpret_cast<const char*>(data) + 1,
                                size - 1);
  const Outcome whole = ParseAll(stream, 0);
  const Outcome pieces = ParseAll(stream, step);
  FUZZ_CHECK(whole.commands == pieces.commands,
             "commands differ when the stream arrives in pieces");
  FUZZ_CHECK(whole.error == pieces.error,
             "the protocol error differs when the stream arrives in pieces");
  for (const auto& cmd : whole.commands) {
    bool fits = true;  // an inline argument may be longer than a bulk may
    for (const std::string& a : cmd) fits &= a.size() <= kMaxBulk;
    if (!fits) continue;
    const Outcome again = ParseAll(ToResp(cmd), 0);
    FUZZ_CHECK(again.error.empty() && again.commands.size() == 1 &&
                   again.commands[0] == cmd,
               "a command written back as RESP parses differently");
  }
  return 0;
}
