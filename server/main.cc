// sift-server: the Redis protocol (RESP2 and RESP3) on one siftdb database,
// with RedisBloom's BF.* commands as scalable Bloom filters.
//
//   sift-server [config-file] [--db DIR] [--port 6380] [--bind 127.0.0.1]
//               [--requirepass PASS] [--maxclients N]
//               [--proto-max-bulk-len 512mb] [--appendfsync everysec] ...
//
// See README.md ("sift-server") and server/config.h for every directive.

#include <asio.hpp>
#include <csignal>
#include <cstdio>
#include <memory>

#include "absl/strings/str_cat.h"
#include "server/config.h"
#include "server/log.h"
#include "server/server.h"
#include "server/store.h"

namespace {

constexpr char kUsage[] =
    "usage: sift-server [config-file] [--name value ...]\n"
    "\n"
    "Serves the Redis protocol (RESP2, RESP3 with HELLO 3) on a siftdb\n"
    "database, with RedisBloom's BF.* commands. Directives, as config-file\n"
    "lines (redis.conf syntax) or as --name value flags:\n"
    "  db DIR                  database directory (default sift-data)\n"
    "  port N                  TCP port (default 6380; 0 picks one)\n"
    "  bind ADDR...            addresses to listen on (default 127.0.0.1)\n"
    "  requirepass PASS        clients must AUTH with PASS\n"
    "  maxclients N            connections beyond N are refused (10000)\n"
    "  proto-max-bulk-len SIZE largest bulk string of a request (512mb)\n"
    "  appendfsync always|everysec|no  when writes are fsynced (everysec)\n"
    "  bf-error-rate P, bf-initial-size N, bf-expansion-factor N\n"
    "                          filters BF.ADD creates (0.01, 100, 2)\n"
    "  write-buffer-size SIZE  siftdb memtable (64mb)\n"
    "  block-cache-size SIZE   siftdb block cache (64mb)\n"
    "  logfile PATH            log there instead of stderr\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace sift::server;
  std::signal(SIGPIPE, SIG_IGN);
  ServerConfig config;
  bool help = false, version = false;
  if (absl::Status s = ParseCommandLine(argc, argv, &config, &help, &version);
      !s.ok()) {
    std::fprintf(stderr, "sift-server: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  if (help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (version) {
    std::puts("sift-server 0.1.0 (siftdb; Redis protocol 7.0)");
    return 0;
  }
  if (absl::Status s = OpenLog(config.logfile); !s.ok()) {
    std::fprintf(stderr, "sift-server: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(config);
  if (!store.ok()) {
    Log(LogLevel::kWarning, absl::StrCat("cannot open database ", config.db,
                                         ": ", store.status().ToString()));
    return 1;
  }
  std::string config_file;
  if (argc > 1 && std::string_view(argv[1]).substr(0, 2) != "--") {
    config_file = argv[1];
  }
  int rc = 0;
  {
    asio::io_context io(1);
    Server server(&io, store->get(), config_file);
    if (absl::Status s = server.Listen(); !s.ok()) {
      Log(LogLevel::kWarning, std::string(s.message()));
      return 1;
    }
    Log(LogLevel::kNotice,
        absl::StrCat("sift-server 0.1.0 on ", config.db, ": ",
                     (*store)->blooms().size(), " filters loaded"));
    Log(LogLevel::kNotice, absl::StrCat("Ready to accept connections tcp on "
                                        "port ",
                                        server.bound_port()));
    if (absl::Status s = server.Run(); !s.ok()) {
      Log(LogLevel::kWarning, absl::StrCat("stopping: ", s.ToString()));
      rc = 1;
    }
  }
  store->reset();  // closes the database cleanly
  Log(LogLevel::kNotice, "sift-server is now ready to exit, bye bye...");
  return rc;
}
