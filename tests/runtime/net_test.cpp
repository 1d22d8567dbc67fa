// The `net` builtins through their C ABI (framework.md §1.1–§1.2): a
// listener on 127.0.0.1, a plain blocking client on a std::thread, and the
// woc side parking on its shard's event loop. Deadlines are results (nil /
// false), failures trap IO, and nothing stays registered after a wait.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>

#include "socket_support.h"
#include "support.h"
#include "wo_actor.h"

using namespace wotest;

namespace {

const WoSite kSite{"net_test", 1, nullptr, 0};

// A blocking client: connects, sends `out`, then reads until EOF.
std::string client(int port, const std::string& out, bool read_reply = true) {
  int fd = connect_to(port);
  if (fd < 0) return "connect failed";
  std::string got;
  if (!out.empty() && ::write(fd, out.data(), out.size()) != static_cast<ssize_t>(out.size())) got = "short write: ";
  char buf[256];
  ssize_t n;
  while (read_reply && (n = ::read(fd, buf, sizeof buf)) > 0) got.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return got;
}

}  // namespace

// net.peer formats the address by hand (no inet_ntop): octets of one, two
// and three digits and a zero, and the client's own port.
TEST_CASE("net: peer is the client's address and port") {
  OneShard env;
  OText host(text("0.0.0.0"));
  int64_t l = wo_net_listen(host, 0, &kSite);
  int port = port_of(l);
  int local_port = -1;
  std::thread c([&] {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in me{};
    me.sin_family = AF_INET;
    me.sin_addr.s_addr = htonl(0x7f0a00ffu);  // 127.10.0.255
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(port));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof me;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&me), sizeof me) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&me), &len) == 0)
      local_port = ntohs(me.sin_port);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0 && ::write(fd, "p", 1) == 1) {
    }
    ::close(fd);
  });
  int64_t conn = wo_net_accept_dl(l, 5000, &kSite);
  REQUIRE(conn >= 0);
  OText peer(wo_net_peer(conn));
  c.join();
  REQUIRE(local_port > 0);
  CHECK(str(peer) == "127.10.0.255:" + std::to_string(local_port));
  wo_net_close(conn, &kSite);
  wo_net_close(l, &kSite);
}

TEST_CASE("net: accept, read, write, peer and EOF through the event loop") {
  OneShard env;
  OText host(text("127.0.0.1"));
  int64_t l = wo_net_listen(host, 0, &kSite);
  int port = port_of(l);
  std::string reply;
  std::thread c([&] { reply = client(port, "ping"); });
  int64_t conn = wo_net_accept(l, &kSite);
  OText peer(wo_net_peer(conn));
  CHECK(str(peer).rfind("127.0.0.1:", 0) == 0);
  OText got(wo_net_read(conn, 64, &kSite));
  CHECK(str(got) == "ping");
  OText pong(text("pong"));
  wo_net_write(conn, pong, &kSite);
  wo_net_close(conn, &kSite);
  c.join();
  CHECK(reply == "pong");
  wo_net_close(l, &kSite);
}

TEST_CASE("net: deadlines come back as nil and false, never as traps") {
  OneShard env;
  OText host(text("127.0.0.1"));
  int64_t l = wo_net_listen(host, 0, &kSite);
  CHECK(wo_net_accept_dl(l, 30, &kSite) == WO_NIL_SCALAR);  // nobody connects
  int port = port_of(l);
  std::thread c([&] { client(port, "", /*read_reply=*/true); });
  int64_t conn = wo_net_accept_dl(l, 5000, &kSite);
  REQUIRE(conn >= 0);
  CHECK(wo_net_read_dl(conn, 16, 30, &kSite) == nullptr);  // the client sends nothing
  wo_net_close(conn, &kSite);                               // the client sees EOF and ends
  c.join();
  wo_net_close(l, &kSite);
}

TEST_CASE("net: EOF is an empty Text; a bad fd and a used port trap IO with the OS text") {
  OneShard env;
  OText host(text("127.0.0.1"));
  int64_t l = wo_net_listen(host, 0, &kSite);
  int port = port_of(l);
  std::thread c([&] { client(port, "bye", /*read_reply=*/false); });
  int64_t conn = wo_net_accept(l, &kSite);
  OText first(wo_net_read(conn, 64, &kSite));
  CHECK(str(first) == "bye");
  c.join();
  OText eof(wo_net_read(conn, 64, &kSite));
  CHECK(str(eof).empty());
  wo_net_close(conn, &kSite);
  wo::Trap t = trapped([&] { wo_net_read(conn, 4, &kSite); });  // closed: EBADF
  CHECK(t.code == 9);
  CHECK(t.msg.rfind("net.read: ", 0) == 0);
  t = trapped([&] { wo_net_listen(host, port, &kSite); });  // still listening: EADDRINUSE
  CHECK(t.code == 9);
  wo_net_close(l, &kSite);
}

TEST_CASE("net: listen_unix replaces a stale socket file; peer says unix") {
  OneShard env;
  std::string path = "/tmp/wo-net-test-" + std::to_string(::getpid()) + ".sock";
  OText p(text(path));
  int64_t first = wo_net_listen_unix(p, &kSite);
  wo_net_close(first, &kSite);  // leaves the socket file behind
  int64_t l = wo_net_listen_unix(p, &kSite);
  std::thread c([&] {
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::write(fd, "u", 1) == 1) {
    }
    ::close(fd);
  });
  int64_t conn = wo_net_accept_dl(l, 5000, &kSite);
  REQUIRE(conn >= 0);
  OText peer(wo_net_peer(conn));
  CHECK(str(peer) == "unix");
  OText got(wo_net_read_dl(conn, 8, 5000, &kSite));
  REQUIRE(got.get() != nullptr);
  CHECK(str(got) == "u");
  c.join();
  wo_net_close(conn, &kSite);
  wo_net_close(l, &kSite);
  ::unlink(path.c_str());
}
