// The `net` builtins (framework.md §1.1–§1.2): IPv4 TCP and AF_UNIX
// listeners, accept, read, write, close, peer. Every socket is non-blocking;
// a call that would block parks only the calling fiber on its shard's epoll
// set (runtime/src/sched/io.cpp) and retries the syscall when woken. A
// deadline that passes is a result (nil / false), never a trap; a failing
// syscall traps IO with the OS text. `ms <= 0` means no deadline.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "../core/heap.h"
#include "../sched/io.h"
#include "../core/trap.h"
#include "fd_io.h"
#include "tls.h"
#include "common/traps.h"

namespace {

constexpr int64_t kIo = static_cast<int64_t>(wo::TrapCode::IO);
constexpr int64_t kBounds = static_cast<int64_t>(wo::TrapCode::BOUNDS);

using wo::net::checked_fd;
using wo::net::deadline_of;
using wo::net::raise_errno;

// Waits until `fd` is ready or the deadline passes; false on a timeout (or a
// stop signal during a `_dl` wait, which returns the timeout value too).
bool wait_ready(int fd, uint32_t events, int64_t deadline_us, bool dl, const WoSite* site) {
  return wo::sched::wait_fd(fd, events, deadline_us, dl, site) == wo::sched::Wait::Ready;
}

int make_listener(int domain, const sockaddr* addr, socklen_t len, const char* what, const WoSite* site) {
  int fd = ::socket(domain, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) raise_errno(what, errno, site);
  int one = 1;
  if (domain == AF_INET) ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, addr, len) < 0 || ::listen(fd, 64) < 0) {
    int err = errno;
    ::close(fd);
    raise_errno(what, err, site);
  }
  return fd;
}

int64_t accept_impl(int64_t lfd, int64_t ms, bool dl, const WoSite* site) {
  int fd = checked_fd(lfd, "net.accept", site);
  int64_t deadline = dl ? deadline_of(ms) : -1;
  for (;;) {
    int c = ::accept4(fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (c >= 0) return c;
    if (errno == EINTR || errno == ECONNABORTED) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) raise_errno("net.accept", errno, site);
    if (!wait_ready(fd, EPOLLIN, deadline, dl, site)) return WO_NIL_SCALAR;
  }
}

// A TLS server handshake on accepted `c`: true when done; false at the
// deadline or when the client failed it (the connection is closed then: a
// garbage, truncated or stalled handshake costs the server nothing more).
bool handshake_or_close(int c, wo::net::tls::ServerKeys* keys, int64_t deadline, bool dl, const WoSite* site) {
  std::string why;
  wo::net::tls::Handshake h;
  try {
    h = wo::net::tls::server(c, keys, deadline, dl, &why, site);
  } catch (...) {  // a stop signal
    ::close(c);
    throw;
  }
  if (h == wo::net::tls::Handshake::Done) return true;
  ::close(c);
  return false;
}

// net.accept_tls: the next connection whose client completes a handshake;
// each handshake bounded by WO_TLS_HANDSHAKE_MS (and, for the `_dl` form,
// by its deadline, which also bounds the wait for connections).
int64_t accept_tls_impl(int64_t lfd, WoText* cert, WoText* key, int64_t ms, bool dl, const WoSite* site) {
  wo::need(cert, site);
  wo::need(key, site);
  // The files first: unusable ones trap before any client is taken.
  wo::net::tls::ServerKeys* keys = wo::net::tls::server_keys(wo::net::text_string(cert), wo::net::text_string(key), site);
  int64_t deadline = dl ? deadline_of(ms) : -1;
  for (;;) {
    int64_t conn = accept_impl(lfd, ms, dl, site);
    if (conn == WO_NIL_SCALAR) return WO_NIL_SCALAR;
    int64_t hs = deadline_of(wo::net::tls::handshake_ms());
    if (deadline >= 0 && deadline < hs) hs = deadline;
    if (handshake_or_close(static_cast<int>(conn), keys, hs, dl, site)) return conn;
    if (deadline >= 0 && wo::sched::now_us() >= deadline) return WO_NIL_SCALAR;
    if (dl) ms = (deadline - wo::sched::now_us() + 999) / 1000;  // what is left for the next one
  }
}

WoText* read_impl(int64_t cfd, int64_t max, int64_t ms, bool dl, const WoSite* site) {
  int fd = checked_fd(cfd, "net.read", site);
  if (max <= 0) return wo::text_from("", 0);
  if (max > (INT64_C(1) << 30)) max = INT64_C(1) << 30;
  int64_t deadline = dl ? deadline_of(ms) : -1;
  WoText* t = wo::text_alloc(max);
  wo::OwnedGuard guard(t);
  size_t got = 0;
  int err = 0;
  switch (wo::net::read_some(fd, t->bytes, static_cast<size_t>(max), deadline, dl, &got, &err, site)) {
    case wo::net::Io::Done: break;
    case wo::net::Io::Eof: got = 0; break;
    case wo::net::Io::Timeout: return nullptr;
    case wo::net::Io::Failed: raise_errno("net.read", err, site);
  }
  // A short read into a large buffer: keep a right-sized copy rather than
  // holding `max` bytes for as long as the Text lives.
  if (static_cast<size_t>(max) - got > 4096) return wo::text_from(t->bytes, got);
  t->len = static_cast<int64_t>(got);
  t->bytes[got] = '\0';
  return static_cast<WoText*>(guard.disown());
}

bool write_impl(int64_t cfd, WoText* text, int64_t ms, bool dl, const WoSite* site) {
  int fd = checked_fd(cfd, "net.write", site);
  wo::need(text, site);
  int64_t deadline = dl ? deadline_of(ms) : -1;
  iovec iov{text->bytes, static_cast<size_t>(text->len)};
  int err = 0;
  wo::net::Io r = wo::net::send_all(fd, &iov, 1, deadline, dl, &err, site);
  if (r == wo::net::Io::Failed) raise_errno("net.write", err, site);
  return r == wo::net::Io::Done;
}

}  // namespace

extern "C" {

int64_t wo_net_listen(WoText* host, int64_t port, const WoSite* site) {
  wo::need(host, site);
  if (port < 0 || port > 65535) wo::raise(kIo, site, "net.listen: port out of range");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  const char* h = host->len == 0 ? "0.0.0.0" : host->bytes;
  if (::inet_pton(AF_INET, h, &a.sin_addr) != 1) wo::raise(kIo, site, "net.listen: not an IPv4 address");
  return make_listener(AF_INET, reinterpret_cast<sockaddr*>(&a), sizeof a, "net.listen", site);
}

int64_t wo_net_listen_unix(WoText* path, const WoSite* site) {
  wo::need(path, site);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path->len == 0 || static_cast<size_t>(path->len) >= sizeof a.sun_path)
    wo::raise(kIo, site, "net.listen_unix: path too long or empty");
  std::memcpy(a.sun_path, path->bytes, static_cast<size_t>(path->len));
  ::unlink(a.sun_path);  // a stale socket file from an earlier run (framework.md §1.2)
  return make_listener(AF_UNIX, reinterpret_cast<sockaddr*>(&a), sizeof a, "net.listen_unix", site);
}

int64_t wo_net_accept(int64_t fd, const WoSite* site) { return accept_impl(fd, 0, false, site); }
int64_t wo_net_accept_dl(int64_t fd, int64_t ms, const WoSite* site) { return accept_impl(fd, ms, true, site); }
WoText* wo_net_read(int64_t fd, int64_t max, const WoSite* site) { return read_impl(fd, max, 0, false, site); }
WoText* wo_net_read_dl(int64_t fd, int64_t max, int64_t ms, const WoSite* site) {
  return read_impl(fd, max, ms, true, site);
}
void wo_net_write(int64_t fd, WoText* text, const WoSite* site) { write_impl(fd, text, 0, false, site); }
bool wo_net_write_dl(int64_t fd, WoText* text, int64_t ms, const WoSite* site) {
  return write_impl(fd, text, ms, true, site);
}

int64_t wo_net_accept_tls(int64_t fd, WoText* cert, WoText* key, const WoSite* site) {
  return accept_tls_impl(fd, cert, key, 0, false, site);
}
int64_t wo_net_accept_tls_dl(int64_t fd, WoText* cert, WoText* key, int64_t ms, const WoSite* site) {
  return accept_tls_impl(fd, cert, key, ms, true, site);
}

bool wo_net_tls_server(int64_t conn, WoText* cert, WoText* key, int64_t ms, const WoSite* site) {
  int fd = checked_fd(conn, "net.tls_server", site);
  wo::need(cert, site);
  wo::need(key, site);
  if (wo::net::tls::find(fd)) wo::raise(kIo, site, "net.tls_server: the connection is TLS already");
  wo::net::tls::ServerKeys* keys = wo::net::tls::server_keys(wo::net::text_string(cert), wo::net::text_string(key), site);
  std::string why;
  switch (wo::net::tls::server(fd, keys, deadline_of(ms), true, &why, site)) {
    case wo::net::tls::Handshake::Done: return true;
    case wo::net::tls::Handshake::Timeout: return false;
    case wo::net::tls::Handshake::Failed: break;
  }
  wo::raise(kIo, site, ("net.tls_server: TLS: " + why).c_str());
}

void wo_net_close(int64_t fd, const WoSite* site) {
  int f = checked_fd(fd, "net.close", site);
  if (wo::net::tls::Session* s = wo::net::tls::find(f)) wo::net::tls::end(f, s);  // before the fd number can be reused
  if (::close(f) < 0 && errno != EINTR) raise_errno("net.close", errno, site);
}

WoText* wo_net_peer(int64_t fd) {
  if (fd < 0 || fd > INT32_MAX) return wo::text_from("", 0);
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getpeername(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&ss), &len) < 0) return wo::text_from("", 0);
  if (ss.ss_family == AF_UNIX) return wo::text_from("unix", 4);
  if (ss.ss_family != AF_INET) return wo::text_from("", 0);
  // Formatted by hand: a rate limiter asks for every request, and glibc's
  // inet_ntop goes through sprintf (a few hundred ns each time).
  auto* in = reinterpret_cast<sockaddr_in*>(&ss);
  const auto* b = reinterpret_cast<const unsigned char*>(&in->sin_addr.s_addr);  // network order
  char buf[24];  // "255.255.255.255:65535" is 21
  char* w = buf;
  auto decimal = [&w](unsigned v) {  // v < 100000
    char digits[5];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v && n < 5);
    while (n) *w++ = digits[--n];
  };
  for (int i = 0; i < 4; ++i) {
    if (i) *w++ = '.';
    decimal(b[i]);
  }
  *w++ = ':';
  decimal(ntohs(in->sin_port));
  return wo::text_from(buf, static_cast<size_t>(w - buf));
}

}  // extern "C"
