// Helpers shared by the runtime tests that drive sockets (net_test,
// http_test, sched_io_test, sched_deadlines_test): one shard for the test's
// duration, the port a listener got, and a plain blocking loopback client
// socket.
#pragma once
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

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

// Sends each part whole, `gap_ms` apart (a slow client); stops at the first
// part the server did not take (it closed: a limit). False then.
inline bool send_parts(int fd, const std::vector<std::string>& parts, int gap_ms) {
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i && gap_ms) std::this_thread::sleep_for(std::chrono::milliseconds(gap_ms));
    const std::string& p = parts[i];
    size_t off = 0;
    while (off < p.size()) {
      ssize_t n = ::send(fd, p.data() + off, p.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
  }
  return true;
}

}  // namespace wotest
