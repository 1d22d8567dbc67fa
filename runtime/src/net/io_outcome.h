// How one read or send on a connection ended (wo::net::Io): what fd_io.h's
// loops and tls.h's session reads and sends both return. A header of its
// own so tls.h need not include fd_io.h while fd_io.cpp includes tls.h (to
// hand a TLS connection's bytes to its session): the two stay one-way.
#pragma once

namespace wo::net {

enum class Io {
  Done,     // read: *got > 0 bytes; send: every byte went out
  Eof,      // read only: the peer closed its side
  Timeout,  // the deadline passed (or, when `dl`, a stop signal arrived: wait_fd)
  Failed,   // a syscall failed with *err (never EAGAIN / EINTR)
};

}  // namespace wo::net
