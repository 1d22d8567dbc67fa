// net.connect and net.connect_dl through their C ABI (docs/decisions/0085):
// numeric IPv4 and IPv6, a name from the hosts file, a name answered by a
// tiny DNS server of the test's own (WO_DNS), one that never answers (the
// deadline is a nil, on time), and the traps: refused, unresolvable, a bad
// port.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "socket_support.h"
#include "support.h"

using namespace wotest;

namespace {

const WoSite kSite{"net_connect_test", 1, nullptr, 0};

// Accepts one connection on a plain listener and echoes what it reads once.
void echo_once(int listener) {
  int c = ::accept(listener, nullptr, nullptr);
  if (c < 0) return;
  char buf[64];
  ssize_t n = ::read(c, buf, sizeof buf);
  if (n > 0 && ::write(c, buf, static_cast<size_t>(n)) != n) {
  }
  ::close(c);
}

// A blocking IPv4 or IPv6 loopback listener on a free port, or -1.
int loopback_listener(int family, int* port) {
  int fd = ::socket(family, SOCK_STREAM, 0);
  sockaddr_storage a{};
  socklen_t len;
  if (family == AF_INET) {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&a);
    v4->sin_family = AF_INET;
    v4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    len = sizeof *v4;
  } else {
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&a);
    v6->sin6_family = AF_INET6;
    v6->sin6_addr = in6addr_loopback;
    len = sizeof *v6;
  }
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), len) < 0 || ::listen(fd, 4) < 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) < 0) {
    if (fd >= 0) ::close(fd);
    return -1;
  }
  *port = ntohs(family == AF_INET ? reinterpret_cast<sockaddr_in*>(&a)->sin_port
                                  : reinterpret_cast<sockaddr_in6*>(&a)->sin6_port);
  return fd;
}

// Connects through the builtin, sends `msg` and returns the echo.
std::string round_trip(const std::string& host, int port, const std::string& msg) {
  OText h(text(host));
  int64_t c = wo_net_connect(h, port, &kSite);
  REQUIRE(c >= 0);
  OText out(text(msg));
  wo_net_write(c, out, &kSite);
  OText got(wo_net_read(c, 64, &kSite));
  wo_net_close(c, &kSite);
  return str(got);
}

// A UDP name server on 127.0.0.1 for the tests: answers every A question
// with 127.0.0.1 and every other question with no records (so an AAAA
// lookup finds nothing), or, when `silent`, reads and never answers.
class FakeDns {
 public:
  explicit FakeDns(bool silent) : silent_(silent) {
    fd_ = ::socket(AF_INET, SOCK_DGRAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0);
    port_ = ntohs(a.sin_port);
    timeval tv{0, 50000};  // the loop checks stop_ every 50 ms
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeDns() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  std::string servers() const { return "127.0.0.1:" + std::to_string(port_); }
  int questions() const { return questions_.load(); }

 private:
  void serve() {
    unsigned char q[512];
    while (!stop_) {
      sockaddr_in from{};
      socklen_t flen = sizeof from;
      ssize_t n = ::recvfrom(fd_, q, sizeof q, 0, reinterpret_cast<sockaddr*>(&from), &flen);
      if (n < 12) continue;
      questions_++;
      if (silent_) continue;
      size_t at = 12;  // the question's name: labels up to the root's zero
      while (at < static_cast<size_t>(n) && q[at] != 0) at += 1 + q[at];
      if (at + 5 > static_cast<size_t>(n)) continue;
      size_t qend = at + 5;  // the zero, QTYPE, QCLASS
      bool a_record = q[at + 1] == 0 && q[at + 2] == 1;
      unsigned char r[600];
      std::memcpy(r, q, qend);
      r[2] = 0x81;  // a response; recursion desired and available; no error
      r[3] = 0x80;
      r[4] = 0, r[5] = 1;                   // one question
      r[6] = 0, r[7] = a_record ? 1 : 0;    // answers
      std::memset(r + 8, 0, 4);             // no authority, no additional
      size_t len = qend;
      if (a_record) {
        const unsigned char answer[] = {0xC0, 0x0C, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1};
        std::memcpy(r + len, answer, sizeof answer);
        len += sizeof answer;
      }
      ::sendto(fd_, r, len, 0, reinterpret_cast<sockaddr*>(&from), flen);
    }
  }
  bool silent_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> questions_{0};
  std::thread thread_;
};

struct EnvVar {
  const char* name;
  EnvVar(const char* n, const std::string& v) : name(n) { setenv(n, v.c_str(), 1); }
  ~EnvVar() { unsetenv(name); }
};

}  // namespace

TEST_CASE("net.connect: numeric IPv4, a hosts-file name and IPv6 reach a listener") {
  OneShard env;
  int port = 0;
  int l = loopback_listener(AF_INET, &port);
  REQUIRE(l >= 0);
  for (const char* host : {"127.0.0.1", "localhost"}) {
    std::thread s([&] { echo_once(l); });
    CHECK(round_trip(host, port, std::string("hi ") + host) == std::string("hi ") + host);
    s.join();
  }
  ::close(l);
  int l6 = loopback_listener(AF_INET6, &port);
  if (l6 < 0) {
    MESSAGE("no IPv6 loopback here: the IPv6 case is skipped");
    return;
  }
  for (const char* host : {"::1", "[::1]"}) {
    std::thread s([&] { echo_once(l6); });
    CHECK(round_trip(host, port, "six") == "six");
    s.join();
  }
  ::close(l6);
}

TEST_CASE("net.connect: refused, unresolvable and out-of-range ports trap with the reason") {
  OneShard env;
  int port = 0;
  int l = loopback_listener(AF_INET, &port);
  REQUIRE(l >= 0);
  ::close(l);  // nobody listens there now
  OText lo(text("127.0.0.1"));
  wo::Trap t = trapped([&] { wo_net_connect(lo, port, &kSite); });
  CHECK(t.code == 9);
  CHECK(t.msg == "net.connect 127.0.0.1:" + std::to_string(port) + ": Connection refused");
  OText bad(text("bad..name"));
  t = trapped([&] { wo_net_connect(bad, 80, &kSite); });
  CHECK(t.code == 9);
  CHECK(t.msg.rfind("net.connect bad..name:80: cannot resolve the host: ", 0) == 0);
  OText empty(text(""));
  t = trapped([&] { wo_net_connect(empty, 80, &kSite); });
  CHECK(t.code == 9);
  CHECK(t.msg == "net.connect :80: cannot resolve the host: not a host name");
  for (int64_t p : {int64_t{0}, int64_t{65536}, int64_t{-1}}) {
    t = trapped([&] { wo_net_connect(lo, p, &kSite); });
    CHECK(t.code == 6);
    CHECK(t.msg == "net.connect: port out of range (1..65535)");
  }
  EnvVar dns("WO_DNS", "not a server list");
  OText name(text("wo-test.example"));
  t = trapped([&] { wo_net_connect(name, 80, &kSite); });
  CHECK(t.code == 9);
  CHECK(t.msg.find("WO_DNS is not a list of name servers") != std::string::npos);
}

TEST_CASE("net.connect: a name answered by the name server WO_DNS names") {
  OneShard env;
  FakeDns server(false);
  EnvVar dns("WO_DNS", server.servers());
  int port = 0;
  int l = loopback_listener(AF_INET, &port);
  REQUIRE(l >= 0);
  std::thread s([&] { echo_once(l); });
  CHECK(round_trip("wo-test.example", port, "via dns") == "via dns");
  s.join();
  ::close(l);
  CHECK(server.questions() >= 1);
}

TEST_CASE("net.connect_dl: a name server that never answers gives nil at the deadline") {
  OneShard env;
  FakeDns server(true);
  EnvVar dns("WO_DNS", server.servers());
  OText name(text("wo-test.example"));
  auto t0 = std::chrono::steady_clock::now();
  CHECK(wo_net_connect_dl(name, 80, 300, &kSite) == WO_NIL_SCALAR);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  CHECK(ms >= 290);   // not before the deadline
  CHECK(ms < 3000);   // and not at c-ares's own timeout (3 s a try)
  CHECK(server.questions() >= 1);
}
