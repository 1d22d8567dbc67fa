// The retry-and-park loops of the net builtins, shared by net.cpp and the HTTP
// layer (../http/): one read or one full send on a non-blocking fd that parks
// the calling fiber (sched::wait_fd) on EAGAIN until the fd is ready or the
// absolute deadline passes. They classify the outcome instead of trapping so
// each caller decides what EOF, a timeout or ECONNRESET means to it.
#pragma once
#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "io_outcome.h"
#include "wo_runtime.h"

namespace wo::net {

[[noreturn]] void raise_errno(const char* what, int err, const WoSite* site);  // IO `what: strerror`
int checked_fd(int64_t fd, const char* what, const WoSite* site);             // BOUNDS `not a socket`
int64_t deadline_of(int64_t ms);
std::string text_string(const WoText* t);  // a copy of t's bytes ("" for NULL)  // CLOCK_MONOTONIC µs `ms` from now; ms <= 0: -1 (none)

// One read(2) of at most `max` (> 0) bytes into `buf`.
Io read_some(int fd, char* buf, size_t max, int64_t deadline_us, bool dl, size_t* got, int* err,
             const WoSite* site);
// sendmsg(MSG_NOSIGNAL) until every byte of `iov[0..n)` is out (the iovecs are
// advanced in place). A Timeout or Failed leaves the stream torn.
Io send_all(int fd, iovec* iov, int n, int64_t deadline_us, bool dl, int* err, const WoSite* site);

}  // namespace wo::net
