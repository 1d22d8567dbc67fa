// Actor typing (language.md §7.9, §14; sema/actors.cpp): the codes and their
// exact positions for WO-E221, E222, E226, E111 and the moves of messages
// (E301/E305); the corpus (corpus/compile-fail/actor-lang-*) checks codes only.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sema/program_info.h"
#include "tests/sema/analyze_support.h"

namespace {

std::vector<std::string> check(const std::string& src) { return wo_test::diag_positions(src, "wo-sema-actors-test"); }
using V = std::vector<std::string>;

// Lines 1-10: a message, an actor that replies Int, a quiet one.
const std::string kActors =
    "class Job {\n"                                   // 1
    "  id: Int\n"                                     // 2
    "}\n"                                             // 3
    "class Worker {\n"                                // 4
    "  done: Int\n"                                   // 5
    "  fn receive(msg: Job) -> Int {\n"               // 6
    "    self.done += msg.id\n"                       // 7
    "    return self.done\n"                          // 8
    "  }\n"                                           // 9
    "}\n";                                            // 10

}  // namespace

TEST_CASE("actors: `actor M` and `?actor M` are copyable words: fields, locals, containers, ==, narrowing") {
  CHECK(check(kActors +
              "class Ref {\n  a: ?actor Job\n}\n"
              "fn pick(a: actor Job, b: actor Job) -> actor Job {\n  if a == b { return a }\n  return b\n}\n"
              "fn main() {\n"
              "  let w = spawn Worker { done: 0 }\n"
              "  let w2: actor Job = w\n"
              "  let refs: multi Ref = [Ref { a: w }, Ref { a: nil }]\n"
              "  let o = refs[0].a\n"
              "  if o != nil {\n    let p = pick(o, w2)\n    send(p, Job { id: 1 })\n  }\n"
              "  if w != w2 { print(\"different\") }\n"
              "  print_int(call(w, Job { id: 2 }))\n"
              "}\n")
            .empty());
  // a message type is a class, record or union
  CHECK(check("fn f(a: actor Int) {}\nfn main() {}\n") == V{"WO-E225@1:9"});
  // possibly nil: `?actor M` compared, not used as an operand
  CHECK(check(kActors + "fn f(a: ?actor Job, b: actor Job) -> Bool {\n  return a == b\n}\nfn main() {}\n").empty());
  // an address cannot be stored in a row
  CHECK(check(kActors + "@table\nclass T {\n  a: actor Job\n}\nfn main() {}\n") == V{"WO-E403@13:3"});
}

TEST_CASE("actors: `multi actor M` is a clear syntax error") {
  CHECK(check(kActors + "fn main() {\n  let xs: multi actor Job = []\n}\n") == V{"WO-E101@12:11"});
}

TEST_CASE("actors: WO-E221 — spawn needs `fn receive(msg: M)` with M a class, record or union") {
  CHECK(check("class W {\n  n: Int\n}\nfn main() {\n  let w = spawn W { n: 1 }\n}\n") == V{"WO-E221@5:11"});
  CHECK(check("class W {\n  n: Int\n  fn receive(a: Int, b: Int) {}\n}\nfn main() {\n  let w = spawn W { n: 1 }\n}\n") ==
        V{"WO-E221@6:11"});
  CHECK(check("class W {\n  n: Int\n  static fn receive(m: W) {}\n}\nfn main() {\n  let w = spawn W { n: 1 }\n}\n") ==
        V{"WO-E221@6:11"});
  CHECK(check("class W {\n  n: Int\n  fn receive(m: Text) {}\n}\nfn main() {\n  let w = spawn W { n: 1 }\n}\n") ==
        V{"WO-E221@6:11"});
  // a union message is accepted
  CHECK(check("type Cmd = Inc | Add(n: Int)\nclass W {\n  n: Int\n  fn receive(m: Cmd) {}\n}\n"
              "fn main() {\n  let w: actor Cmd = spawn W { n: 1 }\n  send(w, Add(2))\n  send(w, Inc)\n}\n")
            .empty());
}

TEST_CASE("actors: WO-E222 — a traced class (also one an interface value may hold) in state, message or reply, even unsent") {
  const std::string node = "class Node {\n  next: ?Node\n}\n";  // lines 1-3: traced
  CHECK(check(node + "class S {\n  pad: Int\n  fn receive(m: Node) {}\n}\nfn main() {\n  let s = spawn S { pad: 0 }\n}\n") ==
        V{"WO-E222@9:11"});
  CHECK(check(node + "class M {\n  n: Int\n}\nclass S {\n  ns: multi Node\n  fn receive(m: M) {}\n}\n"
                     "fn main() {\n  let s = spawn S { ns: [] }\n}\n") == V{"WO-E222@12:11"});
  CHECK(check(node + "class M {\n  inner: ?Holder\n}\nclass Holder {\n  n: ?Node\n}\nclass S {\n  pad: Int\n"
                     "  fn receive(m: M) {}\n}\nfn main() {\n  let s = spawn S { pad: 0 }\n}\n") == V{"WO-E222@15:11"});
  // an interface value crosses iff every class satisfying it may (decision 0032)
  const std::string shape = "interface Shape {\n  fn area() -> Int\n}\nclass M {\n  s: Shape\n}\nclass S {\n  pad: Int\n"
                            "  fn receive(m: M) {}\n}\nfn main() {\n  let s = spawn S { pad: 0 }\n}\n";
  CHECK(check(shape).empty());
  CHECK(check(shape + "class Ring {\n  next: ?Ring\n  fn area() -> Int {\n    return 1\n  }\n}\n") ==
        V{"WO-E222@12:11"});
  // a message sent to an address of a traced type, with no spawn in sight
  CHECK(check(node + "fn f(a: actor Node) {\n  send(a, Node { next: nil })\n}\nfn main() {}\n") == V{"WO-E222@5:11"});
}

TEST_CASE("actors: WO-E226 — the program-wide reply table, at the call") {
  const std::string ping = "class Ping {\n  n: Int\n}\n";  // lines 1-3
  // receive returns nothing
  CHECK(check(ping + "class Q {\n  pad: Int\n  fn receive(m: Ping) {}\n}\n"
                     "fn main() {\n  let q = spawn Q { pad: 0 }\n  let r = call(q, Ping { n: 1 })\n}\n") ==
        V{"WO-E226@10:11"});
  // two receives disagree (and nothing is wrong without a call)
  const std::string two = ping + "class A {\n  pad: Int\n  fn receive(m: Ping) -> Int {\n    return 1\n  }\n}\n"
                                 "class B {\n  pad: Int\n  fn receive(m: Ping) -> Bool {\n    return true\n  }\n}\n";
  CHECK(check(two + "fn main() {\n  let a = spawn A { pad: 0 }\n  let r = call(a, Ping { n: 1 })\n}\n") ==
        V{"WO-E226@18:11"});
  CHECK(check(two + "fn main() {\n  let a = spawn A { pad: 0 }\n  send(a, Ping { n: 1 })\n}\n").empty());
  // a reply that is not a copyable scalar
  CHECK(check(ping + "class T {\n  pad: Int\n  fn receive(m: Ping) -> Text {\n    return \"x\"\n  }\n}\n"
                     "fn main() {\n  let t = spawn T { pad: 0 }\n  let r = call(t, Ping { n: 1 })\n}\n") ==
        V{"WO-E226@12:11"});
  // every scalar reply is fine: Float, an address, a row
  CHECK(check(ping + "class F {\n  pad: Int\n  fn receive(m: Ping) -> Float {\n    return 1.5\n  }\n}\n"
                     "fn main() {\n  let f = spawn F { pad: 0 }\n  let r: Float = call(f, Ping { n: 1 })\n}\n")
            .empty());
  // across modules: covered by corpus/compile-fail/actor-lang-e226-modules
}

TEST_CASE("actors: WO-E111 — actor operations and time.sleep inside `transaction { }`") {
  CHECK(check("use time\n" + kActors +
              "fn main() {\n  let w = spawn Worker { done: 0 }\n  transaction {\n"
              "    send(w, Job { id: 1 })\n"                   // 15
              "    let r = call(w, Job { id: 1 })\n"           // 16
              "    monitor(w, w, Job { id: 1 })\n"             // 17
              "    time.after(5, w, Job { id: 1 })\n"          // 18
              "    time.sleep(1)\n"                            // 19
              "  }\n}\n") == V{"WO-E111@15:5", "WO-E111@16:13", "WO-E111@17:5", "WO-E111@18:5", "WO-E111@19:5"});
  // after the block, and in a function the block calls, they are fine (a trap at run time there)
  CHECK(check("use time\n" + kActors +
              "fn later(w: actor Job) {\n  send(w, Job { id: 1 })\n}\n"
              "fn main() {\n  let w = spawn Worker { done: 0 }\n  transaction {\n    later(w)\n  }\n  time.sleep(1)\n}\n")
            .empty());
}

TEST_CASE("actors: messages move — WO-E301 after send/call/monitor/time.after, WO-E305 for a part") {
  const std::string head = kActors + "class Box {\n  j: Job\n}\n";  // 13 lines
  auto after = [&](const std::string& op, const std::string& use = "") {
    return check(use + head + "fn main() {\n  let w = spawn Worker { done: 0 }\n  let j = Job { id: 1 }\n  " + op +
                 "\n  print_int(j.id)\n}\n");
  };
  CHECK(after("send(w, j)") == V{"WO-E301@18:13"});
  CHECK(after("let r = call(w, j)") == V{"WO-E301@18:13"});
  CHECK(after("monitor(w, w, j)") == V{"WO-E301@18:13"});
  CHECK(after("time.after(10, w, j)", "use time\n") == V{"WO-E301@19:13"});
  CHECK(check(head + "fn main() {\n  let w = spawn Worker { done: 0 }\n  let b = Box { j: Job { id: 1 } }\n"
                     "  send(w, b.j)\n}\n") == V{"WO-E305@17:11"});
  // the spawned state's fields move in like a constructor literal's
  CHECK(check(kActors + "class Keep {\n  jobs: multi Job\n  fn receive(m: Job) {}\n}\n"
                        "fn main() {\n  let js: multi Job = []\n  let k = spawn Keep { jobs: js }\n  print_int(len(js))\n}\n") ==
        V{"WO-E301@18:17"});
}

TEST_CASE("actors: the address and message arguments are checked") {
  CHECK(check(kActors + "fn main() {\n  send(1, Job { id: 1 })\n}\n") == V{"WO-E209@12:8"});
  CHECK(check(kActors + "fn main() {\n  send(nil, Job { id: 1 })\n}\n") == V{"WO-E212@12:8"});
  CHECK(check(kActors + "fn main() {\n  let w = spawn Worker { done: 0 }\n  send(w, 5)\n}\n") == V{"WO-E201@13:11"});
  CHECK(check(kActors + "fn main() {\n  let w = spawn Worker { done: 0 }\n  send(w)\n}\n") == V{"WO-E209@13:3"});
  // monitor's notice is the observer's message type
  CHECK(check(kActors + "class Died {\n  who: Text\n}\nclass Sup {\n  n: Int\n  fn receive(m: Died) {}\n}\n"
                        "fn main() {\n  let w = spawn Worker { done: 0 }\n  let s = spawn Sup { n: 0 }\n"
                        "  monitor(w, s, Died { who: \"w\" })\n  monitor(w, s, Job { id: 1 })\n}\n") ==
        V{"WO-E201@22:17"});
}
