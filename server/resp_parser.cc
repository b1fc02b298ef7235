// RespParser: server/resp_parser.h.

#include "server/resp_parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstring>

namespace sift::server {
namespace {

constexpr char kProto[] = "Protocol error: ";

// Parses a length line's digits ("-1", "42"); false if not an integer.
bool ParseLength(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, *out);
  return ec == std::errc() && p == end;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool SplitArgs(std::string_view line, std::vector<std::string>* out) {
  size_t i = 0;
  const size_t n = line.size();
  while (true) {
    while (i < n && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i == n) return true;
    std::string word;
    bool in_dq = false, in_sq = false, done = false;
    while (!done) {
      if (in_dq) {
        if (i == n) return false;
        if (line[i] == '\\' && i + 3 < n && line[i + 1] == 'x' &&
            HexValue(line[i + 2]) >= 0 && HexValue(line[i + 3]) >= 0) {
          word.push_back(static_cast<char>(HexValue(line[i + 2]) * 16 +
                                           HexValue(line[i + 3])));
          i += 4;
          continue;
        }
        if (line[i] == '\\' && i + 1 < n) {
          const char c = line[++i];
          switch (c) {
            case 'n':
              word.push_back('\n');
              break;
            case 'r':
              word.push_back('\r');
              break;
            case 't':
              word.push_back('\t');
              break;
            case 'b':
              word.push_back('\b');
              break;
            case 'a':
              word.push_back('\a');
              break;
            default:
              word.push_back(c);
              break;
          }
          ++i;
          continue;
        }
        if (line[i] == '"') {
          if (i + 1 < n &&
              !std::isspace(static_cast<unsigned char>(line[i + 1]))) {
            return false;
          }
          ++i;
          done = true;
          continue;
        }
        word.push_back(line[i++]);
      } else if (in_sq) {
        if (i == n) return false;
        if (line[i] == '\\' && i + 1 < n && line[i + 1] == '\'') {
          word.push_back('\'');
          i += 2;
          continue;
        }
        if (line[i] == '\'') {
          if (i + 1 < n &&
              !std::isspace(static_cast<unsigned char>(line[i + 1]))) {
            return false;
          }
          ++i;
          done = true;
          continue;
        }
        word.push_back(line[i++]);
      } else {
        if (i == n || std::isspace(static_cast<unsigned char>(line[i]))) {
          done = true;
        } else if (line[i] == '"') {
          in_dq = true;
          ++i;
        } else if (line[i] == '\'') {
          in_sq = true;
          ++i;
        } else {
          word.push_back(line[i++]);
        }
      }
    }
    out->push_back(std::move(word));
  }
}

void RespParser::Reset() {
  expected_ = -1;
  pos_ = 0;
  spans_.clear();
  wanted_ = 0;
}

RespParser::Result RespParser::Parse(std::string_view buf, size_t* consumed,
                                     std::vector<std::string_view>* args,
                                     std::string* error) {
  *consumed = 0;
  args->clear();
  if (buf.empty()) return Result::kNeedMore;
  if (buf[0] == '*') return ParseMultibulk(buf, consumed, args, error);
  return ParseInline(buf, consumed, args, error);
}

RespParser::Result RespParser::ParseInline(std::string_view buf,
                                           size_t* consumed,
                                           std::vector<std::string_view>* args,
                                           std::string* error) {
  const size_t nl = buf.find('\n');
  if (nl == std::string_view::npos) {
    if (buf.size() > kMaxInline) {
      *error = std::string(kProto) + "too big inline request";
      return Result::kError;
    }
    return Result::kNeedMore;
  }
  if (nl > kMaxInline) {
    *error = std::string(kProto) + "too big inline request";
    return Result::kError;
  }
  std::string_view line = buf.substr(0, nl);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  inline_args_.clear();
  if (!SplitArgs(line, &inline_args_)) {
    *error = std::string(kProto) + "unbalanced quotes in request";
    return Result::kError;
  }
  *consumed = nl + 1;
  if (inline_args_.empty()) return Result::kNeedMore;  // an empty line
  for (const std::string& a : inline_args_) args->push_back(a);
  return Result::kCommand;
}

RespParser::Result RespParser::ParseMultibulk(
    std::string_view buf, size_t* consumed, std::vector<std::string_view>* args,
    std::string* error) {
  // A length line ends within this many bytes, or the stream is garbage.
  constexpr size_t kMaxLengthLine = 64 * 1024;
  const auto fail = [&](const char* what) {
    *error = std::string(kProto) + what;
    Reset();
    return Result::kError;
  };
  // Reads the line at pos_ into *value; 0 if incomplete, -1 if too long.
  const auto read_line = [&](std::string_view* value) -> int {
    const size_t cr = buf.find('\r', pos_);
    if (cr == std::string_view::npos || cr + 1 >= buf.size()) {
      return buf.size() - pos_ > kMaxLengthLine ? -1 : 0;
    }
    if (cr - pos_ > kMaxLengthLine) return -1;
    *value = buf.substr(pos_, cr - pos_);
    pos_ = cr + 2;  // Redis does not check the '\n' either
    return 1;
  };

  if (expected_ < 0) {
    pos_ = 1;
    std::string_view line;
    const int r = read_line(&line);
    if (r < 0) return fail("too big mbulk count string");
    if (r == 0) {
      pos_ = 0;
      return Result::kNeedMore;
    }
    int64_t n;
    if (!ParseLength(line, &n) || n > kMaxMultibulk) {
      return fail("invalid multibulk length");
    }
    if (n <= 0) {  // "*0" and "*-1" are skipped, as Redis does
      *consumed = pos_;
      Reset();
      return Result::kNeedMore;
    }
    expected_ = n;
    spans_.reserve(static_cast<size_t>(std::min<int64_t>(n, 1024)));
  }
  while (static_cast<int64_t>(spans_.size()) < expected_) {
    if (pos_ >= buf.size()) return Result::kNeedMore;
    if (buf[pos_] != '$') {
      char what[64];
      std::snprintf(what, sizeof what, "expected '$', got '%c'", buf[pos_]);
      return fail(what);
    }
    const size_t header = pos_;
    ++pos_;
    std::string_view line;
    const int r = read_line(&line);
    if (r < 0) return fail("too big bulk count string");
    if (r == 0) {
      pos_ = header;
      return Result::kNeedMore;
    }
    int64_t len;
    if (!ParseLength(line, &len) || len < 0 ||
        static_cast<uint64_t>(len) > max_bulk_len_) {
      return fail("invalid bulk length");
    }
    const size_t need = pos_ + static_cast<size_t>(len) + 2;
    if (buf.size() < need) {
      wanted_ = need;
      pos_ = header;
      return Result::kNeedMore;
    }
    wanted_ = 0;
    spans_.emplace_back(pos_, static_cast<size_t>(len));
    pos_ = need;
  }
  args->reserve(spans_.size());
  for (const auto& [off, len] : spans_) args->push_back(buf.substr(off, len));
  *consumed = pos_;
  Reset();
  return Result::kCommand;
}

}  // namespace sift::server
