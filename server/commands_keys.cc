// String-key commands: GET, SET, DEL, EXISTS, MGET, MSET, INCR..., SCAN,
// KEYS, TYPE, DBSIZE, FLUSHDB. Keys map to siftdb records (server/keys.h);
// a key holding a BF.* filter is WRONGTYPE for the string commands.

#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/commands.h"
#include "server/server.h"

namespace sift::server {
namespace {

// Redis's TYPE name of RedisBloom's filter type.
constexpr char kBloomTypeName[] = "MBbloom--";

const char* TypeName(KeyType t) {
  switch (t) {
    case KeyType::kString:
      return "string";
    case KeyType::kBloom:
      return kBloomTypeName;
    case KeyType::kNone:
      break;
  }
  return "none";
}

// Reads a string key for a command that needs one: true with *value
// filled, or false after replying (WRONGTYPE, an error, or absent: *found
// false and nothing replied).
bool ReadString(CommandContext& ctx, std::string_view key, std::string* value,
                bool* found) {
  *found = false;
  if (ctx.store.blooms().Find(key) != nullptr) {
    ctx.reply.Error(kWrongType);
    return false;
  }
  absl::Status s = ctx.store.GetString(key, value);
  if (absl::IsNotFound(s)) {
    ctx.server.CountKeyspace(false);
    return true;
  }
  if (!s.ok()) {
    StoreError(ctx.reply, s);
    return false;
  }
  ctx.server.CountKeyspace(true);
  *found = true;
  return true;
}

void Get(CommandContext& ctx) {
  std::string value;
  bool found;
  if (!ReadString(ctx, ctx.args[1], &value, &found)) return;
  if (found) {
    ctx.reply.Bulk(value);
  } else {
    ctx.reply.Null();
  }
}

void Set(CommandContext& ctx) {
  bool nx = false, xx = false, get = false;
  for (size_t i = 3; i < ctx.args.size(); ++i) {
    const std::string_view a = ctx.args[i];
    if (EqualsIgnoreCase(a, "NX") && !xx) {
      nx = true;
    } else if (EqualsIgnoreCase(a, "XX") && !nx) {
      xx = true;
    } else if (EqualsIgnoreCase(a, "GET")) {
      get = true;
    } else if (EqualsIgnoreCase(a, "KEEPTTL")) {
      // No key has a TTL, so keeping it changes nothing.
    } else if (EqualsIgnoreCase(a, "EX") || EqualsIgnoreCase(a, "PX") ||
               EqualsIgnoreCase(a, "EXAT") || EqualsIgnoreCase(a, "PXAT")) {
      ctx.reply.Error(
          absl::StrCat("ERR SET ", std::string(a),
                       " is not supported: sift-server keys do not expire"));
      return;
    } else {
      ctx.reply.Error(kSyntaxError);
      return;
    }
  }
  const std::string_view key = ctx.args[1];
  if (!nx && !xx && !get) {  // a blind write: batched with its neighbours
    ctx.store.PutString(key, ctx.args[2]);
    ctx.reply.Ok();
    return;
  }
  std::string old;
  bool found = false;
  if (get) {
    if (!ReadString(ctx, key, &old, &found)) return;
  } else {
    absl::StatusOr<KeyType> t = ctx.store.Type(key);
    if (!t.ok()) {
      StoreError(ctx.reply, t.status());
      return;
    }
    found = *t != KeyType::kNone;
  }
  const bool write = !(nx && found) && !(xx && !found);
  if (write) ctx.store.PutString(key, ctx.args[2]);
  if (get) {
    if (found) {
      ctx.reply.Bulk(old);
    } else {
      ctx.reply.Null();
    }
  } else if (write) {
    ctx.reply.Ok();
  } else {
    ctx.reply.Null();
  }
}

void SetNx(CommandContext& ctx) {
  absl::StatusOr<KeyType> t = ctx.store.Type(ctx.args[1]);
  if (!t.ok()) {
    StoreError(ctx.reply, t.status());
    return;
  }
  if (*t != KeyType::kNone) {
    ctx.reply.Integer(0);
    return;
  }
  ctx.store.PutString(ctx.args[1], ctx.args[2]);
  ctx.reply.Integer(1);
}

void GetDel(CommandContext& ctx) {
  std::string value;
  bool found;
  if (!ReadString(ctx, ctx.args[1], &value, &found)) return;
  if (!found) {
    ctx.reply.Null();
    return;
  }
  (void)ctx.store.Delete(ctx.args[1]);
  ctx.reply.Bulk(value);
}

void Strlen(CommandContext& ctx) {
  std::string value;
  bool found;
  if (!ReadString(ctx, ctx.args[1], &value, &found)) return;
  ctx.reply.Integer(static_cast<int64_t>(value.size()));
}

void Append(CommandContext& ctx) {
  std::string value;
  bool found;
  if (!ReadString(ctx, ctx.args[1], &value, &found)) return;
  value.append(ctx.args[2]);
  if (value.size() > ctx.store.config().proto_max_bulk_len) {
    ctx.reply.Error(
        "ERR string exceeds maximum allowed size (proto-max-bulk-len)");
    return;
  }
  ctx.store.PutString(ctx.args[1], value);
  ctx.reply.Integer(static_cast<int64_t>(value.size()));
}

void Del(CommandContext& ctx) {
  int64_t n = 0;
  for (size_t i = 1; i < ctx.args.size(); ++i) {
    absl::StatusOr<bool> deleted = ctx.store.Delete(ctx.args[i]);
    if (!deleted.ok()) {
      StoreError(ctx.reply, deleted.status());
      return;
    }
    n += *deleted ? 1 : 0;
  }
  ctx.reply.Integer(n);
}

void Exists(CommandContext& ctx) {
  int64_t n = 0;
  for (size_t i = 1; i < ctx.args.size(); ++i) {
    absl::StatusOr<KeyType> t = ctx.store.Type(ctx.args[i]);
    if (!t.ok()) {
      StoreError(ctx.reply, t.status());
      return;
    }
    n += *t != KeyType::kNone ? 1 : 0;
  }
  ctx.reply.Integer(n);
}

void Type(CommandContext& ctx) {
  absl::StatusOr<KeyType> t = ctx.store.Type(ctx.args[1]);
  if (!t.ok()) {
    StoreError(ctx.reply, t.status());
    return;
  }
  ctx.reply.Simple(TypeName(*t));
}

void MGet(CommandContext& ctx) {
  const auto keys = ctx.args.subspan(1);
  std::vector<std::string> values;
  std::vector<absl::Status> statuses = ctx.store.MultiGetStrings(keys, &values);
  ctx.reply.Array(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    // A filter key is not a string: nil, as Redis answers MGET for any
    // other type.
    if (statuses[i].ok() && ctx.store.blooms().Find(keys[i]) == nullptr) {
      ctx.server.CountKeyspace(true);
      ctx.reply.Bulk(values[i]);
    } else {
      ctx.server.CountKeyspace(false);
      ctx.reply.Null();
    }
  }
}

void MSet(CommandContext& ctx) {
  if (ctx.args.size() % 2 != 1) {
    WrongArity(ctx.reply, "mset");
    return;
  }
  for (size_t i = 1; i + 1 < ctx.args.size(); i += 2) {
    ctx.store.PutString(ctx.args[i], ctx.args[i + 1]);
  }
  ctx.reply.Ok();
}

void IncrBy(CommandContext& ctx, int64_t delta) {
  std::string value;
  bool found;
  if (!ReadString(ctx, ctx.args[1], &value, &found)) return;
  int64_t v = 0;
  if (found && !ParseInt64(value, &v)) {
    ctx.reply.Error(kNotInteger);
    return;
  }
  if ((delta > 0 && v > std::numeric_limits<int64_t>::max() - delta) ||
      (delta < 0 && v < std::numeric_limits<int64_t>::min() - delta)) {
    ctx.reply.Error("ERR increment or decrement would overflow");
    return;
  }
  v += delta;
  ctx.store.PutString(ctx.args[1], std::to_string(v));
  ctx.reply.Integer(v);
}

void Incr(CommandContext& ctx) { IncrBy(ctx, 1); }
void Decr(CommandContext& ctx) { IncrBy(ctx, -1); }

bool DeltaArg(CommandContext& ctx, int64_t* delta) {
  if (!ParseInt64(ctx.args[2], delta)) {
    ctx.reply.Error(kNotInteger);
    return false;
  }
  return true;
}

void IncrByCmd(CommandContext& ctx) {
  int64_t d;
  if (DeltaArg(ctx, &d)) IncrBy(ctx, d);
}

void DecrByCmd(CommandContext& ctx) {
  int64_t d;
  if (!DeltaArg(ctx, &d)) return;
  if (d == std::numeric_limits<int64_t>::min()) {
    ctx.reply.Error("ERR decrement would overflow");
    return;
  }
  IncrBy(ctx, -d);
}

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]. Cursors are
// integers naming the last key a scan returned (Server::cursors).
void Scan(CommandContext& ctx) {
  int64_t cursor;
  if (!ParseInt64(ctx.args[1], &cursor) || cursor < 0) {
    ctx.reply.Error("ERR invalid cursor");
    return;
  }
  std::string_view match, type;
  int64_t count = 10;
  for (size_t i = 2; i < ctx.args.size(); i += 2) {
    if (i + 1 >= ctx.args.size()) {
      ctx.reply.Error(kSyntaxError);
      return;
    }
    if (EqualsIgnoreCase(ctx.args[i], "MATCH")) {
      match = ctx.args[i + 1];
    } else if (EqualsIgnoreCase(ctx.args[i], "COUNT")) {
      if (!ParseInt64(ctx.args[i + 1], &count)) {
        ctx.reply.Error(kNotInteger);
        return;
      }
      if (count < 1) {
        ctx.reply.Error(kSyntaxError);
        return;
      }
    } else if (EqualsIgnoreCase(ctx.args[i], "TYPE")) {
      type = ctx.args[i + 1];
    } else {
      ctx.reply.Error(kSyntaxError);
      return;
    }
  }
  std::string after;
  if (cursor != 0 && !ctx.server.cursors().Find(cursor, &after)) {
    ctx.reply.Error("ERR invalid cursor");
    return;
  }
  std::vector<std::string> keys;
  std::string next;
  const size_t n = static_cast<size_t>(std::min<int64_t>(count, 1 << 20));
  if (absl::Status s = ctx.store.Scan(after, n, &keys, &next); !s.ok()) {
    StoreError(ctx.reply, s);
    return;
  }
  std::vector<std::string*> shown;
  for (std::string& k : keys) {
    if (!match.empty() && !GlobMatch(match, k)) continue;
    if (!type.empty()) {
      const bool bloom = ctx.store.blooms().Find(k) != nullptr;
      if (!EqualsIgnoreCase(type, bloom ? kBloomTypeName : "string")) continue;
    }
    shown.push_back(&k);
  }
  ctx.reply.Array(2);
  ctx.reply.Bulk(next.empty() ? "0"
                              : std::to_string(ctx.server.cursors().Add(next)));
  ctx.reply.Array(shown.size());
  for (const std::string* k : shown) ctx.reply.Bulk(*k);
}

void Keys(CommandContext& ctx) {
  const std::string_view pattern = ctx.args[1];
  std::vector<std::string> all;
  std::string after;
  while (true) {
    std::vector<std::string> keys;
    std::string next;
    if (absl::Status s = ctx.store.Scan(after, 4096, &keys, &next); !s.ok()) {
      StoreError(ctx.reply, s);
      return;
    }
    for (std::string& k : keys) {
      if (GlobMatch(pattern, k)) all.push_back(std::move(k));
    }
    if (next.empty()) break;
    after = std::move(next);
  }
  ctx.reply.Array(all.size());
  for (const std::string& k : all) ctx.reply.Bulk(k);
}

void DbSize(CommandContext& ctx) {
  absl::StatusOr<uint64_t> n = ctx.store.CountKeys();
  if (!n.ok()) {
    StoreError(ctx.reply, n.status());
    return;
  }
  ctx.reply.Integer(static_cast<int64_t>(*n));
}

void FlushDb(CommandContext& ctx) {
  if (ctx.args.size() > 2 ||
      (ctx.args.size() == 2 && !EqualsIgnoreCase(ctx.args[1], "ASYNC") &&
       !EqualsIgnoreCase(ctx.args[1], "SYNC"))) {
    ctx.reply.Error(kSyntaxError);
    return;
  }
  if (absl::Status s = ctx.store.Clear(); !s.ok()) {
    StoreError(ctx.reply, s);
    return;
  }
  ctx.server.cursors().Clear();
  ctx.reply.Ok();
}

}  // namespace

void AddKeyCommands(std::vector<CommandSpec>* t) {
  t->insert(t->end(),
            {
                {"get", 2, "readonly fast", 1, 1, 1, Get},
                {"set", -3, "write denyoom", 1, 1, 1, Set},
                {"setnx", 3, "write denyoom fast", 1, 1, 1, SetNx},
                {"getdel", 2, "write fast", 1, 1, 1, GetDel},
                {"strlen", 2, "readonly fast", 1, 1, 1, Strlen},
                {"append", 3, "write denyoom fast", 1, 1, 1, Append},
                {"del", -2, "write", 1, -1, 1, Del},
                {"unlink", -2, "write fast", 1, -1, 1, Del},
                {"exists", -2, "readonly fast", 1, -1, 1, Exists},
                {"type", 2, "readonly fast", 1, 1, 1, Type},
                {"mget", -2, "readonly fast", 1, -1, 1, MGet},
                {"mset", -3, "write denyoom", 1, -1, 2, MSet},
                {"incr", 2, "write denyoom fast", 1, 1, 1, Incr},
                {"decr", 2, "write denyoom fast", 1, 1, 1, Decr},
                {"incrby", 3, "write denyoom fast", 1, 1, 1, IncrByCmd},
                {"decrby", 3, "write denyoom fast", 1, 1, 1, DecrByCmd},
                {"scan", -2, "readonly", 0, 0, 0, Scan},
                {"keys", 2, "readonly", 0, 0, 0, Keys},
                {"dbsize", 1, "readonly fast", 0, 0, 0, DbSize},
                {"flushdb", -1, "write", 0, 0, 0, FlushDb},
                {"flushall", -1, "write", 0, 0, 0, FlushDb},
            });
}

}  // namespace sift::server
