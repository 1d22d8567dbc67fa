// time.* and env.* (builtins.md §8), parse_int (§3).
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstddef>
#include <cstdlib>
#include <ctime>
#include <string>

#include "support.h"

using namespace wotest;

namespace {

const WoSite kSite{"clock", 5, nullptr, 0};

std::string iso(int64_t ms) {
  OText t(wo_time_iso(ms));
  return str(t);
}

int64_t parse(std::string_view s) {
  OText t(text(s));
  return wo_parse_int(t);
}

// Runs f() with TZ set to `tz`, restoring the previous value after.
template <class F>
void with_tz(const char* tz, F f) {
  const char* old = std::getenv("TZ");
  std::string saved = old ? old : "";
  setenv("TZ", tz, 1);
  tzset();
  f();
  if (old)
    setenv("TZ", saved.c_str(), 1);
  else
    unsetenv("TZ");
  tzset();
}

}  // namespace

TEST_CASE("parse_int: whitespace, sign, digits up to the first non-digit; nil otherwise") {
  CHECK(parse("12px") == 12);
  CHECK(parse("  -7") == -7);
  CHECK(parse("\t\r\n 5") == 5);
  CHECK(parse("+5") == 5);
  CHECK(parse("0") == 0);
  CHECK(parse("-0") == 0);
  CHECK(parse("007") == 7);
  CHECK(parse("3.9") == 3);
  CHECK(parse(" 19 apples") == 19);
  CHECK(parse("abc") == WO_NIL_SCALAR);
  CHECK(parse("") == WO_NIL_SCALAR);
  CHECK(parse("-") == WO_NIL_SCALAR);
  CHECK(parse("+") == WO_NIL_SCALAR);
  CHECK(parse("- 3") == WO_NIL_SCALAR);
  CHECK(parse("x1") == WO_NIL_SCALAR);
  CHECK(parse("\v5") == WO_NIL_SCALAR);  // only space, tab, LF, CR are whitespace
  CHECK(parse("9223372036854775807") == INT64_MAX);
  CHECK(parse("-9223372036854775808") == INT64_MIN);
  CHECK(parse("9223372036854775808") == WO_NIL_SCALAR);  // overflow is nil
  CHECK(parse("-9223372036854775809") == WO_NIL_SCALAR);
  CHECK(parse("99999999999999999999px") == WO_NIL_SCALAR);
  CHECK(parse("00000000000000000000000012") == 12);  // leading zeros never overflow
  CHECK(trapped([] { wo_parse_int(nullptr); }).msg == "null receiver");
}

TEST_CASE("time.now is wall-clock ms; time.ticks is monotonic µs") {
  int64_t a = wo_now();
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  CHECK(std::llabs(a - (static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000)) < 1000);
  int64_t t0 = wo_time_ticks();
  CHECK(t0 > 0);
  int64_t t1 = wo_time_ticks();
  CHECK(t1 >= t0);
  clock_gettime(CLOCK_MONOTONIC, &ts);
  CHECK(std::llabs(t1 - (static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000)) < 1000000);
}

TEST_CASE("time.sleep waits at least ms; <= 0 returns at once") {
  int64_t t0 = wo_time_ticks();
  wo_time_sleep(30, nullptr);
  int64_t waited = wo_time_ticks() - t0;
  CHECK(waited >= 30000);
  CHECK(waited < 2000000);
  t0 = wo_time_ticks();
  wo_time_sleep(0, nullptr);
  wo_time_sleep(-5, nullptr);
  wo_time_sleep(INT64_MIN, nullptr);
  CHECK(wo_time_ticks() - t0 < 10000);
}

TEST_CASE("time.iso: UTC, second precision, YYYY-MM-DDTHH:MM:SSZ") {
  CHECK(iso(0) == "1970-01-01T00:00:00Z");
  CHECK(iso(999) == "1970-01-01T00:00:00Z");
  CHECK(iso(1700000000000) == "2023-11-14T22:13:20Z");
  CHECK(iso(1700000000999) == "2023-11-14T22:13:20Z");
  CHECK(iso(-1) == "1969-12-31T23:59:59Z");  // rounded toward the past
  CHECK(iso(-1000) == "1969-12-31T23:59:59Z");
  CHECK(iso(-1001) == "1969-12-31T23:59:58Z");
  CHECK(iso(951782400000) == "2000-02-29T00:00:00Z");
  CHECK(iso(1709208000000) == "2024-02-29T12:00:00Z");
  CHECK(iso(4102444800000) == "2100-01-01T00:00:00Z");
  CHECK(iso(253402300799999) == "9999-12-31T23:59:59Z");
  CHECK(iso(253402300800000) == "10000-01-01T00:00:00Z");
  CHECK(iso(-62135596800000) == "0001-01-01T00:00:00Z");
  CHECK(iso(-62135596800001) == "0000-12-31T23:59:59Z");
  CHECK(iso(-62167219200001) == "-0001-12-31T23:59:59Z");
  CHECK(iso(INT64_MAX) == "292278994-08-17T07:12:55Z");
  CHECK(iso(INT64_MIN) == "-292275055-05-16T16:47:04Z");
}

TEST_CASE("time.local: the breakdown in the local zone, dow 0 = Sunday") {
  with_tz("UTC0", [] {
    Owned<WoTimeParts> p(wo_time_local(1700000000000, &kSite));
    CHECK(p->year == 2023);
    CHECK(p->month == 11);
    CHECK(p->day == 14);
    CHECK(p->hour == 22);
    CHECK(p->minute == 13);
    CHECK(p->second == 20);
    CHECK(p->dow == 2);  // a Tuesday
    Owned<WoTimeParts> e(wo_time_local(-1, &kSite));
    CHECK(e->year == 1969);
    CHECK(e->month == 12);
    CHECK(e->day == 31);
    CHECK(e->second == 59);
    CHECK(e->dow == 3);
  });
  with_tz("EST5", [] {
    Owned<WoTimeParts> p(wo_time_local(1700000000000, &kSite));
    CHECK(p->hour == 17);
    CHECK(p->day == 14);
  });
  with_tz("UTC0", [] {
    Owned<WoTimeParts> p(wo_time_local(0, &kSite));
    CHECK(p->dow == 4);  // 1970-01-01 was a Thursday
  });
}

TEST_CASE("time.local: every int64 ms has a breakdown (years beyond 9999 and before 0)") {
  // localtime_r fails only past an `int` of years, which no int64 ms reaches;
  // the BOUNDS trap of the spec is kept for a C library that does fail.
  with_tz("UTC0", [] {
    Owned<WoTimeParts> hi(wo_time_local(INT64_MAX, &kSite));
    CHECK(hi->year == 292278994);
    CHECK(hi->month == 8);
    CHECK(hi->day == 17);
    Owned<WoTimeParts> lo(wo_time_local(INT64_MIN, &kSite));
    CHECK(lo->year == -292275055);
    CHECK(lo->second == 4);
  });
}

TEST_CASE("the TimeParts record layout is the header then seven int64 slots") {
  CHECK(sizeof(WoTimeParts) == sizeof(WoHeader) + 7 * 8);
  CHECK(offsetof(WoTimeParts, year) == 16);
  CHECK(offsetof(WoTimeParts, dow) == 16 + 6 * 8);
  CHECK(sizeof(WoStat) == 16 + 4 * 8);
  CHECK(offsetof(WoStat, dir) == 16 + 3 * 8);
  CHECK(sizeof(WoProc) == 16 + 3 * 8);
  CHECK(offsetof(WoProc, err) == 16 + 2 * 8);
}

TEST_CASE("env.get: the value, \"\" for an empty one, nil when unset") {
  setenv("WO_RT_TEST_VAR", "v a=l", 1);
  setenv("WO_RT_TEST_EMPTY", "", 1);
  unsetenv("WO_RT_TEST_UNSET");
  OText n1(text("WO_RT_TEST_VAR")), n2(text("WO_RT_TEST_EMPTY")), n3(text("WO_RT_TEST_UNSET"));
  OText v1(wo_env_get(n1)), v2(wo_env_get(n2)), v3(wo_env_get(n3));
  REQUIRE(v1.get());
  CHECK(str(v1) == "v a=l");
  REQUIRE(v2.get());
  CHECK(str(v2) == "");
  CHECK(v3.get() == nullptr);
  OText empty(text("")), with_nul(wo_text_new("WO_RT_TEST_VAR\0x", 16));
  CHECK(wo_env_get(empty) == nullptr);
  CHECK(wo_env_get(with_nul) == nullptr);
  unsetenv("WO_RT_TEST_VAR");
  unsetenv("WO_RT_TEST_EMPTY");
}

// The stop latch is process-wide and ends the process: exercised in children.
TEST_CASE("env.stopping: false until SIGTERM/SIGINT, then true; arms the handlers") {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int code = 0;
    if (wo_env_stopping()) code |= 1;  // first call: nothing arrived yet
    raise(SIGINT);                      // handled now: the process survives
    if (!wo_env_stopping()) code |= 2;
    _exit(code + 40);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 40);
}

TEST_CASE("a stop during time.sleep ends the program with status 0 once armed") {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    wo_env_stopping();
    wo_time_sleep(20000, nullptr);
    _exit(7);  // not reached
  }
  usleep(200000);
  int64_t t0 = wo_time_ticks();
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(wo_time_ticks() - t0 < 5000000);
}

TEST_CASE("without the latch, SIGTERM keeps its default action") {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    signal(SIGTERM, SIG_DFL);  // the test runner installs its own handler
    wo_time_sleep(20000, nullptr);
    _exit(7);
  }
  usleep(100000);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
}
