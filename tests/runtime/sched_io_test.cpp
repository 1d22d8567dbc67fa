// wait_fd's one-shot registrations (runtime/src/sched/io.cpp): they stay in
// the epoll set between waits, so what must hold is that a wait that timed
// out leaves nothing armed (data arriving later wakes nobody and touches no
// stale stack record), and that a new socket reusing a closed fd's number
// is watched afresh.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "socket_support.h"
#include "support.h"
#include "wo_actor.h"

using namespace wotest;

namespace {

const WoSite kSite{"sched_io_test", 1, nullptr, 0};

}  // namespace

TEST_CASE("wait_fd: a timed-out wait leaves nothing armed; a reused fd number is watched afresh") {
  OneShard env;
  OText host(text("127.0.0.1"));
  int64_t l = wo_net_listen(host, 0, &kSite);
  int c1 = connect_to(port_of(l));
  int64_t s1 = wo_net_accept_dl(l, 5000, &kSite);
  REQUIRE(s1 >= 0);
  CHECK(wo_net_read_dl(s1, 8, 20, &kSite) == nullptr);  // times out: its registration is dropped
  REQUIRE(::write(c1, "late", 4) == 4);                 // an event now would name a dead stack record
  wo_time_sleep(20, &kSite);                            // the shard polls while main sleeps
  OText late(wo_net_read_dl(s1, 8, 5000, &kSite));
  REQUIRE(late.get() != nullptr);
  CHECK(str(late) == "late");
  // Keep-alive shape: many waits on one fd, each re-arming the registration.
  for (int i = 0; i < 50; ++i) {
    CHECK(wo_net_read_dl(s1, 8, 1, &kSite) == nullptr);
    REQUIRE(::write(c1, "k", 1) == 1);
    OText k(wo_net_read_dl(s1, 8, 5000, &kSite));
    REQUIRE(k.get() != nullptr);
    CHECK(str(k) == "k");
  }
  wo_net_close(s1, &kSite);
  ::close(c1);
  // The next accepted socket usually gets the same number back.
  int c2 = connect_to(port_of(l));
  int64_t s2 = wo_net_accept_dl(l, 5000, &kSite);
  REQUIRE(s2 >= 0);
  REQUIRE(::write(c2, "again", 5) == 5);
  OText again(wo_net_read_dl(s2, 8, 5000, &kSite));
  REQUIRE(again.get() != nullptr);
  CHECK(str(again) == "again");
  wo_net_close(s2, &kSite);
  ::close(c2);
  wo_net_close(l, &kSite);
}
