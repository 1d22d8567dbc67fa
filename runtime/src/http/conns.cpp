// net.conns_*: a connection set, the runtime half of App.serve's concurrent
// mode (docs/decisions/0082). One fiber owns the set; the set accepts from a
// listener and runs every connection's HTTP/1.1 framing as a small state
// machine — read and parse a request (RequestParser, the deadlines of
// framework.md §2.1), hand it to the owner, write the owner's answer, then
// keep the connection for the next request or linger and close — so a
// client that sends half a request, reads slowly or idles on keep-alive
// costs one entry here and holds nobody else. The owner's `.wo` code
// (App.dispatch) runs for one request at a time on the owning fiber: no
// `.wo` code of the app ever interleaves with itself, which is what the
// ownership checks assume of code that is not split across actors.
//
// How it waits: the set's own epoll instance (edge-triggered connections,
// a level-triggered listener) is the one fd the owning fiber parks on
// (sched::wait_fd, the nearest connection deadline as the park's deadline),
// so a thousand idle connections cost no epoll_ctl per wait and no fiber.
//
// A connection's states:
//   Handshaking  a set opened with TLS (conns_open_tls): the server handshake,
//                driven by the same events; deadline first_ms (then closed;
//                plain HTTP sent to the TLS port gets a plain 400 first)
//   Reading      bytes go into `in` until a request (or a refusal) is whole;
//                deadline first_ms until its first non-whitespace byte (then
//                a clean close), read_ms from there (then 400 timed out)
//   Ready        a record waits in the ready queue for conns_next
//   Dispatching  conns_next handed it out; no deadline, nothing is read
//                (the next pipelined request stays in `in` / the kernel)
//   Writing      the answer's unsent rest is in `out`; deadline read_ms
//   Lingering    after the last answer (our FIN sent): what the client still
//                sends is read and dropped until its EOF, 1 MiB or 1 s, then
//                the close (closing with unread bytes would reset the
//                connection and can destroy the answer, as framework's
//                `linger` explains)
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "../core/heap.h"
#include "../core/observe.h"
#include "../builtins/stop.h"
#include "../core/trap.h"
#include "../net/fd_io.h"
#include "../net/tls.h"
#include "../sched/io.h"
#include "common/traps.h"
#include "raw_request.h"
#include "request_parser.h"
#include "response.h"
#include "scratch.h"
#include "texts.h"
#include "wo_actor.h"

namespace wo::http {

namespace {

constexpr size_t kChunk = size_t{16} << 10;
constexpr size_t kLingerBytes = size_t{1} << 20;
constexpr int64_t kLingerUs = 1000000;
constexpr int kAcceptBurst = 64;          // accepts per listener event (the listener is level-triggered)
constexpr int64_t kAcceptPauseUs = 100000;  // out of fds: accepts rest this long
constexpr size_t kKeepBuffer = size_t{64} << 10;  // an idle connection's buffer grown past this is freed
constexpr size_t kKeepFields = 256;               // and its header-span vector
constexpr size_t kNotQueued = SIZE_MAX;
constexpr uint64_t kListenerTag = UINT64_MAX;

enum class St : uint8_t { Handshaking, Reading, Ready, Dispatching, Writing, Lingering };

struct Conn {
  int fd = -1;
  net::tls::Session* tls = nullptr;  // a TLS set's session (registered under fd: net.close ends it after a release)
  St st = St::Reading;
  bool started = false;    // Reading: the request's first byte that is not whitespace arrived
  bool head_done = false;  // Reading: the head is parsed; the body is being read
  bool keep = false;       // Writing: keep the connection after the write
  int64_t served = 0;      // answers given on this connection
  int64_t deadline = -1;   // CLOCK_MONOTONIC µs while in the deadline heap
  size_t heap_at = kNotQueued;
  std::string in;          // bytes read and not yet consumed by a request
  size_t start = 0;        // where the current request starts in `in` (past CR/LF)
  std::vector<Field> fields;
  std::unique_ptr<RequestParser> parser;
  std::string out;         // Writing: the answer's unsent bytes
  size_t out_off = 0;
  size_t linger_left = 0;
  WoRawRequest* ready = nullptr;  // Ready / Dispatching until taken: the record (owned)
};

// The connections' deadlines: a binary min-heap of the connections that
// have one, each knowing its slot, so a change is O(log n) and allocates
// nothing.
class Deadlines {
 public:
  Conn* top() const { return h_.empty() ? nullptr : h_[0]; }
  void set(Conn* c, int64_t at) {
    if (at < 0) return remove(c);
    if (c->heap_at == kNotQueued) {
      c->deadline = at;
      c->heap_at = h_.size();
      h_.push_back(c);
      up(c->heap_at);
      return;
    }
    int64_t was = c->deadline;
    c->deadline = at;
    if (at < was) up(c->heap_at); else down(c->heap_at);
  }
  void remove(Conn* c) {
    size_t i = c->heap_at;
    if (i == kNotQueued) return;
    c->heap_at = kNotQueued;
    c->deadline = -1;
    Conn* last = h_.back();
    h_.pop_back();
    if (i == h_.size()) return;
    h_[i] = last;
    last->heap_at = i;
    up(i);
    down(last->heap_at);
  }

 private:
  void place(size_t i, Conn* c) {
    h_[i] = c;
    c->heap_at = i;
  }
  void up(size_t i) {
    Conn* c = h_[i];
    while (i > 0) {
      size_t p = (i - 1) / 2;
      if (h_[p]->deadline <= c->deadline) break;
      place(i, h_[p]);
      i = p;
    }
    place(i, c);
  }
  void down(size_t i) {
    Conn* c = h_[i];
    for (;;) {
      size_t l = 2 * i + 1;
      if (l >= h_.size()) break;
      size_t m = (l + 1 < h_.size() && h_[l + 1]->deadline < h_[l]->deadline) ? l + 1 : l;
      if (c->deadline <= h_[m]->deadline) break;
      place(i, h_[m]);
      i = m;
    }
    place(i, c);
  }
  std::vector<Conn*> h_;
};

struct Set {
  int epfd = -1;
  int lfd = -1;
  int64_t first_ms = 0, read_ms = 0;
  net::tls::ServerKeys* tls = nullptr;     // conns_open_tls: every connection starts with a handshake with these
  bool parked = false;                     // its owner waits in conns_next (conns_close must not free it)
  std::vector<std::unique_ptr<Conn>> by_fd;
  std::deque<int> ready;                   // connections in Ready, in the order their requests completed
  Deadlines deadlines;
  int64_t accept_resume = -1;              // accepts paused (out of fds) until then
  int64_t complained_us = -1;
};

// Sets by handle (the set's epoll fd) on this thread: a set is used by the
// fiber that opened it, and fibers never change threads.
std::unordered_map<int64_t, Set*>& sets() {
  thread_local std::unordered_map<int64_t, Set*> m;
  return m;
}

char* read_scratch() {
  thread_local char buf[kChunk];
  return buf;
}

[[noreturn]] void bounds(const char* what, const WoSite* site, const char* why) {
  wo::raise(static_cast<int64_t>(TrapCode::BOUNDS), site, (std::string(what) + ": " + why).c_str());
}

Set* set_of(int64_t h, const char* what, const WoSite* site) {
  auto it = sets().find(h);
  if (it == sets().end()) bounds(what, site, "not an open connection set (of this fiber's thread)");
  return it->second;
}

Conn* conn_of(Set* s, int64_t fd) {
  if (fd < 0 || static_cast<uint64_t>(fd) >= s->by_fd.size()) return nullptr;
  return s->by_fd[static_cast<size_t>(fd)].get();
}

void set_deadline_ms(Set* s, Conn* c, int64_t ms) { s->deadlines.set(c, net::deadline_of(ms)); }

// Forgets `c` (and frees it) without closing its fd.
void forget(Set* s, Conn* c) {
  s->deadlines.remove(c);
  ::epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, nullptr);  // may fail: a hijacking handler closed it
  if (c->ready) wo_release(c->ready);
  s->by_fd[static_cast<size_t>(c->fd)].reset();
}

void close_conn(Set* s, Conn* c) {
  int fd = c->fd;
  net::tls::Session* t = c->tls;
  forget(s, c);
  if (t) net::tls::end(fd, t);  // unregistered before the fd number can be reused
  ::close(fd);
}

// read(2), or SSL_read on a TLS connection: > 0 bytes, 0 at the end, -1
// with errno (EAGAIN: wait for the next event).
ssize_t conn_read(Conn* c, char* buf, size_t max) {
  if (!c->tls) return ::read(c->fd, buf, max);
  long n = net::tls::read_nb(c->tls, buf, max);
  if (n >= 0) return n;
  errno = n == net::tls::kWouldBlock ? EAGAIN : EPROTO;
  return -1;
}

void to_ready(Set* s, Conn* c, WoRawRequest* r) {
  c->ready = r;
  c->st = St::Ready;
  c->started = c->head_done = false;
  c->parser.reset();
  if (c->fields.capacity() > kKeepFields) std::vector<Field>().swap(c->fields);  // a head of many headers
  c->fields.clear();
  s->deadlines.remove(c);
  s->ready.push_back(c->fd);
}

void refuse(Set* s, Conn* c, int64_t status, const char* why) {
  c->in.clear();  // the connection closes after the answer: what follows is not read
  to_ready(s, c, new_record(status, why));
}

enum class Step { NeedMore, Done };  // Done: Ready, or closed

// The next request from the bytes in `c->in` alone.
Step parse(Set* s, Conn* c) {
  std::string& in = c->in;
  if (!c->started) {
    c->start = request_start(in.data(), in.size());
    if (!request_begun(in.data() + c->start, in.size() - c->start)) {
      if (c->start == in.size()) {
        in.clear();  // only the CR/LF a client may send between requests
        c->start = 0;
      } else if (in.size() > kHeadMax) {
        close_conn(s, c);  // whitespace without end
        return Step::Done;
      }
      return Step::NeedMore;
    }
    c->started = true;
    set_deadline_ms(s, c, s->read_ms);  // from the first byte, read_ms bounds the whole request
    c->parser = std::make_unique<RequestParser>(&c->fields);
  }
  if (!c->head_done) {
    RequestParser::State st = c->parser->feed(in.data(), c->start, in.size());
    if (st == RequestParser::State::NeedMore) return Step::NeedMore;
    if (st == RequestParser::State::Error) {
      refuse(s, c, c->parser->status(), c->parser->error());
      return Step::Done;
    }
    c->head_done = true;
    size_t want_end = c->parser->head_end() + static_cast<size_t>(c->parser->content_length());
    if (in.size() < want_end) {
      in.reserve(want_end);
      if (c->parser->expects_continue(in.data())) {
        // The client waits for this before sending the body (curl: up to
        // 1 s). An empty send buffer takes it whole; one that does not is a
        // peer not reading what it asked for: closed.
        static const char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
        ssize_t sent = c->tls ? net::tls::write_nb(c->tls, kContinue, sizeof kContinue - 1)
                              : ::send(c->fd, kContinue, sizeof kContinue - 1, MSG_NOSIGNAL);
        if (sent != static_cast<ssize_t>(sizeof kContinue - 1)) {
          close_conn(s, c);
          return Step::Done;
        }
      }
    }
  }
  size_t head_end = c->parser->head_end();
  auto want = static_cast<size_t>(c->parser->content_length());
  if (in.size() - head_end < want) return Step::NeedMore;
  WoText* body = text_of(in.data() + head_end, want);
  size_t end = head_end + want;
  WoRawRequest* r = build(in.data(), *c->parser, body, end, end);  // rest "": the set keeps it
  in.erase(0, end);
  to_ready(s, c, r);
  return Step::Done;
}

// Reading: parses what is buffered, reads more until a request is whole or
// the socket has nothing more (EAGAIN: the edge-triggered event comes back).
void pump_read(Set* s, Conn* c) {
  for (;;) {
    if (parse(s, c) == Step::Done) return;
    ssize_t n = conn_read(c, read_scratch(), kChunk);
    observed_outside();
    if (n > 0) {
      c->in.append(read_scratch(), static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n == 0 && c->started) {
      refuse(s, c, 400, "connection closed mid-request");
      return;
    }
    close_conn(s, c);  // EOF between requests, a reset, any other failure: nobody to answer
    return;
  }
}

void pump_linger(Set* s, Conn* c) {
  for (;;) {
    ssize_t n = conn_read(c, read_scratch(), kChunk);
    if (n > 0) {
      if (static_cast<size_t>(n) >= c->linger_left) break;
      c->linger_left -= static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    break;  // EOF or failure
  }
  close_conn(s, c);
}

void enter_reading(Set* s, Conn* c) {
  c->st = St::Reading;
  c->started = c->head_done = false;
  c->start = 0;
  if (c->in.empty() && c->in.capacity() > kKeepBuffer) std::string().swap(c->in);
  set_deadline_ms(s, c, s->first_ms);
  pump_read(s, c);
}

// The answer is out: the next request, or the end of the connection.
void after_write(Set* s, Conn* c) {
  std::string().swap(c->out);
  c->out_off = 0;
  if (c->keep) {
    enter_reading(s, c);
    return;
  }
  // Our FIN after the last answer (after TLS's close_notify): the client
  // sees the end at once, while what it still sends is drained before the close.
  if (c->tls) net::tls::close_notify(c->tls);
  ::shutdown(c->fd, SHUT_WR);
  c->st = St::Lingering;
  std::string().swap(c->in);
  c->linger_left = kLingerBytes;
  s->deadlines.set(c, sched::now_us() + kLingerUs);
  pump_linger(s, c);
}

enum class Sent { All, Partly, Failed };

Sent send_some(Conn* c, iovec* iov, int n, size_t* left_total) {
  int fd = c->fd;
  while (n > 0 && iov->iov_len == 0) ++iov, --n;
  iovec one;
  if (c->tls)
    if (const std::string* j = net::tls::joined(iov, n)) {  // one record for head and body (tls::joined says why)
      one = iovec{const_cast<char*>(j->data()), j->size()};
      iov = &one;
      n = 1;
    }
  while (c->tls && n > 0) {  // TLS: a record per piece, until the socket is full
    long sent = net::tls::write_nb(c->tls, static_cast<const char*>(iov->iov_base), iov->iov_len);
    if (sent == net::tls::kBroken || sent == 0) return Sent::Failed;
    if (sent == net::tls::kWouldBlock) break;
    iov->iov_base = static_cast<char*>(iov->iov_base) + sent;
    iov->iov_len -= static_cast<size_t>(sent);
    while (n > 0 && iov->iov_len == 0) ++iov, --n;
  }
  while (!c->tls && n > 0) {
    msghdr m{};
    m.msg_iov = iov;
    m.msg_iovlen = static_cast<size_t>(n);
    ssize_t sent = ::sendmsg(fd, &m, MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      return Sent::Failed;
    }
    auto left = static_cast<size_t>(sent);
    while (n > 0 && left >= iov->iov_len) left -= iov->iov_len, ++iov, --n;
    if (n > 0) {
      iov->iov_base = static_cast<char*>(iov->iov_base) + left;
      iov->iov_len -= left;
    }
  }
  *left_total = 0;
  for (int i = 0; i < n; ++i) *left_total += iov[i].iov_len;
  return n == 0 ? Sent::All : Sent::Partly;
}

void pump_write(Set* s, Conn* c) {
  iovec iov{c->out.data() + c->out_off, c->out.size() - c->out_off};
  size_t left = 0;
  switch (send_some(c, &iov, 1, &left)) {
    case Sent::All: after_write(s, c); return;
    case Sent::Partly: c->out_off = c->out.size() - left; return;
    case Sent::Failed: close_conn(s, c); return;
  }
}

void enter_reading(Set* s, Conn* c);

void pump_handshake(Set* s, Conn* c) {
  switch (net::tls::handshake_step(c->tls)) {
    case net::tls::Step::Done: enter_reading(s, c); return;
    case net::tls::Step::WantRead:
    case net::tls::Step::WantWrite: return;  // the edge-triggered event comes back
    case net::tls::Step::PlainHttp: net::tls::answer_plain_http(c->fd); break;
    case net::tls::Step::Failed: break;
  }
  close_conn(s, c);  // garbage, a bad version, an alert: nothing more is spent on it
}

void add_conn(Set* s, int fd) {
  auto slot = static_cast<size_t>(fd);
  if (slot >= s->by_fd.size()) s->by_fd.resize(slot + 64);
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
  ev.data.u64 = static_cast<uint64_t>(fd);
  if (::epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
    ::close(fd);
    return;
  }
  s->by_fd[slot] = std::make_unique<Conn>();
  Conn* c = s->by_fd[slot].get();
  c->fd = fd;
  if (s->tls) {
    c->tls = net::tls::server_session(fd, s->tls);
    if (!c->tls) {
      close_conn(s, c);
      return;
    }
    c->st = St::Handshaking;
    set_deadline_ms(s, c, s->first_ms);
    pump_handshake(s, c);  // the ClientHello often came with the connection
    return;
  }
  enter_reading(s, c);  // the request often came with the connection
}

void arm_listener(Set* s, bool on) {
  epoll_event ev{};
  ev.events = on ? static_cast<uint32_t>(EPOLLIN) : 0u;
  ev.data.u64 = kListenerTag;
  ::epoll_ctl(s->epfd, EPOLL_CTL_MOD, s->lfd, &ev);
}

void accept_some(Set* s, const WoSite* site) {
  for (int i = 0; i < kAcceptBurst; ++i) {
    int fd = ::accept4(s->lfd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      add_conn(s, fd);
      continue;
    }
    int err = errno;
    if (err == EINTR || err == ECONNABORTED) continue;
    if (err == EAGAIN || err == EWOULDBLOCK) return;
    if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM) {
      // Out of fds or memory: the pending connections wait in the backlog
      // while the open ones finish; one line a second says so.
      int64_t now = sched::now_us();
      s->accept_resume = now + kAcceptPauseUs;
      arm_listener(s, false);
      if (s->complained_us < 0 || now - s->complained_us >= 1000000) {
        s->complained_us = now;
        std::fprintf(stderr, "net.conns: accept: %s (accepts paused for 100 ms)\n", std::strerror(err));
      }
      return;
    }
    net::raise_errno("net.conns_next: accept", err, site);
  }
}

void poll_events(Set* s, const WoSite* site) {
  epoll_event evs[64];
  for (;;) {
    int n = ::epoll_wait(s->epfd, evs, 64, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      net::raise_errno("net.conns_next: epoll_wait", errno, site);
    }
    for (int i = 0; i < n; ++i) {
      if (evs[i].data.u64 == kListenerTag) {
        accept_some(s, site);
        continue;
      }
      Conn* c = conn_of(s, static_cast<int64_t>(evs[i].data.u64));
      if (!c) continue;
      uint32_t e = evs[i].events;
      switch (c->st) {
        case St::Handshaking:
          pump_handshake(s, c);
          break;
        case St::Reading:
          if (e & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) pump_read(s, c);
          break;
        case St::Writing:
          if (e & (EPOLLOUT | EPOLLHUP | EPOLLERR)) pump_write(s, c);
          break;
        case St::Lingering:
          if (e & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) pump_linger(s, c);
          break;
        case St::Ready:
        case St::Dispatching: break;  // read again once the answer is out
      }
    }
    if (n < 64) return;
  }
}

// Ends what has run out of time. Events were polled just before, so bytes
// that arrived in time have been read.
void expire(Set* s) {
  int64_t now = sched::now_us();
  if (s->accept_resume >= 0 && now >= s->accept_resume) {
    s->accept_resume = -1;
    arm_listener(s, true);
  }
  for (Conn* c = s->deadlines.top(); c && c->deadline <= now; c = s->deadlines.top()) {
    s->deadlines.remove(c);
    if (c->st == St::Reading && c->started) {
      refuse(s, c, 400, "timed out mid-request");  // slow-loris
    } else {
      close_conn(s, c);  // idle past first_ms (no answer), a stalled write, the linger's end
    }
  }
}

int64_t earliest(int64_t a, int64_t b) {
  if (a < 0) return b;
  if (b < 0) return a;
  return a < b ? a : b;
}

}  // namespace

}  // namespace wo::http

extern "C" {

int64_t wo_net_conns_open(int64_t listener, int64_t first_ms, int64_t read_ms, const WoSite* site) {
  return wo_net_conns_open_tls(listener, first_ms, read_ms, nullptr, nullptr, site);
}

int64_t wo_net_conns_open_tls(int64_t listener, int64_t first_ms, int64_t read_ms, WoText* cert, WoText* key,
                              const WoSite* site) {
  using namespace wo::http;
  wo::net::tls::ServerKeys* tls = nullptr;
  if (cert || key) {
    wo::need(cert, site);
    wo::need(key, site);
    tls = wo::net::tls::server_keys(wo::net::text_string(cert), wo::net::text_string(key), site);  // traps IO before any client is taken
  }
  int lfd = wo::net::checked_fd(listener, "net.conns_open", site);
  // Accepts must never block the thread (net.listen's sockets are non-blocking already).
  int fl = ::fcntl(lfd, F_GETFL);
  if (fl < 0 || (!(fl & O_NONBLOCK) && ::fcntl(lfd, F_SETFL, fl | O_NONBLOCK) < 0))
    wo::net::raise_errno("net.conns_open", errno, site);
  int ep = ::epoll_create1(EPOLL_CLOEXEC);
  if (ep < 0) wo::net::raise_errno("net.conns_open: epoll_create1", errno, site);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kListenerTag;
  if (::epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev) < 0) {
    int err = errno;
    ::close(ep);
    wo::net::raise_errno("net.conns_open", err, site);
  }
  auto* s = new Set;
  s->epfd = ep;
  s->lfd = lfd;
  s->first_ms = first_ms;
  s->read_ms = read_ms;
  s->tls = tls;
  sets()[ep] = s;
  return ep;
}

int64_t wo_net_conns_next(int64_t h, int64_t ms, const WoSite* site) {
  using namespace wo::http;
  Set* s = set_of(h, "net.conns_next", site);
  int64_t until = wo::net::deadline_of(ms);
  for (;;) {
    poll_events(s, site);
    expire(s);
    while (!s->ready.empty()) {
      int fd = s->ready.front();
      s->ready.pop_front();
      Conn* c = conn_of(s, fd);
      if (c && c->st == St::Ready) {
        c->st = St::Dispatching;
        return fd;
      }
    }
    if (until >= 0 && wo::sched::now_us() >= until) return WO_NIL_SCALAR;
    if (wo::stop_armed() && wo::stop_requested()) return WO_NIL_SCALAR;
    Conn* next = s->deadlines.top();
    int64_t wake = earliest(until, earliest(next ? next->deadline : -1, s->accept_resume));
    s->parked = true;
    struct Unpark {
      Set* s;
      ~Unpark() { s->parked = false; }
    } unpark{s};
    wo::sched::Wait w = wo::sched::wait_fd(s->epfd, EPOLLIN, wake, true, site);
    if (w == wo::sched::Wait::Timeout && wo::stop_armed() && wo::stop_requested()) return WO_NIL_SCALAR;
  }
}

WoRawRequest* wo_net_conns_take(int64_t h, int64_t conn, const WoSite* site) {
  using namespace wo::http;
  Set* s = set_of(h, "net.conns_take", site);
  Conn* c = conn_of(s, conn);
  if (!c || !c->ready) return new_record(-1, "");
  WoRawRequest* r = c->ready;
  c->ready = nullptr;
  return r;
}

int64_t wo_net_conns_served(int64_t h, int64_t conn, const WoSite* site) {
  using namespace wo::http;
  Conn* c = conn_of(set_of(h, "net.conns_served", site), conn);
  return c ? c->served : -1;
}

bool wo_net_conns_respond(int64_t h, int64_t conn, int64_t status, WoMap* headers, WoText* body, bool head_only,
                          bool keep_alive, const WoSite* site) {
  using namespace wo::http;
  Set* s = set_of(h, "net.conns_respond", site);
  wo::need(headers, site);
  wo::need(body, site);
  Conn* c = conn_of(s, conn);
  if (!c || c->st != St::Dispatching) return false;
  ScratchLease lease;
  Bytes& head = lease->buf;
  response_head(head, status, headers, body->len, keep_alive, "net.conns_respond", site);
  wo_sched_durable_barrier();  // nothing leaves before the actor's commits are durable (decision 0045)
  c = conn_of(s, conn);        // (the barrier may have parked)
  if (!c || c->st != St::Dispatching) return false;
  if (c->ready) {
    wo_release(c->ready);  // handed out but never taken
    c->ready = nullptr;
  }
  c->served += 1;
  c->keep = keep_alive;
  iovec iov[2] = {{head.data(), head.size()}, {body->bytes, head_only ? 0 : static_cast<size_t>(body->len)}};
  size_t left = 0;
  switch (send_some(c, iov, 2, &left)) {
    case Sent::All: after_write(s, c); return true;
    case Sent::Failed: close_conn(s, c); return false;
    case Sent::Partly: break;
  }
  // The socket is full: the rest goes out as it drains, under read_ms.
  std::string& out = c->out;
  out.clear();
  out.reserve(left);
  // What is left is a suffix of head + body: copy exactly that suffix.
  size_t body_len = head_only ? 0 : static_cast<size_t>(body->len);
  if (left > body_len) {
    size_t from_head = left - body_len;
    out.append(head.data() + head.size() - from_head, from_head);
    out.append(body->bytes, body_len);
  } else {
    out.append(body->bytes + body_len - left, left);
  }
  c->out_off = 0;
  c->st = St::Writing;
  set_deadline_ms(s, c, s->read_ms);
  return true;
}

void wo_net_conns_release(int64_t h, int64_t conn, const WoSite* site) {
  using namespace wo::http;
  Set* s = set_of(h, "net.conns_release", site);
  Conn* c = conn_of(s, conn);
  if (c) forget(s, c);
}

void wo_net_conns_close(int64_t h, const WoSite* site) {
  using namespace wo::http;
  Set* s = set_of(h, "net.conns_close", site);
  if (s->parked) bounds("net.conns_close", site, "its owner is waiting in net.conns_next");
  for (auto& slot : s->by_fd) {
    Conn* c = slot.get();
    if (!c) continue;
    if (c->st == St::Writing) {  // one last try: a stop leaves no time to wait for a slow reader
      iovec iov{c->out.data() + c->out_off, c->out.size() - c->out_off};
      size_t left = 0;
      if (send_some(c, &iov, 1, &left) == Sent::All && !c->keep) {
        if (c->tls) wo::net::tls::close_notify(c->tls);
        ::shutdown(c->fd, SHUT_WR);
      }
    }
    close_conn(s, c);
  }
  sets().erase(h);
  ::close(s->epfd);
  delete s;
}

}  // extern "C"
