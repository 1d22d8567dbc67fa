// net.read_response (issue 27 item 4; decision 0087): one HTTP/1.1 response
// read from a connection (plain or TLS: net::read_some) and parsed by llhttp
// in response mode, so the framework's client gets Content-Length, chunked
// and close-delimited bodies, interim 1xx answers skipped, and a HEAD's
// answer without a body, all decoded the way llhttp decodes them. Every way
// a server can misbehave — stalling, lying about a length, closing mid-body,
// a malformed status line, a body past the caller's cap — is a record with
// status 0 and a few words in `error`, never a trap, a hang or unbounded
// memory: the whole response has one deadline and the body one cap.
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <llhttp.h>

#include "../heap.h"
#include "../net/fd_io.h"
#include "../net/tls.h"
#include "../sched/io.h"
#include "../trap.h"
#include "texts.h"

namespace wo::http {
namespace {

constexpr size_t kChunk = size_t{16} << 10;
constexpr size_t kHeadMax = size_t{64} << 10;  // status line and headers together

void destroy_raw_response(void* self) {
  auto* r = static_cast<WoRawResponse*>(self);
  wo_release(r->reason);
  wo_release(r->headers);
  wo_release(r->body);
  wo_release(r->rest);
  wo_release(r->error);
}

WoRawResponse* failed(const std::string& why) {
  auto* r = static_cast<WoRawResponse*>(wo_alloc(sizeof(WoRawResponse), destroy_raw_response));
  r->reason = r->body = r->rest = r->error = empty_text();
  OwnedGuard guard(r);
  r->headers = wo_map_new(WO_ELEM_TEXT, WO_ELEM_TEXT);
  r->error = text_of(why.data(), why.size());
  return static_cast<WoRawResponse*>(guard.disown());
}

// What the llhttp callbacks collect; `p.data` points here.
struct Parse {
  bool head_only = false;
  size_t max_body = 0;
  std::string reason, name, value;
  bool in_value = false;
  std::vector<std::pair<std::string, std::string>> headers;
  size_t head_bytes = 0;
  std::string body;
  bool interim = false;  // a 1xx answer (not 101): skipped, the real one follows
  bool done = false;
  bool keep_alive = false;
  int status = 0;
  std::string why;  // set by a callback that stops the parse

  int too_big_head() {
    why = "response head larger than 64 KiB";
    return -1;
  }
  void end_field() {
    if (in_value || !name.empty()) headers.emplace_back(std::move(name), std::move(value));
    name.clear();
    value.clear();
    in_value = false;
  }
};

Parse& of(llhttp_t* p) { return *static_cast<Parse*>(p->data); }

int on_status(llhttp_t* p, const char* at, size_t n) {
  Parse& s = of(p);
  if ((s.head_bytes += n) > kHeadMax) return s.too_big_head();
  s.reason.append(at, n);
  return 0;
}
int on_header_field(llhttp_t* p, const char* at, size_t n) {
  Parse& s = of(p);
  if ((s.head_bytes += n) > kHeadMax) return s.too_big_head();
  if (s.in_value) s.end_field();
  s.name.append(at, n);
  return 0;
}
int on_header_value(llhttp_t* p, const char* at, size_t n) {
  Parse& s = of(p);
  if ((s.head_bytes += n) > kHeadMax) return s.too_big_head();
  s.in_value = true;
  s.value.append(at, n);
  return 0;
}
int on_headers_complete(llhttp_t* p) {
  Parse& s = of(p);
  s.end_field();
  s.status = p->status_code;
  s.interim = s.status >= 100 && s.status < 200 && s.status != 101;
  return s.head_only && !s.interim ? 1 : 0;  // 1: no body follows (the answer to HEAD)
}
int on_body(llhttp_t* p, const char* at, size_t n) {
  Parse& s = of(p);
  if (s.body.size() + n > s.max_body) {
    s.why = "response body larger than " + std::to_string(s.max_body) + " bytes";
    return -1;
  }
  s.body.append(at, n);
  return 0;
}
int on_message_complete(llhttp_t* p) {
  Parse& s = of(p);
  if (s.interim) {  // 100 Continue, 103 Early Hints: the next response is the one
    s.reason.clear();
    s.headers.clear();
    s.head_bytes = 0;
    s.interim = false;
    return 0;
  }
  s.done = true;
  s.keep_alive = llhttp_should_keep_alive(p) != 0;
  return HPE_PAUSED;  // the bytes after it are the caller's `rest`
}

}  // namespace
}  // namespace wo::http

extern "C" WoRawResponse* wo_net_read_response(int64_t cfd, WoText* carry, bool head_only, int64_t max_body,
                                               int64_t ms, const WoSite* site) {
  using namespace wo::http;
  int fd = wo::net::checked_fd(cfd, "net.read_response", site);
  wo::need(carry, site);
  Parse s;
  s.head_only = head_only;
  s.max_body = max_body > 0 ? static_cast<size_t>(max_body) : 0;
  llhttp_settings_t settings;
  llhttp_settings_init(&settings);
  settings.on_status = on_status;
  settings.on_header_field = on_header_field;
  settings.on_header_value = on_header_value;
  settings.on_headers_complete = on_headers_complete;
  settings.on_body = on_body;
  settings.on_message_complete = on_message_complete;
  llhttp_t parser;
  llhttp_init(&parser, HTTP_RESPONSE, &settings);
  parser.data = &s;
  int64_t deadline = wo::net::deadline_of(ms);

  std::string chunk(carry->bytes, static_cast<size_t>(carry->len));
  std::string rest;
  bool any = !chunk.empty();
  for (;;) {
    if (!chunk.empty()) {
      llhttp_errno_t e = llhttp_execute(&parser, chunk.data(), chunk.size());
      if (e == HPE_PAUSED && s.done) {
        const char* at = llhttp_get_error_pos(&parser);
        rest.assign(at, static_cast<size_t>(chunk.data() + chunk.size() - at));
        break;
      }
      if (e != HPE_OK) return failed(!s.why.empty() ? s.why : std::string("malformed response: ") + llhttp_get_error_reason(&parser));
    }
    chunk.resize(kChunk);
    size_t got = 0;
    int err = 0;
    wo::net::Io io = wo::net::read_some(fd, chunk.data(), kChunk, deadline, true, &got, &err, site);
    if (io == wo::net::Io::Done) {
      chunk.resize(got);
      any = true;
      continue;
    }
    chunk.clear();
    if (io == wo::net::Io::Timeout) return failed(any ? "timed out mid-response" : "timed out before a response");
    if (io == wo::net::Io::Failed)
      return failed(err == wo::net::tls::kTlsError ? "TLS: " + wo::net::tls::last_error() : std::strerror(err));
    // The end of the stream: what llhttp makes of it (a close-delimited body ends here).
    llhttp_errno_t e = llhttp_finish(&parser);
    if ((e == HPE_OK || e == HPE_PAUSED) && s.done) break;
    if (!any) return failed("connection closed before a response");
    return failed(s.status ? "connection closed mid-response" : "connection closed mid-head");
  }

  auto* r = static_cast<WoRawResponse*>(wo_alloc(sizeof(WoRawResponse), destroy_raw_response));
  r->reason = r->body = r->rest = r->error = empty_text();
  wo::OwnedGuard guard(r);
  r->headers = wo_map_new(WO_ELEM_TEXT, WO_ELEM_TEXT);
  r->status = s.status;
  r->reason = text_of(s.reason.data(), s.reason.size());
  for (const auto& [name, value] : s.headers) {
    WoText* n = lower_text_of(name.data(), name.size());
    wo::OwnedGuard name_guard(n);  // the map retains a new key
    wo_map_set(r->headers, reinterpret_cast<uint64_t>(n),
               reinterpret_cast<uint64_t>(trimmed_text_of(value.data(), value.size())), nullptr);
  }
  r->body = text_of(s.body.data(), s.body.size());
  r->rest = text_of(rest.data(), rest.size());
  r->keep_alive = s.keep_alive ? 1 : 0;
  return static_cast<WoRawResponse*>(guard.disown());
}
