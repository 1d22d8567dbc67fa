// The connection set of App.serve (net.conns_*, runtime/src/http/conns.cpp,
// docs/decisions/0082) through its C ABI: a listener on 127.0.0.1, plain
// blocking clients on std::threads, and the woc side on one shard. What is
// checked is what makes the set concurrent: a half-sent request, an idle
// keep-alive connection and a client that does not read its answer hold no
// other client; and the HTTP behaviour it shares with net.read_request /
// net.write_response (keep-alive, pipelining, refusals, 100-continue,
// deadlines, the hijack hand-over, the close).
#include <doctest/doctest.h>

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <future>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "socket_support.h"
#include "support.h"
#include "wo_actor.h"

using namespace wotest;

namespace {

const WoSite kSite{"http_conns_test", 1, nullptr, 0};

// A client: sends `parts` (`gap_ms` apart: slow senders are the behaviour
// under test, not synchronisation), then, unless `hold` is set, reads
// everything until the server closes. `hold`: reads nothing until released
// (a client that does not read its answer).
struct Client {
  explicit Client(std::vector<std::string> p, int gap = 0, bool h = false) : parts(std::move(p)), gap_ms(gap), hold(h) {}
  std::vector<std::string> parts;
  int gap_ms = 0;
  bool hold = false;
  std::string reply;
  std::thread t;
  std::promise<void> release;
  std::promise<void> sent_p;
  std::shared_future<void> sent = sent_p.get_future().share();  // every part is out

  void start(int port) {
    t = std::thread([this, port] {
      int fd = connect_to(port);
      if (fd < 0) {
        sent_p.set_value();
        return;
      }
      wotest::send_parts(fd, parts, gap_ms);
      sent_p.set_value();
      if (hold) release.get_future().wait_for(std::chrono::seconds(30));
      char buf[65536];
      ssize_t n;
      while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) reply.append(buf, static_cast<size_t>(n));
      ::close(fd);
    });
  }
  void join() {
    if (t.joinable()) t.join();
  }
};

// A listener and a set over it, on one shard.
struct Server {
  OneShard env;
  int64_t l = -1, cs = -1;
  Server(int64_t first_ms, int64_t read_ms) {
    OText host(text("127.0.0.1"));
    l = wo_net_listen(host, 0, &kSite);
    cs = wo_net_conns_open(l, first_ms, read_ms, &kSite);
  }
  int port() const { return port_of(l); }
  // The next connection with a request, within `ms` (-1 when none came).
  int64_t next(int64_t ms = 5000) {
    int64_t c = wo_net_conns_next(cs, ms, &kSite);
    return c == WO_NIL_SCALAR ? -1 : c;
  }
  // Takes the request of `c`: "<status> <method> <target> <body>" or "<status> <error>".
  std::string take(int64_t c) {
    Owned<WoRawRequest> r(wo_net_conns_take(cs, c, &kSite));
    if (r->status != 0) return std::to_string(r->status) + " " + str(r->error);
    CHECK(str(r->rest) == "");
    return "0 " + str(r->method) + " " + str(r->target) + " " + str(r->body);
  }
  bool respond(int64_t c, const std::string& body, bool keep, int64_t status = 200) {
    OMap h(wo_map_new(WO_ELEM_TEXT, WO_ELEM_TEXT));
    OText b(text(body));
    return wo_net_conns_respond(cs, c, status, h, b, false, keep, &kSite);
  }
  ~Server() {
    if (cs >= 0) wo_net_conns_close(cs, &kSite);
    wo_net_close(l, &kSite);
  }
};

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int count(const std::string& hay, const std::string& needle) {
  int n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("conns: a half-sent request holds nobody; it is refused 400 at read_ms") {
  Server s(5000, 1000);
  Client half{{"GET /half HTTP/1.1\r\nHo"}};
  half.start(s.port());
  half.sent.wait();
  Client whole{{"GET /whole HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"}};
  int64_t t0 = now_ms();
  whole.start(s.port());
  int64_t c = s.next();
  REQUIRE(c >= 0);
  CHECK(s.take(c) == "0 GET /whole ");
  CHECK(now_ms() - t0 < 800);  // well before the half request's read_ms: nobody waited for it
  CHECK(s.respond(c, "whole", false));
  whole.join();
  CHECK(whole.reply.find("HTTP/1.1 200 OK\r\n") == 0);
  CHECK(whole.reply.find("\r\n\r\nwhole") != std::string::npos);

  int64_t d = s.next();
  REQUIRE(d >= 0);
  CHECK(s.take(d) == "400 timed out mid-request");
  CHECK(s.respond(d, "{\"error\":\"timed out mid-request\"}", false, 400));
  half.join();
  CHECK(half.reply.find("HTTP/1.1 400 Bad Request\r\n") == 0);
}

TEST_CASE("conns: keep-alive: the next request on the connection after its answer; served counts answers") {
  Server s(5000, 5000);
  Client k{{"GET /1 HTTP/1.1\r\n\r\n", "GET /2 HTTP/1.1\r\nConnection: close\r\n\r\n"}, 100};
  k.start(s.port());
  int64_t c = s.next();
  REQUIRE(c >= 0);
  CHECK(wo_net_conns_served(s.cs, c, &kSite) == 0);
  CHECK(s.take(c) == "0 GET /1 ");
  CHECK(s.respond(c, "one", true));
  int64_t c2 = s.next();
  CHECK(c2 == c);
  CHECK(wo_net_conns_served(s.cs, c, &kSite) == 1);
  CHECK(s.take(c) == "0 GET /2 ");
  CHECK(s.respond(c, "two", false));
  k.join();
  CHECK(count(k.reply, "HTTP/1.1 200 OK") == 2);
  CHECK(k.reply.find("Connection: keep-alive\r\nContent-Length: 3\r\n\r\none") != std::string::npos);
  CHECK(k.reply.find("Connection: close\r\nContent-Length: 3\r\n\r\ntwo") != std::string::npos);
  // Closed after its last answer and the client's EOF (read while the set waits).
  for (int i = 0; i < 40 && wo_net_conns_served(s.cs, c, &kSite) >= 0; ++i) s.next(25);
  CHECK(wo_net_conns_served(s.cs, c, &kSite) == -1);
}

TEST_CASE("conns: pipelined requests come one at a time, in order, bodies exact") {
  Server s(5000, 5000);
  Client p{{"POST /a HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET /b HTTP/1.1\r\n\r\n\r\nGET /c HTTP/1.1\r\n"
            "Connection: close\r\n\r\n"}};
  p.start(s.port());
  std::vector<std::string> got;
  for (int i = 0; i < 3; ++i) {
    int64_t c = s.next();
    REQUIRE(c >= 0);
    got.push_back(s.take(c));
    CHECK(s.respond(c, std::to_string(i), i < 2));
  }
  CHECK(got == std::vector<std::string>{"0 POST /a abc", "0 GET /b ", "0 GET /c "});
  p.join();
  CHECK(count(p.reply, "HTTP/1.1 200 OK") == 3);
}

TEST_CASE("conns: an idle connection closes at first_ms without an answer; it holds nobody meanwhile") {
  Server s(150, 5000);
  Client idle{{}};
  idle.start(s.port());
  idle.sent.wait();
  Client now{{"GET /now HTTP/1.1\r\nConnection: close\r\n\r\n"}};
  now.start(s.port());
  int64_t c = s.next();
  REQUIRE(c >= 0);
  CHECK(s.take(c) == "0 GET /now ");
  CHECK(s.respond(c, "now", false));
  CHECK(s.next(400) == -1);  // the idle one is closed meanwhile, with no request to hand out
  idle.join();
  now.join();
  CHECK(idle.reply == "");
  CHECK(now.reply.find("HTTP/1.1 200 OK") == 0);
}

TEST_CASE("conns: a client that does not read a big answer holds nobody; it gets all of it later") {
  Server s(5000, 5000);
  Client slow{{"GET /big HTTP/1.1\r\nConnection: close\r\n\r\n"}, 0, true};
  slow.start(s.port());
  int64_t c = s.next();
  REQUIRE(c >= 0);
  CHECK(s.take(c) == "0 GET /big ");
  std::string big(32 << 20, 'x');  // far more than the socket buffers hold
  CHECK(s.respond(c, big, false));
  Client other{{"GET /other HTTP/1.1\r\nConnection: close\r\n\r\n"}};
  other.start(s.port());
  int64_t d = s.next();
  REQUIRE(d >= 0);
  CHECK(s.take(d) == "0 GET /other ");
  CHECK(s.respond(d, "other", false));
  other.join();
  CHECK(other.reply.find("\r\n\r\nother") != std::string::npos);
  slow.release.set_value();
  // The rest of the big answer goes out while the set waits (nothing else comes).
  for (int i = 0; i < 100 && wo_net_conns_served(s.cs, c, &kSite) >= 0; ++i) s.next(50);
  slow.join();
  size_t body = slow.reply.find("\r\n\r\n");
  REQUIRE(body != std::string::npos);
  CHECK(slow.reply.size() - body - 4 == big.size());
}

TEST_CASE("conns: a write that stalls past read_ms closes the connection") {
  Server s(5000, 100);
  Client slow{{"GET /big HTTP/1.1\r\n\r\n"}, 0, true};
  slow.start(s.port());
  int64_t c = s.next();
  REQUIRE(c >= 0);
  s.take(c);
  CHECK(s.respond(c, std::string(32 << 20, 'x'), true));
  CHECK(s.next(400) == -1);
  CHECK(wo_net_conns_served(s.cs, c, &kSite) == -1);  // gone
  slow.release.set_value();
  slow.join();
  CHECK(slow.reply.size() < (32u << 20));
}

TEST_CASE("conns: refusals carry the status and reason of net.read_request") {
  Server s(5000, 5000);
  Client bad{{"BROKEN\r\n\r\n"}};
  Client te{{"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"}};
  Client big{{"POST / HTTP/1.1\r\nContent-Length: 2000000\r\n\r\n"}};
  bad.start(s.port());
  te.start(s.port());
  big.start(s.port());
  std::vector<std::string> got;
  for (int i = 0; i < 3; ++i) {
    int64_t c = s.next();
    REQUIRE(c >= 0);
    got.push_back(s.take(c));
    s.respond(c, "no", false, 400);
  }
  std::sort(got.begin(), got.end());
  CHECK(got == std::vector<std::string>{"400 malformed request", "400 transfer-encoding not supported",
                                        "413 request body too large"});
  bad.join();
  te.join();
  big.join();
  CHECK(bad.reply.find("HTTP/1.1 400 Bad Request") == 0);
  CHECK(big.reply.find("HTTP/1.1 400 Bad Request") == 0);  // what the test answered
}

TEST_CASE("conns: Expect: 100-continue gets its interim answer before the body is read") {
  Server s(5000, 5000);
  Client c100{{"POST /up HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 5\r\nConnection: close\r\n\r\n", "hello"},
              200};
  c100.start(s.port());
  int64_t c = s.next();
  REQUIRE(c >= 0);
  CHECK(s.take(c) == "0 POST /up hello");
  s.respond(c, "ok", false);
  c100.join();
  CHECK(c100.reply.find("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n") == 0);
}

TEST_CASE("conns: release hands the connection over open (101); close ends every connection") {
  Server s(5000, 5000);
  Client ws{{"GET /chat HTTP/1.1\r\nUpgrade: websocket\r\n\r\n"}};
  Client idle{{}};
  ws.start(s.port());
  int64_t c = s.next();
  REQUIRE(c >= 0);
  s.take(c);
  wo_net_conns_release(s.cs, c, &kSite);
  CHECK(wo_net_conns_served(s.cs, c, &kSite) == -1);
  CHECK_FALSE(s.respond(c, "x", true));  // not the set's any more
  OText hello(text("mine now"));
  wo_net_write(c, hello, &kSite);
  wo_net_close(c, &kSite);
  ws.join();
  CHECK(ws.reply == "mine now");

  idle.start(s.port());
  idle.sent.wait();
  CHECK(s.next(100) == -1);  // accepted meanwhile
  wo_net_conns_close(s.cs, &kSite);
  s.cs = -1;
  idle.join();
  CHECK(idle.reply == "");
}

TEST_CASE("conns: a handle that is not a set traps BOUNDS; a header that splits the answer traps IO") {
  Server s(5000, 5000);
  wo::Trap t = trapped([&] { wo_net_conns_next(12345, 1, &kSite); });
  CHECK(t.code == 6);
  CHECK(t.msg == "net.conns_next: not an open connection set (of this fiber's thread)");
  Client k{{"GET / HTTP/1.1\r\n\r\n"}};
  k.start(s.port());
  int64_t c = s.next();
  REQUIRE(c >= 0);
  s.take(c);
  OMap h(wo_map_new(WO_ELEM_TEXT, WO_ELEM_TEXT));
  OText name(text("x-evil")), body(text(""));
  wo_map_set(h, pslot(name.get()), pslot(text("a\r\nset-cookie: x")), &kSite);
  wo::Trap io = trapped([&] { wo_net_conns_respond(s.cs, c, 200, h, body, false, true, &kSite); });
  CHECK(io.code == 9);
  CHECK(s.respond(c, "fine", false));  // nothing was sent: the connection still waits for its answer
  k.join();
  CHECK(k.reply.find("HTTP/1.1 200 OK") == 0);
}

TEST_CASE("conns: a stop signal ends the wait for the next request at once") {
  std::fflush(nullptr);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    setenv("WO_SHARDS", "1", 1);
    WoText* host = wo_text_new("127.0.0.1", 9);
    int64_t l = wo_net_listen(host, 0, &kSite);
    int64_t cs = wo_net_conns_open(l, 20000, 20000, &kSite);
    wo_env_stopping();  // arms the latch
    ::raise(SIGTERM);
    int64_t t0 = wo_time_ticks();
    if (wo_net_conns_next(cs, 20000, &kSite) != WO_NIL_SCALAR) _exit(11);
    if (wo_time_ticks() - t0 > 5000000) _exit(12);
    wo_net_conns_close(cs, &kSite);
    _exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
