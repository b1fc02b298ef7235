// Server and its connections: server/server.h.

#include "server/server.h"

#include <algorithm>
#include <asio.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "server/commands.h"
#include "server/log.h"
#include "server/resp_parser.h"

namespace sift::server {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

uint64_t CursorTable::Add(std::string last_key) {
  const uint64_t id = next_++;
  by_id_.emplace(id, std::move(last_key));
  order_.push_back(id);
  if (order_.size() > kMaxCursors) {
    by_id_.erase(order_.front());
    order_.pop_front();
  }
  return id;
}

bool CursorTable::Find(uint64_t cursor, std::string* last_key) const {
  auto it = by_id_.find(cursor);
  if (it == by_id_.end()) return false;
  *last_key = it->second;
  return true;
}

// One client connection: reads requests, runs them, sends the replies.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Server* server, asio::ip::tcp::socket socket, uint64_t id)
      : server_(server),
        socket_(std::move(socket)),
        parser_(server->store().config().proto_max_bulk_len),
        reply_(&out_) {
    state_.id = id;
    state_.authenticated = server->store().config().requirepass.empty();
    state_.created_ms = NowMillis();
    asio::error_code ec;
    const auto peer = socket_.remote_endpoint(ec);
    if (!ec) {
      state_.addr = absl::StrCat(peer.address().to_string(), ":", peer.port());
    }
    socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  }

  const ClientState& state() const { return state_; }

  void Start() { Read(); }

  void Close() {
    if (closed_) return;
    closed_ = true;
    asio::error_code ec;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
    socket_.close(ec);
    server_->Remove(this);  // may destroy *this once handlers let go
  }

 private:
  static constexpr size_t kMinRead = 16 * 1024;
  static constexpr size_t kMaxRead = 4 << 20;

  void Read() {
    if (closed_) return;
    // Read at least the rest of a bulk the parser is waiting for (up to
    // kMaxRead at a time), so a large value arrives in few reads.
    size_t want = kMinRead;
    const size_t have = in_.size() - in_start_;
    if (parser_.bytes_wanted() > have) {
      want = std::clamp(parser_.bytes_wanted() - have, kMinRead, kMaxRead);
    }
    const size_t old = in_.size();
    in_.resize(old + want);
    auto self = shared_from_this();
    socket_.async_read_some(
        asio::buffer(in_.data() + old, want),
        [this, self, old](const asio::error_code& ec, size_t n) {
          in_.resize(old + n);
          if (ec || closed_) {
            Close();
            return;
          }
          server_->CountInput(n);
          Process();
        });
  }

  void Process() {
    Store& store = server_->store();
    store.set_on_commit_failure([this](const absl::Status& s) {
      // The replies of the commands whose writes failed become the error.
      out_.resize(pending_mark_);
      for (size_t i = 0; i < pending_replies_; ++i) StoreError(reply_, s);
      pending_replies_ = 0;
    });
    bool protocol_error = false;
    while (!state_.close_after_reply) {
      size_t consumed = 0;
      std::string error;
      const RespParser::Result r = parser_.Parse(
          std::string_view(in_).substr(in_start_), &consumed, &args_, &error);
      in_start_ += consumed;
      if (r == RespParser::Result::kNeedMore) {
        if (consumed > 0) continue;
        break;
      }
      if (r == RespParser::Result::kError) {
        reply_.Error(absl::StrCat("ERR ", error));
        protocol_error = true;
        break;
      }
      Execute();
    }
    (void)store.Commit();
    store.set_on_commit_failure(nullptr);
    pending_replies_ = 0;
    if (in_start_ == in_.size()) {
      in_.clear();
      in_start_ = 0;
    } else if (in_start_ >= kMinRead) {
      in_.erase(0, in_start_);
      in_start_ = 0;
    }
    if (protocol_error) state_.close_after_reply = true;
    if (out_.empty()) {
      if (state_.close_after_reply) {
        Close();
      } else {
        Read();
      }
      return;
    }
    Write();
  }

  void Execute() {
    Store& store = server_->store();
    const size_t reply_start = out_.size();
    const bool was_pending = store.has_pending();
    const uint64_t commits = store.commits();
    reply_.set_resp3(state_.resp == 3);
    CommandContext ctx{store, *server_, state_, args_, reply_};
    Dispatch(ctx);
    if (store.has_pending()) {
      if (!was_pending || store.commits() != commits) {
        pending_mark_ = reply_start;
        pending_replies_ = 1;
      } else {
        ++pending_replies_;
      }
    }
  }

  void Write() {
    sending_.swap(out_);
    out_.clear();
    server_->CountOutput(sending_.size());
    auto self = shared_from_this();
    asio::async_write(socket_, asio::buffer(sending_),
                      [this, self](const asio::error_code& ec, size_t) {
                        sending_.clear();
                        if (ec || closed_ || state_.close_after_reply) {
                          Close();
                          return;
                        }
                        // Commands already buffered run before more is read.
                        if (in_start_ < in_.size()) {
                          Process();
                        } else {
                          Read();
                        }
                      });
  }

  Server* server_;
  asio::ip::tcp::socket socket_;
  RespParser parser_;
  ClientState state_;
  std::string in_;
  size_t in_start_ = 0;
  std::string out_;
  std::string sending_;
  Reply reply_;
  std::vector<std::string_view> args_;
  // Replies since pending_mark_ belong to commands whose writes are in the
  // store's pending batch (pending_replies_ of them).
  size_t pending_mark_ = 0;
  size_t pending_replies_ = 0;
  bool closed_ = false;
};

struct Server::Impl {
  explicit Impl(asio::io_context* io) : signals(*io), fsync_timer(*io) {}
  std::vector<std::unique_ptr<asio::ip::tcp::acceptor>> acceptors;
  asio::signal_set signals;
  asio::steady_timer fsync_timer;
  absl::Status fatal;
};

Server::Server(asio::io_context* io, Store* store, std::string config_file)
    : io_(io),
      store_(store),
      config_file_(std::move(config_file)),
      impl_(std::make_unique<Impl>(io)),
      start_ms_(NowMillis()) {}

Server::~Server() = default;

absl::Status Server::Listen() {
  const ServerConfig& c = store_->config();
  for (const std::string& addr : c.bind) {
    asio::error_code ec;
    const std::string host = addr == "*" ? "0.0.0.0" : addr;
    const asio::ip::address ip = asio::ip::make_address(host, ec);
    if (ec) {
      return absl::InvalidArgumentError(
          absl::StrCat("bind: '", addr, "' is not an IP address"));
    }
    auto acc = std::make_unique<asio::ip::tcp::acceptor>(*io_);
    const asio::ip::tcp::endpoint ep(ip, static_cast<uint16_t>(c.port));
    acc->open(ep.protocol(), ec);
    if (!ec) acc->set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acc->bind(ep, ec);
    if (!ec) acc->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      return absl::UnavailableError(absl::StrCat("cannot listen on ", addr, ":",
                                                 c.port, ": ", ec.message()));
    }
    bound_port_ = acc->local_endpoint().port();
    impl_->acceptors.push_back(std::move(acc));
  }
  for (size_t i = 0; i < impl_->acceptors.size(); ++i) Accept(i);
  impl_->signals.add(SIGTERM);
  impl_->signals.add(SIGINT);
  impl_->signals.async_wait([this](const asio::error_code& ec, int sig) {
    if (ec) return;
    Log(LogLevel::kNotice,
        absl::StrCat("Received ", sig == SIGTERM ? "SIGTERM" : "SIGINT",
                     ", shutting down"));
    Shutdown();
  });
  ArmFsyncTimer();
  return absl::OkStatus();
}

void Server::ArmFsyncTimer() {
  if (store_->config().appendfsync != FsyncPolicy::kEverySec) return;
  impl_->fsync_timer.expires_after(std::chrono::seconds(1));
  impl_->fsync_timer.async_wait([this](const asio::error_code& ec) {
    if (ec || stopping_) return;
    if (absl::Status s = store_->SyncIfDirty(); !s.ok()) {
      Log(LogLevel::kWarning, absl::StrCat("fsync failed: ", s.ToString()));
    }
    ArmFsyncTimer();
  });
}

void Server::Accept(size_t listener) {
  impl_->acceptors[listener]->async_accept(
      [this, listener](const asio::error_code& ec,
                       asio::ip::tcp::socket socket) {
        if (stopping_) return;
        if (!ec) {
          ++stats_.connections_received;
          if (connections_.size() >=
              static_cast<size_t>(store_->config().maxclients)) {
            ++stats_.rejected_connections;
            asio::error_code ignored;
            asio::write(socket,
                        asio::buffer(std::string_view(
                            "-ERR max number of clients reached\r\n")),
                        ignored);
            socket.close(ignored);
          } else {
            auto c = std::make_shared<Connection>(this, std::move(socket),
                                                  next_client_id_++);
            connections_.emplace(c.get(), c);
            c->Start();
          }
        }
        Accept(listener);
      });
}

void Server::Remove(Connection* c) { connections_.erase(c); }

absl::Status Server::Run() {
  io_->run();
  return impl_->fatal;
}

void Server::Shutdown() {
  if (stopping_) return;
  stopping_ = true;
  asio::error_code ec;
  for (auto& acc : impl_->acceptors) acc->close(ec);
  impl_->signals.cancel(ec);
  impl_->fsync_timer.cancel();
  std::vector<std::shared_ptr<Connection>> all;
  for (auto& [ptr, conn] : connections_) all.push_back(conn);
  for (auto& conn : all) conn->Close();
  if (absl::Status s = store_->Commit(); !s.ok()) impl_->fatal = s;
  // A synced write of the last state, whatever appendfsync says.
  if (absl::Status s = store_->SyncIfDirty(); !s.ok() && impl_->fatal.ok()) {
    impl_->fatal = s;
  }
  io_->stop();
}

std::string Server::ClientLine(const ClientState& s) const {
  return absl::StrCat("id=", s.id, " addr=", s.addr,
                      " laddr=", " fd=0 name=", s.name,
                      " age=", (NowMillis() - s.created_ms) / 1000,
                      " idle=0 flags=N db=0 sub=0 psub=0 ssub=0 multi=-1 "
                      "qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 obl=0 oll=0 "
                      "omem=0 tot-mem=0 events=r cmd=",
                      s.last_command.empty() ? "NULL" : s.last_command,
                      " user=default redir=-1 resp=", s.resp, "\n");
}

std::string Server::ClientList() const {
  std::vector<const Connection*> all;
  for (const auto& [ptr, conn] : connections_) all.push_back(ptr);
  std::sort(all.begin(), all.end(),
            [](const Connection* a, const Connection* b) {
              return a->state().id < b->state().id;
            });
  std::string out;
  for (const Connection* c : all) out += ClientLine(c->state());
  return out;
}

}  // namespace sift::server
