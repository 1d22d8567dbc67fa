// net.read_response (issue 27 item 4; decision 0087): one HTTP/1.1 response
// read from a connection (plain or TLS: net::read_some) and parsed by llhttp
// in response mode, so the framework's client gets Content-Length, chunked
// and close-delimited bodies, interim 1xx answers skipped, and a HEAD's
// answer without a body, all decoded the way llhttp decodes them. Every way
// a server can misbehave — stalling, lying about a length, closing mid-body,
// a malformed status line, a body past the caller's cap — is a record with
// status 0 and a few words in `error`, never a trap, a hang or unbounded
// memory: the whole response has one deadline and the body one cap.
#include <cstring>
#include <string>

#include "../core/heap.h"
#include "../core/trap.h"
#include "../net/fd_io.h"
#include "../net/tls.h"
#include "response_parser.h"
#include "texts.h"

namespace wo::http {
namespace {

constexpr size_t kChunk = size_t{16} << 10;

void destroy_raw_response(void* self) {
  auto* r = static_cast<WoRawResponse*>(self);
  wo_release(r->reason);
  wo_release(r->headers);
  wo_release(r->body);
  wo_release(r->rest);
  wo_release(r->error);
}

// A record with every Text "" and no headers; status 0 with `why` for a failure.
WoRawResponse* new_response(const std::string& why) {
  auto* r = static_cast<WoRawResponse*>(wo_alloc(sizeof(WoRawResponse), destroy_raw_response));
  r->reason = r->body = r->rest = r->error = empty_text();
  OwnedGuard guard(r);
  r->headers = wo_map_new(WO_ELEM_TEXT, WO_ELEM_TEXT);
  r->error = text_of(why.data(), why.size());
  return static_cast<WoRawResponse*>(guard.disown());
}

}  // namespace
}  // namespace wo::http

extern "C" WoRawResponse* wo_net_read_response(int64_t cfd, WoText* carry, bool head_only, int64_t max_body,
                                               int64_t ms, const WoSite* site) {
  using namespace wo::http;
  int fd = wo::net::checked_fd(cfd, "net.read_response", site);
  wo::need(carry, site);
  ResponseParser p(head_only, max_body > 0 ? static_cast<size_t>(max_body) : 0);
  int64_t deadline = wo::net::deadline_of(ms);

  std::string chunk(carry->bytes, static_cast<size_t>(carry->len));
  std::string rest;
  for (;;) {
    size_t used = 0;
    ResponseParser::State st = p.feed(chunk.data(), chunk.size(), &used);
    if (st == ResponseParser::State::Done) {
      rest.assign(chunk, used, std::string::npos);
      break;
    }
    if (st == ResponseParser::State::Error) return new_response(p.error());
    chunk.resize(kChunk);
    size_t got = 0;
    int err = 0;
    wo::net::Io io = wo::net::read_some(fd, chunk.data(), kChunk, deadline, true, &got, &err, site);
    if (io == wo::net::Io::Done) {
      chunk.resize(got);
      continue;
    }
    chunk.clear();
    if (io == wo::net::Io::Timeout) return new_response(p.started() ? "timed out mid-response" : "timed out before a response");
    if (io == wo::net::Io::Failed)
      return new_response(err == wo::net::tls::kTlsError ? "TLS: " + wo::net::tls::last_error() : std::strerror(err));
    if (p.finish() != ResponseParser::State::Done) return new_response(p.error());  // the end of the stream
    break;
  }

  WoRawResponse* r = new_response("");
  wo::OwnedGuard guard(r);
  r->status = p.status();
  r->reason = text_of(p.reason().data(), p.reason().size());
  for (const auto& [name, value] : p.headers()) {
    WoText* n = lower_text_of(name.data(), name.size());
    wo::OwnedGuard name_guard(n);  // the map retains a new key
    wo_map_set(r->headers, reinterpret_cast<uint64_t>(n),
               reinterpret_cast<uint64_t>(trimmed_text_of(value.data(), value.size())), nullptr);
  }
  r->body = text_of(p.body().data(), p.body().size());
  r->rest = text_of(rest.data(), rest.size());
  r->keep_alive = p.keep_alive() ? 1 : 0;
  return static_cast<WoRawResponse*>(guard.disown());
}
