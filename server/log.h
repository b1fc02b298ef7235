// The server's log: one line per event, "pid:M dd Mon yyyy hh:mm:ss.mmm *
// message" as redis-server writes it, to stderr or the configured logfile.

#ifndef SIFT_SERVER_LOG_H_
#define SIFT_SERVER_LOG_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace sift::server {

enum class LogLevel { kNotice, kWarning };

// Sends the log to path (appending); empty: stderr.
absl::Status OpenLog(const std::string& path);
void Log(LogLevel level, std::string_view message);

}  // namespace sift::server

#endif  // SIFT_SERVER_LOG_H_
