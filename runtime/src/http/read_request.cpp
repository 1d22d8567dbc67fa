// net.read_request (the HTTP ABI of issue 9; README.md, docs/decisions/0023):
// reads one request head in chunks through RequestParser, then exactly
// Content-Length body bytes straight into the body Text, and builds the
// RawRequest record. Every outcome is a record, never a trap, except a bad fd
// and OS failures other than ECONNRESET (IO).
#include <cerrno>
#include <cstring>

#include "../core/heap.h"
#include "../net/fd_io.h"
#include "../core/trap.h"
#include "../sched/io.h"
#include "raw_request.h"
#include "request_parser.h"
#include "scratch.h"
#include "texts.h"

namespace wo::http {

namespace {

void destroy_raw_request(void* self) {
  auto* r = static_cast<WoRawRequest*>(self);
  wo_release(r->method);
  wo_release(r->target);
  wo_release(r->headers);
  wo_release(r->body);
  wo_release(r->rest);
  wo_release(r->error);
}

}  // namespace

// A record with every Text field "" and an empty header map.
WoRawRequest* new_record(int64_t status, const char* error) {
  auto* r = static_cast<WoRawRequest*>(wo_alloc(sizeof(WoRawRequest), destroy_raw_request));
  r->method = r->target = r->body = r->rest = r->error = empty_text();
  OwnedGuard guard(r);
  r->status = status;
  r->headers = wo_map_new(WO_ELEM_TEXT, WO_ELEM_TEXT);
  r->error = text_of(error, std::strlen(error));
  guard.disown();
  return r;
}

WoRawRequest* build(const char* buf, const RequestParser& p, WoText* body, size_t rest_off, size_t len) {
  OwnedGuard body_guard(body);
  WoRawRequest* r = new_record(0, "");
  OwnedGuard guard(r);
  r->method = method_text_of(buf + p.method().off, p.method().len);
  r->target = text_of(buf + p.target().off, p.target().len);
  for (const Field& f : p.fields()) {
    WoText* name = lower_text_of(buf + f.name.off, f.name.len);
    OwnedGuard name_guard(name);  // the map retains a new key
    wo_map_set(r->headers, reinterpret_cast<uint64_t>(name),
               reinterpret_cast<uint64_t>(trimmed_text_of(buf + f.value.off, f.value.len)), nullptr);
  }
  r->body = static_cast<WoText*>(body_guard.disown());
  r->rest = text_of(buf + rest_off, len - rest_off);
  r->keep_alive = p.keep_alive() ? 1 : 0;
  return static_cast<WoRawRequest*>(guard.disown());
}

namespace {

constexpr size_t kChunk = size_t{16} << 10;

// What a read that did not deliver bytes means for the request.
enum class Stop { None, Clean, Bad };

struct Reader {
  int fd;
  const WoSite* site;
  int64_t deadline = -1;  // first_ms until the first non-whitespace byte, then read_ms
  const char* why = "";

  // One read into `dst`; None with *got > 0 bytes, or how the request ends.
  // `started`: a request's first byte was seen (EOF / timeout then mean 400).
  Stop read(char* dst, size_t max, bool started, size_t* got) {
    int err = 0;
    switch (net::read_some(fd, dst, max, deadline, true, got, &err, site)) {
      case net::Io::Done: return Stop::None;
      case net::Io::Eof:
        why = "connection closed mid-request";
        return started ? Stop::Bad : Stop::Clean;
      case net::Io::Timeout:
        // wait_fd reports a stop signal as a timeout: the deadline tells them
        // apart. Stopping abandons the connection (no response either way).
        if (!started || deadline < 0 || sched::now_us() < deadline) return Stop::Clean;
        why = "timed out mid-request";
        return Stop::Bad;
      case net::Io::Failed:
        if (err == ECONNRESET) return Stop::Clean;  // the peer is gone: nobody to answer
        net::raise_errno("net.read_request", err, site);
    }
    return Stop::Clean;
  }
};

WoRawRequest* ended(Stop s, const char* why) { return s == Stop::Clean ? new_record(-1, "") : new_record(400, why); }

}  // namespace

}  // namespace wo::http

extern "C" WoRawRequest* wo_net_read_request(int64_t cfd, WoText* carry, int64_t first_ms, int64_t read_ms,
                                             const WoSite* site) {
  using namespace wo::http;
  int fd = wo::net::checked_fd(cfd, "net.read_request", site);
  wo::need(carry, site);
  ScratchLease lease;
  Bytes& buf = lease->buf;
  buf.append(carry->bytes, static_cast<size_t>(carry->len));
  Reader in{fd, site, wo::net::deadline_of(first_ms)};

  // The head. `start` skips the empty lines a client may send between
  // requests (RFC 9112 §2.2); the request has started at its first byte that
  // is not whitespace, and from then on read_ms bounds the rest of it.
  RequestParser parser(&lease->fields);
  size_t start = 0;
  bool started = false;
  for (;;) {
    if (!started) {
      start = request_start(buf.data(), buf.size());
      started = request_begun(buf.data() + start, buf.size() - start);
      if (started) in.deadline = wo::net::deadline_of(read_ms);
    }
    if (started) {
      RequestParser::State s = parser.feed(buf.data(), start, buf.size());
      if (s == RequestParser::State::Head) break;
      if (s == RequestParser::State::Error) return new_record(parser.status(), parser.error());
    }
    size_t got = 0;
    Stop stop = in.read(buf.room(kChunk), kChunk, started, &got);
    if (stop != Stop::None) return ended(stop, in.why);
    buf.grow_by(got);
  }

  // The body: what the head's reads brought along, then straight into the Text.
  size_t head_end = parser.head_end();
  auto want = static_cast<size_t>(parser.content_length());
  size_t have = buf.size() - head_end;
  size_t from_buf = have < want ? have : want;
  WoText* body = empty_text();
  if (want > from_buf && parser.expects_continue(buf.data())) {
    // The client waits for this before sending the body (curl: up to 1 s).
    // The head was accepted (limits checked), so tell it to go on.
    static const char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
    iovec iov{const_cast<char*>(kContinue), sizeof kContinue - 1};
    int err = 0;
    if (wo::net::send_all(fd, &iov, 1, in.deadline, true, &err, site) != wo::net::Io::Done)
      return ended(Stop::Clean, "");  // the peer is gone or stalled: nobody to answer
  }
  if (want > 0) {
    body = wo::text_alloc(static_cast<int64_t>(want));
    wo::OwnedGuard guard(body);
    std::memcpy(body->bytes, buf.data() + head_end, from_buf);
    for (size_t got_total = from_buf; got_total < want;) {
      size_t got = 0;
      Stop stop = in.read(body->bytes + got_total, want - got_total, true, &got);
      if (stop != Stop::None) return ended(stop, in.why);
      got_total += got;
    }
    guard.disown();
  }
  return build(buf.data(), parser, body, head_end + from_buf, buf.size());
}
