// Park deadlines (runtime/src/sched/deadlines.h): the heap keeps (deadline,
// arming order) order under any mix of adds and early removals, and a net
// wait that ends before its deadline leaves no deadline queued behind it.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../../runtime/src/sched/sched.h"
#include "socket_support.h"
#include "support.h"
#include "wo_actor.h"

using namespace wotest;
using wo::sched::Fiber;
using wo::sched::ParkDeadlines;

TEST_CASE("park deadlines: pops in (deadline, seq) order under random removals") {
  std::mt19937 rng(7);
  std::vector<std::unique_ptr<Fiber>> fibers;
  ParkDeadlines heap;
  std::vector<std::pair<int64_t, uint64_t>> live;  // what should still be queued
  uint64_t seq = 0;
  for (int round = 0; round < 2000; ++round) {
    if (live.empty() || rng() % 3 != 0) {
      fibers.push_back(std::make_unique<Fiber>());
      int64_t d = rng() % 50;  // many equal deadlines: seq must break the ties
      heap.add(fibers.back().get(), d, seq);
      live.emplace_back(d, seq++);
    } else {  // remove a random queued fiber, as an early wake-up does
      std::vector<Fiber*> queued;
      for (auto& f : fibers)
        if (f->deadline_slot != ParkDeadlines::kNotQueued) queued.push_back(f.get());
      Fiber* f = queued[rng() % queued.size()];
      live.erase(std::find(live.begin(), live.end(), std::make_pair(f->deadline_us, f->deadline_seq)));
      heap.remove(f);
      CHECK(f->deadline_slot == ParkDeadlines::kNotQueued);
      heap.remove(f);  // a second removal is a no-op
    }
    REQUIRE(heap.size() == live.size());
  }
  std::sort(live.begin(), live.end());
  for (auto& want : live) {
    Fiber* f = heap.top();
    CHECK(std::make_pair(f->deadline_us, f->deadline_seq) == want);
    heap.remove(f);
  }
  CHECK(heap.empty());
}

namespace {
const WoSite kSite{"sched_deadlines_test", 1, nullptr, 0};

// Waits (at most `ms`) until thread `tid` of this process is asleep in the
// kernel (state S in /proc), polling: how the client tells that the server
// has parked on its read and its shard went to sleep.
bool wait_until_sleeping(pid_t tid, int ms) {
  std::string path = "/proc/self/task/" + std::to_string(tid) + "/stat";
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < until) {
    std::ifstream f(path);
    std::string line;
    std::getline(f, line);
    size_t close = line.rfind(')');  // "pid (comm) S ...": comm may hold spaces
    if (close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'S') return true;
    std::this_thread::yield();
  }
  return false;
}
}

TEST_CASE("park deadlines: reads that end before their deadline leave none queued") {
  OneShard env;
  OText host(text("127.0.0.1"));
  int64_t l = wo_net_listen(host, 0, &kSite);
  int cfd = connect_to(port_of(l));
  REQUIRE(cfd >= 0);
  int64_t conn = wo_net_accept_dl(l, 5000, &kSite);
  REQUIRE(conn >= 0);
  // The client answers each read only after the server parks on it (its
  // thread asleep in the shard's epoll_wait): every read parks with a
  // one-minute deadline and is woken early by the data. Answering as soon
  // as the "ready" byte came let a slow server (TSan) find the data there
  // in all rounds, never park, never start the scheduler, and read a null
  // shard below.
  constexpr int kRounds = 200;
  pid_t server = static_cast<pid_t>(::syscall(SYS_gettid));
  std::atomic<int> unparked{0};  // rounds where the server was not seen asleep within 5 s
  std::thread client([&] {
    for (int i = 0; i < kRounds; ++i) {
      char c;
      if (::read(cfd, &c, 1) != 1) return;  // the server's "ready" byte
      if (!wait_until_sleeping(server, 5000)) unparked++;
      if (::write(cfd, "x", 1) != 1) return;
    }
  });
  OText ready(text("r"));
  for (int i = 0; i < kRounds; ++i) {
    wo_net_write(conn, ready, &kSite);
    OText got(wo_net_read_dl(conn, 1, 60000, &kSite));
    REQUIRE(got.get() != nullptr);
    CHECK(str(got) == "x");
  }
  client.join();
  CHECK(unparked.load() == 0);
  REQUIRE(wo::sched::current_shard() != nullptr);  // the first park started the scheduler
  CHECK(wo::sched::current_fiber()->park_id >= kRounds);
  CHECK(wo::sched::current_shard()->park_deadlines.size() == 0);
  ::close(cfd);
  wo_net_close(conn, &kSite);
  wo_net_close(l, &kSite);
}
