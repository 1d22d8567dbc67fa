// The socket-free half of net.read_request: llhttp (strict, Debian's
// node-llhttp) fed the bytes of one request head as they arrive, possibly in
// many pieces. It stops at the end of the head (the body is Content-Length
// bytes the caller reads itself) and reports spans — offsets into the
// caller's buffer, which may move between feeds — rather than copies.
#pragma once
#include <llhttp.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace wo::http {

inline constexpr size_t kHeadMax = size_t{1} << 20;  // request line + headers + blank line
inline constexpr uint64_t kBodyMax = uint64_t{1} << 20;

struct Span {
  size_t off = 0;
  size_t len = 0;
};
struct Field {
  Span name, value;  // as sent: the value untrimmed, the name not lowercased
};

// Where a request starts in `p[0, n)`: past the empty lines (CR / LF) a
// client may send between requests (RFC 9112 §2.2).
inline size_t request_start(const char* p, size_t n) {
  size_t i = 0;
  while (i < n && (p[i] == '\r' || p[i] == '\n')) ++i;
  return i;
}

// Whether a request has begun: a byte other than SP, HT, CR, LF. Before
// that, an idle timeout or EOF is a clean close, not a malformed request.
inline bool request_begun(const char* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n') return true;
  return false;
}

class RequestParser {
 public:
  enum class State { NeedMore, Head, Error };

  // `fields` collects the header spans (cleared here); pooled by the caller so
  // a request costs no allocation of its own.
  explicit RequestParser(std::vector<Field>* fields);
  RequestParser(const RequestParser&) = delete;
  RequestParser& operator=(const RequestParser&) = delete;

  // `buf[start, len)` is the request so far (`start` skips the CR/LF lines a
  // client may send between requests); bytes before the previous `len` were
  // fed already. After Head, head_end() is the offset just past the blank
  // line; after Error, status() and error() say what to answer.
  State feed(const char* buf, size_t start, size_t len);

  Span method() const { return method_; }
  Span target() const { return target_; }
  const std::vector<Field>& fields() const { return *fields_; }
  size_t head_end() const { return head_end_; }
  uint64_t content_length() const { return content_length_; }
  bool keep_alive() const { return keep_alive_; }
  // The head (in `buf`, the buffer of the last feed) has `Expect: 100-continue`.
  bool expects_continue(const char* buf) const;
  int status() const { return status_; }
  const char* error() const { return error_; }

 private:
  friend struct Callbacks;
  State fail(int status, const char* why);
  bool extend(Span* s, bool* open, const char* at, size_t n);

  llhttp_t p_;
  std::vector<Field>* fields_;
  const char* base_ = nullptr;  // the buffer of the current feed
  size_t fed_ = 0;
  Span method_, target_;
  bool in_method_ = false, in_target_ = false, in_name_ = false, in_value_ = false;
  bool seen_length_ = false;
  size_t head_end_ = 0;
  uint64_t content_length_ = 0;
  bool keep_alive_ = false;
  bool done_ = false;
  int status_ = 0;
  const char* error_ = "";
};

}  // namespace wo::http
