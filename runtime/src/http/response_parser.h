// The parse of one HTTP/1.1 response (net.read_response, decision 0087),
// apart from any socket so that a fuzz target can drive it
// (fuzz/fuzz_http_response.cpp): llhttp in response mode, fed the bytes as
// they come, told of the end of the stream. Bodies are decoded whatever
// their framing (Content-Length, chunked, up to the close); interim 1xx
// answers are skipped; the answer to HEAD has none. Limits: a head of at most
// 64 KiB, a body of at most `max_body` bytes (checked as it arrives).
#pragma once
#include <llhttp.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace wo::http {

class ResponseParser {
 public:
  static constexpr size_t kHeadMax = size_t{64} << 10;

  ResponseParser(bool head_only, size_t max_body);
  ResponseParser(const ResponseParser&) = delete;
  ResponseParser& operator=(const ResponseParser&) = delete;

  enum class State { NeedMore, Done, Error };
  // The next `n` bytes of the stream. Done: the response ended after
  // `*used` of them (the rest belong to whatever follows); Error: error().
  State feed(const char* p, size_t n, size_t* used);
  // The end of the stream: Done when it ended a response (a close-delimited
  // body), else Error.
  State finish();

  bool started() const { return started_; }  // any byte of a response was seen
  int status() const { return status_; }
  const std::string& reason() const { return reason_; }
  const std::vector<std::pair<std::string, std::string>>& headers() const { return headers_; }
  const std::string& body() const { return body_; }
  bool keep_alive() const { return keep_alive_; }
  const std::string& error() const { return why_; }

 private:
  friend struct ResponseCallbacks;
  void end_field();

  llhttp_settings_t settings_;
  llhttp_t parser_;
  bool head_only_;
  size_t max_body_;
  bool started_ = false;
  std::string reason_, name_, value_;
  bool in_value_ = false;
  std::vector<std::pair<std::string, std::string>> headers_;
  size_t head_bytes_ = 0;
  std::string body_;
  bool interim_ = false;  // a 1xx answer (not 101): skipped, the real one follows
  bool done_ = false;
  bool keep_alive_ = false;
  int status_ = 0;
  std::string why_;
};

}  // namespace wo::http
