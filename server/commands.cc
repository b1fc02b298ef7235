// The command table and dispatch: server/commands.h.

#include "server/commands.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "server/server.h"

namespace sift::server {

const std::vector<CommandSpec>& Commands() {
  static const auto* table = [] {
    auto* t = new std::vector<CommandSpec>;
    AddServerCommands(t);
    AddKeyCommands(t);
    AddBloomCommands(t);
    return t;
  }();
  return *table;
}

const CommandSpec* FindCommand(std::string_view name) {
  static const auto* index = [] {
    auto* m = new absl::flat_hash_map<std::string, const CommandSpec*>;
    for (const CommandSpec& c : Commands()) m->emplace(c.name, &c);
    return m;
  }();
  char lower[32];
  if (name.size() >= sizeof lower) return nullptr;
  for (size_t i = 0; i < name.size(); ++i) {
    lower[i] = absl::ascii_tolower(static_cast<unsigned char>(name[i]));
  }
  auto it = index->find(absl::string_view(lower, name.size()));
  return it == index->end() ? nullptr : it->second;
}

void Dispatch(CommandContext& ctx) {
  const std::string_view name = ctx.args[0];
  const CommandSpec* spec = FindCommand(name);
  if (spec == nullptr) {
    std::string msg =
        absl::StrCat("ERR unknown command '", std::string(name.substr(0, 128)),
                     "', with args beginning with: ");
    for (size_t i = 1; i < ctx.args.size() && msg.size() < 512; ++i) {
      absl::StrAppend(&msg, "'", std::string(ctx.args[i].substr(0, 128)), "' ");
    }
    ctx.reply.Error(msg);
    return;
  }
  ctx.client.last_command = spec->name;
  if (!ctx.client.authenticated && !ctx.store.config().requirepass.empty()) {
    const std::string_view n = spec->name;
    if (n != "auth" && n != "hello" && n != "quit") {
      ctx.reply.Error("NOAUTH Authentication required.");
      return;
    }
  }
  const int n = static_cast<int>(ctx.args.size());
  if ((spec->arity > 0 && n != spec->arity) ||
      (spec->arity < 0 && n < -spec->arity)) {
    WrongArity(ctx.reply, spec->name);
    return;
  }
  ctx.server.CountCommand();
  spec->handler(ctx);
}

bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  if (s[0] == '+' || (s.size() > 1 && s[0] == '0') ||
      (s.size() > 1 && s[0] == '-' && s[1] == '0')) {
    return false;
  }
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, *out);
  return ec == std::errc() && p == end;
}

bool ParseDouble(std::string_view s, double* out) {
  if (s.empty() || s.size() > 64 ||
      std::isspace(static_cast<unsigned char>(s[0]))) {
    return false;
  }
  const std::string copy(s);
  char* end = nullptr;
  errno = 0;
  *out = std::strtod(copy.c_str(), &end);
  return end == copy.c_str() + copy.size() && errno != ERANGE &&
         !std::isnan(*out);
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (absl::ascii_tolower(static_cast<unsigned char>(a[i])) !=
        absl::ascii_tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

namespace {

bool GlobMatchAt(std::string_view p, std::string_view s, bool nocase,
                 int depth) {
  const auto eq = [nocase](char a, char b) {
    return nocase ? absl::ascii_tolower(static_cast<unsigned char>(a)) ==
                        absl::ascii_tolower(static_cast<unsigned char>(b))
                  : a == b;
  };
  if (depth > 1000) return false;  // pathological patterns
  size_t i = 0, j = 0;
  while (i < p.size()) {
    switch (p[i]) {
      case '*': {
        while (i + 1 < p.size() && p[i + 1] == '*') ++i;
        if (i + 1 == p.size()) return true;
        for (size_t k = j; k <= s.size(); ++k) {
          if (GlobMatchAt(p.substr(i + 1), s.substr(k), nocase, depth + 1)) {
            return true;
          }
        }
        return false;
      }
      case '?':
        if (j == s.size()) return false;
        ++j;
        ++i;
        break;
      case '[': {
        if (j == s.size()) return false;
        size_t k = i + 1;
        const bool negate = k < p.size() && p[k] == '^';
        if (negate) ++k;
        bool match = false;
        while (k < p.size() && p[k] != ']') {
          if (p[k] == '\\' && k + 1 < p.size()) {
            ++k;
            if (eq(p[k], s[j])) match = true;
          } else if (k + 2 < p.size() && p[k + 1] == '-' && p[k + 2] != ']') {
            char lo = p[k], hi = p[k + 2];
            if (lo > hi) std::swap(lo, hi);
            char c = s[j];
            if (nocase) {
              c = absl::ascii_tolower(static_cast<unsigned char>(c));
              lo = absl::ascii_tolower(static_cast<unsigned char>(lo));
              hi = absl::ascii_tolower(static_cast<unsigned char>(hi));
            }
            if (c >= lo && c <= hi) match = true;
            k += 2;
          } else if (eq(p[k], s[j])) {
            match = true;
          }
          ++k;
        }
        if (negate) match = !match;
        if (!match) return false;
        i = k < p.size() ? k + 1 : k;
        ++j;
        break;
      }
      case '\\':
        if (i + 1 < p.size()) ++i;
        [[fallthrough]];
      default:
        if (j == s.size() || !eq(p[i], s[j])) return false;
        ++i;
        ++j;
        break;
    }
  }
  return j == s.size();
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view s, bool nocase) {
  return GlobMatchAt(pattern, s, nocase, 0);
}

void WrongArity(Reply& reply, std::string_view name) {
  reply.Error(absl::StrCat("ERR wrong number of arguments for '",
                           std::string(name), "' command"));
}

void StoreError(Reply& reply, const absl::Status& s) {
  reply.Error(absl::StrCat("ERR ", s.ToString()));
}

}  // namespace sift::server
