// net.connect and net.connect_dl (docs/decisions/0085): an outbound TCP
// connection, IPv4 or IPv6, as a non-blocking fd like the ones net.accept
// returns, so net.read / net.write / net.close work on it unchanged. The
// lookup (resolve.h) and each connect attempt park only the calling fiber;
// the deadline covers both. The addresses are tried in the resolver's order
// and the first that connects wins; when none does, the last one's error is
// the IO trap (`net.connect example.org:443: Connection refused`).
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "../sched/io.h"
#include "../trap.h"
#include "common/traps.h"
#include "fd_io.h"
#include "resolve.h"

namespace {

constexpr int64_t kIo = static_cast<int64_t>(wo::TrapCode::IO);
constexpr int64_t kBounds = static_cast<int64_t>(wo::TrapCode::BOUNDS);

// Closes the socket unless it is handed to the program (also when a stop
// signal unwinds the fiber out of a wait).
struct SocketGuard {
  int fd = -1;
  ~SocketGuard() {
    if (fd >= 0) ::close(fd);
  }
  int release() {
    int f = fd;
    fd = -1;
    return f;
  }
};

enum class Attempt { Connected, Timeout, Failed };

// One address: a non-blocking connect, parked on until the socket is
// writable; then SO_ERROR says how it ended (a spurious wake finds 0 and
// connect(2) again answers EALREADY: wait again; EISCONN: connected).
Attempt attempt(const wo::net::Address& a, int64_t deadline, bool dl, SocketGuard& sock, int* err,
                const WoSite* site) {
  sock.fd = ::socket(a.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (sock.fd < 0) {
    *err = errno;
    return Attempt::Failed;
  }
  const auto* sa = reinterpret_cast<const sockaddr*>(&a.addr);
  int rc;
  do rc = ::connect(sock.fd, sa, a.len);
  while (rc < 0 && errno == EINTR);
  if (rc == 0) return Attempt::Connected;
  if (errno != EINPROGRESS) {
    *err = errno;
    return Attempt::Failed;
  }
  for (;;) {
    if (wo::sched::wait_fd(sock.fd, EPOLLOUT, deadline, dl, site) == wo::sched::Wait::Timeout)
      return Attempt::Timeout;
    int so = 0;
    socklen_t len = sizeof so;
    if (::getsockopt(sock.fd, SOL_SOCKET, SO_ERROR, &so, &len) < 0) so = errno;
    if (so != 0) {
      *err = so;
      return Attempt::Failed;
    }
    if (::connect(sock.fd, sa, a.len) == 0 || errno == EISCONN) return Attempt::Connected;
    if (errno != EALREADY && errno != EINPROGRESS && errno != EINTR) {
      *err = errno;
      return Attempt::Failed;
    }
  }
}

int64_t connect_impl(WoText* host, int64_t port, int64_t ms, bool dl, const WoSite* site) {
  if (port < 1 || port > 65535) wo::raise(kBounds, site, "net.connect: port out of range (1..65535)");
  std::string h = host ? std::string(host->bytes, static_cast<size_t>(host->len)) : std::string();
  // IPv6 literals bracketed in messages, so the port stands apart.
  bool v6 = h.find(':') != std::string::npos && h.front() != '[';
  std::string what = "net.connect " + (v6 ? "[" + h + "]" : h) + ":" + std::to_string(port);
  int64_t deadline = dl ? wo::net::deadline_of(ms) : -1;
  std::vector<wo::net::Address> addrs;
  std::string why;
  switch (wo::net::resolve(h, static_cast<uint16_t>(port), deadline, dl, &addrs, &why, site)) {
    case wo::net::Resolved::Ok: break;
    case wo::net::Resolved::Timeout: return WO_NIL_SCALAR;
    case wo::net::Resolved::Failed: wo::raise(kIo, site, (what + ": cannot resolve the host: " + why).c_str());
  }
  int err = 0;
  for (const wo::net::Address& a : addrs) {
    SocketGuard sock;
    switch (attempt(a, deadline, dl, sock, &err, site)) {
      case Attempt::Connected: {
        int one = 1;  // requests and replies, not bulk: no Nagle delay on a small write
        ::setsockopt(sock.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        return sock.release();
      }
      case Attempt::Timeout: return WO_NIL_SCALAR;
      case Attempt::Failed: break;  // the next address, if any
    }
  }
  wo::net::raise_errno(what.c_str(), err, site);
}

}  // namespace

extern "C" {

int64_t wo_net_connect(WoText* host, int64_t port, const WoSite* site) {
  return connect_impl(host, port, 0, false, site);
}

int64_t wo_net_connect_dl(WoText* host, int64_t port, int64_t ms, const WoSite* site) {
  return connect_impl(host, port, ms, true, site);
}

}  // extern "C"
