// Host names to addresses for net.connect (docs/decisions/0085). A numeric
// IPv4 or IPv6 address needs no resolver; a name goes to c-ares (Debian's
// libcares.so.2, loaded with dlopen on first use, as libcrypto is), whose
// sockets the calling fiber waits on through its shard's event loop, so a
// lookup parks that fiber only, never the shard's thread.
#pragma once
#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <vector>

#include "wo_runtime.h"

namespace wo::net {

struct Address {
  sockaddr_storage addr;
  socklen_t len;
};

enum class Resolved {
  Ok,        // *out holds at least one address, in the order to try them
  Timeout,   // the deadline passed (or, when `dl`, a stop signal arrived)
  Failed,    // no address: *why says why (c-ares's text, or a bad name)
};

// `host` without the brackets an IPv6 literal may come in (`[::1]` -> `::1`).
std::string bare_host(const std::string& host);
// Whether `host` (bracketed or not) is an IPv4 or IPv6 address, not a name.
bool is_ip_literal(const std::string& host);

// The TCP addresses of `host` (a dotted quad, an IPv6 address with or
// without brackets, or a name) at `port`, IPv4 and IPv6 alike. Traps IO when
// c-ares cannot be loaded; `deadline_us` < 0: none.
Resolved resolve(const std::string& host, uint16_t port, int64_t deadline_us, bool dl, std::vector<Address>* out,
                 std::string* why, const WoSite* site);

}  // namespace wo::net
