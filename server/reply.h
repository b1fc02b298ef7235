// Reply: appends RESP replies to a connection's output, in the protocol
// version the client chose (RESP2 by default, RESP3 after HELLO 3).
//
// The RESP3 types fall back to their RESP2 forms as Redis does: a map is a
// flat array of key, value, ...; a boolean is the integer 1 or 0; a null
// is "$-1" (a null bulk; NullArray gives "*-1"); a double is a bulk string;
// a verbatim string is a bulk string.

#ifndef SIFT_SERVER_REPLY_H_
#define SIFT_SERVER_REPLY_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sift::server {

class Reply {
 public:
  explicit Reply(std::string* out) : out_(out) {}

  void set_resp3(bool on) { resp3_ = on; }
  bool resp3() const { return resp3_; }

  // "+OK": a status with no CR or LF.
  void Simple(std::string_view s);
  void Ok() { Simple("OK"); }
  // "-ERR ...": the text as given, which must start with its error code
  // (ERR, WRONGTYPE, NOAUTH, ...); CR and LF are replaced by spaces.
  void Error(std::string_view s);
  void Integer(int64_t v);
  void Bulk(std::string_view s);
  void Null();
  void NullArray();
  void Array(size_t n);
  void Map(size_t n);  // then n keys and n values, alternating
  void Bool(bool b);
  void Double(double d);
  // RESP3 "=len\r\ntxt:..." (INFO's reply); RESP2 a bulk string.
  void Verbatim(std::string_view s);

  size_t size() const { return out_->size(); }
  // Drops everything appended after `size` (a mark from size()).
  void Truncate(size_t size) { out_->resize(size); }

 private:
  void Header(char type, int64_t n);

  std::string* out_;
  bool resp3_ = false;
};

}  // namespace sift::server

#endif  // SIFT_SERVER_REPLY_H_
