// The server's log: server/log.h.

#include "server/log.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "absl/strings/str_cat.h"

namespace sift::server {
namespace {
FILE* log_file = stderr;
}  // namespace

absl::Status OpenLog(const std::string& path) {
  if (path.empty()) return absl::OkStatus();
  FILE* f = std::fopen(path.c_str(), "a");
  if (f == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cannot open logfile ", path, ": ", std::strerror(errno)));
  }
  log_file = f;
  return absl::OkStatus();
}

void Log(LogLevel level, std::string_view message) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const int ms =
      static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                           now.time_since_epoch())
                           .count() %
                       1000);
  std::tm tm;
  localtime_r(&t, &tm);
  char stamp[64];
  std::strftime(stamp, sizeof stamp, "%d %b %Y %H:%M:%S", &tm);
  std::fprintf(log_file, "%d:M %s.%03d %c %.*s\n", static_cast<int>(getpid()),
               stamp, ms, level == LogLevel::kWarning ? '#' : '*',
               static_cast<int>(message.size()), message.data());
  std::fflush(log_file);
}

}  // namespace sift::server
