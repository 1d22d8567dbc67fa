// wait_fd: a fiber parks on an fd in its shard's epoll set (io.h).
//
// The registration is one-shot and stays in the set between waits: the
// next wait on the same fd re-arms it with EPOLL_CTL_MOD, so a keep-alive
// connection costs one epoll_ctl per wait instead of an ADD and a DEL. An
// event that fired has disarmed itself; a wait that ends any other way (its
// deadline, a stop) disarms it with DEL before the IoWait on this stack goes
// away, so no event can ever report a stale pointer. Closing the fd drops the
// registration with it; a later fd with the same number is a new (file, fd)
// key for epoll, so its first MOD fails with ENOENT and it is added afresh.
#include "io.h"

#include <cerrno>
#include <cstring>
#include <string>

#include "../builtins/stop.h"
#include "../core/trap.h"
#include "common/traps.h"
#include "sched.h"
#include "wo_db.h"

namespace wo::sched {

namespace {

[[noreturn]] void cannot_wait(const WoSite* site, const char* why) {
  raise(static_cast<int64_t>(TrapCode::IO), site, (std::string("net: cannot wait on the socket: ") + why).c_str());
}

// Arms `fd`'s one-shot registration to report `events` to `w`.
void arm(Shard* s, int fd, uint32_t events, IoWait* w, const WoSite* site) {
  epoll_event ev{};
  ev.events = events | EPOLLONESHOT;
  ev.data.ptr = w;
  if (::epoll_ctl(s->epfd, EPOLL_CTL_MOD, fd, &ev) == 0) return;
  if (errno == ENOENT && ::epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) == 0) return;
  cannot_wait(site, std::strerror(errno));
}

}  // namespace

Wait wait_fd(int fd, uint32_t events, int64_t deadline_us, bool dl, const WoSite* site) {
  if (wo_tx_active()) raise(static_cast<int64_t>(TrapCode::DB), site, "cannot park inside a transaction");
  if (deadline_us >= 0 && now_us() >= deadline_us) return Wait::Timeout;
  if (dl && stop_armed() && stop_requested()) return Wait::Timeout;
  if (fd < 0) cannot_wait(site, std::strerror(EBADF));
  ensure_started();
  Shard* s = current_shard();
  Fiber* f = current_fiber();
  auto slot = static_cast<size_t>(fd);
  if (slot >= s->fd_waits.size()) s->fd_waits.resize(slot + 64, nullptr);
  // One registration per (epoll set, fd): a second fiber of this shard
  // waiting on the same fd would take the first one's wake-up.
  if (s->fd_waits[slot]) cannot_wait(site, "another fiber is already waiting on it");
  IoWait w{f, f->park_id + 1};  // the id park() is about to use
  w.dl = dl;
  arm(s, fd, events, &w, site);
  s->fd_waits[slot] = &w;
  ++s->io_waiting;
  struct Disarm {
    Shard* s;
    int fd;
    IoWait* w;
    ~Disarm() {
      if (!w->fired) ::epoll_ctl(s->epfd, EPOLL_CTL_DEL, fd, nullptr);
      s->fd_waits[static_cast<size_t>(fd)] = nullptr;
      --s->io_waiting;
    }
  } disarm{s, fd, &w};
  try {
    park(deadline_us);
  } catch (const Unwind&) {
    // A `_dl` wait ends at a stop signal with its timeout value; at program
    // end (or for the plain builtins) the fiber keeps unwinding.
    if (!dl || shutting_down()) throw;
    return Wait::Timeout;
  }
  return Wait::Ready;  // the caller retries; a deadline that passed meanwhile shows on its next wait
}

}  // namespace wo::sched
