// Name resolution for net.connect (resolve.h, docs/decisions/0085).
#include "resolve.h"

#include <arpa/inet.h>
#include <ares.h>
#include <netinet/in.h>
#include <sys/epoll.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "../core/dynlib.h"
#include "../core/trap.h"
#include "../sched/io.h"
#include "common/traps.h"

namespace wo::net {
namespace {

constexpr const char* kSoname = "libcares.so.2";

// The c-ares functions the resolver calls; the types are ares.h's own, so a
// changed signature fails to compile.
struct Cares {
  decltype(&::ares_library_init) library_init;
  decltype(&::ares_init_options) init_options;
  decltype(&::ares_destroy) destroy;
  decltype(&::ares_getaddrinfo) getaddrinfo;
  decltype(&::ares_freeaddrinfo) freeaddrinfo;
  decltype(&::ares_getsock) getsock;
  decltype(&::ares_timeout) timeout;
  decltype(&::ares_process_fd) process_fd;
  decltype(&::ares_strerror) strerror;
  decltype(&::ares_set_servers_ports_csv) set_servers;
};

std::string load(Cares& c) {
  using dynlib::sym;
  std::string why;
  void* h = dynlib::open(kSoname, &why);
  if (!h) return why;
  if (sym(h, "ares_library_init", c.library_init) && sym(h, "ares_init_options", c.init_options) &&
      sym(h, "ares_destroy", c.destroy) && sym(h, "ares_getaddrinfo", c.getaddrinfo) &&
      sym(h, "ares_freeaddrinfo", c.freeaddrinfo) && sym(h, "ares_getsock", c.getsock) &&
      sym(h, "ares_timeout", c.timeout) && sym(h, "ares_process_fd", c.process_fd) &&
      sym(h, "ares_strerror", c.strerror) && sym(h, "ares_set_servers_ports_csv", c.set_servers)) {
    if (int rc = c.library_init(ARES_LIB_INIT_ALL); rc != ARES_SUCCESS) {
      std::string why = std::string("ares_library_init: ") + c.strerror(rc);
      dlclose(h);
      return why;
    }
    return "";
  }
  return dynlib::missing(h);
}

// c-ares, loaded once per process; traps IO (catchable) when it cannot be,
// and the next lookup tries again (as builtins/crypto_lib.cpp).
const Cares& cares() {
  static const Cares loaded = [] {
    Cares c{};
    if (std::string why = load(c); !why.empty()) {
      std::string msg = std::string("cannot load ") + kSoname +
                        " (c-ares, Debian package libc-ares2), which net.connect needs to resolve a host name: " + why;
      wo::raise(static_cast<int64_t>(TrapCode::IO), nullptr, msg.c_str());
    }
    return c;
  }();
  return loaded;
}

// A numeric address needs no lookup: a dotted quad, or IPv6 (bracketed or not).
bool numeric(const std::string& host, uint16_t port, Address* out) {
  std::memset(out, 0, sizeof *out);
  auto* v4 = reinterpret_cast<sockaddr_in*>(&out->addr);
  if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    out->len = sizeof *v4;
    return true;
  }
  std::string h = bare_host(host);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&out->addr);
  if (inet_pton(AF_INET6, h.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    out->len = sizeof *v6;
    return true;
  }
  return false;
}

// One lookup's outcome, written by c-ares's callback.
struct Query {
  const Cares* c;
  uint16_t port;
  bool done = false;
  int status = ARES_SUCCESS;
  std::vector<Address>* out;
};

void on_addrinfo(void* arg, int status, int /*timeouts*/, ares_addrinfo* res) {
  auto* q = static_cast<Query*>(arg);
  q->done = true;
  q->status = status;
  if (status == ARES_SUCCESS && res) {
    for (ares_addrinfo_node* n = res->nodes; n; n = n->ai_next) {
      if ((n->ai_family != AF_INET && n->ai_family != AF_INET6) || n->ai_addrlen > sizeof(sockaddr_storage)) continue;
      Address a{};
      std::memcpy(&a.addr, n->ai_addr, n->ai_addrlen);
      a.len = n->ai_addrlen;
      if (n->ai_family == AF_INET)
        reinterpret_cast<sockaddr_in*>(&a.addr)->sin_port = htons(q->port);
      else
        reinterpret_cast<sockaddr_in6*>(&a.addr)->sin6_port = htons(q->port);
      q->out->push_back(a);
    }
  }
  if (res) q->c->freeaddrinfo(res);
}

// The channel of one lookup, destroyed on every way out (a stop signal
// unwinds the fiber through here); destroying it ends the query, whose
// callback then runs once more with ARES_EDESTRUCTION.
struct Channel {
  const Cares& c;
  ares_channel ch = nullptr;
  ~Channel() {
    if (ch) c.destroy(ch);
  }
};

}  // namespace

std::string bare_host(const std::string& host) {
  return host.size() >= 2 && host.front() == '[' && host.back() == ']' ? host.substr(1, host.size() - 2) : host;
}

bool is_ip_literal(const std::string& host) {
  Address a;
  return numeric(host, 0, &a);
}

Resolved resolve(const std::string& host, uint16_t port, int64_t deadline_us, bool dl, std::vector<Address>* out,
                 std::string* why, const WoSite* site) {
  out->clear();
  Address a;
  if (numeric(host, port, &a)) {
    out->push_back(a);
    return Resolved::Ok;
  }
  if (host.empty() || host.find('\0') != std::string::npos) {
    *why = "not a host name";
    return Resolved::Failed;
  }
  const Cares& c = cares();
  Channel chan{c};
  ares_options opts{};
  // Per server and try, then c-ares doubles it: a server that never answers
  // fails the lookup in ~9 s, not the library's default minute.
  opts.timeout = 3000;
  opts.tries = 2;
  if (int rc = c.init_options(&chan.ch, &opts, ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES); rc != ARES_SUCCESS) {
    chan.ch = nullptr;
    *why = c.strerror(rc);
    return Resolved::Failed;
  }
  // WO_DNS=ip[:port][,...]: these name servers instead of /etc/resolv.conf's
  // (a container without one; tests with a server of their own).
  if (const char* servers = std::getenv("WO_DNS"); servers && *servers) {
    if (int rc = c.set_servers(chan.ch, servers); rc != ARES_SUCCESS) {
      *why = std::string("WO_DNS is not a list of name servers (ip or ip:port, comma-separated): ") + c.strerror(rc);
      return Resolved::Failed;
    }
  }
  Query q{&c, port, false, ARES_SUCCESS, out};
  ares_addrinfo_hints hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  c.getaddrinfo(chan.ch, host.c_str(), nullptr, &hints, on_addrinfo, &q);
  while (!q.done) {
    int64_t now = sched::now_us();
    if (deadline_us >= 0 && now >= deadline_us) return Resolved::Timeout;
    ares_socket_t socks[ARES_GETSOCK_MAXNUM];
    int bits = c.getsock(chan.ch, socks, ARES_GETSOCK_MAXNUM);
    timeval tv{};
    timeval* t = c.timeout(chan.ch, nullptr, &tv);
    int64_t wake = t ? now + tv.tv_sec * 1000000 + tv.tv_usec : -1;
    if (deadline_us >= 0 && (wake < 0 || deadline_us < wake)) wake = deadline_us;
    // c-ares talks to one server at a time: waiting on the first socket it
    // names, until its own next timeout, misses nothing.
    int fd = -1;
    uint32_t events = 0;
    for (int i = 0; i < ARES_GETSOCK_MAXNUM && fd < 0; ++i) {
      if (ARES_GETSOCK_READABLE(bits, i)) events |= EPOLLIN;
      if (ARES_GETSOCK_WRITABLE(bits, i)) events |= EPOLLOUT;
      if (events) fd = socks[i];
    }
    if (fd < 0) {  // nothing to wait for yet it is not done: let c-ares run its timeouts once, then give up
      c.process_fd(chan.ch, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
      if (q.done) break;
      *why = "the resolver has nothing to wait for";
      return Resolved::Failed;
    }
    // Timeout comes only for a wake already past on entry, or for a stop
    // signal during a `_dl` wait (sched/io.h): then it is this lookup's end.
    if (sched::wait_fd(fd, events, wake, dl, site) == sched::Wait::Timeout && (wake < 0 || sched::now_us() < wake))
      return Resolved::Timeout;
    // Ready (possibly spuriously) or c-ares's timeout: it reads what is
    // there (EAGAIN is nothing to it) and retries or fails what timed out.
    c.process_fd(chan.ch, (events & EPOLLIN) ? fd : ARES_SOCKET_BAD, (events & EPOLLOUT) ? fd : ARES_SOCKET_BAD);
  }
  if (q.status != ARES_SUCCESS || out->empty()) {
    *why = q.status != ARES_SUCCESS ? c.strerror(q.status) : "no IPv4 or IPv6 address";
    return Resolved::Failed;
  }
  return Resolved::Ok;
}

}  // namespace wo::net
