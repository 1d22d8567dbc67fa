// proc.run / proc.run_dl (builtins.md §9).
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <string>
#include <vector>

#include "support.h"

using namespace wotest;

namespace {

const WoSite kSite{"spawn", 77, nullptr, 0};

WoList* args_of(const std::vector<std::string>& v) {
  WoList* xs = wo_list_new(WO_ELEM_TEXT, 0);
  for (auto& s : v) wo_list_push(xs, pslot(text(s)));
  return xs;
}

WoProc* run(const std::string& cmd, const std::vector<std::string>& args) {
  OText c(text(cmd));
  OList a(args_of(args));
  return wo_proc_run(c, a, &kSite);
}

WoProc* run_dl(const std::string& cmd, const std::vector<std::string>& args, int64_t ms, int64_t out_cap,
               int64_t err_cap) {
  OText c(text(cmd));
  OList a(args_of(args));
  return wo_proc_run_dl(c, a, ms, out_cap, err_cap, &kSite);
}

}  // namespace

TEST_CASE("proc.run: stdout, stderr and the exit status; PATH lookup") {
  Owned<WoProc> p(run("echo", {"hello", "world"}));
  REQUIRE(p.get());
  CHECK(p->code == 0);
  CHECK(str(p->out) == "hello world\n");
  CHECK(str(p->err) == "");
  Owned<WoProc> q(run("sh", {"-c", "printf out; printf err >&2; exit 3"}));
  CHECK(q->code == 3);
  CHECK(str(q->out) == "out");
  CHECK(str(q->err) == "err");
  Owned<WoProc> abs(run("/bin/sh", {"-c", "exit 255"}));
  CHECK(abs->code == 255);
}

TEST_CASE("proc.run: arguments pass through untouched (no shell)") {
  Owned<WoProc> p(run("printf", {"%s|", "a b", "$HOME", "*", ""}));
  CHECK(str(p->out) == "a b|$HOME|*||");
}

TEST_CASE("proc.run: stdin is /dev/null") {
  Owned<WoProc> p(run("cat", {}));
  CHECK(p->code == 0);
  CHECK(str(p->out) == "");
}

TEST_CASE("proc.run: exec failure is code 127; death by a signal is -1") {
  Owned<WoProc> p(run("wo-no-such-command-xyz", {}));
  REQUIRE(p.get());
  CHECK(p->code == 127);
  CHECK(str(p->out) == "");
  Owned<WoProc> e(run("", {}));
  CHECK(e->code == 127);
  Owned<WoProc> k(run("sh", {"-c", "kill -9 $$"}));
  CHECK(k->code == -1);
  Owned<WoProc> pipe(run("sh", {"-c", "kill -PIPE $$"}));  // SIGPIPE default in the child
  CHECK(pipe->code == -1);
}

TEST_CASE("proc.run: large outputs within the caps are captured whole") {
  Owned<WoProc> p(run("head", {"-c", "1048576", "/dev/zero"}));  // exactly 1 MiB: at the cap
  CHECK(p->code == 0);
  CHECK(p->out->len == 1048576);
  Owned<WoProc> q(run("sh", {"-c", "head -c 65536 /dev/zero >&2; head -c 5000 /dev/zero"}));
  CHECK(q->err->len == 65536);
  CHECK(q->out->len == 5000);
}

TEST_CASE("proc.run: exceeding a cap kills the child and traps IO naming the bound") {
  wo::Trap t = trapped([] { Owned<WoProc> p(run("head", {"-c", "1048577", "/dev/zero"})); });
  CHECK(t.code == 9);
  CHECK(t.msg == "proc.run: stdout exceeds 1048576 bytes");
  CHECK(t.method == "spawn");
  CHECK(t.line == 77);
  wo::Trap e = trapped([] { Owned<WoProc> p(run("sh", {"-c", "head -c 70000 /dev/zero >&2"})); });
  CHECK(e.msg == "proc.run: stderr exceeds 65536 bytes");
  int64_t t0 = wo_time_ticks();
  wo::Trap y = trapped([] { Owned<WoProc> p(run_dl("yes", {}, 0, 100, 0)); });
  CHECK(y.code == 9);
  CHECK(y.msg == "proc.run_dl: stdout exceeds 100 bytes");
  CHECK(wo_time_ticks() - t0 < 5000000);
}

TEST_CASE("proc.run_dl: a missed deadline kills the child and is nil") {
  int64_t t0 = wo_time_ticks();
  WoProc* p = run_dl("sleep", {"10"}, 150, 0, 0);
  int64_t took = wo_time_ticks() - t0;
  CHECK(p == nullptr);
  CHECK(took >= 150000);
  CHECK(took < 3000000);
  // a child that closes its pipes but keeps running is still bounded
  t0 = wo_time_ticks();
  CHECK(run_dl("sh", {"-c", "exec >&- 2>&-; sleep 10"}, 150, 0, 0) == nullptr);
  CHECK(wo_time_ticks() - t0 < 3000000);
  Owned<WoProc> ok(run_dl("echo", {"in time"}, 5000, 0, 0));
  REQUIRE(ok.get());
  CHECK(str(ok->out) == "in time\n");
}

TEST_CASE("proc.run: argument limits trap BOUNDS") {
  std::vector<std::string> many(63, "x");
  wo::Trap t = trapped([&] { Owned<WoProc> p(run("echo", many)); });
  CHECK(t.code == 6);
  CHECK(t.msg == "proc.run: more than 62 arguments");
  std::vector<std::string> ok(62, "x");
  Owned<WoProc> p(run("echo", ok));
  CHECK(p->out->len == 62 * 2);
  wo::Trap l = trapped([&] { Owned<WoProc> q(run("echo", {std::string(512, 'a')})); });
  CHECK(l.msg == "proc.run: argument of 512 bytes or more");
  Owned<WoProc> q(run("echo", {std::string(511, 'a')}));
  CHECK(q->out->len == 512);
  OText c(text("echo"));
  OList a(wo_list_new(WO_ELEM_TEXT, 0));
  wo_list_push(a, pslot(wo_text_new("a\0b", 3)));
  CHECK(trapped([&] { wo_proc_run(c, a, &kSite); }).msg == "proc.run: argument holds a NUL byte");
  CHECK(trapped([&] { wo_proc_run(nullptr, a, &kSite); }).msg == "null receiver");
}

TEST_CASE("a stop during the wait: proc.run_dl returns nil, proc.run exits 0 (latch armed)") {
  for (bool dl : {true, false}) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      wo_env_stopping();
      WoProc* p = dl ? run_dl("sleep", {"20"}, 30000, 0, 0) : run("sleep", {"20"});
      _exit(p == nullptr ? 5 : 6);
    }
    usleep(300000);
    int64_t t0 = wo_time_ticks();
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == (dl ? 5 : 0));
    CHECK(wo_time_ticks() - t0 < 5000000);
  }
}
