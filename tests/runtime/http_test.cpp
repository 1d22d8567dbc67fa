// net.read_request / net.write_response (the HTTP ABI of issue 9,
// runtime/src/http/) through their C ABI: a listener on 127.0.0.1, a plain
// blocking client on a std::thread sending scripted bytes, and the woc side
// parking on its shard's event loop. Every ABI outcome is checked: status 0
// with the parsed fields, -1 clean close, 400 / 413 / 431 with their reasons,
// and the exact bytes a response puts on the wire.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "spawned.h"
#include "socket_support.h"
#include "support.h"
#include "wo_actor.h"

using namespace wotest;

namespace {

const WoSite kSite{"http_test", 1, nullptr, 0};

// What the client does after its parts: keep the connection open until the
// server closes it, half-close (EOF), or abort it (RST, SO_LINGER 0).
// Hold: read nothing at all until the test releases it (a peer that never reads).
enum class After { Wait, Eof, Reset, Hold };

// The client's script: `parts` sent one send() each, `gap_ms` apart (the
// gaps are the behaviour under test — slow senders — not synchronisation).
// MSG_NOSIGNAL: a server that gave up and closed must not kill the test.
struct Client {
  explicit Client(std::vector<std::string> p, int gap = 0, After a = After::Wait)
      : parts(std::move(p)), gap_ms(gap), after(a) {}
  std::vector<std::string> parts;
  int gap_ms = 0;
  After after = After::Wait;
  std::string reply;  // everything the server wrote, up to its close
  std::thread t;
  std::promise<void> release;  // ends After::Hold

  void start(int port) {
    t = std::thread([this, port] {
      int fd = connect_to(port);
      if (fd < 0) return;
      wotest::send_parts(fd, parts, gap_ms);  // stops when the server closed early (a limit)
      if (after == After::Reset) {
        linger lg{1, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
        ::close(fd);
        return;
      }
      if (after == After::Eof) ::shutdown(fd, SHUT_WR);
      if (after == After::Hold) release.get_future().wait_for(std::chrono::seconds(30));
      char buf[4096];
      ssize_t n;
      while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) reply.append(buf, static_cast<size_t>(n));
      ::close(fd);
    });
  }
};

// A RawRequest as plain C++ values.
struct Req {
  int64_t status = 0;
  std::string method, target, body, rest, error;
  std::vector<std::pair<std::string, std::string>> headers;  // map order
  bool keep_alive = false;
  std::string header(const std::string& name) const {
    for (auto& [k, v] : headers)
      if (k == name) return v;
    return "<absent>";
  }
};

Req copy(WoRawRequest* r) {
  Req q;
  q.status = r->status;
  q.method = str(r->method);
  q.target = str(r->target);
  q.body = str(r->body);
  q.rest = str(r->rest);
  q.error = str(r->error);
  q.keep_alive = r->keep_alive != 0;
  uint64_t k = 0, v = 0;
  for (int64_t p = wo_map_iter(r->headers, 0, &k, &v); p >= 0; p = wo_map_iter(r->headers, p + 1, &k, &v))
    q.headers.emplace_back(str(tslot(k)), str(tslot(v)));
  return q;
}

// One connection: listen, let `c` connect and run its script, accept.
struct Conn {
  OneShard env;
  int64_t l = -1, fd = -1;
  Client& c;
  explicit Conn(Client& client) : c(client) {
    OText host(text("127.0.0.1"));
    l = wo_net_listen(host, 0, &kSite);
    c.start(port_of(l));
    fd = wo_net_accept(l, &kSite);
  }
  Req read(const std::string& carry = "", int64_t first_ms = 5000, int64_t read_ms = 5000) {
    OText t(text(carry));
    Owned<WoRawRequest> r(wo_net_read_request(fd, t, first_ms, read_ms, &kSite));
    return copy(r.get());
  }
  ~Conn() {
    wo_net_close(fd, &kSite);  // the client reads until this close, then ends
    c.t.join();
    wo_net_close(l, &kSite);
  }
};

// One request read from a client that sends `parts` and then does `after`.
Req one(std::vector<std::string> parts, After after = After::Wait, int gap_ms = 0, int64_t first_ms = 5000,
        int64_t read_ms = 5000) {
  Client c{std::move(parts), gap_ms, after};
  Conn conn(c);
  return conn.read("", first_ms, read_ms);
}

void check_bad(const Req& r, int64_t status, const std::string& error) {
  INFO("got ", r.status, " ", r.method, " ", r.target);
  CHECK(r.status == status);
  CHECK(r.error == error);
  CHECK(r.method.empty());
  CHECK(r.headers.empty());
}

}  // namespace

TEST_CASE("http: a simple GET: method, raw target, lowercased names, trimmed values, keep-alive") {
  Req r = one({"GET /a%20b/c?x=1&y=%2F HTTP/1.1\r\nHost: example.com\r\nX-Token:   abc def \t\r\nAccept: */*\r\n\r\n"});
  CHECK(r.status == 0);
  CHECK(r.error == "");
  CHECK(r.method == "GET");
  CHECK(r.target == "/a%20b/c?x=1&y=%2F");
  REQUIRE(r.headers.size() == 3);
  CHECK(r.headers[0] == std::make_pair(std::string("host"), std::string("example.com")));
  CHECK(r.headers[1] == std::make_pair(std::string("x-token"), std::string("abc def")));
  CHECK(r.headers[2] == std::make_pair(std::string("accept"), std::string("*/*")));
  CHECK(r.body == "");
  CHECK(r.rest == "");
  CHECK(r.keep_alive);
}

TEST_CASE("http: a repeated header name: the last value wins, in the first one's place") {
  Req r = one({"GET / HTTP/1.1\r\nX-A: 1\r\nHost: h\r\nx-a: 2\r\nEmpty:\r\n\r\n"});
  CHECK(r.status == 0);
  REQUIRE(r.headers.size() == 3);
  CHECK(r.headers[0].first == "x-a");
  CHECK(r.header("x-a") == "2");
  CHECK(r.header("empty") == "");
}

TEST_CASE("http: POST with a body; a body split across many writes") {
  Req r = one({"POST /items HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{\"name\":\"x\"}\n"});
  CHECK(r.status == 0);
  CHECK(r.method == "POST");
  CHECK(r.body == "{\"name\":\"x\"}\n");
  CHECK(r.header("content-length") == "13");

  std::vector<std::string> parts = {"PUT /p HTTP/1.1\r\nCont", "ent-Length: 26\r", "\n\r\n"};
  for (char ch = 'a'; ch <= 'z'; ch += 2) parts.push_back(std::string{ch, static_cast<char>(ch + 1)});
  Req s = one(parts, After::Wait, 3);
  CHECK(s.status == 0);
  CHECK(s.method == "PUT");
  CHECK(s.body == "abcdefghijklmnopqrstuvwxyz");
  CHECK(s.rest == "");
}

TEST_CASE("http: two pipelined requests in one write: the second comes back in rest and parses from carry") {
  Client c{{"POST /one HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET /two HTTP/1.1\r\nHost: h\r\n\r\n"}};
  Conn conn(c);
  Req a = conn.read();
  CHECK(a.status == 0);
  CHECK(a.target == "/one");
  CHECK(a.body == "abc");
  CHECK(a.rest == "GET /two HTTP/1.1\r\nHost: h\r\n\r\n");
  // No byte is left on the socket: with a 1 ms idle window the second request
  // can only come from the carry.
  Req b = conn.read(a.rest, 1, 1);
  CHECK(b.status == 0);
  CHECK(b.method == "GET");
  CHECK(b.target == "/two");
  CHECK(b.rest == "");
  Req end = conn.read(b.rest, 20, 20);  // nothing more: the idle window ends cleanly
  CHECK(end.status == -1);
}

TEST_CASE("http: a carry that holds half a request is completed from the socket") {
  Client c{{"ost: h\r\n\r\n"}};
  Conn conn(c);
  Req r = conn.read("GET /half HTTP/1.1\r\nH");
  CHECK(r.status == 0);
  CHECK(r.target == "/half");
  CHECK(r.header("host") == "h");
}

TEST_CASE("http: keep_alive follows llhttp: HTTP/1.1 on, Connection: close off, HTTP/1.0 needs keep-alive") {
  CHECK(one({"GET / HTTP/1.1\r\n\r\n"}).keep_alive);
  CHECK_FALSE(one({"GET / HTTP/1.1\r\nConnection: close\r\n\r\n"}).keep_alive);
  Req old = one({"GET / HTTP/1.0\r\n\r\n"});
  CHECK(old.status == 0);
  CHECK_FALSE(old.keep_alive);
  CHECK(one({"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"}).keep_alive);
}

TEST_CASE("http: clean closes (-1): idle past first_ms, only whitespace then idle, EOF, ECONNRESET") {
  Req idle = one({}, After::Wait, 0, 30);
  CHECK(idle.status == -1);
  CHECK(idle.error == "");
  CHECK(one({"\r\n\r\n"}, After::Wait, 0, 30).status == -1);
  CHECK(one({" \t\r\n"}, After::Wait, 0, 30).status == -1);
  CHECK(one({}, After::Eof).status == -1);
  CHECK(one({"\r\n"}, After::Eof).status == -1);
  CHECK(one({"GET / HTTP/1.1\r\nHost"}, After::Reset).status == -1);  // the peer is gone: nobody to answer
}

TEST_CASE("http: leading empty lines before a request are skipped") {
  Req r = one({"\r\n\r\nGET /x HTTP/1.1\r\n\r\n"});
  CHECK(r.status == 0);
  CHECK(r.target == "/x");
}

TEST_CASE("http: slow-loris: read_ms bounds the whole rest of the request, 400") {
  // Each byte comes well inside read_ms, but the head never completes in it.
  std::vector<std::string> parts = {"GET / HTTP/1.1\r\n"};
  for (int i = 0; i < 12; ++i) parts.push_back("X-" + std::to_string(i) + ": y\r\n");
  Req r = one(parts, After::Wait, 25, 5000, 150);
  check_bad(r, 400, "timed out mid-request");
  // A body that stalls is the same.
  Req b = one({"POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc"}, After::Wait, 0, 5000, 50);
  check_bad(b, 400, "timed out mid-request");
}

TEST_CASE("http: EOF mid-head and mid-body: 400") {
  check_bad(one({"GET / HTTP/1.1\r\nHost: a\r\n"}, After::Eof), 400, "connection closed mid-request");
  check_bad(one({"POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc"}, After::Eof), 400,
            "connection closed mid-request");
}

TEST_CASE("http: Content-Length: duplicates, bad values and the 1 MiB limit") {
  check_bad(one({"POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc"}), 400,
            "duplicate content-length");
  check_bad(one({"POST / HTTP/1.1\r\nContent-Length: 3\r\ncontent-length: 4\r\n\r\nabcd"}), 400,
            "duplicate content-length");
  check_bad(one({"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n"}), 400, "invalid content-length");
  check_bad(one({"POST / HTTP/1.1\r\nContent-Length: 12abc\r\n\r\n"}), 400, "invalid content-length");
  check_bad(one({"POST / HTTP/1.1\r\nContent-Length: 1 2\r\n\r\n"}), 400, "invalid content-length");
  check_bad(one({"POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999999\r\n\r\n"}), 400,
            "invalid content-length");
  check_bad(one({"POST / HTTP/1.1\r\nContent-Length: 1048577\r\n\r\n"}), 413, "request body too large");
  check_bad(one({"POST / HTTP/1.1\r\nContent-Length: 18446744073709551615\r\n\r\n"}), 413, "request body too large");
  // Exactly 1 MiB is allowed, and arrives intact.
  std::string big(size_t{1} << 20, 'b');
  big[0] = 'A';
  big.back() = 'Z';
  Req r = one({"POST / HTTP/1.1\r\nContent-Length: 1048576\r\n\r\n", big});
  CHECK(r.status == 0);
  CHECK(r.body == big);
}

TEST_CASE("http: any Transfer-Encoding is refused with 400") {
  for (const char* te : {"chunked", "gzip", "identity", "gzip, chunked", ""}) {
    INFO(te);
    check_bad(one({std::string("POST / HTTP/1.1\r\nTransfer-Encoding: ") + te + "\r\n\r\n0\r\n\r\n"}), 400,
              "transfer-encoding not supported");
  }
  check_bad(one({"POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"}), 400,
            "transfer-encoding not supported");
}

TEST_CASE("http: a head over 1 MiB without a terminator is 431; one just under the limit is fine") {
  std::string filler(size_t{1} << 20, 'v');
  check_bad(one({"GET / HTTP/1.1\r\nX-Big: ", filler}), 431, "request head too large");
  check_bad(one({"GET / HTTP/1.1\r\nX-Big: ", filler, "\r\n\r\n"}), 431, "request head too large");
  std::string head = "GET / HTTP/1.1\r\nX-Big: ";
  std::string value((size_t{1} << 20) - head.size() - 4, 'v');
  Req r = one({head + value + "\r\n\r\n"});  // exactly 1 MiB with its blank line
  CHECK(r.status == 0);
  CHECK(r.header("x-big") == value);
}

TEST_CASE("http: malformed heads are 400: garbage request line, header without colon, NUL, bad version") {
  check_bad(one({"HELLO\r\n\r\n"}), 400, "malformed request");
  check_bad(one({"GET\r\n\r\n"}), 400, "malformed request");
  check_bad(one({"GET / HTTP/1.1 extra\r\n\r\n"}), 400, "malformed request");
  check_bad(one({"GET / HTTP/1.1\r\nNoColonHere\r\n\r\n"}), 400, "malformed request");
  check_bad(one({"GET / HTTP/1.1\r\nBad Name: x\r\n\r\n"}), 400, "malformed request");
  check_bad(one({"POST / HTTP/1.1\r\nContent-Length : 5\r\n\r\nabcde"}), 400, "malformed request");  // smuggling shape
  check_bad(one({std::string("GET / HTTP/1.1\r\nX-A: a\0b\r\n\r\n", 28)}), 400, "malformed request");
  check_bad(one({std::string("GET /a\0b HTTP/1.1\r\n\r\n", 21)}), 400, "malformed request");
  check_bad(one({"GET / HTTP/9.9\r\n\r\n"}), 400, "malformed request");
  check_bad(one({"GET /\r\n\r\n"}), 400, "unsupported http version");  // llhttp's HTTP/0.9
  check_bad(one({"GET / HTTP/2.0\r\n\r\n"}), 400, "unsupported http version");
  check_bad(one({"GET / HTTP/1.1\r\n: no-name\r\n\r\n"}), 400, "empty header name");
  check_bad(one({"GET / HTTP/1.1\nHost: bare-lf\n\n"}), 400, "malformed request");  // strict: CRLF only
  check_bad(one({" GET / HTTP/1.1\r\n\r\n"}), 400, "malformed request");
  check_bad(one({"GET / HTTP/1.1\r\nX-A: one\r\n two\r\n\r\n"}), 400, "obsolete line folding");
  check_bad(one({"GET / HTTP/1.1\r\nX-A: one\r\n\ttwo\r\n\r\n"}), 400, "obsolete line folding");
}

TEST_CASE("http: very many headers all arrive") {
  std::string req = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 5000; ++i) req += "X-H" + std::to_string(i) + ": " + std::to_string(i * 7) + "\r\n";
  Req r = one({req + "\r\n"});
  CHECK(r.status == 0);
  REQUIRE(r.headers.size() == 5000);
  CHECK(r.headers[4999] == std::make_pair(std::string("x-h4999"), std::string("34993")));
}

namespace {

// The bytes write_response puts on the wire (the server closes right after).
std::string response(int64_t status, std::vector<std::pair<std::string, std::string>> headers,
                     const std::string& body, bool head_only, bool keep_alive) {
  Client c{{}, 0, After::Eof};
  std::string got;
  {
    Conn conn(c);
    OMap h(wo_map_new(WO_ELEM_TEXT, WO_ELEM_TEXT));
    for (auto& [k, v] : headers) {
      OText key(text(k));
      wo_map_set(h, pslot(key.get()), pslot(text(v)), &kSite);
    }
    OText b(text(body));
    CHECK(wo_net_write_response(conn.fd, status, h, b, head_only, keep_alive, 5000, &kSite));
  }
  return c.reply;
}

}  // namespace

TEST_CASE("http: write_response wire bytes: status line, headers in map order, Connection, Content-Length") {
  CHECK(response(200, {{"Content-Type", "application/json"}, {"X-Request-Id", "r1"}}, "{\"ok\":true}", false, true) ==
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Request-Id: r1\r\nConnection: keep-alive\r\n"
        "Content-Length: 11\r\n\r\n{\"ok\":true}");
  CHECK(response(404, {}, "", false, false) == "HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
  CHECK(response(413, {}, "x", false, false) ==
        "HTTP/1.1 413 Content Too Large\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx");
  CHECK(response(431, {}, "", false, false).rfind("HTTP/1.1 431 Request Header Fields Too Large\r\n", 0) == 0);
  CHECK(response(422, {}, "", false, true).rfind("HTTP/1.1 422 Unprocessable Content\r\n", 0) == 0);
  CHECK(response(204, {}, "", false, true) == "HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n");
  CHECK(response(299, {}, "", false, true).rfind("HTTP/1.1 299 Status\r\n", 0) == 0);
  CHECK(response(999, {}, "", false, true).rfind("HTTP/1.1 999 Status\r\n", 0) == 0);
}

TEST_CASE("http: HEAD: no body on the wire, Content-Length still the body's") {
  CHECK(response(200, {{"ETag", "\"v1\""}}, "hello", true, true) ==
        "HTTP/1.1 200 OK\r\nETag: \"v1\"\r\nConnection: keep-alive\r\nContent-Length: 5\r\n\r\n");
}

TEST_CASE("http: the caller's Connection / Content-Length / Transfer-Encoding are dropped, not doubled") {
  CHECK(response(200, {{"connection", "upgrade"}, {"Content-Length", "99"}, {"transfer-encoding", "chunked"}, {"X", "y"}},
                 "ab", false, false) == "HTTP/1.1 200 OK\r\nX: y\r\nConnection: close\r\nContent-Length: 2\r\n\r\nab");
}

TEST_CASE("http: a large body goes out whole") {
  std::string body(3 << 20, 'q');
  std::string got = response(200, {}, body, false, false);
  std::string head = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 3145728\r\n\r\n";
  CHECK(got.size() == head.size() + body.size());
  CHECK(got.rfind(head, 0) == 0);
}

TEST_CASE("http: response splitting and bad statuses trap; nothing is sent") {
  auto trap_of = [](int64_t status, const std::string& k, const std::string& v) {
    Client c{{}, 0, After::Eof};
    Conn conn(c);
    OMap h(wo_map_new(WO_ELEM_TEXT, WO_ELEM_TEXT));
    OText key(text(k));
    wo_map_set(h, pslot(key.get()), pslot(text(v)), &kSite);
    OText b(text("body"));
    wo::Trap t = trapped([&] { wo_net_write_response(conn.fd, status, h, b, false, true, 1000, &kSite); });
    return std::make_pair(t, std::string());
  };
  wo::Trap t = trap_of(200, "X-A", "a\r\nSet-Cookie: evil=1").first;
  CHECK(t.code == 9);
  CHECK(t.msg == "net.write_response: CR, LF or NUL in the value of header `X-A`");
  CHECK(trap_of(200, "X-A", "a\nb").first.code == 9);
  CHECK(trap_of(200, "X-A\r\nEvil", "1").first.code == 9);
  CHECK(trap_of(200, "Bad Name", "1").first.msg == "net.write_response: header name `Bad Name` is not an HTTP token");
  CHECK(trap_of(200, "", "1").first.code == 9);
  CHECK(trap_of(99, "X", "1").first.code == 6);
  CHECK(trap_of(1000, "X", "1").first.code == 6);
}

TEST_CASE("http: writing to a peer that reset the connection returns false, never a trap or SIGPIPE") {
  Client c{{}, 0, After::Reset};
  Conn conn(c);
  c.t.join();  // the RST has been sent
  c.t = std::thread([] {});
  OMap h(wo_map_new(WO_ELEM_TEXT, WO_ELEM_TEXT));
  OText b(text("x"));
  bool ok = true;
  for (int i = 0; i < 20 && ok; ++i) ok = wo_net_write_response(conn.fd, 200, h, b, false, true, 1000, &kSite);
  CHECK_FALSE(ok);
}

TEST_CASE("http: a peer that never reads: the write deadline returns false") {
  Client c{{}, 0, After::Hold};
  Conn conn(c);
  OMap h(wo_map_new(WO_ELEM_TEXT, WO_ELEM_TEXT));
  OText b(text(std::string(size_t{64} << 20, 'z')));  // far more than the socket buffers hold
  CHECK_FALSE(wo_net_write_response(conn.fd, 200, h, b, false, true, 50, &kSite));
  c.release.set_value();
}

TEST_CASE("http: a bad fd traps BOUNDS") {
  OText carry(text(""));
  wo::Trap t = trapped([&] { wo_net_read_request(-1, carry, 1, 1, &kSite); });
  CHECK(t.code == 6);
  CHECK(t.msg == "net.read_request: not a socket");
}

TEST_CASE("http: a stop signal ends the first-byte wait as a clean close; a request already in carry is still read") {
  // In a child: the stop latch is process-wide and would end the other tests' waits.
  std::fflush(nullptr);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    setenv("WO_SHARDS", "1", 1);  // one shard thread in the child, like the other tests
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) != 0) _exit(10);
    wo_env_stopping();  // arms the latch
    ::raise(SIGTERM);   // delivered before raise returns: the latch is set
    WoText* empty = wo_text_new("", 0);
    int64_t t0 = wo_time_ticks();
    WoRawRequest* idle = wo_net_read_request(sv[0], empty, 20000, 20000, &kSite);
    if (idle->status != -1) _exit(11);
    if (wo_time_ticks() - t0 > 5000000) _exit(14);  // waited for first_ms instead of the stop
    const char req[] = "GET /in-carry HTTP/1.1\r\n\r\n";
    WoText* carry = wo_text_new(req, sizeof req - 1);
    WoRawRequest* r = wo_net_read_request(sv[0], carry, 30000, 30000, &kSite);
    if (r->status != 0 || std::string(r->target->bytes, r->target->len) != "/in-carry") _exit(12);
    WoText* half = wo_text_new("GET / HTTP/1.1\r\n", 16);  // mid-request: abandoned, no answer
    WoRawRequest* h = wo_net_read_request(sv[0], half, 30000, 30000, &kSite);
    _exit(h->status == -1 ? 0 : 13);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

namespace {

// Two reader actors on one shard, each parked inside read_request with its
// request half read: their buffers and header spans must stay their own.
struct FdMsg {
  WoHeader h;
  int64_t fd;  // >= 0: read one request from it; -1: just reply (a barrier)
};
const WoTypeDesc kIntDesc{WO_TY_INT, nullptr, nullptr, nullptr, 0, nullptr};
const WoFieldDesc kFdMsgFields[] = {{"fd", &kIntDesc, offsetof(FdMsg, fd)}};
const WoClassDesc kFdMsgClass{"FdMsg", sizeof(FdMsg), nullptr, 1, kFdMsgFields};
const WoTypeDesc kFdMsg{WO_TY_CLASS, nullptr, nullptr, &kFdMsgClass, 0, nullptr};
struct ReaderState {
  WoHeader h;
  int64_t pad;
};
const WoFieldDesc kReaderFields[] = {{"pad", &kIntDesc, offsetof(ReaderState, pad)}};
const WoClassDesc kReaderClass{"Reader", sizeof(ReaderState), nullptr, 1, kReaderFields};
const WoTypeDesc kReaderDesc{WO_TY_CLASS, nullptr, nullptr, &kReaderClass, 0, nullptr};

std::vector<std::string> g_read;  // one shard: no lock needed

uint64_t reader_receive(void*, uint64_t word) {
  auto* m = reinterpret_cast<FdMsg*>(word);
  if (m->fd < 0) return 1;
  OText carry(text(""));
  Owned<WoRawRequest> r(wo_net_read_request(m->fd, carry, 5000, 5000, &kSite));
  Req q = copy(r.get());
  g_read.push_back(std::to_string(q.status) + " " + q.target + " " + q.header("x-id") + " " + q.body);
  return 0;
}
const WoActorType kReaderActor{"Reader", reader_receive, &kReaderDesc, &kFdMsg, 0};

uint64_t fd_msg(int64_t fd) {
  auto* m = static_cast<FdMsg*>(wo_alloc(sizeof(FdMsg), nullptr));
  m->fd = fd;
  return reinterpret_cast<uint64_t>(m);
}

void send_all_bytes(int fd, const std::string& s) { REQUIRE(::send(fd, s.data(), s.size(), MSG_NOSIGNAL) == (ssize_t)s.size()); }

}  // namespace

TEST_CASE("http: two fibers of one shard parked mid-request keep their own buffers") {
  OneShard env;
  g_read.clear();
  OText host(text("127.0.0.1"));
  int64_t l = wo_net_listen(host, 0, &kSite);
  int ca = connect_to(port_of(l));
  int64_t sa = wo_net_accept(l, &kSite);
  int cb = connect_to(port_of(l));
  int64_t sb = wo_net_accept(l, &kSite);
  int64_t a = wotest::spawn(wo_alloc(sizeof(ReaderState), nullptr), &kReaderActor, &kSite);
  int64_t b = wotest::spawn(wo_alloc(sizeof(ReaderState), nullptr), &kReaderActor, &kSite);
  wo_send(a, fd_msg(sa), &kFdMsg, &kSite);
  wo_send(b, fd_msg(sb), &kFdMsg, &kSite);
  send_all_bytes(ca, "POST /a HTTP/1.1\r\nX-Id: first\r\nContent-Length: 6\r\n\r\nab");
  for (int i = 0; i < 4; ++i) wo_yield();  // A reads its head and parks in the body
  send_all_bytes(cb, "POST /b HTTP/1.1\r\nX-Id: sec");
  for (int i = 0; i < 4; ++i) wo_yield();  // B parks mid-head
  send_all_bytes(ca, "cdef");
  send_all_bytes(cb, "ond\r\nContent-Length: 2\r\n\r\nxy");
  CHECK(wo_call(a, fd_msg(-1), &kFdMsg, &kSite) == 1);  // queued behind A's read: it has finished
  CHECK(wo_call(b, fd_msg(-1), &kFdMsg, &kSite) == 1);
  std::sort(g_read.begin(), g_read.end());
  CHECK(g_read == std::vector<std::string>{"0 /a first abcdef", "0 /b second xy"});
  ::close(ca);
  ::close(cb);
  wo_net_close(sa, &kSite);
  wo_net_close(sb, &kSite);
  wo_net_close(l, &kSite);
}

TEST_CASE("http: Expect: 100-continue gets an interim 100 before the body is read, only when the body is still due") {
  OneShard env;
  OText host(text("127.0.0.1"));
  int64_t l = wo_net_listen(host, 0, &kSite);
  int port = port_of(l);
  // A client that, like curl, holds the body back until the 100 arrives
  // (bounded by a 5 s receive timeout, after which it sends anyway).
  std::string before_body, after_body;
  std::thread c([&] {
    int fd = connect_to(port);
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::string head = "POST /up HTTP/1.1\r\nExpect:  100-Continue \r\nContent-Length: 5\r\n\r\n";
    if (::send(fd, head.data(), head.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(head.size())) return;
    char buf[256];
    while (before_body.find("\r\n\r\n") == std::string::npos) {
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;  // the timeout: no interim response came
      before_body.append(buf, static_cast<size_t>(n));
    }
    if (::send(fd, "hello", 5, MSG_NOSIGNAL) != 5) return;
    ssize_t n;
    while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) after_body.append(buf, static_cast<size_t>(n));
    ::close(fd);
  });
  int64_t fd = wo_net_accept(l, &kSite);
  OText none(text(""));
  Owned<WoRawRequest> r(wo_net_read_request(fd, none, 5000, 5000, &kSite));
  Req q = copy(r.get());
  wo_net_close(fd, &kSite);
  c.join();
  CHECK(q.status == 0);
  CHECK(q.body == "hello");
  CHECK(before_body == "HTTP/1.1 100 Continue\r\n\r\n");
  CHECK(after_body.empty());

  wo_net_close(l, &kSite);
}

TEST_CASE("http: Expect: 100-continue with the body already sent: no interim response") {
  Client eager{{"POST /up HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok"}};
  {
    Conn conn(eager);
    Req e = conn.read();
    CHECK(e.status == 0);
    CHECK(e.body == "ok");
    OMap no_headers(wo_map_new(WO_ELEM_TEXT, WO_ELEM_TEXT));
    OText done(text("done"));
    CHECK(wo_net_write_response(conn.fd, 200, no_headers, done, false, false, 5000, &kSite));
  }
  CHECK(eager.reply.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
}
