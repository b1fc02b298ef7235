// RespParser: splits the bytes a client sent into commands, as Redis reads
// them: RESP arrays of bulk strings ("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"), and
// inline commands (a line of space-separated words, with Redis's quoting)
// for telnet-style clients. Pipelined commands are parsed one after another
// from one buffer.
//
// A command's arguments are views into the buffer it was parsed from: they
// stay valid until the caller drops or moves those bytes.
//
// Malformed framing is a protocol error with Redis's message ("Protocol
// error: invalid bulk length", ...): the server replies with it and closes
// the connection, as Redis does, since the rest of the stream cannot be
// framed. Limits (a bulk longer than proto-max-bulk-len, more than
// kMaxMultibulk arguments, an inline line longer than kMaxInline) are
// checked on the length header, before a byte of the payload is buffered.
//
// Parsing is resumable: when a command is incomplete, the parser remembers
// how far it got (offsets from the command's start), so a large command
// arriving in many reads is scanned once, not once per read.

#ifndef SIFT_SERVER_RESP_PARSER_H_
#define SIFT_SERVER_RESP_PARSER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sift::server {

// Splits a line into words as Redis does for inline commands and
// configuration lines (sdssplitargs): blanks separate words; "double
// quotes" take \n \r \t \b \a \\ \" and \xHH escapes, 'single quotes'
// take \'; a closing quote must be followed by a blank or the end. Appends
// the words to *out; false on unbalanced quotes.
bool SplitArgs(std::string_view line, std::vector<std::string>* out);

class RespParser {
 public:
  // Redis's limits (networking.c): a multibulk header above 1024*1024
  // arguments and an inline request above 64 KiB are refused.
  static constexpr int64_t kMaxMultibulk = 1024 * 1024;
  static constexpr size_t kMaxInline = 64 * 1024;

  explicit RespParser(uint64_t max_bulk_len) : max_bulk_len_(max_bulk_len) {}

  enum class Result {
    kCommand,   // *args holds one command; *consumed bytes were used
    kNeedMore,  // the command is incomplete: call again with more bytes
    kError,     // protocol error: *error holds Redis's message
  };

  // Parses the command at the start of buf. On kNeedMore the parser keeps
  // its progress: the next call must pass the same bytes (with more
  // appended) at the same start. An empty inline line ("\r\n") is skipped:
  // kNeedMore with *consumed set to the bytes to drop.
  Result Parse(std::string_view buf, size_t* consumed,
               std::vector<std::string_view>* args, std::string* error);

  // When an incomplete command is waiting for a bulk payload, the total
  // bytes that command needs (so the caller can reserve them); else 0.
  size_t bytes_wanted() const { return wanted_; }

 private:
  Result ParseMultibulk(std::string_view buf, size_t* consumed,
                        std::vector<std::string_view>* args,
                        std::string* error);
  Result ParseInline(std::string_view buf, size_t* consumed,
                     std::vector<std::string_view>* args, std::string* error);
  void Reset();

  const uint64_t max_bulk_len_;
  // Progress through the current multibulk: its argument count (-1 before
  // the header is read), the offset of the next unread byte, and each
  // parsed argument as (offset, length) from the command's start.
  int64_t expected_ = -1;
  size_t pos_ = 0;
  std::vector<std::pair<size_t, size_t>> spans_;
  size_t wanted_ = 0;
  // Inline arguments are unquoted into this, so args point here.
  std::vector<std::string> inline_args_;
};

}  // namespace sift::server

#endif  // SIFT_SERVER_RESP_PARSER_H_
