// The actor runtime through its C ABI (wo_actor.h), driven the way generated
// code drives it: hand-written receive functions and descriptors laid out as
// codegen lays them out. Checks the single-shard schedule of runtime.md §3.3,
// mailbox caps, call replies, death, monitors, timers, deep copies across
// shards and the program end.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../../runtime/src/sched/sched.h"
#include "../../runtime/src/core/trap.h"
#include "support.h"
#include "spawned.h"
#include "wo_actor.h"
#include "wo_runtime.h"

namespace {

const WoSite kSite{"actor_test", 1, nullptr, 0};

// `class Msg { n: Int, text: Text }`
struct Msg {
  WoHeader h;
  int64_t n;
  WoText* text;
};
void msg_destroy(void* self) { wo_release(static_cast<Msg*>(self)->text); }
const WoTypeDesc kInt{WO_TY_INT, nullptr, nullptr, nullptr, 0, nullptr};
const WoTypeDesc kText{WO_TY_TEXT, nullptr, nullptr, nullptr, 0, nullptr};
const WoFieldDesc kMsgFields[] = {{"n", &kInt, offsetof(Msg, n)}, {"text", &kText, offsetof(Msg, text)}};
const WoClassDesc kMsgClass{"Msg", sizeof(Msg), msg_destroy, 2, kMsgFields};
const WoTypeDesc kMsg{WO_TY_CLASS, nullptr, nullptr, &kMsgClass, 0, nullptr};
const WoTypeDesc kActorAddr{WO_TY_ACTOR, nullptr, nullptr, nullptr, 0, nullptr};

uint64_t make_msg(int64_t n, const char* text = "") {
  auto* m = static_cast<Msg*>(wo_alloc(sizeof(Msg), msg_destroy));
  m->n = n;
  m->text = wo_text_new(text, static_cast<int64_t>(std::strlen(text)));
  return reinterpret_cast<uint64_t>(m);
}

// `class Counter { total: Int, self_addr: Int }` — the state.
struct Counter {
  WoHeader h;
  int64_t total;
  int64_t self_addr;
};
const WoFieldDesc kCounterFields[] = {{"total", &kInt, offsetof(Counter, total)},
                                      {"self_addr", &kInt, offsetof(Counter, self_addr)}};
const WoClassDesc kCounterClass{"Counter", sizeof(Counter), nullptr, 2, kCounterFields};
const WoTypeDesc kCounter{WO_TY_CLASS, nullptr, nullptr, &kCounterClass, 0, nullptr};

void* make_counter() { return wo_alloc(sizeof(Counter), nullptr); }

std::vector<std::string> g_log;  // single-shard tests only

// receive(msg: Msg) -> Int: adds n, logs "<n>:<text>", traps EXPLICIT on n < 0,
// and for n == 1000 calls itself (the self-call trap, caught and logged).
uint64_t counter_receive(void* state, uint64_t word) {
  auto* c = static_cast<Counter*>(state);
  auto* m = reinterpret_cast<Msg*>(word);
  if (m->n < 0) wo_trap_msg(8, &kSite, "negative");
  if (m->n == 1000) {
    try {
      wo_call(c->self_addr, make_msg(1), &kMsg, &kSite);
    } catch (const wo::Trap& t) {
      g_log.push_back("self:" + std::to_string(t.code) + ":" + t.msg);
    }
    return 0;
  }
  c->total += m->n;
  g_log.push_back(std::to_string(m->n) + ":" + std::string(m->text->bytes, static_cast<size_t>(m->text->len)));
  return static_cast<uint64_t>(c->total);
}
const WoActorType kCounterActor{"Counter", counter_receive, &kCounter, &kMsg, 0};

// Shard-safe: only its own state.
uint64_t sum_receive(void* state, uint64_t word) {
  auto* c = static_cast<Counter*>(state);
  auto* m = reinterpret_cast<Msg*>(word);
  c->total += m->n + m->text->len;
  return static_cast<uint64_t>(c->total);
}
const WoActorType kSumActor{"Sum", sum_receive, &kCounter, &kMsg, 0};

struct Env {
  // Placement "spread" (round-robin) unless told: these cases put actors on
  // known shards to exercise the cross-shard paths (decision 0083).
  Env(const char* shards, const char* mailbox = nullptr, const char* placement = "spread") {
    setenv("WO_SHARDS", shards, 1);
    setenv("WO_PLACEMENT", placement, 1);
    if (mailbox)
      setenv("WO_MAILBOX", mailbox, 1);
    else
      unsetenv("WO_MAILBOX");
    g_log.clear();
  }
  ~Env() {
    wo_sched_shutdown();
    unsetenv("WO_SHARDS");
    unsetenv("WO_MAILBOX");
    unsetenv("WO_PLACEMENT");
  }
};

// What a `main` spinning in a counting loop does: each yield lets every
// actor with queued mail handle its next message (runtime.md §3.3).
void yield_main(int times = 8) {
  for (int i = 0; i < times; ++i) wo_yield();
}

}  // namespace

TEST_CASE("actors: spawn runs nothing; main's yield delivers queued mail in FIFO order") {
  Env env("1");
  int64_t a = wotest::spawn(make_counter(), &kCounterActor, &kSite);
  wo_send(a, make_msg(1, "a"), &kMsg, &kSite);
  wo_send(a, make_msg(2, "b"), &kMsg, &kSite);
  CHECK(g_log.empty());
  yield_main(1);  // one turn: one message
  CHECK(g_log == std::vector<std::string>{"1:a"});
  yield_main(1);
  CHECK(g_log == std::vector<std::string>{"1:a", "2:b"});
  CHECK(wo_call(a, make_msg(4, "c"), &kMsg, &kSite) == 7);
}

TEST_CASE("actors: call waits behind queued mail and returns the receive's value") {
  Env env("1");
  int64_t a = wotest::spawn(make_counter(), &kCounterActor, &kSite);
  int64_t b = wotest::spawn(make_counter(), &kCounterActor, &kSite);
  wo_send(a, make_msg(1, "a1"), &kMsg, &kSite);
  wo_send(b, make_msg(10, "b1"), &kMsg, &kSite);
  wo_send(a, make_msg(2, "a2"), &kMsg, &kSite);
  CHECK(wo_call(a, make_msg(3, "a3"), &kMsg, &kSite) == 6);
  // a ran a1, then b ran b1 (joined the queue second), then a's next turn: a2, a3.
  CHECK(g_log == std::vector<std::string>{"1:a1", "10:b1", "2:a2", "3:a3"});
}

TEST_CASE("actors: a full mailbox traps the sender at exactly the cap") {
  Env env("1", "3");
  int64_t a = wotest::spawn(make_counter(), &kCounterActor, &kSite);
  for (int i = 0; i < 3; ++i) wo_send(a, make_msg(1), &kMsg, &kSite);
  {
    wo::Trap t = wotest::trapped([&] { wo_send(a, make_msg(1), &kMsg, &kSite); });
    CHECK(t.code == 13);
    CHECK(t.msg == "actor mailbox full");
  }
  yield_main();
  CHECK(g_log.size() == 3);
  wo_send(a, make_msg(1), &kMsg, &kSite);  // slots free once taken for delivery
}

TEST_CASE("actors: death fails the call, drops queued mail, fires monitors; sends are dropped after") {
  Env env("1");
  int64_t a = wotest::spawn(make_counter(), &kCounterActor, &kSite);
  int64_t obs = wotest::spawn(make_counter(), &kCounterActor, &kSite);
  wo_monitor(a, obs, make_msg(100, "notice1"), &kMsg, &kSite);
  wo_monitor(a, obs, make_msg(200, "notice2"), &kMsg, &kSite);
  wo_send(a, make_msg(-1), &kMsg, &kSite);  // kills it
  wo_send(a, make_msg(5, "lost"), &kMsg, &kSite);
  {
    wo::Trap t = wotest::trapped([&] { wo_call(a, make_msg(1), &kMsg, &kSite); });
    CHECK(t.code == 13);
    CHECK(t.msg == "actor died during call");
  }
  yield_main();
  CHECK(g_log == std::vector<std::string>{"100:notice1", "200:notice2"});
  wo_send(a, make_msg(5), &kMsg, &kSite);  // silent
  {
    wo::Trap t = wotest::trapped([&] { wo_call(a, make_msg(1), &kMsg, &kSite); });
    CHECK(t.msg == "actor died during call");
  }
  wo_monitor(a, obs, make_msg(300, "late"), &kMsg, &kSite);  // already dead: enqueued at once
  yield_main();
  CHECK(g_log.back() == "300:late");
}

TEST_CASE("actors: a call to the actor running the call traps instead of deadlocking") {
  Env env("1");
  auto* st = static_cast<Counter*>(make_counter());
  int64_t a = wotest::spawn(st, &kCounterActor, &kSite);
  st->self_addr = a;  // single shard: the state stayed where it was
  wo_call(a, make_msg(1000), &kMsg, &kSite);
  CHECK(g_log == std::vector<std::string>{"self:13:call to the calling actor would deadlock"});
}

TEST_CASE("actors: timers fire in deadline order; ms <= 0 is enqueued at once") {
  Env env("1");
  int64_t a = wotest::spawn(make_counter(), &kCounterActor, &kSite);
  wo_time_after(40, a, make_msg(3, "late"), &kMsg, &kSite);
  wo_time_after(10, a, make_msg(2, "soon"), &kMsg, &kSite);
  wo_time_after(0, a, make_msg(1, "now"), &kMsg, &kSite);
  wo_time_sleep(80, &kSite);
  // On a loaded machine the shard may only get the core back after both the
  // 40 ms timer and main's 80 ms deadline: the timer still fires first, but
  // the actor delivers one message per turn, so give it its turns.
  yield_main();
  std::string seen;
  for (auto& x : g_log) seen += x + " ";
  INFO("log: ", seen);
  CHECK(g_log == std::vector<std::string>{"1:now", "2:soon", "3:late"});
}

TEST_CASE("actors: nil address and nil message trap BOUNDS with the operation's name") {
  Env env("1");
  int64_t a = wotest::spawn(make_counter(), &kCounterActor, &kSite);
  {
    wo::Trap t = wotest::trapped([&] { wo_send(0, make_msg(1), &kMsg, &kSite); });
    CHECK(t.code == 6);
    CHECK(t.msg == "send: nil actor address");
  }
  {
    wo::Trap t = wotest::trapped([&] { wo_call(a, 0, &kMsg, &kSite); });
    CHECK(t.msg == "call: nil message");
  }
}

TEST_CASE("actors: many actors on four shards; messages cross by deep copy; totals are exact") {
  Env env("4");
  constexpr int kActors = 64, kMsgs = 200;
  std::vector<int64_t> addrs;
  for (int i = 0; i < kActors; ++i) addrs.push_back(wotest::spawn(make_counter(), &kSumActor, &kSite));
  for (int m = 0; m < kMsgs; ++m)
    for (int64_t a : addrs) {
      while (true) {
        try {
          wo_send(a, make_msg(m, "xy"), &kMsg, &kSite);
          break;
        } catch (const wo::Trap& t) {
          REQUIRE(t.code == 13);  // full: let the shards catch up
          wo_time_sleep(1, &kSite);
        }
      }
    }
  int64_t total = 0;
  for (int64_t a : addrs) total += static_cast<int64_t>(wo_call(a, make_msg(0, ""), &kMsg, &kSite));
  // each actor: sum of 0..kMsgs-1 plus 2 bytes per message
  CHECK(total == kActors * (int64_t{kMsgs} * (kMsgs - 1) / 2 + 2 * kMsgs));
}

TEST_CASE("actors: program end releases parked fibers, state and queued mail") {
  Env env("2");
  int64_t a = wotest::spawn(make_counter(), &kSumActor, &kSite);
  int64_t b = wotest::spawn(make_counter(), &kSumActor, &kSite);
  for (int i = 0; i < 10; ++i) {
    wo_send(a, make_msg(i, "q"), &kMsg, &kSite);
    wo_send(b, make_msg(i, "q"), &kMsg, &kSite);
  }
  wo_time_after(100000, a, make_msg(1, "never"), &kMsg, &kSite);
  // ~Env shuts down: LeakSanitizer (make test-asan) checks nothing is left.
}

namespace {
// receive(msg: Msg) -> Int: sleeps len(text) ms, counts the message in
// `total` and replies its `n`; n == -1 replies the count instead.
uint64_t echo_receive(void* state, uint64_t word) {
  auto* c = static_cast<Counter*>(state);
  auto* m = reinterpret_cast<Msg*>(word);
  if (m->n == -1) return static_cast<uint64_t>(c->total);
  if (m->text->len > 0) wo_time_sleep(m->text->len, &kSite);
  c->total += 1;
  return static_cast<uint64_t>(m->n);
}
const WoActorType kEchoActor{"Echo", echo_receive, &kCounter, &kMsg, 0};
}  // namespace

TEST_CASE("call_dl: a reply in time; past the deadline false, the message is still handled, its reply dropped") {
  for (const char* shards : {"1", "2"}) {
    Env env(shards);
    int64_t a = wotest::spawn(make_counter(), &kEchoActor, &kSite);  // with 2 shards: main's shard
    int64_t b = wotest::spawn(make_counter(), &kEchoActor, &kSite);  // with 2 shards: the other one
    for (int64_t x : {a, b}) {
      uint64_t reply = 0;
      CHECK(wo_call_dl(x, make_msg(7), &kMsg, 5000, &reply, &kSite));
      CHECK(reply == 7);
      reply = 0;
      CHECK_FALSE(wo_call_dl(x, make_msg(8, std::string(300, 's').c_str()), &kMsg, 10, &reply, &kSite));
      CHECK(reply == 0);
      // queued behind the late one: its own reply, never 8
      CHECK(wo_call_dl(x, make_msg(9), &kMsg, 0, &reply, &kSite));  // ms <= 0: no deadline
      CHECK(reply == 9);
      CHECK(wo_call(x, make_msg(-1), &kMsg, &kSite) == 3);
    }
  }
}

TEST_CASE("call_dl: deadlines racing replies across shards never deliver a stale reply") {
  Env env("2");
  int64_t a = wotest::spawn(make_counter(), &kEchoActor, &kSite);
  int64_t b = wotest::spawn(make_counter(), &kEchoActor, &kSite);
  constexpr int kCalls = 300;
  int late = 0;
  for (int i = 0; i < kCalls; ++i) {
    int64_t x = i % 2 ? b : a;
    uint64_t reply = ~uint64_t{0};
    // 0 or 2 ms of work against a 1 ms deadline: both outcomes, and replies
    // that arrive just as the deadline fires
    if (wo_call_dl(x, make_msg(i, i % 3 ? "" : "zz"), &kMsg, 1, &reply, &kSite)) {
      CHECK(reply == static_cast<uint64_t>(i));
    } else {
      ++late;
    }
  }
  INFO("late: ", late);
  CHECK(wo_call(a, make_msg(-1), &kMsg, &kSite) + wo_call(b, make_msg(-1), &kMsg, &kSite) == kCalls);
}

TEST_CASE("call_dl: a dead callee traps as call does; nil address names call_dl") {
  Env env("1");
  int64_t a = wotest::spawn(make_counter(), &kCounterActor, &kSite);
  wo_send(a, make_msg(-1), &kMsg, &kSite);  // kills it once delivered
  uint64_t reply = 0;
  {
    wo::Trap t = wotest::trapped([&] { wo_call_dl(a, make_msg(1), &kMsg, 1000, &reply, &kSite); });
    CHECK(t.code == 13);
    CHECK(t.msg == "actor died during call");
  }
  {
    wo::Trap t = wotest::trapped([&] { wo_call_dl(0, make_msg(1), &kMsg, 1000, &reply, &kSite); });
    CHECK(t.msg == "call_dl: nil actor address");
  }
}

// ---- collection of actors nothing names (docs/decisions/0079) ----------------
namespace {
int g_states_freed = 0;  // single-shard tests only
void counted_destroy(void*) { ++g_states_freed; }
void* make_counted_counter() { return wo_alloc(sizeof(Counter), counted_destroy); }
}  // namespace

TEST_CASE("collect: an actor whose last address is released while idle is destroyed at once") {
  Env env("1");
  g_states_freed = 0;
  int64_t a = wo_spawn(make_counted_counter(), &kCounterActor, &kSite);
  CHECK(wo_call(a, make_msg(2, "x"), &kMsg, &kSite) == 2);
  int64_t copy = a;
  wo_retain(reinterpret_cast<void*>(copy));  // a second holder of the same handle
  wo_release(reinterpret_cast<void*>(a));
  CHECK(g_states_freed == 0);
  wo_release(reinterpret_cast<void*>(copy));
  CHECK(g_states_freed == 1);
}

TEST_CASE("collect: mail sent before the last address went is delivered, in order, before the state goes") {
  Env env("1");
  g_states_freed = 0;
  int64_t a = wo_spawn(make_counted_counter(), &kCounterActor, &kSite);
  wo_send(a, make_msg(1, "a"), &kMsg, &kSite);
  wo_send(a, make_msg(2, "b"), &kMsg, &kSite);
  wo_release(reinterpret_cast<void*>(a));
  CHECK(g_states_freed == 0);  // queued mail keeps it
  yield_main();
  CHECK(g_log == std::vector<std::string>{"1:a", "2:b"});
  CHECK(g_states_freed == 1);
}

TEST_CASE("collect: a handle copied across shards counts; the actor goes only when both are gone") {
  Env env("1");
  g_states_freed = 0;
  int64_t a = wo_spawn(make_counted_counter(), &kCounterActor, &kSite);
  auto* other = static_cast<int64_t*>(wo_deep_copy(reinterpret_cast<void*>(a), &kActorAddr));
  CHECK(other != reinterpret_cast<int64_t*>(a));                    // a handle of its own ...
  CHECK(wo_actor_same(a, reinterpret_cast<int64_t>(other)));        // ... naming the same actor
  wo_release(reinterpret_cast<void*>(a));
  CHECK(g_states_freed == 0);
  CHECK(wo_call(reinterpret_cast<int64_t>(other), make_msg(3, "c"), &kMsg, &kSite) == 3);
  wo_release(other);
  CHECK(g_states_freed == 1);
}

TEST_CASE("collect: a pending time.after names its target until it fires") {
  Env env("1");
  g_states_freed = 0;
  int64_t a = wo_spawn(make_counted_counter(), &kCounterActor, &kSite);
  wo_time_after(5, a, make_msg(7, "t"), &kMsg, &kSite);
  wo_release(reinterpret_cast<void*>(a));
  CHECK(g_states_freed == 0);
  for (int i = 0; i < 200 && g_states_freed == 0; ++i) wo_time_sleep(1, &kSite);
  CHECK(g_log == std::vector<std::string>{"7:t"});
  CHECK(g_states_freed == 1);
}

TEST_CASE("collect: a shell is reused by the next spawn; a stale Collect for its old life does nothing") {
  Env env("1");
  g_states_freed = 0;
  int64_t a = wo_spawn(make_counted_counter(), &kCounterActor, &kSite);
  wo::sched::Actor* shell = wo::sched::ref_actor(a);
  uint64_t life = shell->life.load();
  wo_release(reinterpret_cast<void*>(a));
  CHECK(g_states_freed == 1);
  int64_t b = wo_spawn(make_counted_counter(), &kCounterActor, &kSite);
  CHECK(wo::sched::ref_actor(b) == shell);
  wo::sched::collect_item(shell, life);  // as if posted before the reuse
  CHECK(g_states_freed == 1);
  CHECK(wo_call(b, make_msg(4, "d"), &kMsg, &kSite) == 4);
  wo_release(reinterpret_cast<void*>(b));
  CHECK(g_states_freed == 2);
}

namespace {
// `class Me { me: ?actor Msg, total: Int }` with a counted destroy.
struct MeState {
  WoHeader h;
  int64_t me;     // an address handle
  int64_t total;
};
void me_destroy(void* self) {
  ++g_states_freed;
  wo_release(reinterpret_cast<void*>(static_cast<MeState*>(self)->me));
}
const WoTypeDesc kAddrNullable{WO_TY_NULLABLE, &kActorAddr, nullptr, nullptr, 0, nullptr};
const WoFieldDesc kMeFields[] = {{"me", &kAddrNullable, offsetof(MeState, me)}, {"total", &kInt, offsetof(MeState, total)}};
const WoClassDesc kMeClass{"Me", sizeof(MeState), me_destroy, 2, kMeFields};
const WoTypeDesc kMeDesc{WO_TY_CLASS, nullptr, nullptr, &kMeClass, 0, nullptr};
uint64_t me_receive(void* state, uint64_t word) {
  auto* m = reinterpret_cast<Msg*>(word);
  static_cast<MeState*>(state)->total += m->n;
  return static_cast<uint64_t>(static_cast<MeState*>(state)->total);
}
const WoActorType kMeActor{"Me", me_receive, &kMeDesc, &kMsg, 0};
}  // namespace

TEST_CASE("collect: an actor named only by its own me field is freed, also when main shared that handle first") {
  Env env("1");
  g_states_freed = 0;
  {  // the field holds the handle alone: freed when main's own handle goes
    auto* st = static_cast<MeState*>(wo_alloc(sizeof(MeState), me_destroy));
    int64_t a = wo_spawn(st, &kMeActor, &kSite);
    auto* copy = static_cast<int64_t*>(wo_deep_copy(reinterpret_cast<void*>(a), &kActorAddr));  // a handle of its own
    st->me = reinterpret_cast<int64_t>(copy);
    CHECK(wo_call(a, make_msg(1), &kMsg, &kSite) == 1);
    wo_release(reinterpret_cast<void*>(a));
    CHECK(g_states_freed == 1);
  }
  {  // the field shares main's handle (what `call(s, Intro { me: s })` leaves on one shard)
    auto* st = static_cast<MeState*>(wo_alloc(sizeof(MeState), me_destroy));
    int64_t a = wo_spawn(st, &kMeActor, &kSite);
    wo_retain(reinterpret_cast<void*>(a));
    st->me = a;
    CHECK(wo_call(a, make_msg(2), &kMsg, &kSite) == 2);
    wo_release(reinterpret_cast<void*>(a));  // the handle's count falls to 1; the actor's stays 1
    for (int i = 0; i < 200 && g_states_freed < 2; ++i) wo_time_sleep(1, &kSite);  // the shard idles: re-checked
    CHECK(g_states_freed == 2);
  }
}
