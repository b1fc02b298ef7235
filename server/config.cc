// ServerConfig: server/config.h.

#include "server/config.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/resp_parser.h"

namespace sift::server {
namespace {

bool ParseInt(std::string_view s, int64_t* out) {
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, *out);
  return !s.empty() && ec == std::errc() && p == end;
}

bool ParseDouble(std::string_view s, double* out) {
  const std::string copy(s);
  char* end = nullptr;
  *out = std::strtod(copy.c_str(), &end);
  return !copy.empty() && end == copy.c_str() + copy.size() &&
         std::isfinite(*out);
}

absl::Status Bad(std::string_view name, std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("'", std::string(name), "': ", std::string(why)));
}

const char* FsyncName(FsyncPolicy p) {
  switch (p) {
    case FsyncPolicy::kAlways:
      return "always";
    case FsyncPolicy::kEverySec:
      return "everysec";
    case FsyncPolicy::kNo:
      return "no";
  }
  return "everysec";
}

}  // namespace

bool ParseMemory(std::string_view s, uint64_t* out) {
  const std::string lower = absl::AsciiStrToLower(std::string(s));
  size_t digits = 0;
  while (digits < lower.size() && lower[digits] >= '0' &&
         lower[digits] <= '9') {
    ++digits;
  }
  if (digits == 0) return false;
  const std::string_view unit = std::string_view(lower).substr(digits);
  uint64_t mul;
  if (unit.empty() || unit == "b") {
    mul = 1;
  } else if (unit == "k") {
    mul = 1000;
  } else if (unit == "kb") {
    mul = 1024;
  } else if (unit == "m") {
    mul = 1000 * 1000;
  } else if (unit == "mb") {
    mul = 1024 * 1024;
  } else if (unit == "g") {
    mul = 1000ull * 1000 * 1000;
  } else if (unit == "gb") {
    mul = 1024ull * 1024 * 1024;
  } else {
    return false;
  }
  uint64_t v;
  auto [p, ec] = std::from_chars(lower.data(), lower.data() + digits, v);
  if (ec != std::errc() || p != lower.data() + digits) return false;
  if (v > std::numeric_limits<uint64_t>::max() / mul) return false;
  *out = v * mul;
  return true;
}

absl::Status ApplyConfig(const std::vector<std::string>& args,
                         ServerConfig* c) {
  if (args.empty()) return absl::OkStatus();
  const std::string name = absl::AsciiStrToLower(args[0]);
  const auto one = [&]() -> absl::Status {
    if (args.size() != 2) return Bad(name, "takes exactly one argument");
    return absl::OkStatus();
  };
  const auto integer = [&](int64_t lo, int64_t hi, int64_t* v) {
    if (absl::Status s = one(); !s.ok()) return s;
    if (!ParseInt(args[1], v) || *v < lo || *v > hi) {
      return Bad(name, absl::StrCat("'", args[1], "' is not an integer in [",
                                    lo, ", ", hi, "]"));
    }
    return absl::OkStatus();
  };
  const auto memory = [&](uint64_t lo, uint64_t* v) {
    if (absl::Status s = one(); !s.ok()) return s;
    if (!ParseMemory(args[1], v) || *v < lo) {
      return Bad(name, absl::StrCat("'", args[1],
                                    "' is not a size of at "
                                    "least ",
                                    lo, " (e.g. 512mb)"));
    }
    return absl::OkStatus();
  };
  int64_t i;
  if (name == "db" || name == "dir") {
    if (absl::Status s = one(); !s.ok()) return s;
    if (args[1].empty()) return Bad(name, "the directory must not be empty");
    c->db = args[1];
  } else if (name == "bind") {
    if (args.size() < 2) return Bad(name, "needs at least one address");
    c->bind.assign(args.begin() + 1, args.end());
  } else if (name == "port") {
    if (absl::Status s = integer(0, 65535, &i); !s.ok()) return s;
    c->port = static_cast<int>(i);
  } else if (name == "requirepass") {
    if (absl::Status s = one(); !s.ok()) return s;
    c->requirepass = args[1];
  } else if (name == "maxclients") {
    if (absl::Status s = integer(1, 1 << 20, &i); !s.ok()) return s;
    c->maxclients = static_cast<int>(i);
  } else if (name == "proto-max-bulk-len") {
    uint64_t v;
    if (absl::Status s = memory(1024 * 1024, &v); !s.ok()) return s;
    c->proto_max_bulk_len = v;
  } else if (name == "appendfsync") {
    if (absl::Status s = one(); !s.ok()) return s;
    const std::string v = absl::AsciiStrToLower(args[1]);
    if (v == "always") {
      c->appendfsync = FsyncPolicy::kAlways;
    } else if (v == "everysec") {
      c->appendfsync = FsyncPolicy::kEverySec;
    } else if (v == "no") {
      c->appendfsync = FsyncPolicy::kNo;
    } else {
      return Bad(name, "must be always, everysec or no");
    }
  } else if (name == "bf-error-rate") {
    double d;
    if (absl::Status s = one(); !s.ok()) return s;
    if (!ParseDouble(args[1], &d) || !(d > 0 && d < 1)) {
      return Bad(name, absl::StrCat("'", args[1], "' is not in (0, 1)"));
    }
    c->bf_error_rate = d;
  } else if (name == "bf-initial-size") {
    if (absl::Status s = integer(1, int64_t{1} << 30, &i); !s.ok()) return s;
    c->bf_initial_size = static_cast<uint64_t>(i);
  } else if (name == "bf-expansion-factor") {
    if (absl::Status s = integer(1, 32768, &i); !s.ok()) return s;
    c->bf_expansion_factor = static_cast<uint32_t>(i);
  } else if (name == "write-buffer-size") {
    uint64_t v;
    if (absl::Status s = memory(64 * 1024, &v); !s.ok()) return s;
    c->write_buffer_size = v;
  } else if (name == "block-cache-size") {
    uint64_t v;
    if (absl::Status s = memory(0, &v); !s.ok()) return s;
    c->block_cache_size = v;
  } else if (name == "logfile") {
    if (absl::Status s = one(); !s.ok()) return s;
    c->logfile = args[1];
  } else {
    return Bad(name, "unknown directive");
  }
  return absl::OkStatus();
}

const std::vector<std::string>& ConfigNames() {
  static const auto* names = new std::vector<std::string>{
      "db", "bind", "port", "requirepass", "maxclients", "proto-max-bulk-len",
      "appendfsync", "bf-error-rate", "bf-initial-size", "bf-expansion-factor",
      "write-buffer-size", "block-cache-size", "logfile",
      // Redis's, with the values that describe sift-server (redis-benchmark
      // reads these two): no RDB snapshots, no AOF -- siftdb's WAL instead.
      "save", "appendonly"};
  return *names;
}

bool ConfigValue(const ServerConfig& c, std::string_view name,
                 std::string* value) {
  if (name == "db" || name == "dir") {
    *value = c.db;
  } else if (name == "bind") {
    *value = absl::StrJoin(c.bind, " ");
  } else if (name == "port") {
    *value = std::to_string(c.port);
  } else if (name == "requirepass") {
    *value = c.requirepass;
  } else if (name == "maxclients") {
    *value = std::to_string(c.maxclients);
  } else if (name == "proto-max-bulk-len") {
    *value = std::to_string(c.proto_max_bulk_len);
  } else if (name == "appendfsync") {
    *value = FsyncName(c.appendfsync);
  } else if (name == "bf-error-rate") {
    std::ostringstream os;
    os << c.bf_error_rate;
    *value = os.str();
  } else if (name == "bf-initial-size") {
    *value = std::to_string(c.bf_initial_size);
  } else if (name == "bf-expansion-factor") {
    *value = std::to_string(c.bf_expansion_factor);
  } else if (name == "write-buffer-size") {
    *value = std::to_string(c.write_buffer_size);
  } else if (name == "block-cache-size") {
    *value = std::to_string(c.block_cache_size);
  } else if (name == "logfile") {
    *value = c.logfile;
  } else if (name == "save") {
    value->clear();
  } else if (name == "appendonly") {
    *value = "no";
  } else {
    return false;
  }
  return true;
}

absl::Status LoadConfigFile(const std::string& path, ServerConfig* config) {
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open config file '", path,
                                            "': ", std::strerror(errno)));
  }
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    const absl::string_view stripped = absl::StripAsciiWhitespace(line);
    const std::string_view trimmed(stripped.data(), stripped.size());
    if (trimmed.empty() || trimmed[0] == '#') continue;
    std::vector<std::string> args;
    absl::Status s;
    if (!SplitArgs(trimmed, &args)) {
      s = absl::InvalidArgumentError("unbalanced quotes");
    } else {
      s = ApplyConfig(args, config);
    }
    if (!s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", lineno, ": '", std::string(trimmed),
                       "': ", std::string(s.message())));
    }
  }
  return absl::OkStatus();
}

absl::Status ParseCommandLine(int argc, char** argv, ServerConfig* config,
                              bool* help, bool* version) {
  *help = *version = false;
  int i = 1;
  if (i < argc && std::string_view(argv[i]).substr(0, 2) != "--" &&
      std::string_view(argv[i]) != "-h" && std::string_view(argv[i]) != "-v") {
    if (absl::Status s = LoadConfigFile(argv[i], config); !s.ok()) return s;
    ++i;
  }
  while (i < argc) {
    std::string_view a = argv[i];
    if (a == "--help" || a == "-h") {
      *help = true;
      return absl::OkStatus();
    }
    if (a == "--version" || a == "-v") {
      *version = true;
      return absl::OkStatus();
    }
    if (a.substr(0, 2) != "--" || a.size() == 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument '", std::string(a),
                       "' (flags are --name value)"));
    }
    std::vector<std::string> line = {std::string(a.substr(2))};
    // --name=value, or --name value... up to the next --flag.
    if (const size_t eq = line[0].find('='); eq != std::string::npos) {
      line.push_back(line[0].substr(eq + 1));
      line[0].resize(eq);
      ++i;
    } else {
      for (++i; i < argc && std::string_view(argv[i]).substr(0, 2) != "--";
           ++i) {
        line.push_back(argv[i]);
      }
    }
    if (absl::Status s = ApplyConfig(line, config); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("flag --", line[0], ": ", std::string(s.message())));
    }
  }
  return absl::OkStatus();
}

}  // namespace sift::server
