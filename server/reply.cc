// Reply: server/reply.h.

#include "server/reply.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace sift::server {

void Reply::Header(char type, int64_t n) {
  char buf[24];
  buf[0] = type;
  auto [p, ec] = std::to_chars(buf + 1, buf + sizeof buf - 2, n);
  (void)ec;
  *p++ = '\r';
  *p++ = '\n';
  out_->append(buf, static_cast<size_t>(p - buf));
}

void Reply::Simple(std::string_view s) {
  out_->push_back('+');
  out_->append(s);
  out_->append("\r\n");
}

void Reply::Error(std::string_view s) {
  out_->push_back('-');
  for (char c : s) out_->push_back(c == '\r' || c == '\n' ? ' ' : c);
  out_->append("\r\n");
}

void Reply::Integer(int64_t v) { Header(':', v); }

void Reply::Bulk(std::string_view s) {
  Header('$', static_cast<int64_t>(s.size()));
  out_->append(s);
  out_->append("\r\n");
}

void Reply::Null() { out_->append(resp3_ ? "_\r\n" : "$-1\r\n"); }

void Reply::NullArray() { out_->append(resp3_ ? "_\r\n" : "*-1\r\n"); }

void Reply::Array(size_t n) { Header('*', static_cast<int64_t>(n)); }

void Reply::Map(size_t n) {
  if (resp3_) {
    Header('%', static_cast<int64_t>(n));
  } else {
    Header('*', static_cast<int64_t>(2 * n));
  }
}

void Reply::Bool(bool b) {
  if (resp3_) {
    out_->append(b ? "#t\r\n" : "#f\r\n");
  } else {
    Integer(b ? 1 : 0);
  }
}

void Reply::Double(double d) {
  char buf[64];
  int n;
  if (std::isinf(d)) {
    n = std::snprintf(buf, sizeof buf, "%s", d > 0 ? "inf" : "-inf");
  } else {
    n = std::snprintf(buf, sizeof buf, "%.17g", d);
  }
  const std::string_view s(buf, static_cast<size_t>(n));
  if (resp3_) {
    out_->push_back(',');
    out_->append(s);
    out_->append("\r\n");
  } else {
    Bulk(s);
  }
}

void Reply::Verbatim(std::string_view s) {
  if (!resp3_) {
    Bulk(s);
    return;
  }
  Header('=', static_cast<int64_t>(s.size() + 4));
  out_->append("txt:");
  out_->append(s);
  out_->append("\r\n");
}

}  // namespace sift::server
