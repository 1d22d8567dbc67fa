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

#include <atomic>
#include <chrono>
#include <cstddef>

#include "spawned.h"
#include "socket_support.h"
#include "support.h"
#include "wo_actor.h"

using namespace wotest;

namespace {

const WoSite kSite{"sched_io_test", 1, nullptr, 0};

// A Spinner keeps its shard busy: each delivery sends it the next message,
// so its run queue never empties. At its 100th delivery it writes to a
// client socket (`poke`), making the server side readable while `main` is
// parked on it.
const WoTypeDesc kInt{WO_TY_INT, nullptr, nullptr, nullptr, 0, nullptr};
struct Spinner {
  WoHeader h;
  int64_t self_addr;
  int64_t poke;
  int64_t n;
};
const WoFieldDesc kSpinnerFields[] = {{"self_addr", &kInt, offsetof(Spinner, self_addr)},
                                      {"poke", &kInt, offsetof(Spinner, poke)},
                                      {"n", &kInt, offsetof(Spinner, n)}};
const WoClassDesc kSpinnerClass{"Spinner", sizeof(Spinner), nullptr, 3, kSpinnerFields};
const WoTypeDesc kSpinner{WO_TY_CLASS, nullptr, nullptr, &kSpinnerClass, 0, nullptr};
std::atomic<bool> g_spin{true};

uint64_t spin_receive(void* state, uint64_t) {
  auto* s = static_cast<Spinner*>(state);
  if (++s->n == 100 && ::write(static_cast<int>(s->poke), "busy", 4) != 4) return 0;
  if (g_spin.load()) wo_send(s->self_addr, 1, &kInt, &kSite);
  return 0;
}
const WoActorType kSpinnerActor{"Spinner", spin_receive, &kSpinner, &kInt, 0};

// A listener, a client socket connected to it, and the server's end.
struct Connected {
  int64_t listener;
  int client;
  int64_t server;
};
Connected accepted_pair() {
  OText host(text("127.0.0.1"));
  int64_t l = wo_net_listen(host, 0, &kSite);
  int c = connect_to(port_of(l));
  int64_t s = wo_net_accept_dl(l, 5000, &kSite);
  REQUIRE(s >= 0);
  return {l, c, s};
}

}  // namespace

// take_next polls the fds at least every kBusyPollUs while something is
// runnable, not only when the shard goes idle: a shard that never idles
// still wakes the fiber whose fd became ready (not at its deadline).
TEST_CASE("wait_fd: a shard whose run queue never empties still notices a ready fd") {
  OneShard env;
  auto [l, c1, s1] = accepted_pair();
  auto* st = static_cast<Spinner*>(wo_alloc(sizeof(Spinner), nullptr));
  st->poke = c1;
  int64_t a = wotest::spawn(st, &kSpinnerActor, &kSite);
  st->self_addr = a;  // one shard: the state stayed where it was
  g_spin = true;
  wo_send(a, 1, &kInt, &kSite);
  auto t0 = std::chrono::steady_clock::now();
  OText got(wo_net_read_dl(s1, 8, 5000, &kSite));  // parks; only the spinner runs
  auto waited = std::chrono::steady_clock::now() - t0;
  g_spin = false;
  REQUIRE(got.get() != nullptr);
  CHECK(str(got) == "busy");
  // Woken by the poll, not by its deadline (which also reads what is there).
  CHECK(waited < std::chrono::milliseconds(2500));
  wo_net_close(s1, &kSite);
  ::close(c1);
  wo_net_close(l, &kSite);
}

TEST_CASE("wait_fd: a timed-out wait leaves nothing armed; a reused fd number is watched afresh") {
  OneShard env;
  auto [l, c1, s1] = accepted_pair();
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
