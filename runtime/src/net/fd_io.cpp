// fd_io.h: the read / send retry loops of the net builtins.
#include "fd_io.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "../core/observe.h"
#include "../core/trap.h"
#include "../sched/io.h"
#include "common/traps.h"
#include "tls.h"
#include "wo_actor.h"

namespace wo::net {

void raise_errno(const char* what, int err, const WoSite* site) {
  const std::string why = err == tls::kTlsError ? "TLS: " + tls::last_error() : std::string(std::strerror(err));
  wo::raise(static_cast<int64_t>(TrapCode::IO), site, (std::string(what) + ": " + why).c_str());
}

int checked_fd(int64_t fd, const char* what, const WoSite* site) {
  if (fd < 0 || fd > INT32_MAX)
    wo::raise(static_cast<int64_t>(TrapCode::BOUNDS), site, (std::string(what) + ": not a socket").c_str());
  return static_cast<int>(fd);
}

std::string text_string(const WoText* t) {
  return t ? std::string(t->bytes, static_cast<size_t>(t->len)) : std::string();
}

int64_t deadline_of(int64_t ms) { return ms <= 0 ? -1 : sched::deadline_after_ms(ms); }

Io read_some(int fd, char* buf, size_t max, int64_t deadline_us, bool dl, size_t* got, int* err,
             const WoSite* site) {
  if (tls::Session* s = tls::find(fd)) return tls::read(s, fd, buf, max, deadline_us, dl, got, err, site);
  for (;;) {
    ssize_t n = ::read(fd, buf, max);
    observed_outside();
    if (n > 0) {
      *got = static_cast<size_t>(n);
      return Io::Done;
    }
    if (n == 0) return Io::Eof;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      *err = errno;
      return Io::Failed;
    }
    if (sched::wait_fd(fd, EPOLLIN | EPOLLRDHUP, deadline_us, dl, site) != sched::Wait::Ready) return Io::Timeout;
  }
}

Io send_all(int fd, iovec* iov, int n, int64_t deadline_us, bool dl, int* err, const WoSite* site) {
  wo_sched_durable_barrier();  // nothing leaves before the actor's commits are durable (decision 0045)
  if (tls::Session* s = tls::find(fd)) {
    if (const std::string* one = tls::joined(iov, n)) {  // one record (tls::joined says why)
      Io r = tls::send(s, fd, one->data(), one->size(), deadline_us, dl, err, site);
      if (r == Io::Done)
        for (int i = 0; i < n; ++i) iov[i].iov_len = 0;
      return r;
    }
    for (; n > 0; ++iov, --n) {
      Io r = tls::send(s, fd, static_cast<const char*>(iov->iov_base), iov->iov_len, deadline_us, dl, err, site);
      if (r != Io::Done) return r;
      iov->iov_len = 0;
    }
    return Io::Done;
  }
  while (n > 0 && iov->iov_len == 0) ++iov, --n;
  while (n > 0) {
    msghdr m{};
    m.msg_iov = iov;
    m.msg_iovlen = static_cast<size_t>(n);
    ssize_t sent = ::sendmsg(fd, &m, MSG_NOSIGNAL);
    if (sent >= 0) {
      auto left = static_cast<size_t>(sent);
      while (n > 0 && left >= iov->iov_len) left -= iov->iov_len, ++iov, --n;
      if (n > 0) {
        iov->iov_base = static_cast<char*>(iov->iov_base) + left;
        iov->iov_len -= left;
      }
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      *err = errno;
      return Io::Failed;
    }
    if (sched::wait_fd(fd, EPOLLOUT, deadline_us, dl, site) != sched::Wait::Ready) return Io::Timeout;
  }
  return Io::Done;
}

}  // namespace wo::net
