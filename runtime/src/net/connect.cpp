// net.connect and net.connect_dl (docs/decisions/0085), and the TLS
// client forms net.connect_tls* (0086): an outbound TCP
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

#include "../core/trap.h"
#include "../sched/io.h"
#include "common/traps.h"
#include "fd_io.h"
#include "resolve.h"
#include "tls.h"

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

// The target as messages name it, IPv6 literals bracketed so the port
// stands apart: `net.connect [::1]:443`.
std::string target(const char* op, const std::string& h, int64_t port) {
  bool v6 = h.find(':') != std::string::npos && h.front() != '[';
  return std::string(op) + " " + (v6 ? "[" + h + "]" : h) + ":" + std::to_string(port);
}

// A connected TCP socket to host:port, or -1 when the deadline passed.
int open_tcp(const std::string& h, int64_t port, int64_t deadline, bool dl, const std::string& what,
             const WoSite* site) {
  if (port < 1 || port > 65535)
    wo::raise(kBounds, site, (what.substr(0, what.find(' ')) + ": port out of range (1..65535)").c_str());
  std::vector<wo::net::Address> addrs;
  std::string why;
  switch (wo::net::resolve(h, static_cast<uint16_t>(port), deadline, dl, &addrs, &why, site)) {
    case wo::net::Resolved::Ok: break;
    case wo::net::Resolved::Timeout: return -1;
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
      case Attempt::Timeout: return -1;
      case Attempt::Failed: break;  // the next address, if any
    }
  }
  wo::net::raise_errno(what.c_str(), err, site);
}

int64_t connect_impl(WoText* host, int64_t port, int64_t ms, bool dl, const WoSite* site) {
  std::string h = wo::net::text_string(host);
  int fd = open_tcp(h, port, dl ? wo::net::deadline_of(ms) : -1, dl, target("net.connect", h, port), site);
  return fd < 0 ? WO_NIL_SCALAR : fd;
}

// connect, then a client handshake; one deadline over both for the `_dl`
// forms, the handshake bounded by WO_TLS_HANDSHAKE_MS for the plain one.
int64_t connect_tls_impl(const char* op, WoText* host, int64_t port, wo::net::tls::Verify verify, WoText* ca_file,
                         int64_t ms, bool dl, const WoSite* site) {
  std::string h = wo::net::text_string(host);
  std::string what = target(op, h, port);
  std::string ca = wo::net::text_string(ca_file);
  if (verify == wo::net::tls::Verify::CaFile && ca.empty()) wo::raise(kIo, site, (what + ": no CA file named").c_str());
  int64_t deadline = dl ? wo::net::deadline_of(ms) : -1;
  SocketGuard sock;
  sock.fd = open_tcp(h, port, deadline, dl, what, site);
  if (sock.fd < 0) return WO_NIL_SCALAR;
  int64_t hs_deadline = dl ? deadline : wo::net::deadline_of(wo::net::tls::handshake_ms());
  std::string why;
  switch (wo::net::tls::client(sock.fd, h, verify, ca, hs_deadline, dl, &why, site)) {
    case wo::net::tls::Handshake::Done: return sock.release();
    case wo::net::tls::Handshake::Timeout:
      if (dl) return WO_NIL_SCALAR;
      wo::raise(kIo, site, (what + ": TLS handshake timed out after " + std::to_string(wo::net::tls::handshake_ms()) +
                            " ms (WO_TLS_HANDSHAKE_MS)").c_str());
    case wo::net::tls::Handshake::Failed: break;
  }
  wo::raise(kIo, site, (what + ": TLS: " + why).c_str());
}

}  // namespace

extern "C" {

int64_t wo_net_connect(WoText* host, int64_t port, const WoSite* site) {
  return connect_impl(host, port, 0, false, site);
}

int64_t wo_net_connect_dl(WoText* host, int64_t port, int64_t ms, const WoSite* site) {
  return connect_impl(host, port, ms, true, site);
}

int64_t wo_net_connect_tls(WoText* host, int64_t port, const WoSite* site) {
  return connect_tls_impl("net.connect_tls", host, port, wo::net::tls::Verify::System, nullptr, 0, false, site);
}

int64_t wo_net_connect_tls_dl(WoText* host, int64_t port, int64_t ms, const WoSite* site) {
  return connect_tls_impl("net.connect_tls_dl", host, port, wo::net::tls::Verify::System, nullptr, ms, true, site);
}

int64_t wo_net_connect_tls_ca_dl(WoText* host, int64_t port, WoText* ca_file, int64_t ms, const WoSite* site) {
  return connect_tls_impl("net.connect_tls_ca_dl", host, port, wo::net::tls::Verify::CaFile, ca_file, ms, true, site);
}

int64_t wo_net_connect_tls_insecure_dl(WoText* host, int64_t port, int64_t ms, const WoSite* site) {
  return connect_tls_impl("net.connect_tls_insecure_dl", host, port, wo::net::tls::Verify::Nothing, nullptr, ms, true,
                          site);
}

}  // extern "C"
