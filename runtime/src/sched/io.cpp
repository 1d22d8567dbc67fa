// wait_fd: a fiber parks on an fd in its shard's epoll set (io.h).
#include "io.h"

#include <cerrno>
#include <cstring>
#include <string>

#include "../stop.h"
#include "../trap.h"
#include "common/traps.h"
#include "sched.h"
#include "wo_db.h"

namespace wo::sched {

Wait wait_fd(int fd, uint32_t events, int64_t deadline_us, bool dl, const WoSite* site) {
  if (wo_tx_active()) raise(static_cast<int64_t>(TrapCode::DB), site, "cannot park inside a transaction");
  if (deadline_us >= 0 && now_us() >= deadline_us) return Wait::Timeout;
  if (dl && stop_armed() && stop_requested()) return Wait::Timeout;
  ensure_started();
  Shard* s = current_shard();
  Fiber* f = current_fiber();
  IoWait w{f, f->park_id + 1};  // the id park() is about to use
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = &w;
  if (::epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
    raise(static_cast<int64_t>(TrapCode::IO), site, (std::string("net: cannot wait on the socket: ") + std::strerror(errno)).c_str());
  ++s->io_waiting;
  struct Unregister {
    Shard* s;
    int fd;
    ~Unregister() {
      ::epoll_ctl(s->epfd, EPOLL_CTL_DEL, fd, nullptr);
      --s->io_waiting;
    }
  } unregister{s, fd};
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
