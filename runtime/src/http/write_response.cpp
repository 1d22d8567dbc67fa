// net.write_response (the HTTP ABI of issue 9; framework.md §2.2, README.md,
// docs/decisions/0023): the status line with its reason phrase, the caller's
// headers in map order, Connection and Content-Length, the blank line, then
// the body (not for HEAD) — one sendmsg of two iovecs when the socket takes it.
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "../core/heap.h"
#include "../core/trap.h"
#include "../net/fd_io.h"
#include "common/traps.h"
#include "response.h"
#include "scratch.h"
#include "texts.h"

namespace wo::http {

namespace {

const char* reason(int64_t status) {
  switch (status) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 203: return "Non-Authoritative Information";
    case 204: return "No Content";
    case 205: return "Reset Content";
    case 206: return "Partial Content";
    case 300: return "Multiple Choices";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 402: return "Payment Required";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 407: return "Proxy Authentication Required";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 411: return "Length Required";
    case 412: return "Precondition Failed";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 416: return "Range Not Satisfiable";
    case 417: return "Expectation Failed";
    case 421: return "Misdirected Request";
    case 422: return "Unprocessable Content";
    case 423: return "Locked";
    case 425: return "Too Early";
    case 426: return "Upgrade Required";
    case 428: return "Precondition Required";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 451: return "Unavailable For Legal Reasons";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Status";
  }
}

[[noreturn]] void refuse(const char* what, const WoSite* site, const std::string& why) {
  wo::raise(static_cast<int64_t>(TrapCode::IO), site, (std::string(what) + ": " + why).c_str());
}

// RFC 9110 §5.6.2 token characters: what a header name may hold.
bool is_token_char(unsigned char c) {
  if (c >= '0' && c <= '9') return true;
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return true;
  return std::strchr("!#$%&'*+-.^_`|~", c) != nullptr && c != 0;
}

bool equals_lower(const WoText* t, const char* lower) {
  return http::equals_lower(t->bytes, static_cast<size_t>(t->len), lower);
}

void append(Bytes& b, const char* s) { b.append(s, std::strlen(s)); }

void append_int(Bytes& b, int64_t v) {
  char tmp[24];
  char* e = tmp + sizeof tmp;
  char* p = e;
  auto u = static_cast<uint64_t>(v);
  do {
    *--p = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u);
  b.append(p, static_cast<size_t>(e - p));
}

// One `name: value` line; names must be tokens and values free of CR, LF and
// NUL (response splitting). The builtin writes Connection and Content-Length
// itself, so the caller's copies of those (and Transfer-Encoding, which would
// contradict Content-Length) are dropped rather than sent twice.
void append_header(Bytes& b, const WoText* name, const WoText* value, const char* what, const WoSite* site) {
  if (name->len == 0) refuse(what, site, "empty header name");
  for (int64_t i = 0; i < name->len; ++i)
    if (!is_token_char(static_cast<unsigned char>(name->bytes[i])))
      refuse(what, site, "header name `" + std::string(name->bytes, static_cast<size_t>(name->len)) +
                       "` is not an HTTP token");
  for (int64_t i = 0; i < value->len; ++i) {
    char c = value->bytes[i];
    if (c == '\r' || c == '\n' || c == '\0')
      refuse(what, site, "CR, LF or NUL in the value of header `" + std::string(name->bytes, static_cast<size_t>(name->len)) + "`");
  }
  if (equals_lower(name, "connection") || equals_lower(name, "content-length") ||
      equals_lower(name, "transfer-encoding"))
    return;
  b.append(name->bytes, static_cast<size_t>(name->len));
  b.append(": ", 2);
  b.append(value->bytes, static_cast<size_t>(value->len));
  b.append("\r\n", 2);
}

}  // namespace

void response_head(Bytes& head, int64_t status, WoMap* headers, int64_t body_len, bool keep_alive, const char* what,
                   const WoSite* site) {
  if (status < 100 || status > 999)
    wo::raise(static_cast<int64_t>(wo::TrapCode::BOUNDS), site, (std::string(what) + ": status is not a 3-digit code").c_str());
  append(head, "HTTP/1.1 ");
  append_int(head, status);
  head.append(" ", 1);
  append(head, reason(status));
  head.append("\r\n", 2);
  uint64_t k = 0, v = 0;
  for (int64_t pos = wo_map_iter(headers, 0, &k, &v); pos >= 0; pos = wo_map_iter(headers, pos + 1, &k, &v))
    append_header(head, reinterpret_cast<const WoText*>(k), reinterpret_cast<const WoText*>(v), what, site);
  append(head, keep_alive ? "Connection: keep-alive\r\nContent-Length: " : "Connection: close\r\nContent-Length: ");
  append_int(head, body_len);
  head.append("\r\n\r\n", 4);
}

}  // namespace wo::http

extern "C" bool wo_net_write_response(int64_t cfd, int64_t status, WoMap* headers, WoText* body, bool head_only,
                                      bool keep_alive, int64_t ms, const WoSite* site) {
  using namespace wo::http;
  int fd = wo::net::checked_fd(cfd, "net.write_response", site);
  wo::need(headers, site);
  wo::need(body, site);
  int64_t deadline = wo::net::deadline_of(ms);  // before serializing: the whole call is bounded
  ScratchLease lease;
  Bytes& head = lease->buf;
  response_head(head, status, headers, body->len, keep_alive, "net.write_response", site);

  iovec iov[2] = {{head.data(), head.size()}, {body->bytes, head_only ? 0 : static_cast<size_t>(body->len)}};
  int err = 0;
  switch (wo::net::send_all(fd, iov, 2, deadline, true, &err, site)) {
    case wo::net::Io::Done:
      // The last response of the connection: send our FIN after it, so the
      // client sees the end at once while the caller drains what it still
      // sends before closing (closing with unread bytes makes the kernel
      // answer RST, which can destroy the response before the client reads it).
      if (!keep_alive) ::shutdown(fd, SHUT_WR);
      return true;
    case wo::net::Io::Failed:
      if (err == EPIPE || err == ECONNRESET) return false;  // the peer is gone: the caller closes
      wo::net::raise_errno("net.write_response", err, site);
    default: return false;  // the deadline (or a stop signal) hit mid-write: the stream is torn
  }
}
