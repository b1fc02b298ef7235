// Connection and server commands: PING, ECHO, AUTH, HELLO, SELECT, QUIT,
// COMMAND, CLIENT, INFO, CONFIG, SHUTDOWN, TIME, MODULE.

#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "server/commands.h"
#include "server/server.h"

namespace sift::server {
namespace {

constexpr char kRedisVersion[] = "7.0.0";  // the protocol we speak
constexpr char kSiftVersion[] = "0.1.0";
constexpr char kWrongPass[] =
    "WRONGPASS invalid username-password pair or user is disabled.";

void Ping(CommandContext& ctx) {
  if (ctx.args.size() > 2) {
    WrongArity(ctx.reply, "ping");
  } else if (ctx.args.size() == 2) {
    ctx.reply.Bulk(ctx.args[1]);
  } else {
    ctx.reply.Simple("PONG");
  }
}

void Echo(CommandContext& ctx) { ctx.reply.Bulk(ctx.args[1]); }

// Checks a password for user "default"; replies an error and returns false
// if wrong.
bool CheckAuth(CommandContext& ctx, std::string_view user,
               std::string_view pass) {
  const std::string& want = ctx.store.config().requirepass;
  if (want.empty()) {
    ctx.reply.Error(
        "ERR AUTH <password> called without any password configured for the "
        "default user. Are you sure your configuration is correct?");
    return false;
  }
  if (user != "default" || pass != want) {
    ctx.reply.Error(kWrongPass);
    return false;
  }
  ctx.client.authenticated = true;
  return true;
}

void Auth(CommandContext& ctx) {
  if (ctx.args.size() > 3) {
    ctx.reply.Error(kSyntaxError);
    return;
  }
  const bool with_user = ctx.args.size() == 3;
  if (CheckAuth(ctx, with_user ? ctx.args[1] : "default",
                with_user ? ctx.args[2] : ctx.args[1])) {
    ctx.reply.Ok();
  }
}

bool ValidClientName(std::string_view name) {
  for (char c : name) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

// HELLO [protover [AUTH username password] [SETNAME clientname]]
void Hello(CommandContext& ctx) {
  int64_t ver = ctx.client.resp;
  size_t i = 1;
  if (ctx.args.size() > 1) {
    if (!ParseInt64(ctx.args[1], &ver)) {
      ctx.reply.Error("ERR Protocol version is not an integer or out of range");
      return;
    }
    if (ver < 2 || ver > 3) {
      ctx.reply.Error("NOPROTO unsupported protocol version");
      return;
    }
    i = 2;
  }
  std::string_view setname;
  bool has_setname = false;
  for (; i < ctx.args.size(); ++i) {
    if (EqualsIgnoreCase(ctx.args[i], "AUTH") && i + 2 < ctx.args.size()) {
      if (!CheckAuth(ctx, ctx.args[i + 1], ctx.args[i + 2])) return;
      i += 2;
    } else if (EqualsIgnoreCase(ctx.args[i], "SETNAME") &&
               i + 1 < ctx.args.size()) {
      setname = ctx.args[++i];
      has_setname = true;
    } else {
      ctx.reply.Error(absl::StrCat("ERR Syntax error in HELLO option '",
                                   std::string(ctx.args[i]), "'"));
      return;
    }
  }
  if (!ctx.client.authenticated) {
    ctx.reply.Error(
        "NOAUTH HELLO must be called with the client already authenticated, "
        "otherwise the HELLO <proto> AUTH <user> <pass> option can be used to "
        "authenticate the client and select the RESP protocol version at the "
        "same time");
    return;
  }
  if (has_setname) {
    if (!ValidClientName(setname)) {
      ctx.reply.Error(
          "ERR Client names cannot contain spaces, newlines or special "
          "characters.");
      return;
    }
    ctx.client.name = std::string(setname);
  }
  ctx.client.resp = static_cast<int>(ver);
  ctx.reply.set_resp3(ver == 3);
  ctx.reply.Map(7);
  ctx.reply.Bulk("server");
  ctx.reply.Bulk("redis");
  ctx.reply.Bulk("version");
  ctx.reply.Bulk(kRedisVersion);
  ctx.reply.Bulk("proto");
  ctx.reply.Integer(ver);
  ctx.reply.Bulk("id");
  ctx.reply.Integer(static_cast<int64_t>(ctx.client.id));
  ctx.reply.Bulk("mode");
  ctx.reply.Bulk("standalone");
  ctx.reply.Bulk("role");
  ctx.reply.Bulk("master");
  ctx.reply.Bulk("modules");
  ctx.reply.Array(0);
}

void Select(CommandContext& ctx) {
  int64_t db;
  if (!ParseInt64(ctx.args[1], &db)) {
    ctx.reply.Error(kNotInteger);
  } else if (db != 0) {
    ctx.reply.Error("ERR DB index is out of range");
  } else {
    ctx.reply.Ok();
  }
}

void Quit(CommandContext& ctx) {
  ctx.client.close_after_reply = true;
  ctx.reply.Ok();
}

// One COMMAND INFO entry, Redis 7's shape: name, arity, flags, first key,
// last key, step, ACL categories, tips, key specs, subcommands.
void CommandEntry(Reply& r, const CommandSpec& c) {
  r.Array(10);
  r.Bulk(c.name);
  r.Integer(c.arity);
  const std::vector<std::string> flags =
      absl::StrSplit(c.flags, ' ', absl::SkipEmpty());
  r.Array(flags.size());
  for (const std::string& f : flags) r.Simple(f);
  r.Integer(c.first_key);
  r.Integer(c.last_key);
  r.Integer(c.key_step);
  r.Array(0);
  r.Array(0);
  r.Array(0);
  r.Array(0);
}

void Command(CommandContext& ctx) {
  const auto& all = Commands();
  if (ctx.args.size() == 1) {
    ctx.reply.Array(all.size());
    for (const CommandSpec& c : all) CommandEntry(ctx.reply, c);
    return;
  }
  const std::string_view sub = ctx.args[1];
  if (EqualsIgnoreCase(sub, "COUNT") && ctx.args.size() == 2) {
    ctx.reply.Integer(static_cast<int64_t>(all.size()));
  } else if (EqualsIgnoreCase(sub, "INFO")) {
    if (ctx.args.size() == 2) {
      ctx.reply.Array(all.size());
      for (const CommandSpec& c : all) CommandEntry(ctx.reply, c);
      return;
    }
    ctx.reply.Array(ctx.args.size() - 2);
    for (size_t i = 2; i < ctx.args.size(); ++i) {
      const CommandSpec* c = FindCommand(ctx.args[i]);
      if (c == nullptr) {
        ctx.reply.NullArray();
      } else {
        CommandEntry(ctx.reply, *c);
      }
    }
  } else if (EqualsIgnoreCase(sub, "DOCS")) {
    // No documentation is served: redis-cli then shows no hints.
    ctx.reply.Map(0);
  } else if (EqualsIgnoreCase(sub, "LIST")) {
    ctx.reply.Array(all.size());
    for (const CommandSpec& c : all) ctx.reply.Bulk(c.name);
  } else if (EqualsIgnoreCase(sub, "GETKEYS") && ctx.args.size() >= 3) {
    const CommandSpec* c = FindCommand(ctx.args[2]);
    const auto cmd = ctx.args.subspan(2);
    if (c == nullptr) {
      ctx.reply.Error("ERR Invalid command specified");
      return;
    }
    if ((c->arity > 0 && static_cast<int>(cmd.size()) != c->arity) ||
        (c->arity < 0 && static_cast<int>(cmd.size()) < -c->arity)) {
      ctx.reply.Error("ERR Invalid number of arguments specified for command");
      return;
    }
    if (c->first_key == 0) {
      ctx.reply.Error("ERR The command has no key arguments");
      return;
    }
    const int last =
        c->last_key < 0 ? static_cast<int>(cmd.size()) - 1 : c->last_key;
    std::vector<std::string_view> keys;
    for (int k = c->first_key; k <= last; k += c->key_step) {
      keys.push_back(cmd[k]);
    }
    ctx.reply.Array(keys.size());
    for (std::string_view k : keys) ctx.reply.Bulk(k);
  } else {
    ctx.reply.Error(absl::StrCat("ERR unknown subcommand '", std::string(sub),
                                 "'. Try COMMAND HELP."));
  }
}

void Client(CommandContext& ctx) {
  const std::string_view sub = ctx.args[1];
  const std::string lower = absl::AsciiStrToLower(std::string(sub));
  const auto arity = [&](size_t n) {
    if (ctx.args.size() != n) {
      WrongArity(ctx.reply, absl::StrCat("client|", lower));
      return false;
    }
    return true;
  };
  if (lower == "setname") {
    if (!arity(3)) return;
    if (!ValidClientName(ctx.args[2])) {
      ctx.reply.Error(
          "ERR Client names cannot contain spaces, newlines or special "
          "characters.");
      return;
    }
    ctx.client.name = std::string(ctx.args[2]);
    ctx.reply.Ok();
  } else if (lower == "getname") {
    if (!arity(2)) return;
    if (ctx.client.name.empty()) {
      ctx.reply.Null();
    } else {
      ctx.reply.Bulk(ctx.client.name);
    }
  } else if (lower == "id") {
    if (!arity(2)) return;
    ctx.reply.Integer(static_cast<int64_t>(ctx.client.id));
  } else if (lower == "info") {
    if (!arity(2)) return;
    ctx.reply.Verbatim(ctx.server.ClientLine(ctx.client));
  } else if (lower == "list") {
    ctx.reply.Verbatim(ctx.server.ClientList());
  } else if (lower == "setinfo") {
    if (!arity(4)) return;
    ctx.reply.Ok();  // lib-name / lib-ver: accepted, not kept
  } else {
    ctx.reply.Error(absl::StrCat("ERR unknown subcommand '", std::string(sub),
                                 "'. Try CLIENT HELP."));
  }
}

// The INFO sections, each "# Name" then "field:value" lines.
std::string InfoSection(CommandContext& ctx, std::string_view name) {
  const Server& srv = ctx.server;
  const ServerStats& st = srv.stats();
  std::string out;
  const auto line = [&](std::string_view k, const auto& v) {
    absl::StrAppend(&out, std::string(k), ":", v, "\r\n");
  };
  if (name == "server") {
    out = "# Server\r\n";
    line("redis_version", kRedisVersion);
    line("sift_version", kSiftVersion);
    line("redis_mode", "standalone");
    line("os", "Linux");
    line("arch_bits", 64);
    line("multiplexing_api", "asio");
    line("process_id", static_cast<int64_t>(getpid()));
    line("tcp_port", srv.bound_port());
    const int64_t up = (NowMillis() - srv.start_ms()) / 1000;
    line("uptime_in_seconds", up);
    line("uptime_in_days", up / 86400);
    line("config_file", srv.config_file());
    line("db_dir", ctx.store.config().db);
  } else if (name == "clients") {
    out = "# Clients\r\n";
    line("connected_clients", static_cast<uint64_t>(srv.num_clients()));
    line("maxclients", ctx.store.config().maxclients);
  } else if (name == "memory") {
    out = "# Memory\r\n";
    const uint64_t filters = ctx.store.blooms().bytes();
    line("used_memory", filters);
    line("bf_filters_bytes", filters);
  } else if (name == "persistence") {
    out = "# Persistence\r\n";
    line("loading", 0);
    line("aof_enabled", 0);
    line("rdb_changes_since_last_save", 0);
    line("siftdb_wal", 1);
  } else if (name == "stats") {
    out = "# Stats\r\n";
    line("total_connections_received", st.connections_received);
    line("total_commands_processed", st.commands_processed);
    line("total_net_input_bytes", st.net_input_bytes);
    line("total_net_output_bytes", st.net_output_bytes);
    line("rejected_connections", st.rejected_connections);
    line("keyspace_hits", st.keyspace_hits);
    line("keyspace_misses", st.keyspace_misses);
  } else if (name == "keyspace") {
    out = "# Keyspace\r\n";
    absl::StatusOr<uint64_t> n = ctx.store.CountKeys();
    if (n.ok() && *n > 0) {
      line("db0", absl::StrCat("keys=", *n, ",expires=0,avg_ttl=0"));
    }
  } else if (name == "siftdb") {
    out = "# siftdb\r\n";
    const Statistics s = ctx.store.db()->GetStatistics();
    line("bf_filters", static_cast<uint64_t>(ctx.store.blooms().size()));
    line("bf_filters_bytes", ctx.store.blooms().bytes());
    line("bf_delta_folds", ctx.store.blooms().folds());
    line("sst_filter_checked", s.Get(kBloomFilterChecked));
    line("sst_filter_useful", s.Get(kBloomFilterUseful));
    line("sst_filter_positive", s.Get(kBloomFilterFullPositive));
    line("sst_filter_true_positive", s.Get(kBloomFilterFullTruePositive));
    line("sst_filter_observed_fp_rate",
         absl::StrFormat("%.6f", s.ObservedFpRate()));
    line("memtable_filter_useful", s.Get(kMemtableFilterUseful));
    line("data_blocks_read", s.Get(kDataBlocksRead));
    line("block_cache_hits", s.Get(kBlockCacheDataHit));
    line("block_cache_misses", s.Get(kBlockCacheDataMiss));
    line("bytes_written", s.Get(kBytesWritten));
    line("flushes", s.Get(kFlushes));
    line("compactions", s.Get(kCompactions));
    for (const char* prop : {"sift.filter-bytes", "sift.filter-keys"}) {
      std::optional<std::string> v = ctx.store.db()->GetProperty(prop);
      std::string field = std::string(prop + 5);
      for (char& c : field) c = c == '-' ? '_' : c;
      if (v) line(absl::StrCat("sst_", field), absl::StripAsciiWhitespace(*v));
    }
    for (int level = 0; level < 7; ++level) {
      std::optional<std::string> v = ctx.store.db()->GetProperty(
          absl::StrCat("sift.num-files-at-level", level));
      if (v) line(absl::StrCat("files_at_level", level), *v);
    }
  }
  return out;
}

void Info(CommandContext& ctx) {
  static const char* const kAll[] = {"server",      "clients", "memory",
                                     "persistence", "stats",   "keyspace",
                                     "siftdb"};
  std::vector<std::string> want;
  for (size_t i = 1; i < ctx.args.size(); ++i) {
    want.push_back(absl::AsciiStrToLower(std::string(ctx.args[i])));
  }
  const bool all = want.empty() || want[0] == "all" || want[0] == "default" ||
                   want[0] == "everything";
  std::string text;
  for (const char* s : kAll) {
    if (!all && std::find(want.begin(), want.end(), s) == want.end()) continue;
    if (!text.empty()) text += "\r\n";
    text += InfoSection(ctx, s);
  }
  ctx.reply.Verbatim(text);
}

void Config(CommandContext& ctx) {
  const std::string sub = absl::AsciiStrToLower(std::string(ctx.args[1]));
  if (sub == "get") {
    if (ctx.args.size() < 3) {
      WrongArity(ctx.reply, "config|get");
      return;
    }
    std::vector<std::pair<std::string, std::string>> found;
    for (const std::string& name : ConfigNames()) {
      bool match = false;
      for (size_t i = 2; i < ctx.args.size(); ++i) {
        match |= GlobMatch(ctx.args[i], name, /*nocase=*/true);
      }
      std::string value;
      if (match && ConfigValue(ctx.store.config(), name, &value)) {
        found.emplace_back(name, value);
      }
    }
    ctx.reply.Map(found.size());
    for (const auto& [k, v] : found) {
      ctx.reply.Bulk(k);
      ctx.reply.Bulk(v);
    }
  } else if (sub == "set") {
    if (ctx.args.size() < 4 || ctx.args.size() % 2 != 0) {
      WrongArity(ctx.reply, "config|set");
      return;
    }
    // Only what can change while running; the rest needs a restart.
    static const char* const kMutable[] = {
        "requirepass",   "maxclients",      "appendfsync",
        "bf-error-rate", "bf-initial-size", "bf-expansion-factor"};
    ServerConfig next = ctx.store.config();
    for (size_t i = 2; i < ctx.args.size(); i += 2) {
      const std::string name = absl::AsciiStrToLower(std::string(ctx.args[i]));
      if (std::find(std::begin(kMutable), std::end(kMutable), name) ==
          std::end(kMutable)) {
        ctx.reply.Error(absl::StrCat(
            "ERR Unknown option or number of arguments for CONFIG SET - '",
            std::string(ctx.args[i]), "'"));
        return;
      }
      absl::Status s = ApplyConfig({name, std::string(ctx.args[i + 1])}, &next);
      if (!s.ok()) {
        ctx.reply.Error(
            absl::StrCat("ERR CONFIG SET failed (possibly related "
                         "to argument '",
                         name, "') - ", std::string(s.message())));
        return;
      }
    }
    ctx.store.mutable_config() = next;
    ctx.reply.Ok();
  } else if (sub == "resetstat" && ctx.args.size() == 2) {
    ctx.server.ResetStats();
    ctx.reply.Ok();
  } else {
    ctx.reply.Error(absl::StrCat("ERR unknown subcommand '",
                                 std::string(ctx.args[1]),
                                 "'. Try CONFIG HELP."));
  }
}

void Shutdown(CommandContext& ctx) {
  for (size_t i = 1; i < ctx.args.size(); ++i) {
    const std::string_view a = ctx.args[i];
    if (!EqualsIgnoreCase(a, "NOSAVE") && !EqualsIgnoreCase(a, "SAVE") &&
        !EqualsIgnoreCase(a, "NOW") && !EqualsIgnoreCase(a, "FORCE") &&
        !EqualsIgnoreCase(a, "ABORT")) {
      ctx.reply.Error(kSyntaxError);
      return;
    }
  }
  // As Redis: no reply; the connection closes as the server stops.
  ctx.server.Shutdown();
}

void Time(CommandContext& ctx) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const int64_t us =
      std::chrono::duration_cast<std::chrono::microseconds>(now).count();
  ctx.reply.Array(2);
  ctx.reply.Bulk(std::to_string(us / 1000000));
  ctx.reply.Bulk(std::to_string(us % 1000000));
}

void Module(CommandContext& ctx) {
  if (EqualsIgnoreCase(ctx.args[1], "LIST") && ctx.args.size() == 2) {
    ctx.reply.Array(0);  // BF.* are built in, not a loaded module
    return;
  }
  ctx.reply.Error(absl::StrCat("ERR unknown subcommand '",
                               std::string(ctx.args[1]),
                               "'. Try MODULE HELP."));
}

}  // namespace

void AddServerCommands(std::vector<CommandSpec>* t) {
  t->insert(
      t->end(),
      {
          {"ping", -1, "fast", 0, 0, 0, Ping},
          {"echo", 2, "fast", 0, 0, 0, Echo},
          {"auth", -2, "noscript loading stale fast no_auth", 0, 0, 0, Auth},
          {"hello", -1, "noscript loading stale fast no_auth", 0, 0, 0, Hello},
          {"select", 2, "loading stale fast", 0, 0, 0, Select},
          {"quit", -1, "noscript loading stale fast no_auth", 0, 0, 0, Quit},
          {"command", -1, "loading stale", 0, 0, 0, Command},
          {"client", -2, "admin noscript loading stale", 0, 0, 0, Client},
          {"info", -1, "loading stale", 0, 0, 0, Info},
          {"config", -2, "admin noscript loading stale", 0, 0, 0, Config},
          {"shutdown", -1, "admin noscript loading stale", 0, 0, 0, Shutdown},
          {"time", 1, "loading stale fast", 0, 0, 0, Time},
          {"module", -2, "admin noscript", 0, 0, 0, Module},
      });
}

}  // namespace sift::server
