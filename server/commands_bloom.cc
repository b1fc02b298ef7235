// BF.* commands: RedisBloom's scalable Bloom filters
// (sift::ScalableBloomFilter) kept by BloomStore. Replies and error texts are
// RedisBloom's: BF.ADD and BF.EXISTS answer integers 1/0 in RESP2 and booleans
// in RESP3; BF.MADD and BF.INSERT stop at the first item a full NONSCALING
// filter refuses, whose place in the array holds the error.

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/commands.h"
#include "server/server.h"
#include "sift/scalable_filter.h"

namespace sift::server {
namespace {

constexpr char kNotFound[] = "ERR not found";
constexpr char kItemExists[] = "ERR item exists";
constexpr char kFull[] = "ERR non scaling filter is full";
constexpr char kBadData[] = "ERR received bad data";

// What a BF.* command found at a key.
enum class Lookup { kFilter, kMissing, kWrongType, kError };

Lookup FindFilter(CommandContext& ctx, std::string_view key,
                  BloomStore::Entry** entry) {
  *entry = ctx.store.blooms().Find(key);
  if (*entry != nullptr) return Lookup::kFilter;
  absl::StatusOr<KeyType> t = ctx.store.Type(key);
  if (!t.ok()) {
    StoreError(ctx.reply, t.status());
    return Lookup::kError;
  }
  return *t == KeyType::kNone ? Lookup::kMissing : Lookup::kWrongType;
}

ScalableFilterOptions DefaultOptions(const ServerConfig& c) {
  ScalableFilterOptions o;
  o.error_rate = c.bf_error_rate;
  o.capacity = c.bf_initial_size;
  o.expansion = c.bf_expansion_factor;
  return o;
}

// Adds items to key's filter (created with `create` when missing and
// create_missing), replying one result per item (an array when multi).
void AddItems(CommandContext& ctx, std::string_view key,
              absl::Span<const std::string_view> items, bool multi,
              bool create_missing, const ScalableFilterOptions& create) {
  BloomStore::Entry* e;
  switch (FindFilter(ctx, key, &e)) {
    case Lookup::kError:
      return;
    case Lookup::kWrongType:
      ctx.reply.Error(kWrongType);
      return;
    case Lookup::kMissing: {
      if (!create_missing) {
        ctx.reply.Error(kNotFound);
        return;
      }
      absl::StatusOr<ScalableBloomFilter> f =
          ScalableBloomFilter::Create(create);
      if (!f.ok()) {
        ctx.reply.Error("ERR could not create filter");
        return;
      }
      e = ctx.store.blooms().Create(key, *std::move(f), ctx.store.batch());
      break;
    }
    case Lookup::kFilter:
      break;
  }
  ctx.store.TouchFilter(key);
  std::vector<std::pair<size_t, uint64_t>> added;
  std::vector<FilterAdd> results;
  results.reserve(items.size());
  for (std::string_view item : items) {
    const uint64_t h = ScalableBloomFilter::Hash(item);
    size_t sub = 0;
    results.push_back(e->filter.AddHash(h, &sub));
    if (results.back() == FilterAdd::kAdded) added.emplace_back(sub, h);
    if (results.back() == FilterAdd::kFull) break;
  }
  ctx.store.blooms().RecordAdds(key, e, added, ctx.store.batch());
  if (!multi) {
    if (results[0] == FilterAdd::kFull) {
      ctx.reply.Error(kFull);
    } else {
      ctx.reply.Bool(results[0] == FilterAdd::kAdded);
    }
    return;
  }
  ctx.reply.Array(results.size());
  for (FilterAdd r : results) {
    if (r == FilterAdd::kFull) {
      ctx.reply.Error(kFull);
    } else {
      ctx.reply.Bool(r == FilterAdd::kAdded);
    }
  }
}

// BF.RESERVE key error_rate capacity [EXPANSION expansion] [NONSCALING]
void Reserve(CommandContext& ctx) {
  const auto& a = ctx.args;
  if (a.size() > 7) {
    WrongArity(ctx.reply, "bf.reserve");
    return;
  }
  ScalableFilterOptions o;
  if (!ParseDouble(a[2], &o.error_rate)) {
    ctx.reply.Error("ERR bad error rate");
    return;
  }
  if (!(o.error_rate > 0 && o.error_rate < 1)) {
    ctx.reply.Error("ERR error rate must be in the range (0.000000, 1.000000)");
    return;
  }
  int64_t capacity;
  if (!ParseInt64(a[3], &capacity)) {
    ctx.reply.Error("ERR bad capacity");
    return;
  }
  if (capacity < 1 ||
      capacity > static_cast<int64_t>(kMaxScalableFilterCapacity)) {
    ctx.reply.Error("ERR capacity must be in the range [1, 1073741824]");
    return;
  }
  o.capacity = static_cast<uint64_t>(capacity);
  bool nonscaling = false, expansion_given = false;
  int64_t expansion = 2;
  for (size_t i = 4; i < a.size(); ++i) {
    if (EqualsIgnoreCase(a[i], "NONSCALING")) {
      nonscaling = true;
    } else if (EqualsIgnoreCase(a[i], "EXPANSION")) {
      if (i + 1 == a.size()) {
        ctx.reply.Error("ERR no expansion");
        return;
      }
      if (!ParseInt64(a[++i], &expansion)) {
        ctx.reply.Error("ERR bad expansion");
        return;
      }
      expansion_given = true;
    } else {
      ctx.reply.Error(
          absl::StrCat("ERR unknown argument '", std::string(a[i]), "'"));
      return;
    }
  }
  if (expansion_given) {
    if (expansion < 0 ||
        expansion > static_cast<int64_t>(kMaxScalableFilterExpansion)) {
      ctx.reply.Error("ERR expansion must be in the range [0, 32768]");
      return;
    }
    if (expansion == 0) {
      nonscaling = true;  // RedisBloom: EXPANSION 0 is NONSCALING
    } else if (nonscaling) {
      ctx.reply.Error("Nonscaling filters cannot expand");
      return;
    }
  }
  o.nonscaling = nonscaling;
  o.expansion =
      nonscaling || expansion == 0 ? 2 : static_cast<uint32_t>(expansion);
  BloomStore::Entry* e;
  switch (FindFilter(ctx, a[1], &e)) {
    case Lookup::kError:
      return;
    case Lookup::kFilter:
      ctx.reply.Error(kItemExists);
      return;
    case Lookup::kWrongType:
      ctx.reply.Error(kWrongType);
      return;
    case Lookup::kMissing:
      break;
  }
  absl::StatusOr<ScalableBloomFilter> f = ScalableBloomFilter::Create(o);
  if (!f.ok()) {
    ctx.reply.Error("ERR could not create filter");
    return;
  }
  ctx.store.TouchFilter(a[1]);
  ctx.store.blooms().Create(a[1], *std::move(f), ctx.store.batch());
  ctx.reply.Ok();
}

void Add(CommandContext& ctx) {
  AddItems(ctx, ctx.args[1], ctx.args.subspan(2, 1), /*multi=*/false, true,
           DefaultOptions(ctx.store.config()));
}

void MAdd(CommandContext& ctx) {
  AddItems(ctx, ctx.args[1], ctx.args.subspan(2), /*multi=*/true, true,
           DefaultOptions(ctx.store.config()));
}

// BF.INSERT key [CAPACITY c] [ERROR e] [EXPANSION n] [NOCREATE]
//           [NONSCALING] ITEMS item...
void Insert(CommandContext& ctx) {
  const auto& a = ctx.args;
  ScalableFilterOptions o = DefaultOptions(ctx.store.config());
  bool create = true, nonscaling = false;
  int64_t expansion = o.expansion;
  size_t items = 0;
  for (size_t i = 2; i < a.size() && items == 0;) {
    const std::string_view opt = a[i];
    const auto value = [&]() -> bool {
      if (i + 1 == a.size()) {
        WrongArity(ctx.reply, "bf.insert");
        return false;
      }
      return true;
    };
    if (EqualsIgnoreCase(opt, "ITEMS")) {
      items = ++i;
    } else if (EqualsIgnoreCase(opt, "CAPACITY")) {
      if (!value()) return;
      int64_t c;
      if (!ParseInt64(a[i + 1], &c) || c < 1 ||
          c > static_cast<int64_t>(kMaxScalableFilterCapacity)) {
        ctx.reply.Error("Bad capacity");
        return;
      }
      o.capacity = static_cast<uint64_t>(c);
      i += 2;
    } else if (EqualsIgnoreCase(opt, "ERROR")) {
      if (!value()) return;
      if (!ParseDouble(a[i + 1], &o.error_rate) ||
          !(o.error_rate > 0 && o.error_rate < 1)) {
        ctx.reply.Error("Bad error rate");
        return;
      }
      i += 2;
    } else if (EqualsIgnoreCase(opt, "EXPANSION")) {
      if (!value()) return;
      if (!ParseInt64(a[i + 1], &expansion) || expansion < 0 ||
          expansion > static_cast<int64_t>(kMaxScalableFilterExpansion)) {
        ctx.reply.Error("Bad expansion");
        return;
      }
      i += 2;
    } else if (EqualsIgnoreCase(opt, "NOCREATE")) {
      create = false;
      ++i;
    } else if (EqualsIgnoreCase(opt, "NONSCALING")) {
      nonscaling = true;
      ++i;
    } else {
      ctx.reply.Error("Unknown argument received");
      return;
    }
  }
  if (items == 0 || items >= a.size()) {
    WrongArity(ctx.reply, "bf.insert");
    return;
  }
  // NONSCALING wins over EXPANSION whatever their order; EXPANSION 0 is
  // NONSCALING (RedisBloom).
  o.nonscaling = nonscaling || expansion == 0;
  if (expansion > 0) o.expansion = static_cast<uint32_t>(expansion);
  AddItems(ctx, a[1], a.subspan(items), /*multi=*/true, create, o);
}

// A read of a filter first writes what the pipeline added before it, so a
// reply never shows an add whose write then failed.
void Exists(CommandContext& ctx) {
  (void)ctx.store.Commit();
  BloomStore::Entry* e = ctx.store.blooms().Find(ctx.args[1]);
  // A missing key, or one of another type, holds no item (RedisBloom).
  ctx.reply.Bool(e != nullptr && e->filter.MayContain(ctx.args[2]));
}

void MExists(CommandContext& ctx) {
  (void)ctx.store.Commit();
  BloomStore::Entry* e = ctx.store.blooms().Find(ctx.args[1]);
  const auto items = ctx.args.subspan(2);
  ctx.reply.Array(items.size());
  if (e == nullptr) {
    for (size_t i = 0; i < items.size(); ++i) ctx.reply.Bool(false);
    return;
  }
  const std::vector<bool> found = e->filter.MayContainMulti(items);
  for (bool f : found) ctx.reply.Bool(f);
}

// Replies for a command that needs an existing filter; false if replied.
bool ExistingFilter(CommandContext& ctx, BloomStore::Entry** e) {
  switch (FindFilter(ctx, ctx.args[1], e)) {
    case Lookup::kFilter:
      return true;
    case Lookup::kMissing:
      ctx.reply.Error(kNotFound);
      return false;
    case Lookup::kWrongType:
      ctx.reply.Error(kWrongType);
      return false;
    case Lookup::kError:
      return false;
  }
  return false;
}

void Info(CommandContext& ctx) {
  if (ctx.args.size() > 3) {
    WrongArity(ctx.reply, "bf.info");
    return;
  }
  BloomStore::Entry* e;
  if (!ExistingFilter(ctx, &e)) return;
  const ScalableBloomFilter& f = e->filter;
  const auto expansion = [&] {
    if (f.options().nonscaling) {
      ctx.reply.Null();
    } else {
      ctx.reply.Integer(f.options().expansion);
    }
  };
  if (ctx.args.size() == 3) {
    const std::string_view field = ctx.args[2];
    const auto one = [&](int64_t v) {
      ctx.reply.Array(1);
      ctx.reply.Integer(v);
    };
    if (EqualsIgnoreCase(field, "CAPACITY")) {
      one(static_cast<int64_t>(f.capacity()));
    } else if (EqualsIgnoreCase(field, "SIZE")) {
      one(static_cast<int64_t>(f.bytes()));
    } else if (EqualsIgnoreCase(field, "FILTERS")) {
      one(static_cast<int64_t>(f.num_filters()));
    } else if (EqualsIgnoreCase(field, "ITEMS")) {
      one(static_cast<int64_t>(f.size()));
    } else if (EqualsIgnoreCase(field, "EXPANSION")) {
      ctx.reply.Array(1);
      expansion();
    } else {
      ctx.reply.Error("Invalid information value");
    }
    return;
  }
  ctx.reply.Map(5);
  ctx.reply.Simple("Capacity");
  ctx.reply.Integer(static_cast<int64_t>(f.capacity()));
  ctx.reply.Simple("Size");
  ctx.reply.Integer(static_cast<int64_t>(f.bytes()));
  ctx.reply.Simple("Number of filters");
  ctx.reply.Integer(static_cast<int64_t>(f.num_filters()));
  ctx.reply.Simple("Number of items inserted");
  ctx.reply.Integer(static_cast<int64_t>(f.size()));
  ctx.reply.Simple("Expansion rate");
  expansion();
}

void Card(CommandContext& ctx) {
  BloomStore::Entry* e;
  switch (FindFilter(ctx, ctx.args[1], &e)) {
    case Lookup::kFilter:
      ctx.reply.Integer(static_cast<int64_t>(e->filter.size()));
      return;
    case Lookup::kMissing:
      ctx.reply.Integer(0);
      return;
    case Lookup::kWrongType:
      ctx.reply.Error(kWrongType);
      return;
    case Lookup::kError:
      return;
  }
}

void ScanDump(CommandContext& ctx) {
  BloomStore::Entry* e;
  if (!ExistingFilter(ctx, &e)) return;
  int64_t cursor;
  if (!ParseInt64(ctx.args[2], &cursor) || cursor < 0) {
    ctx.reply.Error("Second argument must be numeric");
    return;
  }
  const ScalableBloomFilter::Chunk chunk =
      e->filter.ScanDump(static_cast<uint64_t>(cursor));
  ctx.reply.Array(2);
  ctx.reply.Integer(static_cast<int64_t>(chunk.cursor));
  ctx.reply.Bulk(chunk.data);
}

void LoadChunk(CommandContext& ctx) {
  int64_t cursor;
  if (!ParseInt64(ctx.args[2], &cursor) || cursor < 0) {
    ctx.reply.Error("ERR Second argument must be numeric");
    return;
  }
  const std::string_view key = ctx.args[1];
  const std::string_view data = ctx.args[3];
  BloomStore::Entry* e;
  switch (FindFilter(ctx, key, &e)) {
    case Lookup::kError:
      return;
    case Lookup::kWrongType:
      ctx.reply.Error(kWrongType);
      return;
    case Lookup::kMissing: {
      if (cursor != 1) {
        ctx.reply.Error(kNotFound);
        return;
      }
      absl::StatusOr<ScalableBloomFilter> f =
          ScalableBloomFilter::FromHeader(data);
      if (!f.ok()) {
        ctx.reply.Error(kBadData);
        return;
      }
      ctx.store.TouchFilter(key);
      ctx.store.blooms().Create(key, *std::move(f), ctx.store.batch());
      ctx.reply.Ok();
      return;
    }
    case Lookup::kFilter:
      break;
  }
  absl::StatusOr<size_t> sub =
      e->filter.LoadChunk(static_cast<uint64_t>(cursor), data);
  if (!sub.ok()) {
    ctx.reply.Error(kBadData);
    return;
  }
  ctx.store.TouchFilter(key);
  ctx.store.blooms().RecordRewrite(key, e, *sub, ctx.store.batch());
  ctx.reply.Ok();
}

}  // namespace

void AddBloomCommands(std::vector<CommandSpec>* t) {
  t->insert(t->end(),
            {
                {"bf.reserve", -4, "write denyoom", 1, 1, 1, Reserve},
                {"bf.add", 3, "write denyoom", 1, 1, 1, Add},
                {"bf.madd", -3, "write denyoom", 1, 1, 1, MAdd},
                {"bf.insert", -4, "write denyoom", 1, 1, 1, Insert},
                {"bf.exists", 3, "readonly fast", 1, 1, 1, Exists},
                {"bf.mexists", -3, "readonly fast", 1, 1, 1, MExists},
                {"bf.info", -2, "readonly fast", 1, 1, 1, Info},
                {"bf.card", 2, "readonly fast", 1, 1, 1, Card},
                {"bf.scandump", 3, "readonly", 1, 1, 1, ScanDump},
                {"bf.loadchunk", 4, "write denyoom", 1, 1, 1, LoadChunk},
            });
}

}  // namespace sift::server
