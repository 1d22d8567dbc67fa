// wo_start: exit status masking, the args list, and the uncaught-trap line.
#include <doctest/doctest.h>

#include <csignal>
#include <new>
#include <string>
#include <vector>

#include "support.h"

using namespace wotest;

namespace {

int64_t returned = 0;
std::vector<std::string> seen_args;

int64_t return_value(WoList*) { return returned; }

int64_t record_args(WoList* args) {
  seen_args = texts(args);
  return 0;
}

int64_t trap_in_ratio(WoList*) {
  static const WoSite site{"ratio", 2, nullptr, 0};
  wo_print(OText(text("before")));
  wo_trap(1, &site);
}

int64_t trap_with_message(WoList*) {
  static const WoSite site{"lookup", 12, nullptr, 0};
  wo_trap_msg(7, &site, "missing map key");
}

int64_t throw_bad_alloc(WoList*) { throw std::bad_alloc(); }

int start(WoEntry entry, std::vector<const char*> argv) {
  return wo_start(static_cast<int>(argv.size()), const_cast<char**>(argv.data()), entry);
}

}  // namespace

TEST_CASE("exit status is the low byte of main's result") {
  auto status_for = [](int64_t r) {
    returned = r;
    return start(return_value, {"prog"});
  };
  CHECK(status_for(0) == 0);
  CHECK(status_for(42) == 42);
  CHECK(status_for(255) == 255);
  CHECK(status_for(256) == 0);
  CHECK(status_for(-1) == 255);
  CHECK(status_for(257) == 1);
  CHECK(status_for(INT64_MIN) == 0);
}

TEST_CASE("args holds argv[1..], the program path excluded") {
  CHECK(start(record_args, {"./prog", "alpha", "", "b c"}) == 0);
  CHECK(seen_args == std::vector<std::string>{"alpha", "", "b c"});
  CHECK(start(record_args, {"./prog"}) == 0);
  CHECK(seen_args.empty());
}

TEST_CASE("an uncaught trap prints exactly one stderr line and exits 1") {
  int status = -1;
  std::string out;
  std::string err = capture_fd(2, [&] { out = capture_fd(1, [&] { status = start(trap_in_ratio, {"p"}); }); });
  CHECK(status == 1);
  CHECK(err == "trap 1 in ratio at line 2: division by zero\n");
  CHECK(out == "before\n");

  err = capture_fd(2, [&] { status = start(trap_with_message, {"p"}); });
  CHECK(status == 1);
  CHECK(err == "trap 7 in lookup at line 12: missing map key\n");
}

TEST_CASE("an uncaught std::bad_alloc is reported as the OOM trap") {
  int status = -1;
  std::string err = capture_fd(2, [&] { status = start(throw_bad_alloc, {"p"}); });
  CHECK(status == 1);
  CHECK(err == "trap 4 in ? at line 0: out of memory\n");
}

TEST_CASE("wo_start ignores SIGPIPE") {
  returned = 0;
  start(return_value, {"p"});
  struct sigaction sa {};
  sigaction(SIGPIPE, nullptr, &sa);
  bool ignored = sa.sa_handler == SIG_IGN;
  CHECK(ignored);
}
