// Server: sift-server's network side on standalone Asio (Debian's
// libasio-dev): one io_context run by one thread accepts connections,
// reads pipelined requests, runs them (Dispatch), writes the pending batch
// once per read, then sends the replies. Commands run one at a time, as in
// Redis, so no two see each other half-done; siftdb's own background
// thread flushes and compacts beside them.
//
// SIGTERM and SIGINT (and SHUTDOWN) stop it gracefully: the listeners
// close, every connection is closed after the command it is in (none is
// mid-command: they run on this thread), the pending batch is written and
// the database closed cleanly. Every reply already sent was for a write
// already in the WAL, so a graceful stop loses nothing acknowledged, and
// neither does kill -9 (the WAL is written before each reply; appendfsync
// decides when it is also synced).

#ifndef SIFT_SERVER_SERVER_H_
#define SIFT_SERVER_SERVER_H_

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "server/commands.h"
#include "server/config.h"
#include "server/store.h"

namespace asio {
class io_context;
}  // namespace asio

namespace sift::server {

class Connection;

// SCAN cursors: integers naming where a scan stopped (its last key), so a
// client can pass them back as Redis cursors. The newest kMaxCursors are
// kept; an older or unknown cursor is "ERR invalid cursor".
class CursorTable {
 public:
  static constexpr size_t kMaxCursors = 65536;
  uint64_t Add(std::string last_key);
  bool Find(uint64_t cursor, std::string* last_key) const;
  void Clear() {
    by_id_.clear();
    order_.clear();
  }

 private:
  uint64_t next_ = 1;
  absl::flat_hash_map<uint64_t, std::string> by_id_;
  std::list<uint64_t> order_;
};

struct ServerStats {
  uint64_t connections_received = 0;
  uint64_t rejected_connections = 0;
  uint64_t commands_processed = 0;
  uint64_t keyspace_hits = 0;
  uint64_t keyspace_misses = 0;
  uint64_t net_input_bytes = 0;
  uint64_t net_output_bytes = 0;
};

class Server {
 public:
  Server(asio::io_context* io, Store* store, std::string config_file);
  ~Server();

  // Binds every configured address. An error names the address.
  absl::Status Listen();
  // Runs until a stop; returns the first fatal error, if any.
  absl::Status Run();
  // Stops gracefully (see the file comment); safe to call from a handler.
  void Shutdown();

  // ---- What commands ask of the server -------------------------------------
  CursorTable& cursors() { return cursors_; }
  const ServerStats& stats() const { return stats_; }
  void CountCommand() { ++stats_.commands_processed; }
  void CountKeyspace(bool hit) {
    ++(hit ? stats_.keyspace_hits : stats_.keyspace_misses);
  }
  void ResetStats() { stats_ = ServerStats(); }
  size_t num_clients() const { return connections_.size(); }
  // CLIENT LIST lines of every connection.
  std::string ClientList() const;
  std::string ClientLine(const ClientState& s) const;
  int64_t start_ms() const { return start_ms_; }
  uint16_t bound_port() const { return bound_port_; }
  const std::string& config_file() const { return config_file_; }

  // ---- Connections ---------------------------------------------------------
  void CountInput(size_t n) { stats_.net_input_bytes += n; }
  void CountOutput(size_t n) { stats_.net_output_bytes += n; }
  void Remove(Connection* c);
  Store& store() { return *store_; }

 private:
  struct Impl;
  void Accept(size_t listener);
  void ArmFsyncTimer();

  asio::io_context* io_;
  Store* store_;
  std::string config_file_;
  std::unique_ptr<Impl> impl_;
  absl::flat_hash_map<Connection*, std::shared_ptr<Connection>> connections_;
  CursorTable cursors_;
  ServerStats stats_;
  uint64_t next_client_id_ = 1;
  int64_t start_ms_ = 0;
  uint16_t bound_port_ = 0;
  bool stopping_ = false;
};

int64_t NowMillis();

}  // namespace sift::server

#endif  // SIFT_SERVER_SERVER_H_
