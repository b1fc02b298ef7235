// The command table of sift-server: every command's name, arity, flags and
// handler, and the context a handler runs in. Handlers are split by what
// they serve: commands_keys.cc (string keys), commands_bloom.cc (BF.*),
// commands_server.cc (connection and server: PING, AUTH, HELLO, INFO, ...).
//
// Errors are Redis's texts (and RedisBloom's for BF.*), so clients that
// match on them behave as against Redis.

#ifndef SIFT_SERVER_COMMANDS_H_
#define SIFT_SERVER_COMMANDS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "server/reply.h"
#include "server/store.h"

namespace sift::server {

class Server;

// What the server knows about one connection.
struct ClientState {
  uint64_t id = 0;
  std::string addr;  // "ip:port" of the peer
  std::string name;  // CLIENT SETNAME
  bool authenticated = false;
  int resp = 2;
  bool close_after_reply = false;  // QUIT
  std::string last_command;
  int64_t created_ms = 0;
};

struct CommandContext {
  Store& store;
  Server& server;
  ClientState& client;
  absl::Span<const std::string_view> args;
  Reply& reply;
};

struct CommandSpec {
  const char* name;  // lower case, as COMMAND shows it
  // Redis's convention: n > 0 exactly n arguments (the name included),
  // n < 0 at least -n.
  int arity;
  const char* flags;  // space-separated: write readonly fast admin ...
  int first_key, last_key, key_step;
  void (*handler)(CommandContext& ctx);
};

// Every command, in COMMAND's order.
const std::vector<CommandSpec>& Commands();
// The spec of a command name (any case), or nullptr.
const CommandSpec* FindCommand(std::string_view name);

// Runs one command: lookup, authentication, arity, then the handler.
void Dispatch(CommandContext& ctx);

// The tables each handler file contributes.
void AddKeyCommands(std::vector<CommandSpec>* table);
void AddBloomCommands(std::vector<CommandSpec>* table);
void AddServerCommands(std::vector<CommandSpec>* table);

// ---- Helpers the handlers share ------------------------------------------
inline constexpr char kWrongType[] =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr char kNotInteger[] =
    "ERR value is not an integer or out of range";
inline constexpr char kSyntaxError[] = "ERR syntax error";

// Redis's strict integer syntax (string2ll): optional '-', digits, no
// spaces, no '+', no leading zeros; within int64.
bool ParseInt64(std::string_view s, int64_t* out);
// A finite double in Redis's syntax (strtod of the whole string).
bool ParseDouble(std::string_view s, double* out);
// ASCII case-insensitive equality.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
// Redis's glob match (stringmatchlen): * ? [abc] [^a] [a-z] and \ escapes.
bool GlobMatch(std::string_view pattern, std::string_view s,
               bool nocase = false);
// "ERR wrong number of arguments for 'name' command".
void WrongArity(Reply& reply, std::string_view name);
// Replies "ERR <what the store said>" for a failed read or write.
void StoreError(Reply& reply, const absl::Status& s);

}  // namespace sift::server

#endif  // SIFT_SERVER_COMMANDS_H_
