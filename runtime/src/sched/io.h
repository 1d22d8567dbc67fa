// Parking a fiber on a file descriptor (framework.md §1.2 "Parking and
// deadlines"): a one-shot registration in the shard's epoll set, re-armed by
// each wait and disarmed by any wait that ends without its event (io.cpp), so
// a timed-out or finished wait leaves nothing armed behind.
#pragma once
#include <sys/epoll.h>

#include <cstdint>

#include "wo_runtime.h"

namespace wo::sched {

enum class Wait { Ready, Timeout };

// Until `fd` reports `events` (EPOLLIN / EPOLLOUT) or `deadline_us` (a
// CLOCK_MONOTONIC µs value; < 0: none) passes. Timeout when the deadline
// had already passed on entry; otherwise Ready after the park (possibly
// spurious or at the deadline): the caller retries its syscall and waits
// again on EAGAIN, which then reports the timeout. `dl`: a stop signal (runtime.md §5.4) returns
// Timeout instead of unwinding the fiber, as the `_dl` builtins promise.
// Traps DB inside a transaction and IO when the fd cannot be watched.
Wait wait_fd(int fd, uint32_t events, int64_t deadline_us, bool dl, const WoSite* site);
int64_t now_us();
int64_t deadline_after_ms(int64_t ms);  // sched.h

}  // namespace wo::sched
