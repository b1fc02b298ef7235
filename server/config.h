// ServerConfig: sift-server's settings, from a configuration file in
// redis.conf syntax and from the command line, as redis-server takes them:
//
//   sift-server [/path/to/sift-server.conf] [--name value ...]
//
// Each "--name value..." pair is one more configuration line, applied after
// the file's, so flags override the file. A line is a directive and its
// arguments, separated by blanks, with Redis's quoting ("..." with \n, \xHH
// escapes; '...'); '#' starts a comment line. Sizes take Redis's units
// (1k = 1000, 1kb = 1024, m, mb, g, gb). An unknown directive or a bad value
// is an error naming the line (or flag) and what is wrong, and the server
// does not start.

#ifndef SIFT_SERVER_CONFIG_H_
#define SIFT_SERVER_CONFIG_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace sift::server {

// When a write's WAL record is fdatasync()ed (Redis's appendfsync).
enum class FsyncPolicy {
  kAlways,    // before the reply: survives a machine crash
  kEverySec,  // within about a second: a machine crash loses at most that
  kNo,        // left to the OS; a kill -9 of the server loses nothing
};

struct ServerConfig {
  // The siftdb database directory (created if missing). --db / "db".
  std::string db = "sift-data";
  // Addresses to listen on; "*" means every IPv4 address. Default loopback.
  std::vector<std::string> bind = {"127.0.0.1"};
  int port = 6380;
  // Empty: no password. Otherwise clients must AUTH (or HELLO ... AUTH).
  std::string requirepass;
  // Connections beyond this are told "ERR max number of clients reached".
  int maxclients = 10000;
  // The largest bulk string a request may carry (Redis's default 512mb).
  uint64_t proto_max_bulk_len = uint64_t{512} << 20;
  FsyncPolicy appendfsync = FsyncPolicy::kEverySec;
  // Filters BF.ADD / BF.MADD / BF.INSERT create (RedisBloom's module
  // options, with RedisBloom 8's configuration names).
  double bf_error_rate = 0.01;
  uint64_t bf_initial_size = 100;
  uint32_t bf_expansion_factor = 2;
  // siftdb's memtable size (bytes): larger buffers fewer, larger flushes.
  uint64_t write_buffer_size = uint64_t{64} << 20;
  // Bytes of siftdb's block cache.
  uint64_t block_cache_size = uint64_t{64} << 20;
  // Where the log goes: empty for stderr.
  std::string logfile;
};

// Applies one directive (args[0]) with its arguments. InvalidArgument
// naming the directive and the problem.
absl::Status ApplyConfig(const std::vector<std::string>& args,
                         ServerConfig* config);

// Reads a configuration file; errors name the file and line.
absl::Status LoadConfigFile(const std::string& path, ServerConfig* config);

// Parses redis-server's command line (see the file comment). Sets *help
// for --help / -h and *version for --version / -v.
absl::Status ParseCommandLine(int argc, char** argv, ServerConfig* config,
                              bool* help, bool* version);

// The value of a directive as CONFIG GET shows it; false for an unknown
// name.
bool ConfigValue(const ServerConfig& config, std::string_view name,
                 std::string* value);
// Every directive's name, for CONFIG GET patterns.
const std::vector<std::string>& ConfigNames();

// Redis's size parser: "512mb" -> 536870912. False if malformed.
bool ParseMemory(std::string_view s, uint64_t* out);

}  // namespace sift::server

#endif  // SIFT_SERVER_CONFIG_H_
