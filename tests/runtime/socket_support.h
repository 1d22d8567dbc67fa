// Helpers shared by the runtime tests that drive sockets (net_test,
// http_test, sched_io_test, sched_deadlines_test): one shard for the test's
// duration, the port a listener got, and a plain blocking loopback client
// socket.
#pragma once
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#include <doctest/doctest.h>

#include "wo_actor.h"

namespace wotest {

// WO_SHARDS=1 while it lives; the scheduler is shut down at its end.
struct OneShard {
  OneShard() { setenv("WO_SHARDS", "1", 1); }
  ~OneShard() {
    wo_sched_shutdown();
    unsetenv("WO_SHARDS");
  }
  OneShard(const OneShard&) = delete;
  OneShard& operator=(const OneShard&) = delete;
};

inline int port_of(int64_t listener) {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  REQUIRE(::getsockname(static_cast<int>(listener), reinterpret_cast<sockaddr*>(&a), &len) == 0);
  return ntohs(a.sin_port);
}

// A blocking client socket connected to 127.0.0.1:port, or -1.
inline int connect_to(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace wotest
